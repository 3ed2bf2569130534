"""Each registered ruleset is what its declaration (ruleset.py, `Declaration`) says, in
random play: what is checked follows from what is declared.

- hidden information: some viewer has secrets in every match (so the redaction audit
  and the property tests check something); perfect information: nobody ever has any;
- simultaneous moves: several prompts open at once at some point, at some seat count or
  with some option; sequential: never more than one (checked at every step by
  test_properties.py too);
- chance: the same answers under another seed give another match; none: the same one.

A ruleset that declares hidden information without overriding `secrets` (or the
reverse) is refused when its class is defined (test_contract.py).
"""

from __future__ import annotations

import random

import msgpack
import pytest

from battlehall.engine import get_ruleset, ruleset_names
from battlehall.engine.errors import EngineError
from battlehall.engine.ruleset import random_answer
from rulesets import seats as seat_names

SEEDS = 10


def random_match(rs, seats, seed, options=None):
    """Play a random match; yield the state after its start and after each answer."""
    rnd = random.Random(seed)
    state, _ = rs.start(seats, seed, options)
    yield state
    while state["result"] is None:
        prompt = rnd.choice(state["prompts"])
        option, args = random_answer(rnd, prompt)
        rs.answer(state, prompt["seat"], prompt["id"], option, args)
        yield state


def configurations(rs):
    """Every seat count with the default options, then with each true-or-false option
    turned the other way (duel's `simultaneous`), at the fewest seats."""
    out = [(n, None) for n in range(rs.min_seats, rs.max_seats + 1)]
    for name, spec in sorted(rs.options_doc.items()):
        if isinstance(spec["default"], bool):
            out.append((rs.min_seats, {name: not spec["default"]}))
    return out


@pytest.mark.parametrize("name", ruleset_names())
def test_hidden_information_is_named_and_perfect_information_hides_nothing(name):
    rs = get_ruleset(name)
    hidden = rs.declaration.information == "hidden"
    for n in range(rs.min_seats, rs.max_seats + 1):
        seats = seat_names(n)
        for seed in range(3):
            named = False
            for state in random_match(rs, seats, seed):
                secrets = [rs.secrets(state, viewer) for viewer in seats + [None]]
                if not hidden:
                    assert secrets == [[]] * len(secrets), f"{name} declares perfect information"
                named = named or all(secrets)
            if hidden:
                # Every viewer, a spectator too, had something hidden from it at some point.
                assert named, f"{name} declares hidden information; {n} seats, seed {seed}: no secrets"


@pytest.mark.parametrize("name", ruleset_names())
def test_declared_moves_are_what_random_play_opens(name):
    rs = get_ruleset(name)
    most = 0
    for n, options in configurations(rs):
        for seed in range(SEEDS):
            for state in random_match(rs, seat_names(n), seed, options):
                most = max(most, len(state["prompts"]))
            if most > 1 and rs.declaration.moves == "simultaneous":
                return
    assert rs.declaration.moves == "sequential", f"{name} declares simultaneous moves: never two prompts at once"
    assert most == 1, f"{name} declares sequential moves, but {most} prompts were open at once"


def replay(rs, seats, seed, answers):
    """The events of `answers` under `seed`, or None when they are not legal there."""
    state, events = rs.start(seats, seed)
    log = list(events)
    try:
        for seat, prompt_id, option, args in answers:
            log += rs.answer(state, seat, prompt_id, option, args)
    except EngineError:
        return None
    return msgpack.packb(log)


@pytest.mark.parametrize("name", ruleset_names())
def test_declared_chance_is_what_the_seed_decides(name):
    rs = get_ruleset(name)
    seats = seat_names(rs.min_seats)
    differs = 0
    for seed in range(SEEDS):
        rnd = random.Random(seed)
        state, _ = rs.start(seats, seed)
        answers = []
        while state["result"] is None:
            prompt = rnd.choice(state["prompts"])
            option, args = random_answer(rnd, prompt)
            answers.append((prompt["seat"], prompt["id"], option, args))
            rs.answer(state, prompt["seat"], prompt["id"], option, args)
        same = replay(rs, seats, seed, answers)
        other = replay(rs, seats, seed + 1, answers)
        assert same is not None
        differs += other != same
    if rs.declaration.chance == "seeded":
        assert differs > 0, f"{name} declares chance, but the seed changed none of {SEEDS} matches"
    else:
        assert differs == 0, f"{name} declares no chance, but the seed changed {differs} matches"
