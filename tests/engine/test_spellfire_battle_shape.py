"""The battle state's declared shape (battle_state.py) is the one the engine writes.

The TypedDicts are what a reader of the engine trusts, and mypy checks only the code
that names them: random matches, with the deck that holds every kind of battle card
(cards played before the battle, at once, negations, allies called in, rule cards),
hold every battle at every step to the declared keys, no more and no fewer.
"""

from __future__ import annotations

import random

import pytest

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer
from battlehall.engine.spellfire.battle_state import Battle, Effects, Pending, Side

OTHER_DECKS = ("embers", "tides", "barrows", "tempests", "hollows", "omens")


def _assert_shape(battle: dict) -> None:
    keys = set(battle)
    assert Battle.__required_keys__ <= keys <= Battle.__required_keys__ | Battle.__optional_keys__, keys
    assert set(battle["sides"]) == {"attacker", "defender"}
    for side in battle["sides"].values():
        assert side is None or set(side) == Side.__required_keys__, side
    assert battle["pending"] is None or set(battle["pending"]) == Pending.__required_keys__, battle["pending"]
    effects = battle.get("effects")
    assert effects is None or set(effects) == Effects.__required_keys__, effects


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_every_battle_has_the_declared_shape(seats):
    rs = get_ruleset("spellfire")
    seen: set[str] = set()  # the battle steps met, so that the test proves it saw them
    for game in range(6):
        rng = random.Random(game)
        names = [f"s{i}" for i in range(seats)]
        decks = ["deepvault" if (i + game) % 2 == 0 else OTHER_DECKS[i] for i in range(seats)]
        state, _ = rs.start(names, game, {"decks": decks}, None)
        for _step in range(3000):
            if state["result"] is not None:
                break
            prompt = state["prompts"][rng.randrange(len(state["prompts"]))]
            option, args = random_answer(rng, prompt)
            rs.answer(state, prompt["seat"], prompt["id"], option, args)
            if state["battle"] is not None:
                _assert_shape(state["battle"])
                seen.add(state["battle"]["step"])
                seen.update(key for key in Battle.__optional_keys__ if key in state["battle"])
    assert {"attacker", "defender", "play", "respond"} <= seen, seen
    assert {"entered", "effects", "before_battle"} <= seen, seen
