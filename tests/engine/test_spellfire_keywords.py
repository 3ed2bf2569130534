"""The card keywords of the outcomes of combat (docs/cards.md), one test each, the cards of
cards/outcomes.toml modelled on the cards the rule texts name, the any-time window after
the card that ends a round, and the loading of every card file."""

from __future__ import annotations

from importlib import resources

import pytest
from spellfire_fight import ATTACK, BOB, battle, spoils_drawn
from spellfire_kit import S, ev, match  # noqa: F401  (pytest fixtures)

from battlehall.engine.errors import CardDataError
from battlehall.engine.spellfire import cards
from battlehall.engine.spellfire.cards import Catalog, load_text, shipped


def play_until_turn(m, seat: str, number: int) -> None:
    """Answer every prompt with its default until `seat`'s turn `number` has begun."""
    for _ in range(100):
        t = m.state["turn"]
        if t["seat"] == seat and t["number"] == number:
            return
        m.expire()
    raise AssertionError("the turn never came")


# -- return_to_pool ------------------------------------------------------------------------

def test_keyword_return_to_pool_defender_realm_still_razed(match, S, ev):
    m = battle(match, S, bob_pool=["brannoc-the-unyielding"], defender="brannoc-the-unyielding")
    events = m.answer("stop")  # bob: Brannoc 5 + 1 against Torvald 7
    returned = [d for d in ev.find(events, "champion_returned") if d["seat"] == "bob"]
    assert returned[0]["by_power"] is True and m.zone("bob", "pool") == ["brannoc-the-unyielding"]
    assert m.slot("bob", "A")["razed"] and spoils_drawn(m, ev) == ["alice"]


def test_keyword_return_to_pool_on_an_item_keeps_the_attachments(match, S, ev):
    m = battle(match, S, alice_pool=[("maelis-brightquill", ["pilgrims-token"])], attacker="maelis-brightquill",
               alice_hand=["hillfolk-skirmishers"])
    m.answer("hillfolk-skirmishers")  # 9 against 9: still behind
    m.answer("pass")
    events = m.answer("stop")
    assert m.attached("alice", "maelis-brightquill") == ["pilgrims-token"]
    assert m.zone("alice", "discard") == ["hillfolk-skirmishers"]  # the cards played for it are discarded
    assert ev.find(events, "battle_ended")[0]["spoils"] is None


def test_keyword_return_to_pool_resists_after_combat_discard(match, S, ev):
    m = battle(match, S, alice_pool=["ozrak-the-hollow-tyrant"], attacker="ozrak-the-hollow-tyrant",
               bob_pool=["brannoc-the-unyielding"], defender="brannoc-the-unyielding")
    events = m.answer("stop")  # bob is behind and stops: Ozrak wins, Brannoc returns home
    after = ev.find(events, "after_combat")[0]
    assert after["def"] == "ozrak-the-hollow-tyrant" and after["to"] is None
    assert m.zone("bob", "pool") == ["brannoc-the-unyielding"]


# -- to_limbo, to_abyss, to_void -------------------------------------------------------------

def _to_limbo(match, S, **bob):
    m = battle(match, S, alice_pool=[("torvald-ironhand", ["crown-of-embers"])],
               bob_hand=["fold-into-limbo"] + bob.pop("hand", []), bob=bob or None)
    m.answer("fold-into-limbo")  # bob is behind: 10 against 9
    return m, m.answer("pass")


def test_keyword_to_limbo_returns_at_the_owners_next_turn(match, S, ev):
    m, events = _to_limbo(match, S)
    sent = ev.find(events, "sent_to_zone")[0]
    assert (sent["def"], [a["def"] for a in sent["attached"]], sent["zone"]) == ("torvald-ironhand",
                                                                                 ["crown-of-embers"], "limbo")
    view = m.rs.view(m.state, None)["players"]["alice"]
    assert view["limbo"][0]["def"] == "torvald-ironhand"
    assert view["limbo"][0]["attached"][0]["def"] == "crown-of-embers"
    assert "torvald-ironhand" not in m.zone("alice", "pool")
    play_until_turn(m, "bob", 2)
    assert m.player("alice")["limbo"]  # still in Limbo during bob's turn
    play_until_turn(m, "alice", 3)
    left = ev.find(m.log, "left_limbo")
    assert left == [{"seat": "alice", "card": sent["card"], "def": "torvald-ironhand", "owner": "alice",
                     "zone": "pool", "slot": None, "attached": sent["attached"], "from": "limbo", "to": "pool"}]
    assert "torvald-ironhand" in m.zone("alice", "pool") and m.attached("alice", "torvald-ironhand") == ["crown-of-embers"]
    assert m.player("alice")["limbo"] == []


def test_keyword_to_limbo_champion_in_play_meanwhile_is_discarded(match, S, ev):
    m, _ = _to_limbo(match, S, hand=["torvald-ironhand"], formation=BOB)
    play_until_turn(m, "bob", 2)
    # Limbo is not in play: bob may put his own Torvald into his pool (Rule of the Cosmos)
    m.until("play_pool")
    m.answer(next(o["id"] for o in m.prompt["options"] if m.cid(o["id"]) == "torvald-ironhand"))
    play_until_turn(m, "alice", 3)
    assert ev.find(m.log, "left_limbo")[0]["to"] == "discard"
    assert "torvald-ironhand" in m.zone("alice", "discard") and "crown-of-embers" in m.zone("alice", "discard")
    assert m.zone("bob", "pool")[-1] == "torvald-ironhand"


def test_keyword_to_abyss_champion_defeated_by_it_is_out_of_the_game(match, S, ev):
    m = battle(match, S, bob_pool=["maw-of-ashkarn"], defender="maw-of-ashkarn", attacker="maelis-brightquill")
    m.answer("stop")
    assert m.zone("alice", "abyss") == ["maelis-brightquill"]
    m.answer("keep")
    play_until_turn(m, "alice", 3)
    assert m.zone("alice", "abyss") == ["maelis-brightquill"] and not ev.find(m.log, "left_limbo")


def test_keyword_to_void_event_defender_unmade_attacker_wins_round(match, S, ev):
    m = battle(match, S, alice_hand=["word-of-never"])
    m.answer("word-of-never")
    events = m.answer("pass")
    assert ev.find(events, "round_ended")[0]["winner"] == "attacker"
    assert m.zone("bob", "void") == ["grey-warden-tamsin"] and "grey-warden-tamsin" not in m.zone("bob", "discard")
    assert m.slot("bob", "A")["razed"] and spoils_drawn(m, ev) == ["alice"]


def test_keyword_to_void_after_combat_discard_goes_there(match, S, ev):
    voider = {"id": "voidcaller", "name": "Voidcaller", "type": "ally", "bonus": 1,
              "powers": ["after_combat_discard", "to_void"], "text": "After combat, the opponent goes to the Void."}
    m = battle(match, S, alice_hand=["voidcaller"], cards=[voider])
    m.answer("voidcaller")  # 8 against 9
    m.answer("pass")
    m.answer("stop")
    assert m.zone("bob", "void") == ["grey-warden-tamsin"] and spoils_drawn(m, ev) == ["bob"]


# -- after_combat_discard, extra_attack, any_time, slays on an event, draw_cards --------------

def test_keyword_after_combat_discard_on_a_champion(match, S, ev):
    m = battle(match, S, alice_pool=["ozrak-the-hollow-tyrant"], attacker="ozrak-the-hollow-tyrant")
    events = m.answer("stop")  # Ozrak 8 loses to Tamsin 9; after combat Tamsin is discarded too
    assert ev.find(events, "round_ended")[0]["winner"] == "defender"
    assert m.zone("bob", "pool") == [] and "grey-warden-tamsin" in m.zone("bob", "discard")
    assert spoils_drawn(m, ev) == ["bob"] and not m.slot("bob", "A")["razed"]


def test_keyword_extra_attack_only_attacking(match, S, ev):
    # Kestrel defends once a turn like any champion: extra_attack is for attacks
    m = match(alice=S(pool=["torvald-ironhand", "maelis-brightquill"]),
              bob=S(formation={"A": "gallowfen"}, pool=["kestrel-twinblade", "oskar-the-sly"]), turn=ATTACK)
    m.answer("gallowfen")
    m.answer("torvald-ironhand")
    m.answer("kestrel-twinblade")   # 7 against 6
    m.answer("stop")
    assert m.zone("bob", "discard") == ["kestrel-twinblade"]
    m.answer("maelis-brightquill")
    assert m.option_ids() == ["oskar-the-sly", "decline"]


def test_keyword_any_time_in_a_window_and_draw_cards_on_a_spell(match, S, ev):
    m = battle(match, S, alice_pool=["maelis-brightquill"], attacker="maelis-brightquill",
               alice_hand=["glimpse-of-fortune", "hillfolk-skirmishers"])
    m.answer("hillfolk-skirmishers")  # 8 against 9
    m.answer("pass")
    assert "glimpse-of-fortune" in m.option_ids()
    events = m.answer("glimpse-of-fortune")  # 9 against 9, and a card drawn
    played = ev.find(events, "card_played")[0]
    assert played["effects"] == ["draw_cards"] and played["totals"] == {"attacker": 9, "defender": 9}
    assert "thornvale" in m.zone("alice", "hand")


def test_keyword_slays_on_an_event_only_acts_on_its_class(match, S, ev):
    m = battle(match, S, alice_hand=["free-company"], bob_hand=["gilded-decoy"])
    m.answer("free-company")
    events = m.answer("gilded-decoy")  # Torvald is a hero, no monster: no outcome
    assert ev.find(events, "card_played")[0]["outcome"] is None and m.state["battle"]["pending"] is None


def test_keyword_discard_realm_event_takes_the_holding_and_exposes_the_next_row(match, S, ev):
    m = battle(match, S, alice_hand=["swallowed-by-the-deep"], options={"attacks_per_turn": 2},
               bob_formation={"A": {"realm": "ironbridge", "holding": "bellkeep-tower"}, "B": "hollowmere"})
    m.answer("swallowed-by-the-deep")
    m.answer("pass")
    assert m.slot("bob", "A") is None and m.zone("bob", "discard") == ["ironbridge", "bellkeep-tower"]
    m.answer("keep")
    assert m.prompt["kind"] == "choose_realm" and m.option_ids() == ["hollowmere", "end"]


# -- the any-time window after the card that ends a round -----------------------------------

def test_window_after_the_card_that_ends_the_round(match, S, ev):
    m = battle(match, S, alice_hand=["the-sky-cracks"], bob_hand=["windfall"])
    events = m.answer("the-sky-cracks")
    assert ev.find(events, "outcome_pending")[0]["outcome"] == "realm_razed"
    assert not ev.find(events, "realm_razed") and m.prompt["kind"] == "respond" and m.prompt["seat"] == "bob"
    assert m.rs.view(m.state, "bob")["battle"]["pending"]["outcome"] == "realm_razed"
    m.answer("windfall")  # bob may still play: the outcome waits
    assert m.prompt["kind"] == "respond" and m.prompt["seat"] == "alice"
    events = m.answer("pass")
    assert ev.find(events, "realm_razed")[0]["how"] == "card"


def test_window_second_outcome_has_no_effect_first_card_wins(match, S, ev):
    m = battle(match, S, alice_hand=["the-sky-cracks"], bob_hand=["sudden-rout"])
    m.answer("the-sky-cracks")
    events = m.answer("sudden-rout")
    assert ev.find(events, "card_played")[0]["outcome"] == "attacker_discarded"
    assert not ev.find(events, "outcome_pending")
    events = m.answer("pass")
    assert ev.find(events, "round_ended")[0]["how"] == "realm_razed"
    assert "torvald-ironhand" in m.zone("alice", "pool") and spoils_drawn(m, ev) == ["alice"]


def test_window_counter_spell_cancels_a_waiting_outcome(match, S, ev):
    bane = {"id": "herobane", "name": "Herobane", "type": "spell", "spell_class": "wizard", "bonus": 1,
            "slays": "hero", "text": "Slays a hero champion."}
    m = battle(match, S, alice_pool=["maelis-brightquill"], attacker="maelis-brightquill",
               alice_hand=["herobane"], bob_hand=["unravel-magic"], cards=[bane])
    m.answer("herobane")
    events = m.answer("unravel-magic")
    cancelled = ev.find(events, "outcome_cancelled")[0]
    assert (cancelled["def"], cancelled["outcome"], cancelled["by"]["def"]) == ("herobane", "defender_discarded",
                                                                                "unravel-magic")
    m.answer("pass")
    assert m.prompt["kind"] == "battle_play" and m.prompt["seat"] == "alice"  # the round goes on: 6 against 9
    assert m.zone("bob", "pool") == [] and m.state["battle"]["sides"]["defender"] is not None


# -- the cards modelled on the named cards ---------------------------------------------------

def test_card_model_cataclysm_the_sky_cracks(match, S, ev):
    m = battle(match, S, alice_hand=["the-sky-cracks"])
    m.answer("the-sky-cracks")
    events = m.answer("pass")
    assert ev.find(events, "round_ended")[0] == {"round": 1, "attacker": "alice", "defender": "bob",
                                                 "winner": "attacker", "winner_seat": "alice",
                                                 "how": "realm_razed", "totals": {"attacker": 7, "defender": 9},
                                                 "defeats": 0}
    assert m.slot("bob", "A")["razed"] and ev.find(events, "battle_ended")[0]["spoils"] == "alice"
    assert m.zone("alice", "pool") == ["maelis-brightquill", "torvald-ironhand"]
    assert m.zone("bob", "pool") == ["grey-warden-tamsin"]


def test_card_model_treasure_gilded_decoy(match, S, ev):
    m = battle(match, S, alice_pool=["vexthra-the-red"], attacker="vexthra-the-red", bob_hand=["gilded-decoy"],
               alice_hand=["free-company"])
    m.answer("free-company")
    m.answer("gilded-decoy")
    events = m.answer("pass")
    assert ev.find(events, "battle_ended")[0]["spoils"] == "bob"
    assert m.zone("alice", "discard") == ["vexthra-the-red", "free-company"]


def test_card_model_iuz_ozrak(match, S, ev):
    m = battle(match, S, alice_hand=["free-company"], bob_pool=["ozrak-the-hollow-tyrant"],
               defender="ozrak-the-hollow-tyrant")
    m.answer("free-company")
    m.answer("pass")
    m.answer("stop")  # Ozrak loses; after combat Torvald is discarded; the attack still succeeded
    assert m.slot("bob", "A")["razed"] and spoils_drawn(m, ev) == ["alice"]
    assert "torvald-ironhand" in m.zone("alice", "discard") and "ozrak-the-hollow-tyrant" in m.zone("bob", "discard")


def test_card_model_aurak_emberscale_draconians(match, S, ev):
    m = battle(match, S, bob_hand=["emberscale-draconians"], alice_hand=["free-company", "hillfolk-skirmishers"])
    m.answer("free-company")            # 11 against 9
    m.answer("pass")
    m.answer("emberscale-draconians")   # 11 against 13
    m.answer("pass")
    m.answer("hillfolk-skirmishers")    # 13 against 13: the tie is still bob's
    m.answer("pass")
    events = m.answer("stop")
    assert ev.find(events, "round_ended")[0]["winner"] == "defender"
    assert ev.find(events, "after_combat")[0]["target"]["def"] == "torvald-ironhand"  # already discarded
    assert m.zone("bob", "pool") == ["grey-warden-tamsin"] and spoils_drawn(m, ev) == ["bob"]


# -- card files -------------------------------------------------------------------------------

def test_every_card_file_is_loaded_in_sorted_file_order():
    folder = resources.files(cards.__package__).joinpath("cards")
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".toml"))
    assert "outcomes.toml" in names and len(names) >= 2
    catalog = shipped()
    ids = list(catalog.cards)
    firsts = [load_text(folder.joinpath(n).read_text(encoding="utf-8"), n)["cards"][0][0]["id"] for n in names]
    assert [ids.index(f) for f in firsts] == sorted(ids.index(f) for f in firsts)
    again = Catalog([(f"cards/{n}", folder.joinpath(n).read_text(encoding="utf-8")) for n in names])
    assert list(again.cards) == ids and [s["id"] for s in again.sets] == [s["id"] for s in catalog.sets]


@pytest.mark.parametrize("card,message", [
    ('type = "event"\npowers = ["discard_attacker_event", "to_limbo", "to_void"]', "at most one of"),
    ('type = "champion"\nclass = "hero"\nlevel = 3\nworld = "add"\ncost = 2', "cost must be a table"),
    ('type = "realm"\nworld = "add"\ncost = {realms = 1}', "does not apply to a realm"),
    ('type = "event"\npowers = ["after_combat_discard"]', "does not apply to a event"),
    ('type = "realm"\nworld = "add"\npowers = ["return_to_pool"]', "does not apply to a realm"),
])
def test_outcome_keywords_are_checked(card, message):
    with pytest.raises(CardDataError) as err:
        load_text(f'[[card]]\nid = "x"\nname = "X"\n{card}\n', "bad.toml")
    assert message in str(err.value) and "bad.toml:1" in str(err.value)
