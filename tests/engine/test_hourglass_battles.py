"""Battles (order, alliances), the Bandits (their decisions and their deck), the setup and
what stays hidden."""

from __future__ import annotations

import msgpack
import pytest
from hourglass_kit import RS, act, kinds, position, prompt_of, start

from battlehall.engine.errors import SetupError
from battlehall.engine.hourglass import rules

THREE = ("alice", "bob", "carol")


def three_battles():
    return {"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": 1}},
                        {"tile": "mill", "knights": {"bob": 1, "carol": 1}},
                        {"tile": "hill", "knights": {"alice": 1, "carol": 1}, "bandits": 1}],
            "turn_order": ["bob", "carol", "alice"]}


def test_battles_in_player_turn_order_each_chooses_its_order():
    """"In Player Turn Order, each player resolves the Battles they are still involved in,
    in the order of their choice." """
    state, events = RS.start(list(THREE), 1, {"alliances": False}, three_battles())
    prompt = prompt_of(state, "bob", "choose_battle")  # bob is first in turn order, in two battles
    assert prompt["options"][0]["args"] == {"tile": ["ford", "mill"]}
    events = act(state, "bob", "battle", tile="mill")
    assert kinds(events, "battle_started")[0] == {"tile": "mill", "resolver": "bob", "sides": ["bob", "carol"]}


def test_battles_a_player_with_one_battle_left_is_not_asked():
    setup = {"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": 1}}]}
    state, events = RS.start(["alice", "bob"], 1, {"alliances": False}, setup)
    assert kinds(events, "battle_started")[0]["tile"] == "ford"
    assert state["prompts"][0]["kind"] == "targets"


def test_battles_a_battle_resolved_is_not_resolved_again():
    setup = three_battles()
    setup["battles"] = setup["battles"][:2]
    state, _ = RS.start(list(THREE), 1, {"alliances": False, "battle_turn_limit": 1}, setup)
    started = []
    while state["result"] is None:
        p = state["prompts"][0]
        option = p["options"][0]
        args = {k: v[0] for k, v in (option["combos"][0] if "combos" in option else option.get("args", {})).items()}
        started += kinds(RS.answer(state, p["seat"], p["id"], option["id"], args), "battle_started")
    assert sorted(s["tile"] for s in started) == ["ford", "mill"]  # carol's turn finds mill done


def test_alliances_form_by_mutual_agreement():
    setup = {"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": 1, "carol": 1}}]}
    state, events = RS.start(list(THREE), 1, None, setup)
    assert sorted(p["seat"] for p in state["prompts"]) == list(THREE)
    assert all(p["kind"] == "alliance" for p in state["prompts"])
    act(state, "alice", "ally", **{"with": "carol"})
    act(state, "bob", "ally", **{"with": "carol"})  # carol chose alice: bob stays alone
    assert RS.view(state, "alice")["my_offer"] == "carol" and "my_offer" not in RS.view(state, "carol")
    events = act(state, "carol", "ally", **{"with": "alice"})
    assert kinds(events, "alliances_formed")[0]["alliances"] == [["alice", "carol"]]
    # offers are nobody else's business: no event carried bob's unanswered one
    assert not any("bob" in str(e["data"].get("alliances", "")) for e in events)


def test_alliances_one_sided_offer_forms_nothing():
    setup = {"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": 1, "carol": 1}}]}
    state, _ = RS.start(list(THREE), 1, None, setup)
    act(state, "alice", "ally", **{"with": "bob"})
    act(state, "bob", "alone")
    events = act(state, "carol", "ally", **{"with": "alice"})
    assert kinds(events, "alliances_formed")[0]["alliances"] == []


def test_alliances_at_most_two_players_and_one_alliance_each():
    assert rules.form_alliances(["a", "b", "c", "d"], {"a": "b", "b": "a", "c": "a", "d": "c"}) == [["a", "b"]]
    assert rules.form_alliances(["a", "b", "c", "d"], {"a": "b", "b": "a", "c": "d", "d": "c"}) == [["a", "b"],
                                                                                                    ["c", "d"]]
    with pytest.raises(SetupError) as e:
        start(position(seats=THREE, knights={"alice": 1, "bob": 1, "carol": 1},
                       top={"alice": 0, "bob": 1, "carol": 1},
                       battle={"alliances": [["alice", "bob"], ["bob", "carol"]]}), THREE)
    assert e.value.path == "setup.battles[0].alliances[1]"


def test_alliances_never_with_bandits():
    setup = {"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": 1}, "bandits": 2}]}
    state, _ = RS.start(["alice", "bob"], 1, None, setup)
    assert all(p["options"][1]["args"]["with"] in (["bob"], ["alice"]) for p in state["prompts"])
    with pytest.raises(SetupError) as e:
        start(position(knights={"alice": 1}, bandits=1, top={"alice": 0, "bandits": 1},
                       battle={"alliances": [["alice", "bandits"]]}))
    assert e.value.path == "setup.battles[0].alliances[0]"


def test_alliances_no_prompt_for_a_lone_player_against_bandits():
    setup = {"battles": [{"tile": "ford", "knights": {"alice": 1}, "bandits": 2}]}
    state, events = RS.start(["alice", "bob"], 1, None, setup)
    assert not any(p["kind"] == "alliance" for p in state["prompts"])


def test_allies_never_target_each_other_and_end_the_battle_together():
    setup = {"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": 1}}]}
    state, _ = RS.start(["alice", "bob"], 1, None, setup)
    act(state, "alice", "ally", **{"with": "bob"})
    events = act(state, "bob", "ally", **{"with": "alice"})
    assert kinds(events, "battle_ended")[0]["remaining"] == ["alice", "bob"]
    assert state["result"]["tiles"] == {"ford": ["alice", "bob"]}


# -- The Bandits ---------------------------------------------------------------------------


def bandit_position(seed):
    setup = position(knights={"alice": 2, "bob": 1}, bandits=2, top={"alice": 3, "bob": 3, "bandits": 0},
                     bandit_deck=["plain", "plain-b", "plain-c"], attributes={"alice": {"health": 50},
                                                                               "bob": {"health": 50}})
    return start(setup, seed=seed)


def test_bandits_decide_with_the_generator_same_seed_same_decisions():
    """Bandit targets and cards are the engine's: the same seed gives the same ones."""
    first, events = bandit_position(5)
    again, events2 = bandit_position(5)
    assert first == again and msgpack.packb(events) == msgpack.packb(events2)
    targets = kinds(events, "targets_assigned")[0]
    assert targets["attacker"] == "bandits" and sorted(targets["targets"]) == ["bandit-1@ford", "bandit-2@ford"]
    assert all(t.split("-")[0] in ("alice", "bob") for t in targets["targets"].values())
    seen = {tuple(sorted(kinds(bandit_position(seed)[1], "targets_assigned")[0]["targets"].values()))
            for seed in range(12)}
    assert len(seen) > 1  # the generator, not a fixed choice


def test_bandit_deck_shuffled_before_every_placement_same_seed_same_card():
    """"Whenever a Bandit must place a Battlecard, shuffle this deck and place the top card." """
    def bandit_cards(seed):
        state, _ = bandit_position(seed)
        cards = []
        for _ in range(3):  # defenders answer; the Bandits place face up
            for p in list(state["prompts"]):
                events = RS.answer(state, p["seat"], p["id"], "place", {"card": p["options"][0]["args"]["card"][0]})
            cards += [e["card"] for e in kinds(events, "card_placed") if e["side"] == "bandits"]
            if state["turn"] is None or state["turn"]["attacker"] != "bandits":
                break
        return cards
    assert bandit_cards(9) == bandit_cards(9)
    firsts = {bandit_cards(seed)[0] for seed in range(20)}
    assert firsts == {"plain", "plain-b", "plain-c"}  # every card can come on top: it was shuffled
    state, _ = bandit_position(3)  # the Attacker places after the Defenders: nothing placed yet
    assert len(state["bandit_deck"]) == 3 and RS.view(state, None)["turn"]["placed"] == {}


def test_bandit_defender_places_face_down_from_the_deck():
    state, _ = start(position(knights={"alice": 1}, bandits=1, top={"alice": 0, "bandits": 3},
                              bandit_deck=["plain-c"]))
    events = act(state, "alice", "assign", "targets", **{"alice-1@ford": "bandit-1@ford"})
    placed = kinds(events, "card_placed")[0]
    assert placed == {"tile": "ford", "side": "bandits", "face": "down", "card": None, "shuffled": True,
                      "bandit_deck": 0}
    assert RS.view(state, "alice")["turn"]["placed"] == {"bandits": "face_down"}
    events = act(state, "alice", "place", "attack_card", card=state["hands"]["alice"][0],
                 discard=state["hands"]["alice"][1])
    assert kinds(events, "cards_revealed")[0]["cards"]["bandits"] == "plain-c"
    assert [state["cards"][c] for c in state["bandit_deck"]] == ["plain-c"]  # its discard is its deck


def test_bandits_use_the_stronger_set_by_default():
    state, _ = RS.start(["alice", "bob"], 1)
    assert "ambush" in [state["cards"][c] for c in state["bandit_deck"]]
    assert not any(state["cards"][c] == "ambush" for c in state["hands"]["alice"])


# -- Hidden information ---------------------------------------------------------------------


def test_hidden_hands_discards_and_face_down_cards():
    state, _ = start(position(discards={"bob": ["plain"]}))
    for viewer in ("bob", None):
        assert set(state["hands"]["alice"]) <= set(RS.secrets(state, viewer))
    for viewer in ("alice", None):
        assert set(state["hands"]["bob"] + state["discards"]["bob"]) <= set(RS.secrets(state, viewer))
    assert "my_hand" not in RS.view(state, None) and "my_discards" not in RS.view(state, None)
    alice = RS.view(state, "alice")
    assert [c["kind"] for c in alice["my_hand"]] == ["plain", "plain-b", "plain-c"]
    assert alice["hands"] == {"alice": 3, "bob": 3} and alice["discards"] == {"alice": 0, "bob": 1}
    assert set(state["bandit_deck"]) <= set(RS.secrets(state, "alice"))
    assert not set(state["hands"]["alice"]) & set(RS.secrets(state, "alice"))


# -- Setup --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("change", "path"), [
    ({"battles": [{"tile": "ford", "knights": {"zed": 1, "bob": 1}}]}, "setup.battles[0].knights.zed"),
    ({"battles": [{"tile": "ford", "knights": {"alice": 1}}]}, "setup.battles[0].knights"),
    ({"battles": [{"tile": "Ford!", "knights": {"alice": 1, "bob": 1}}]}, "setup.battles[0].tile"),
    ({"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": 1}, "top": {"alice": 1, "bob": 1}}]},
     "setup.battles[0].top"),
    ({"hands": {"alice": ["nope"]}}, "setup.hands.alice[0]"),
    ({"attributes": {"alice": {"delay": 2.25}}}, "setup.attributes.alice.delay"),
    ({"attributes": {"alice": {"health": 0}}}, "setup.attributes.alice.health"),
    ({"attributes": {"alice": {"luck": 3}}}, "setup.attributes.alice.luck"),
    ({"tie_breaker": ["alice", "bob"]}, "setup.tie_breaker"),
    ({"turn_order": ["bob", "bob"]}, "setup.turn_order"),
    ({"cards": [{"id": "x", "dodge": "high"}]}, "setup.cards[0].dodge"),
    ({"current": "nowhere"}, "setup.current"),
    ({"battles": [{"tile": "ford", "knights": {"alice": [0, 6], "bob": 1}}]}, "setup.battles[0].knights.alice[1]"),
    ({"colour": "red"}, "setup.colour"),
])
def test_setup_bad_field_names_its_path(change, path):
    with pytest.raises(SetupError) as e:
        RS.start(["alice", "bob"], 1, None, change)
    assert e.value.path == path


@pytest.mark.parametrize(("options", "path"), [({"knights": 0}, "options.knights"), ({"bandits": 9}, "options.bandits"),
                                               ({"standard_deck": "x"}, "options.standard_deck"),
                                               ({"bandit_priority": "middle"}, "options.bandit_priority"),
                                               ({"alliances": 1}, "options.alliances"), ({"nope": 1}, "options.nope")])
def test_options_bad_value_names_its_path(options, path):
    with pytest.raises(SetupError) as e:
        RS.start(["alice", "bob"], 1, options)
    assert e.value.path == path


def test_setup_any_position_whose_battle_turn_follows_the_cubes():
    setup = position(seats=THREE, knights={"alice": [1], "bob": [2, 0], "carol": 1},
                     top={"alice": 2, "bob": 0, "carol": 1}, bottom={"alice": 0, "bob": 4, "carol": 2},
                     resolver="carol", turn_order=["carol", "alice", "bob"],
                     battle={"alliances": [["alice", "carol"]], "turns": 5})
    state, _ = start(setup, THREE)
    ford = state["battles"][0]
    assert state["turn"]["attacker"] == "bob" and ford["turns"] == 6 and ford["alliances"] == [["alice", "carol"]]
    assert [k["wounds"] for k in ford["knights"]] == [1, 2, 0, 0]
    assert RS.view(state, None)["resolver"] == "carol"


def test_default_scenarios_with_and_without_bandits():
    for n in (2, 3, 4):
        seats = ["alice", "bob", "carol", "dave"][:n]
        state, _ = RS.start(seats, 1)
        crossroads = state["battles"][0]
        assert sum(k["owner"] == "bandits" for k in crossroads["knights"]) == 2
        assert all(sum(k["owner"] == s for k in crossroads["knights"]) == 3 for s in seats)
        quiet, _ = RS.start(seats, 1, {"bandits": 0, "knights": 1})
        assert not any(k["owner"] == "bandits" for b in quiet["battles"] for k in b["knights"])
        assert sum(k["owner"] == "alice" for k in quiet["battles"][0]["knights"]) == 1


def test_a_seat_may_not_be_called_bandits():
    with pytest.raises(SetupError) as e:
        RS.start(["alice", "bandits"], 1)
    assert e.value.path == "seats[1]"


def test_the_setup_example_of_the_docs_starts():
    import json
    import re
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "setup.md").read_text()
    example = json.loads(re.search(r"```json\n(.*?)```", text[text.index("## hourglass"):], re.S).group(1))
    state, events = RS.start(["alice", "bob", "carol"], 1, None, example)
    assert state["current"] == "ford" and state["turn"]["attacker"] == "alice"  # none on top, fewest cubes
    assert [state["cards"][c] for c in state["discards"]["bob"]] == ["lunge", "sidestep"]
    assert state["attributes"]["alice"]["delay2"] == 3 and state["priority"][0] == "bob"
