"""Random play of every ruleset, checked by invariants (DESIGN.md: "Hypothesis stateful testing").

A random player picks any open prompt, any of its options and any listed value of each
argument, and sometimes lets the prompt time out instead. Whatever it does:

- nothing crashes, and the match ends within a bound;
- every open prompt's default is one of its options;
- the state is plain data that round-trips through msgpack, at every step;
- (spellfire) no card is created or lost: every instance is in exactly one zone;
- no event, as redacted for another seat or a spectator, names a card hidden from them
  (another seat's hand, any draw pile) or shows another seat's prompt options;
- the same seed and answers give the same events, byte for byte, and the same state.
"""

from __future__ import annotations

import random

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battlehall.engine import get_ruleset
from battlehall.engine.spellfire.zones import all_card_ids

SEATS = ["alice", "bob"]
MAX_STEPS = {"duel": 3000, "spellfire": 20000}


def strings(obj, out):
    """Every string inside a (redacted) event or view."""
    if isinstance(obj, str):
        out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out.add(k)
            strings(v, out)
    elif isinstance(obj, list):
        for v in obj:
            strings(v, out)
    return out


def hidden_from(state, viewer):
    """Instance ids `viewer` must not see: other seats' hands, every draw pile."""
    hidden = set()
    for seat in state["seats"]:
        p = state["players"][seat]
        hidden.update(p["draw"])
        if seat != viewer:
            hidden.update(p["hand"])
    return hidden


def check_step(rs, state, events, full=True):
    for p in state["prompts"]:
        assert p["default"] in [o["id"] for o in p["options"]], p
        for o in p["options"]:
            for values in (o.get("args") or {}).values():
                assert values, (p, o)  # an argument always has a legal value
    if state["result"] is None:
        assert state["prompts"], "a running match always waits for someone"
    if not full:
        return
    assert msgpack.unpackb(msgpack.packb(state)) == state
    if rs.name != "spellfire":
        return
    assert sorted(all_card_ids(state)) == sorted(state["cards"]), "a card was created or lost"
    for viewer in SEATS + [None]:
        hidden = hidden_from(state, viewer)
        for event in events:
            seen = rs.redact(event, viewer)
            assert not (strings(seen, set()) & hidden), (viewer, event)
            if event["kind"] == "prompt" and event["data"]["seat"] != viewer:
                assert "options" not in seen["data"] and "text" not in seen["data"]
        view = rs.view(state, viewer)
        assert not (strings(view, set()) & hidden), viewer
        assert "rng" not in view


def play(rs, seed, rnd, options=None, full=True):
    """A random match; returns its state, its events and the answers given."""
    state, events = rs.start(SEATS, seed, options)
    check_step(rs, state, events, full)
    log, answers = list(events), []
    for _ in range(MAX_STEPS[rs.name]):
        if state["result"] is not None:
            return state, log, answers
        prompt = rnd.choice(state["prompts"])
        if rnd.random() < 0.1:
            answers.append((prompt["id"], None, None))
            events = rs.expire(state, prompt["id"])
        else:
            option = rnd.choice(prompt["options"])
            args = {k: rnd.choice(v) for k, v in sorted((option.get("args") or {}).items())}
            answers.append((prompt["id"], option["id"], args))
            events = rs.answer(state, prompt["seat"], prompt["id"], option["id"], args)
        check_step(rs, state, events, full)
        log += events
    raise AssertionError(f"{rs.name} seed {seed}: no end after {MAX_STEPS[rs.name]} answers")


def replay(rs, seed, answers, options=None):
    state, events = rs.start(SEATS, seed, options)
    log = list(events)
    for prompt_id, option, args in answers:
        if option is None:
            log += rs.expire(state, prompt_id)
        else:
            seat = rs.find_prompt(state, prompt_id)["seat"]
            log += rs.answer(state, seat, prompt_id, option, args)
    return state, log


def test_many_random_spellfire_matches():
    """A plain loop over many seeds: the cheap checks at every step, all of them on every 10th."""
    rs = get_ruleset("spellfire")
    reasons = {}
    for seed in range(1000):
        state, log, answers = play(rs, seed, random.Random(seed), full=seed % 10 == 0)
        assert sorted(all_card_ids(state)) == sorted(state["cards"])
        assert log[-1]["kind"] == "match_ended"
        reasons[state["result"]["reason"]] = reasons.get(state["result"]["reason"], 0) + 1
        if seed % 50 == 0:
            again, relog = replay(rs, seed, answers)
            assert again == state and msgpack.packb(relog) == msgpack.packb(log)
    assert reasons.get("realms", 0) > 0  # random play does reach the victory condition


def test_many_random_duel_matches():
    rs = get_ruleset("duel")
    for seed in range(1000):
        state, log, _ = play(rs, seed, random.Random(seed), full=seed % 10 == 0)
        assert log[-1]["kind"] == "match_ended"


SPELLFIRE_OPTIONS = st.fixed_dictionaries({}, optional={
    "same_world_bonus": st.booleans(),
    "attacks_per_turn": st.integers(1, 3),
    "hand_limit": st.integers(0, 10),
    "draw_per_turn": st.integers(0, 4),
    "starting_hand": st.integers(0, 8),
    "turn_limit": st.integers(1, 60),
    "exhaustion": st.sampled_from(["end", "continue"]),
    "realms_to_win": st.integers(1, 6),
    "decks": st.sampled_from([["embers", "shadows"], ["shadows", "embers"]]),
})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**64 - 1), rnd=st.randoms(use_true_random=False), options=SPELLFIRE_OPTIONS)
def test_hypothesis_spellfire(seed, rnd, options):
    rs = get_ruleset("spellfire")
    state, log, answers = play(rs, seed, rnd, options)
    again, relog = replay(rs, seed, answers, options)
    assert again == state and msgpack.packb(relog) == msgpack.packb(log)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rnd=st.randoms(use_true_random=False), hp=st.integers(1, 40))
def test_hypothesis_duel(seed, rnd, hp):
    rs = get_ruleset("duel")
    state, log, answers = play(rs, seed, rnd, {"hp": hp})
    again, relog = replay(rs, seed, answers, {"hp": hp})
    assert again == state and msgpack.packb(relog) == msgpack.packb(log)
