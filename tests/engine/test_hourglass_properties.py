"""Random play of hourglass with any options, at 2, 3 and 4 seats, with and without
Bandits: every match ends, nothing hidden leaks, the same seed and answers replay byte
for byte (the checks of test_properties.play at every step)."""

from __future__ import annotations

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import play, replay

from battlehall.engine import get_ruleset
from rulesets import PROPERTY_DEPTH
from rulesets import seats as seat_names

OPTIONS = st.fixed_dictionaries({}, optional={
    "knights": st.integers(1, 4),
    "bandits": st.integers(0, 4),
    "bandit_priority": st.sampled_from(["last", "first"]),
    "alliances": st.booleans(),
    "battle_turn_limit": st.integers(1, 80),
    "standard_deck": st.sampled_from(["standard", "bandit"]),
})


@settings(max_examples=20 * PROPERTY_DEPTH, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**80), rnd=st.randoms(use_true_random=False), options=OPTIONS, n=st.integers(2, 4))
def test_hypothesis_hourglass(seed, rnd, options, n):
    rs = get_ruleset("hourglass")
    seats = seat_names(n)
    state, log, answers = play(rs, seed, rnd, options, seats=seats)
    assert state["result"]["reason"] == "battles_resolved"
    assert sorted(state["result"]["tiles"]) == sorted(b["tile"] for b in state["battles"])
    assert all(b["done"] and not b["top"] for b in state["battles"])
    assert all(k["wounds"] == 0 for b in state["battles"] for k in b["knights"])  # End of Battle 1
    again, relog = replay(rs, seed, answers, options, seats=seats)
    assert again == state and msgpack.packb(relog) == msgpack.packb(log)


def test_without_bandits_no_bandit_ever_acts():
    import random

    rs = get_ruleset("hourglass")
    for n in (2, 3, 4):
        for seed in range(10):
            state, log, _ = play(rs, seed, random.Random(seed), {"bandits": 0}, full=False, seats=seat_names(n))
            assert not any(e["kind"] == "card_placed" and e["data"]["side"] == "bandits" for e in log)
            assert not any(e["kind"] == "battle_turn" and e["data"]["attacker"] == "bandits" for e in log)
