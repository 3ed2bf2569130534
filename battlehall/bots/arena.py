"""Bots play whole matches against each other, with the engine alone (no server): the
tests check that every level of every ruleset answers legally to the end and that
``greedy`` beats ``random``; bench/bots.py measures what an answer costs."""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field

from ..engine import get_ruleset
from ..engine.ruleset import Result
from .base import Bot, Seen


@dataclass(slots=True)
class Played:
    result: Result | None  # None when the match was cut at `max_answers`
    answers: int
    # seat -> seconds of CPU its bot spent choosing, and the number of answers it chose
    think_s: dict[str, float] = field(default_factory=dict)
    chosen: dict[str, int] = field(default_factory=dict)


def play(ruleset_name: str, bots: dict[str, Bot], seed: int, *, options: dict | None = None,
         bot_seed: int = 0, max_answers: int = 20_000, clock=None) -> Played:
    """One match, the seats (in order) played by `bots`; the first open prompt (in
    prompt id order) is answered each step. `clock` (e.g. time.process_time) times the
    bots' choices when given."""
    ruleset = get_ruleset(ruleset_name)
    seats = list(bots)
    state, _ = ruleset.start(seats, seed, options)
    definitions = ruleset.definitions(state)
    rngs = {seat: random.Random(f"{bot_seed}:{seat}") for seat in seats}
    played = Played(None, 0, {s: 0.0 for s in seats}, {s: 0 for s in seats})
    while state["result"] is None and played.answers < max_answers:
        prompt = min(ruleset.prompts(state), key=lambda p: int(p["id"][1:]))
        seat = prompt["seat"]
        # A deep copy: whatever the bot does to what it is shown cannot reach the state.
        seen = Seen(ruleset_name, seat, copy.deepcopy(ruleset.view(state, seat)), definitions)
        started = clock() if clock else 0.0
        option, args = bots[seat].choose(seen, copy.deepcopy(prompt), rngs[seat])
        if clock:
            played.think_s[seat] += clock() - started
        played.chosen[seat] += 1
        ruleset.answer(state, seat, prompt["id"], option, args)
        played.answers += 1
    played.result = state["result"]
    return played
