"""Random play of every ruleset, checked by invariants.

A random player picks any open prompt, any of its options and any listed value of each
argument, and sometimes lets the prompt time out instead. Whatever it does:

- nothing crashes, and the match ends within a bound;
- every open prompt's default is one of its options;
- a ruleset declaring sequential moves never has two prompts open at once;
- the state is plain data that round-trips through msgpack, at every step;
- (spellfire) no card is created or lost: every instance is in exactly one zone;
- no event or view, as redacted for a viewer, holds anything the ruleset's `secrets`
  says that viewer must not see, or shows another seat's prompt options;
- the same seed and answers give the same events, byte for byte, and the same state.

The generic tests run over every registered ruleset at every seat count it takes
(tests/rulesets.py); the hypothesis tests add each ruleset's options.
"""

from __future__ import annotations

import random

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer
from battlehall.engine.spellfire.cards import shipped
from battlehall.engine.spellfire.zones import all_card_ids
from leaks import atoms
from rulesets import PROPERTY_DEPTH, case_ids, cases
from rulesets import seats as seat_names

SEATS = ["alice", "bob"]
MAX_STEPS = 100_000  # answers: a match longer than this never ends


def check_step(rs, state, events, full=True):
    if rs.declaration.moves == "sequential":
        assert len(state["prompts"]) <= 1, state["prompts"]
    for p in state["prompts"]:
        assert p["seat"] in state["seats"], p
        assert p["default"] in [o["id"] for o in p["options"]], p
        for o in p["options"]:
            for values in (o.get("args") or {}).values():
                assert values, (p, o)  # an argument always has a legal value
    if state["result"] is None:
        assert state["prompts"], "a running match always waits for someone"
    else:
        result = state["result"]
        assert sorted(s for group in result["ranking"] for s in group) == sorted(state["seats"]), result
        assert result["draw"] == (not result["winners"]) and set(result["winners"]) <= set(state["seats"])
    if not full:
        return
    assert msgpack.unpackb(msgpack.packb(state)) == state
    if rs.name == "spellfire":
        assert sorted(all_card_ids(state)) == sorted(state["cards"]), "a card was created or lost"
    for viewer in state["seats"] + [None]:
        hidden = set(rs.secrets(state, viewer))
        for event in events:
            seen = rs.redact(event, viewer)
            assert hidden.isdisjoint(atoms(seen, [])), (viewer, event)
            if event["kind"] == "prompt" and event["data"]["seat"] != viewer:
                assert "options" not in seen["data"] and "text" not in seen["data"]
        view = rs.view(state, viewer)
        assert hidden.isdisjoint(atoms(view, [])), viewer
        assert "rng" not in view


def play(rs, seed, rnd, options=None, full=True, seats=SEATS, setup=None):
    """A random match; returns its state, its events and the answers given."""
    state, events = rs.start(seats, seed, options, setup)
    check_step(rs, state, events, full)
    log, answers = list(events), []
    for _ in range(MAX_STEPS):
        if state["result"] is not None:
            return state, log, answers
        prompt = rnd.choice(state["prompts"])
        if rnd.random() < 0.1:
            answers.append((prompt["id"], None, None))
            events = rs.expire(state, prompt["id"])
        else:
            option, args = random_answer(rnd, prompt)  # a legal combination when arguments depend on each other
            answers.append((prompt["id"], option, args))
            events = rs.answer(state, prompt["seat"], prompt["id"], option, args)
        check_step(rs, state, events, full)
        log += events
    raise AssertionError(f"{rs.name} seed {seed}: no end after {MAX_STEPS} answers")


def replay(rs, seed, answers, options=None, seats=SEATS, setup=None):
    state, events = rs.start(seats, seed, options, setup)
    log = list(events)
    for prompt_id, option, args in answers:
        if option is None:
            log += rs.expire(state, prompt_id)
        else:
            seat = rs.find_prompt(state, prompt_id)["seat"]
            log += rs.answer(state, seat, prompt_id, option, args)
    return state, log


@pytest.mark.parametrize(("name", "n"), cases(), ids=case_ids())
def test_many_random_matches(name, n):
    """Every ruleset at every seat count: many seeds, the cheap checks at every step and
    all of them on every 10th match; every 25th is replayed from its answers."""
    rs = get_ruleset(name)
    seats = seat_names(n)
    reasons = {}
    for seed in range((200 if n == 2 else 20) * PROPERTY_DEPTH):
        state, log, answers = play(rs, seed, random.Random(seed), full=seed % 10 == 0, seats=seats)
        assert log[-1]["kind"] == "match_ended" and log[-1]["data"] == state["result"]
        reasons[state["result"]["reason"]] = reasons.get(state["result"]["reason"], 0) + 1
        if seed % 25 == 0:
            again, relog = replay(rs, seed, answers, seats=seats)
            assert again == state and msgpack.packb(relog) == msgpack.packb(log)
    if name == "spellfire":
        assert reasons.get("realms", 0) > 0  # random play does reach the victory condition


SPELLFIRE_OPTIONS = st.fixed_dictionaries({}, optional={
    "same_world_bonus": st.booleans(),
    "attacks_per_turn": st.integers(1, 3),
    "hand_limit": st.integers(0, 10),
    "draw_per_turn": st.integers(0, 4),
    "starting_hand": st.integers(0, 8),
    "turn_limit": st.integers(1, 60),
    "exhaustion": st.sampled_from(["end", "continue"]),
    "realms_to_win": st.integers(1, 6),
})
DECKS = list(shipped().decks)  # every shipped deck
CARDS = list(shipped().cards)  # the full set


@settings(max_examples=20 * PROPERTY_DEPTH, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**80), rnd=st.randoms(use_true_random=False), options=SPELLFIRE_OPTIONS,
       n=st.integers(2, 6), data=st.data())
def test_hypothesis_spellfire(seed, rnd, options, n, data):
    """Any seed (beyond 64 bits too), options, seat count and deck of each seat."""
    rs = get_ruleset("spellfire")
    if data.draw(st.booleans()):
        options = {**options, "decks": data.draw(st.lists(st.sampled_from(DECKS), min_size=n, max_size=n))}
    seats = seat_names(n)
    state, log, answers = play(rs, seed, rnd, options, seats=seats)
    again, relog = replay(rs, seed, answers, options, seats=seats)
    assert again == state and msgpack.packb(relog) == msgpack.packb(log)


@pytest.mark.parametrize("n", [2, 6])
@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), rnd=st.randoms(use_true_random=False), order=st.permutations(CARDS),
       turn_limit=st.integers(10, 30))
def test_hypothesis_spellfire_full_set(n, seed, rnd, order, turn_limit):
    """Every shipped card in play at once: the whole set dealt, in any order, into the
    draw piles of two or six seats (a setup), then random play."""
    rs = get_ruleset("spellfire")
    seats = seat_names(n)
    setup = {"players": {s: {"draw": order[i::n], "hand": []} for i, s in enumerate(seats)}}
    options = {"turn_limit": turn_limit, "starting_hand": 0}
    state, log, answers = play(rs, seed, rnd, options, seats=seats, setup=setup)
    assert sorted(state["cards"].values()) == sorted(CARDS)
    again, relog = replay(rs, seed, answers, options, seats=seats, setup=setup)
    assert again == state and msgpack.packb(relog) == msgpack.packb(log)


@settings(max_examples=20 * PROPERTY_DEPTH, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), rnd=st.randoms(use_true_random=False), hp=st.integers(1, 40))
def test_hypothesis_duel(seed, rnd, hp):
    rs = get_ruleset("duel")
    state, log, answers = play(rs, seed, rnd, {"hp": hp})
    again, relog = replay(rs, seed, answers, {"hp": hp})
    assert again == state and msgpack.packb(relog) == msgpack.packb(log)
