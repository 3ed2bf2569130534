"""Random play with the outcome cards (the `omens` deck of cards/outcomes.toml) at 2 and 6
seats: Limbo, the Abyss and the Void, champions returning to the pool, after-combat
discards and extra attacks under every invariant of test_properties.py (no crash, no card
created or lost, nothing hidden leaked, a replay gives the same bytes)."""

from __future__ import annotations

import random

import msgpack
import pytest
from test_properties import play, replay

from battlehall.engine import get_ruleset

DECKS = {2: ["omens", "shadows"], 6: ["omens", "shadows", "omens", "tides", "omens", "sands"]}


@pytest.mark.parametrize("n,seeds", [(2, range(12)), (6, range(3))])
def test_random_play_with_the_outcome_cards(n, seeds):
    rs = get_ruleset("spellfire")
    seats = ["alice", "bob", "carol", "dave", "erin", "frank"][:n]
    seen: set[str] = set()
    for seed in seeds:
        options = {"decks": DECKS[n], "turn_limit": 40}
        state, log, answers = play(rs, seed, random.Random(seed), options, seats=seats)
        assert log[-1]["kind"] == "match_ended"
        seen |= {e["kind"] for e in log}
        if seed % 4 == 0:
            again, relog = replay(rs, seed, answers, options, seats=seats)
            assert again == state and msgpack.packb(relog) == msgpack.packb(log)
    if n == 2:  # the outcomes do happen in random play
        assert {"sent_to_zone", "outcome_pending", "after_combat"} <= seen, seen
