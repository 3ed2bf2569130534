"""Every step of a finished match, re-run from its replay: what each seat saw after each
answer, timeout or abort, for the replay page.

The replay's log re-runs the match exactly (verify.py checks it); here the re-run also
keeps, after each log entry, every seat's view and open prompts. Together the seats'
views show every hand: the hidden information of the match, revealed.
"""

from __future__ import annotations

from .engine import get_ruleset
from .engine.ruleset import apply_entry


def steps(replay: dict) -> list[dict]:
    """Step 0 is the start; step k follows log entry k-1. Each step: `step`, `seq` (its last
    event), `first_seq` (its first event), `entry` (the log entry, None for the start),
    `views` (seat -> view) and `prompts` (seat -> its open prompts, in full)."""
    ruleset = get_ruleset(replay["ruleset"])
    seats = replay["seats"]
    state, events = ruleset.start(seats, int(replay["seed"]), replay["options"], replay["setup"])
    seq = len(events)
    out = [_step(ruleset, state, seats, 0, 1, seq, None)]
    for k, entry in enumerate(replay["log"], start=1):
        events = apply_entry(ruleset, state, entry)
        first = seq + 1
        seq += len(events)
        out.append(_step(ruleset, state, seats, k, first, seq, entry))
    return out


def _step(ruleset, state, seats, k, first_seq, seq, entry) -> dict:
    prompts = ruleset.prompts(state)
    return {"step": k, "first_seq": first_seq, "seq": seq, "entry": entry,
            "views": {seat: ruleset.view(state, seat) for seat in seats},
            "prompts": {seat: [p for p in prompts if p["seat"] == seat] for seat in seats}}
