"""Spellfire for three to six seats: whose realm to attack, windows offered to every
other player, events from outside the battle, the ranking, the Rule of the Cosmos
across all players, the default decks."""

from __future__ import annotations

import pytest
from spellfire_kit import S, ev, match  # noqa: F401  (pytest fixtures)

from battlehall.engine import get_ruleset
from battlehall.engine.errors import SetupError
from battlehall.engine.spellfire.game import DEFAULT_DECKS
from battlehall.engine.spellfire.zones import all_card_ids

ATTACK = {"seat": "alice", "phase": "attack"}
BOB = {"A": "ironbridge", "B": "hollowmere", "C": "mistveil-hamlet"}


def test_the_attacker_chooses_among_every_opponent(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"], formation={"A": "emberhold"}), bob=S(formation=BOB),
              carol=S(formation={"A": "gallowfen"}, pool=["grey-warden-tamsin"]),
              dave=S(formation={"A": {"realm": "ravencrag", "razed": True}}),
              turn=ATTACK)
    # every other seat's exposed, unrazed realms; never one's own
    assert m.prompt["kind"] == "choose_realm"
    assert m.option_ids() == ["ironbridge", "gallowfen", "end"]
    events = m.answer("gallowfen")
    assert ev.find(events, "battle_started")[0]["defender"] == "carol"
    m.answer("torvald-ironhand")
    assert m.prompt["kind"] == "choose_defender" and m.prompt["seat"] == "carol"
    assert m.option_ids() == ["grey-warden-tamsin", "decline"]


def test_turns_go_round_by_seat(match, S, ev):
    m = match(carol=S(), dave=S(), turn={"seat": "carol", "phase": "attack", "number": 3})
    events = m.answer("end")
    assert ev.find(events, "turn_started") == [{"seat": "dave", "number": 4}]
    m.until("choose_realm", "done")
    events = m.answer("end")
    assert ev.find(events, "turn_started") == [{"seat": "alice", "number": 5}]


def battle_f(match, S, carol_hand=(), dave_hand=("thornvale",)):
    """alice (Torvald, 7) attacks bob (Tamsin 6 + 2 + 1 = 9); carol and dave watch."""
    m = match(alice=S(pool=["torvald-ironhand"], hand=["hillfolk-skirmishers"], draw=["thornvale"]),
              bob=S(formation=BOB, pool=["grey-warden-tamsin"], hand=["sudden-rout"], draw=["ravencrag"]),
              carol=S(hand=list(carol_hand), draw=["gallowfen"]), dave=S(hand=list(dave_hand)), turn=ATTACK)
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    m.answer("grey-warden-tamsin")
    m.answer("hillfolk-skirmishers")  # 9 against 9: a window for everyone but alice
    return m


def test_a_card_played_opens_a_window_for_every_other_player(match, S):
    m = battle_f(match, S, carol_hand=["rallying-cry", "windfall", "arcane-veil"])
    window = m.window()
    assert sorted(window) == ["bob", "carol", "dave"]
    assert {p["kind"] for p in window.values()} == {"respond"}
    assert len({p["window"] for p in window.values()}) == 1
    cards = m.state["cards"]
    # outside the battle only events; one that helps a side names the side
    carol = {cards.get(o["id"], o["id"]): o.get("args") for o in window["carol"]["options"]}
    assert carol == {"rallying-cry": {"side": ["attacker", "defender"]}, "windfall": None, "pass": None}
    # dave holds nothing to play and is asked all the same: being asked tells nothing
    assert [o["id"] for o in window["dave"]["options"]] == ["pass"]
    assert [cards.get(o["id"], o["id"]) for o in window["bob"]["options"]] == ["sudden-rout", "pass"]


def test_a_third_player_answers_a_window(match, S, ev):
    m = battle_f(match, S, carol_hand=["rallying-cry"])
    bob_prompt = m.window()["bob"]["id"]
    events = m.answer_as("bob", "pass")
    assert ev.find(events, "prompt_closed") == [{"id": bob_prompt, "seat": "bob", "reason": "answered"}]
    assert ev.kinds(events) == ["prompt_closed"]  # nothing else happens until the window is done
    assert sorted(m.window()) == ["carol", "dave"]  # the others' prompts stay open
    events = m.answer_as("carol", "rallying-cry", side="attacker")
    # dave's prompt is cancelled; the card is carol's, played for alice's side
    closed = ev.find(events, "prompt_closed")
    assert [(c["seat"], c["reason"]) for c in closed] == [("carol", "answered"), ("dave", "cancelled")]
    played = ev.find(events, "card_played")[0]
    assert played["seat"] == "carol" and played["side"] == "attacker"
    assert played["totals"] == {"attacker": 11, "defender": 9}
    # the next window: everyone but carol
    assert sorted(m.window()) == ["alice", "bob", "dave"]
    for seat in ("alice", "bob", "dave"):
        m.answer_as(seat, "pass")
    assert m.prompt["kind"] == "battle_play" and m.prompt["seat"] == "bob"  # 9 against 11
    events = m.answer("stop")
    assert ev.find(events, "round_ended")[0]["winner"] == "attacker"
    assert ev.find(events, "realm_razed")[0]["seat"] == "bob"
    # round over: each played card goes to its owner's discard pile
    assert m.zone("carol", "discard") == ["rallying-cry"]
    assert m.zone("alice", "discard") == ["hillfolk-skirmishers"]
    assert m.zone("alice", "pool") == ["torvald-ironhand"]
    assert sorted(all_card_ids(m.state)) == sorted(m.state["cards"])


def test_an_event_from_outside_the_battle_razes_the_realm(match, S, ev):
    m = battle_f(match, S, carol_hand=["earthrend"])
    events = m.answer_as("carol", "earthrend")
    assert ev.find(events, "card_played")[0]["side"] is None
    assert sorted(m.window()) == ["alice", "bob", "dave"]  # the window after the card that ends the battle
    events = pass_all(m)
    assert ev.find(events, "realm_razed")[0]["how"] == "card"
    assert ev.find(events, "cards_drawn")[0]["seat"] == "alice"  # the attacker's spoils
    assert m.zone("carol", "discard") == ["earthrend"]
    assert m.prompt["kind"] == "spoils" and m.prompt["seat"] == "alice"


def pass_all(m) -> list[dict]:
    """Every seat of the open window passes; the events of the last pass."""
    events = []
    for seat in sorted(m.window()):
        events = m.answer_as(seat, "pass")
    return events


def test_windfall_from_outside_draws_for_its_player(match, S, ev):
    m = battle_f(match, S, carol_hand=["windfall"])
    events = m.answer_as("carol", "windfall")
    drawn = ev.find(events, "cards_drawn")[0]
    assert drawn["seat"] == "carol" and drawn["count"] == 1
    assert m.zone("carol", "hand") == ["gallowfen"]


def test_when_the_whole_window_passes_the_side_behind_plays(match, S):
    m = battle_f(match, S)
    for seat in ("bob", "carol", "dave"):
        assert m.state["prompts"][0]["kind"] == "respond"
        m.answer_as(seat, "pass")
    assert m.prompt["kind"] == "battle_play" and m.prompt["seat"] == "alice"


def test_rule_of_the_cosmos_across_every_player(match, S):
    m = match(alice=S(hand=["torvald-ironhand", "emberhold", "thornvale", "sister-orla"]),
              bob=S(), carol=S(pool=["torvald-ironhand"]), dave=S(formation={"A": {"realm": "emberhold", "razed": True}}),
              turn={"seat": "alice", "phase": "realm"})
    assert m.option_ids() == ["thornvale", "done"]  # emberhold is in dave's formation (razed counts)
    m.answer("done")
    assert m.option_ids() == ["sister-orla", "done"]  # torvald is in carol's pool
    with pytest.raises(SetupError) as err:
        match(carol=S(pool=["torvald-ironhand"]), dave=S(pool=["torvald-ironhand"]))
    assert err.value.path == "setup.players.dave.pool[0].champion"


def result_at_turn_limit(match, S, counts):
    names = ["alice", "bob", "carol", "dave"]
    realms = iter(["emberhold", "thornvale", "amberfield", "ironbridge", "hollowmere", "gallowfen", "ravencrag"])
    seats = {n: S(formation={s: next(realms) for s in "ABCDEF"[:c]}) for n, c in zip(names, counts)}
    m = match(**seats, turn={"seat": "alice", "phase": "attack", "number": 8}, options={"turn_limit": 8})
    m.answer("end")
    return m.state["result"]


def test_ranking_at_the_turn_limit(match, S):
    result = result_at_turn_limit(match, S, [1, 3, 1, 0])
    assert result["winners"] == ["bob"] and result["winner"] == "bob" and not result["draw"]
    assert result["ranking"] == [["bob"], ["alice", "carol"], ["dave"]]
    assert result["reason"] == "turn_limit" and result["realms"] == {"alice": 1, "bob": 3, "carol": 1, "dave": 0}


def test_several_with_the_most_realms_are_a_draw(match, S):
    result = result_at_turn_limit(match, S, [2, 0, 2, 1])
    assert result["winners"] == [] and result["winner"] is None and result["draw"]
    assert result["ranking"] == [["alice", "carol"], ["dave"], ["bob"]]


def test_six_seats_start_with_their_own_default_decks():
    rs = get_ruleset("spellfire")
    seats = ["alice", "bob", "carol", "dave", "erin", "frank"]
    state, events = rs.start(seats, 5)
    started = events[0]["data"]
    assert started["decks"] == dict(zip(seats, DEFAULT_DECKS))
    for seat in seats:
        p = state["players"][seat]
        assert len(p["draw"]) + len(p["hand"]) == 55
    assert [p["seat"] for p in state["prompts"]] == ["alice"]
    assert rs.describe()["seats"] == {"min": 2, "max": 6}


@pytest.mark.parametrize("seats", [["alice"], ["a", "b", "c", "d", "e", "f", "g"], ["alice", "bob", "alice"]])
def test_seat_counts_and_names_are_checked(seats):
    with pytest.raises(SetupError) as err:
        get_ruleset("spellfire").start(seats, 1)
    assert err.value.path == "seats"


def test_an_outside_event_for_a_side_acts_against_the_other(match, S, ev):
    """Glittering Hoard played by carol for the defender lures the attacking monster away."""
    m = match(alice=S(pool=["gnarltooth-ogre"], hand=["hillfolk-skirmishers"]),
              bob=S(formation=BOB, pool=["grey-warden-tamsin"], draw=["ravencrag"]),
              carol=S(hand=["glittering-hoard"]), turn=ATTACK)
    m.answer("ironbridge")
    m.answer("gnarltooth-ogre")
    m.answer("grey-warden-tamsin")
    m.answer("hillfolk-skirmishers")
    events = m.answer_as("carol", "glittering-hoard", side="defender")
    played = ev.find(events, "card_played")[0]
    assert (played["seat"], played["side"], played["outcome"]) == ("carol", "defender", "attacker_discarded")
    events = pass_all(m)
    assert "gnarltooth-ogre" in m.zone("alice", "discard") and m.zone("carol", "discard") == ["glittering-hoard"]
    assert ev.find(events, "cards_drawn")[0]["seat"] == "bob"  # the defender's spoils
