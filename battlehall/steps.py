"""The steps of a finished match, re-run from its replay: what each seat saw after each
log entry (an answer, a timeout, an abort, a resign, a seat marked away or back), for
the replay page, a range of steps at a time.

The replay's log re-runs the match exactly (verify.py checks it); here the re-run also
keeps, after each log entry, every seat's view and open prompts. Together the seats'
views show every hand: the hidden information of the match, revealed.

Re-running the rules is cheap; drawing every seat's view after every answer is not (a
long six-seat match makes hundreds of megabytes of views). So `index` re-runs the
match once without views, keeping a few copies of the state along the way
(checkpoints), and `encoded` draws only the steps asked for, starting from the nearest
checkpoint before them. Each also comes as a generator that pauses every few
milliseconds of work, for a server to run between its other work.
"""

from __future__ import annotations

import pickle
import zlib
from dataclasses import dataclass

import orjson

from .engine import get_ruleset
from .engine.ruleset import LogEntry, apply_entry

MAX_CHECKPOINTS = 16  # states kept per match: a step is at most len(log) / 16 answers from one
MIN_EVERY = 32  # answers between checkpoints, at least: a short match keeps one or two


@dataclass(frozen=True)
class Index:
    """What drawing any range of a match's steps needs, and no view."""

    ruleset: str
    seats: list[str]
    log: list[LogEntry]
    seqs: list[tuple[int, int]]  # step -> (first_seq, seq): its first and last events
    every: int  # checkpoint j is the state at step j * every
    checkpoints: list[bytes]  # pickled states, compressed (this process's own, never a client's bytes)
    definitions: dict  # the ruleset's static definitions (Ruleset.definitions)

    @property
    def total(self) -> int:
        """Steps: the start and one per log entry."""
        return len(self.log) + 1

    def size(self) -> int:
        """Roughly the bytes it holds, for a cache bounded in bytes."""
        return (sum(map(len, self.checkpoints)) + len(orjson.dumps(self.log))
                + len(orjson.dumps(self.definitions)) + 32 * len(self.seqs))


def index(replay: dict) -> Index:
    """Re-run the match of `replay` (as GET /matches/{id}/replay answers it) without
    drawing any view: each step's seqs, and checkpoints to start a range from."""
    return finish(indexing(replay))


def encoded(idx: Index, start: int, stop: int) -> list[bytes]:
    """Steps `start` to `stop - 1`, each as JSON: `step`, `first_seq`, `seq`, `entry` (the
    log entry it follows, None for step 0), `views` (seat -> view) and `prompts` (seat ->
    its open prompts, in full)."""
    return finish(encoding(idx, start, stop))


# The same work as generators that stop every few milliseconds of it (`yield`), so that
# a server can run it on its event loop between other work; `finish` runs one through.

SLICE_ENTRIES = 64  # log entries re-run between two pauses: a few milliseconds


def indexing(replay: dict):
    ruleset = get_ruleset(replay["ruleset"])
    log = replay["log"]
    every = max(MIN_EVERY, -(-len(log) // MAX_CHECKPOINTS))
    state, events = ruleset.start(replay["seats"], int(replay["seed"]), replay["options"], replay["setup"])
    definitions = ruleset.definitions(state)
    seq = len(events)
    seqs = [(1, seq)]
    checkpoints = [_frozen(state)]
    yield
    for k, entry in enumerate(log, start=1):
        first = seq + 1
        seq += len(apply_entry(ruleset, state, entry))
        seqs.append((first, seq))
        if k % every == 0 and k < len(log):
            checkpoints.append(_frozen(state))
            yield
        elif k % SLICE_ENTRIES == 0:
            yield
    return Index(replay["ruleset"], list(replay["seats"]), log, seqs, every, checkpoints, definitions)


def encoding(idx: Index, start: int, stop: int):
    ruleset = get_ruleset(idx.ruleset)
    at = min(start // idx.every, len(idx.checkpoints) - 1) * idx.every
    state = pickle.loads(zlib.decompress(idx.checkpoints[at // idx.every]))
    for k, entry in enumerate(idx.log[at:start], start=1):
        apply_entry(ruleset, state, entry)
        if k % SLICE_ENTRIES == 0:
            yield
    out = []
    for k in range(start, stop):
        if k > start:
            apply_entry(ruleset, state, idx.log[k - 1])
        yield  # a step of a long six-seat match is a few milliseconds to draw
        out.append(orjson.dumps(_step(ruleset, state, idx, k)))
    return out


def finish(work):
    """Run a generator of this module through; what it returns."""
    while True:
        try:
            next(work)
        except StopIteration as done:
            return done.value


def _frozen(state: dict) -> bytes:
    # Compressed: a setup's inline cards (up to a megabyte) are in every copy of the state.
    return zlib.compress(pickle.dumps(state, pickle.HIGHEST_PROTOCOL), 1)


def _step(ruleset, state, idx: Index, k: int) -> dict:
    prompts = ruleset.prompts(state)
    first_seq, seq = idx.seqs[k]
    return {"step": k, "first_seq": first_seq, "seq": seq, "entry": idx.log[k - 1] if k else None,
            "views": {seat: ruleset.view(state, seat) for seat in idx.seats},
            "prompts": {seat: [p for p in prompts if p["seat"] == seat] for seat in idx.seats}}
