"""Random demigod play over its options and seat counts: no crash, every match ends, and the
same seed and answers give the same events and state (the checks of test_properties)."""

from __future__ import annotations

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_properties import play, replay

from battlehall.engine import get_ruleset
from rulesets import PROPERTY_DEPTH
from rulesets import seats as seat_names

OPTIONS = st.fixed_dictionaries({}, optional={
    "map": st.sampled_from(["crossroads", "ruined-keep", "open-field"]),
    "turn_limit": st.integers(1, 8),
    "hand_size": st.integers(0, 10),
    "draw_per_turn": st.integers(0, 5),
    "hand_limit": st.integers(1, 15),
    "tick_growth": st.integers(0, 5),
    "los": st.sampled_from(["lines", "any"]),
})


@settings(max_examples=15 * PROPERTY_DEPTH, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**80), rnd=st.randoms(use_true_random=False), options=OPTIONS, n=st.integers(2, 4))
def test_hypothesis_demigod(seed, rnd, options, n):
    rs = get_ruleset("demigod")
    seats = seat_names(n)
    state, log, answers = play(rs, seed, rnd, options, seats=seats)
    assert state["result"]["reason"] in ("conquest", "turn_limit")
    again, relog = replay(rs, seed, answers, options, seats=seats)
    assert again == state and msgpack.packb(relog) == msgpack.packb(log)
