"""`setup.battle`: a match that starts inside a battle (docs/setup.md#a-battle-in-progress)."""

from __future__ import annotations

import copy

import pytest

from battlehall.engine.errors import SetupError
from battlehall.engine.spellfire import Spellfire

BATTLE = {
    "players": {
        "alice": {"pool": [{"champion": "oskar-the-sly"}, {"champion": "vexthra-the-red"}], "hand": ["backstab"]},
        "bob": {"formation": {"A": {"realm": "bogmire-fells"}, "B": {"realm": "ironbridge"}},
                "pool": [{"champion": "grey-warden-tamsin"}, {"champion": "hierophant-dunmere"}],
                "hand": ["sudden-rout"]},
    },
    "turn": {"seat": "alice", "used": ["hierophant-dunmere"]},
    "battle": {"realm": {"seat": "bob", "slot": "A"}, "defeats": 1,
               "attacker": {"champion": "torvald-ironhand", "attached": ["cloak-of-dusk"]},
               "defender": {"champion": "queen-ysolde", "from": "hand"}},
}


def start(setup, options=None):
    return Spellfire().start(["alice", "bob"], 1, options, setup)


def without(setup, *path):
    out = copy.deepcopy(setup)
    d = out
    for key in path[:-1]:
        d = d[key]
    del d[path[-1]]
    return out


def test_both_champions_chosen_the_battle_is_at_card_play():
    state, events = start(BATTLE)
    kinds = [e["kind"] for e in events]
    assert kinds == ["match_started", "turn_started", "phase", "battle_started", "champion_chosen",
                     "champion_chosen"] + ["activated"] * 4 + ["powers_activated", "prompt"]
    b = state["battle"]
    cards = state["cards"]
    assert cards[b["realm"]] == "bogmire-fells" and b["slot"] == "A" and b["defender"] == "bob"
    assert b["round"] == 2 and b["defeats"] == 1  # the first round was won; the realm held
    attacker, defender = b["sides"]["attacker"], b["sides"]["defender"]
    assert cards[attacker["champion"]] == "torvald-ironhand" and [cards[i] for i in attacker["attached"]] == ["cloak-of-dusk"]
    assert cards[defender["champion"]] == "queen-ysolde" and defender["from"] == "hand"
    # the battle's champions come after every seat's cards; the hand lost its champion
    assert [cards[i] for i in state["players"]["bob"]["hand"]] == ["sudden-rout"]
    assert sorted(cards[i] for i in state["turn"]["used"]) == ["hierophant-dunmere", "queen-ysolde", "torvald-ironhand"]
    # 7 + 1 against 6 + 2 (defending): a tie goes to the defender, so alice plays, and her prompt is p1
    assert events[10]["data"]["totals"] == {"attacker": 8, "defender": 8}
    prompt = state["prompts"][0]
    assert prompt["id"] == "p1" and prompt["seat"] == "alice" and prompt["kind"] == "battle_play"


def test_champions_used_this_turn_are_not_offered():
    """Only the attack declared: step B, and hierophant-dunmere (used) may not defend later."""
    setup = without(without(BATTLE, "battle", "defender"), "battle", "attacker")
    setup["players"]["bob"]["hand"] = ["queen-ysolde"]
    state, events = start(setup)
    assert [e["kind"] for e in events][-2:] == ["battle_started", "prompt"]
    assert state["battle"]["round"] == 1 and state["battle"]["step"] == "attacker"
    offered = [state["cards"].get(o["id"], o["id"]) for o in state["prompts"][0]["options"]]
    assert offered == ["oskar-the-sly", "vexthra-the-red", "back", "end"]
    rs = Spellfire()
    rs.answer(state, "alice", state["prompts"][0]["id"], state["prompts"][0]["options"][0]["id"], {})
    offered = [state["cards"].get(o["id"], o["id"]) for o in state["prompts"][0]["options"]]
    assert state["prompts"][0]["kind"] == "choose_defender"
    assert offered == ["grey-warden-tamsin", "queen-ysolde", "decline"]


def test_attacker_chosen_the_defender_is_asked():
    setup = without(BATTLE, "battle", "defender")
    setup["turn"]["used"] = ["hierophant-dunmere", "vexthra-the-red"]
    state, events = start(setup)
    assert [e["kind"] for e in events][-3:] == ["battle_started", "champion_chosen", "prompt"]
    prompt = state["prompts"][0]
    assert prompt["seat"] == "bob" and prompt["kind"] == "choose_defender"
    assert state["battle"]["round"] == 2 and state["battle"]["step"] == "defender"


def test_a_setup_battle_that_ends_at_once_goes_on_with_the_turn():
    """The attacker's champion slays the defender when its power activates: the realm
    is razed at once, the attacker draws spoils, and the spoils prompt is open."""
    setup = copy.deepcopy(BATTLE)
    setup["players"]["alice"]["draw"] = ["amberfield"]
    setup["players"]["bob"]["formation"]["A"]["razed"] = True  # ironbridge (B) is exposed
    setup["battle"] = {"realm": {"seat": "bob", "slot": "B"},
                       "attacker": {"champion": "sir-cadoc-wyrmsbane"}, "defender": {"champion": "bramblejack-troll"}}
    state, events = start(setup)
    kinds = [e["kind"] for e in events]
    assert "realm_razed" in kinds and "battle_ended" in kinds
    assert state["battle"] is None and state["prompts"][0]["kind"] == "spoils"
    assert state["players"]["bob"]["formation"]["B"]["razed"] and state["turn"]["attacks"] == 1


@pytest.mark.parametrize("change,path", [
    (lambda s: s["battle"]["realm"].update(seat="alice"), "setup.battle.realm.seat"),
    (lambda s: s["battle"]["realm"].update(seat="zed"), "setup.battle.realm.seat"),
    (lambda s: s["battle"]["realm"].update(slot="C"), "setup.battle.realm.slot"),
    (lambda s: s["battle"].pop("realm"), "setup.battle.realm"),
    (lambda s: s["battle"].update(round=3), "setup.battle.round"),
    (lambda s: s["battle"].update(defeats=2), "setup.battle.defeats"),
    (lambda s: s["battle"]["realm"].update(slot="B"), "setup.battle.defeats"),  # ironbridge falls at once
    (lambda s: s["battle"].pop("attacker"), "setup.battle.defender"),
    (lambda s: s["battle"]["attacker"].update(champion="flame-lance"), "setup.battle.attacker.champion"),
    (lambda s: s["battle"]["attacker"].update(champion="nope"), "setup.battle.attacker.champion"),
    (lambda s: s["battle"]["attacker"].update(champion="oskar-the-sly"), "setup.battle.attacker.champion"),  # in a pool
    (lambda s: s["battle"]["attacker"].update(champion="hierophant-dunmere"), "setup.battle.attacker.champion"),
    (lambda s: s["battle"]["attacker"].update(attached=["sword-of-morning-star", "backstab"]),
     "setup.battle.attacker.attached[1]"),
    (lambda s: s["battle"]["attacker"].update(**{"from": "sky"}), "setup.battle.attacker.from"),
    (lambda s: s["battle"]["attacker"].update(**{"from": "hand"}), "setup.battle.attacker.attached"),
    (lambda s: s["battle"]["defender"].update(champion="torvald-ironhand"), "setup.battle.defender.champion"),
    (lambda s: s["battle"]["defender"].update(champion="hierophant-dunmere"), "setup.battle.defender.champion"),
    (lambda s: s["battle"]["defender"].update(colour="red"), "setup.battle.defender.colour"),
    # an avatar comes into play only through the pool, where its cost is paid
    (lambda s: s["battle"]["defender"].update(champion="avatar-of-the-storm-lord"), "setup.battle.defender.from"),
    (lambda s: s.update(battle=[]), "setup.battle"),
    (lambda s: s["turn"].update(phase="pool"), "setup.turn.phase"),
    (lambda s: s["turn"].update(attacks=1), "setup.turn.attacks"),
    (lambda s: s["turn"].update(used=["torvald-ironhand"]), "setup.turn.used[0]"),  # in no pool or hand
    (lambda s: s["turn"].update(used=["hierophant-dunmere", "hierophant-dunmere"]), "setup.turn.used[1]"),
    (lambda s: s["turn"].update(used=["ironbridge"]), "setup.turn.used[0]"),
    (lambda s: s["turn"].update(used="oskar-the-sly"), "setup.turn.used"),
])
def test_bad_battles_name_the_field(change, path):
    setup = copy.deepcopy(BATTLE)
    change(setup)
    with pytest.raises(SetupError) as caught:
        start(setup)
    assert caught.value.path == path, caught.value.message


def test_a_champion_that_cannot_reach_the_realm_may_not_attack_it():
    setup = copy.deepcopy(BATTLE)
    setup["battle"] = {"realm": {"seat": "bob", "slot": "B"}, "attacker": {"champion": "torvald-ironhand"}}
    with pytest.raises(SetupError) as caught:
        start(setup)
    assert caught.value.path == "setup.battle.attacker.champion" and "reach" in caught.value.message
    setup["battle"]["attacker"]["champion"] = "lady-seraphine-vael"  # a flyer reaches it
    state, _ = start(setup)
    assert state["prompts"][0]["kind"] == "choose_defender"
