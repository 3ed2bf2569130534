"""Prompt deadlines and time banks: pure bookkeeping over times the actor passes in.

Each prompt gets its time from when it opens: its own `time_ms` when the ruleset set
one (a short reaction window), else the match's `prompt_ms`. That is its soft
`deadline`; after it, the seat's bank is spent, unless the prompt says `"bank": false`
(then it expires at its deadline). When the bank is empty too, the prompt's default is
applied. In an untimed match (`prompt_ms` None) only prompts with their own `time_ms`
have a deadline, and they expire at it.

A seat's bank drains once however many of its prompts are overdue together: what is
charged is the length of the union of their overdue intervals, not the sum. Closes come
in time order (the log's), so the union is kept with one mark per seat, `charged`: the
time up to which the bank has already paid.

A late answer may be credited the lag its seat's socket was measured to have (the
server's own ping round trips: transport/lag.py): answering at `at` with `lag_ms`
credited counts as answering at `at - lag_ms`. The credit is bounded, at most
`LAG_CAP_MS` per answer and `LAG_QUOTA_MS` per seat per match, and only what the answer
needs (its lateness past the deadline): an answer in time is credited nothing. The
credit of an answer is decided once, when it comes, and written in its log entry's
`clock` record (`record`), which replay passes back to `close`: the quota spent is part
of the clock's data, rebuilt exactly like the banks.

The clock keeps only plain data, so it is saved in snapshots and rebuilt exactly by
replaying the log, whose entries carry the time they happened. It also remembers when
each prompt opened, so a window's minimum hold survives a recovery.
"""

from __future__ import annotations

import time
from typing import TypedDict

from battlehall.server.empty import EMPTY

#: window_min_ms: how long a reaction or any-time window stays open at least, whatever
#: the seats answer, so that its length never tells whether a seat could play a card.
DEFAULT_CLOCK = {"prompt_ms": 30_000, "bank_ms": 120_000, "window_min_ms": 300}
#: The most lag one answer is credited (docs/protocol.md, Lag): a round trip on a slow
#: line, not a think time.
LAG_CAP_MS = 500
#: The most lag a seat is credited over a whole match: a hundred late answers at a
#: quarter-second each, then its answers count as they come.
LAG_QUOTA_MS = 25_000


class PromptTime(TypedDict, total=False):
    """What a prompt shows of its clock (`Clock.info`): nothing without a deadline."""
    deadline: int
    bank_ms: int


class ClockRecord(TypedDict, total=False):
    """What an answer or a timeout spent of its clock, in its log entry (`clock`)."""
    used_ms: int  # from the prompt's opening to the answer's arrival (or the timeout)
    lag_ms: int  # lag credited: the answer counts as arrived this much earlier
    bank_ms: int  # bank spent by this answer
    away_ms: int  # of used_ms, how long the seat had no socket on (the core adds it)


def now_ms() -> int:
    """The server's wall clock, in epoch milliseconds (the only clock the server reads)."""
    return int(time.time() * 1000)


class Clock:
    def __init__(self, data: dict):
        #: {"prompt_ms", "bank_ms", "banks": {seat: ms}, "charged": {seat: ms},
        #:  "open": {prompt_id: {"seat", "opened", "deadline", "bank", "window"}}}
        #: `deadline` is None in an untimed match, but for a prompt with its own time_ms.
        #:  "lag": {seat: ms}: the lag credited to the seat so far (its quota spent).
        #: Snapshots written before `charged`, `opened`, `bank`, `window` and `lag` existed
        #: read as: nothing charged, bank used, no lag credited.
        #: `charged` and `lag` stay the shared EMPTY (empty.py) until first written: most
        #: matches, untimed or not yet late, never write them.
        self.data = data
        for table in ("charged", "lag"):
            if not data.get(table):
                data[table] = EMPTY

    @classmethod
    def new(cls, config: dict, seats: list[str]) -> "Clock":
        return cls({"prompt_ms": config["prompt_ms"], "bank_ms": config["bank_ms"],
                    "banks": {s: config["bank_ms"] for s in seats}, "charged": EMPTY, "open": {},
                    "lag": EMPTY})

    @property
    def timed(self) -> bool:
        return self.data["prompt_ms"] is not None

    def open(self, prompt_id: str, seat: str, at: int, time_ms: int | None = None,
             bank: bool = True, window: bool = False) -> dict:
        """Start timing a prompt; returns the fields its prompt event shows."""
        entry = {"seat": seat, "opened": at, "deadline": None, "bank": bank, "window": window}
        self.data["open"][prompt_id] = entry
        if not self.timed:
            if time_ms is None:
                return {}
            # A prompt with its own time (a reaction window) is timed whatever the match's
            # clock; an untimed match has no bank to spend after it.
            entry["bank"] = False
        entry["deadline"] = at + (self.data["prompt_ms"] if time_ms is None else time_ms)
        return {"deadline": entry["deadline"], "bank_ms": self._bank_of(entry)}

    def close(self, prompt_id: str, at: int, lag_ms: int = 0) -> None:
        """The prompt was answered, timed out or cancelled at `at`, `lag_ms` credited (an
        answer's, as its `record` decided): spend the seat's bank and lag quota."""
        entry = self.data["open"].pop(prompt_id, None)
        if entry is None or entry.get("deadline") is None:
            return
        seat = entry["seat"]
        if lag_ms:
            lag = self._own("lag")
            lag[seat] = lag.get(seat, 0) + lag_ms
        spent = self._bank_spent(entry, at - lag_ms)
        if spent is not None:
            self.data["banks"][seat] = max(0, self.data["banks"][seat] - spent)
            self._own("charged")[seat] = at - lag_ms

    def _own(self, table: str) -> dict:
        """The data's `table` to write into: a dict of this clock's own once it was EMPTY."""
        found = self.data[table]
        if found is EMPTY:
            found = self.data[table] = {}
        return found

    def grace(self, prompt_id: str, lag_ms: int) -> int:
        """How long past its expiry an answer to the prompt may still come from a seat
        measured at `lag_ms`: the credit it could have, bounded per answer and by what is
        left of the seat's quota."""
        entry = self.data["open"].get(prompt_id)
        if entry is None or entry.get("deadline") is None or lag_ms <= 0:
            return 0
        left = LAG_QUOTA_MS - self.data["lag"].get(entry["seat"], 0)
        return max(0, min(lag_ms, LAG_CAP_MS, left))

    def record(self, prompt_id: str, at: int, lag_ms: int = 0) -> ClockRecord:
        """What answering the prompt at `at` spends, from a seat measured at `lag_ms`:
        the lag credited (only what the answer needs: its lateness past the deadline,
        within `grace`), and the bank spent once that credit is taken off. Changes nothing."""
        entry = self.data["open"].get(prompt_id)
        if entry is None:
            return {}
        record: ClockRecord = {"used_ms": max(0, at - entry["opened"]) if "opened" in entry else 0,
                               "lag_ms": 0, "bank_ms": 0}
        if entry.get("deadline") is None:
            return record
        credit = min(self.grace(prompt_id, lag_ms), max(0, at - entry["deadline"]))
        record["lag_ms"] = credit
        spent = self._bank_spent(entry, at - credit)
        if spent is not None:
            record["bank_ms"] = min(spent, self.data["banks"][entry["seat"]])
        return record

    def _bank_spent(self, entry: dict, at: int) -> int | None:
        """What closing `entry` at `at` takes from its seat's bank (None: nothing, and
        nothing newly charged): what of its overdue time the bank has not paid yet."""
        if not entry.get("bank", True):
            return None
        over = at - max(entry["deadline"], self.data["charged"].get(entry["seat"], 0))
        return over if over > 0 else None

    def expires_at(self, prompt_id: str) -> int | None:
        """When the default answer is due: the deadline, plus what is left of the bank.

        The bank started draining at the earliest deadline among the seat's open
        prompts that use it (or where the last charge stopped, if later), so it runs
        out at that time plus what is left; a prompt expires then, or at its own
        deadline if that comes later.
        """
        entry = self.data["open"].get(prompt_id)
        if entry is None or entry.get("deadline") is None or self.paused is not None:
            return None  # untimed, or every clock stopped by a judge
        if not entry.get("bank", True):
            return entry["deadline"]
        seat = entry["seat"]
        draining_from = min(e["deadline"] for e in self.data["open"].values()
                            if e["seat"] == seat and e.get("bank", True) and e.get("deadline") is not None)
        empty_at = max(draining_from, self.data["charged"].get(seat, 0)) + self.data["banks"][seat]
        return max(entry["deadline"], empty_at)

    # -- an operator's (or judge's) hand on the clocks ---------------------------------

    @property
    def paused(self) -> int | None:
        """Since when every clock of the match is stopped (epoch ms); None while running."""
        return self.data.get("paused")

    def judge(self, action: dict, at: int) -> None:
        """Apply a judge entry's action at `at`: pause every open deadline, resume them
        later by the time paused, or add time to a seat's bank."""
        kind = action["action"]
        if kind == "pause" and self.paused is None:
            self.data["paused"] = at
        elif kind == "resume" and self.paused is not None:
            stopped = max(0, at - self.data.pop("paused"))
            for entry in self.data["open"].values():
                if entry.get("deadline") is not None:
                    entry["deadline"] += stopped
            for seat, charged in self.data["charged"].items():  # what the bank paid moves with them
                self.data["charged"][seat] = charged + stopped
        elif kind == "add_time":
            self.data["banks"][action["seat"]] = self.data["banks"].get(action["seat"], 0) + action["ms"]

    def lag_left(self, seat: str) -> int:
        """What is left of the seat's lag quota."""
        return max(0, LAG_QUOTA_MS - self.data["lag"].get(seat, 0))

    def info(self, prompt_id: str) -> PromptTime:
        entry = self.data["open"].get(prompt_id)
        if entry is None or entry.get("deadline") is None:
            return {}
        return {"deadline": entry["deadline"], "bank_ms": self._bank_of(entry)}

    def window_opened(self, prompt_id: str) -> int | None:
        """When a window prompt opened (None for other prompts): for its minimum hold."""
        entry = self.data["open"].get(prompt_id)
        if entry is None or not entry.get("window"):
            return None
        return entry.get("opened")

    def shift(self, ms: int) -> None:
        """Move every open deadline `ms` later: the time a match spent with no server running."""
        if self.paused is not None:  # paused then: the pause's own time does not count it again
            self.data["paused"] += ms
        for entry in self.data["open"].values():
            if entry.get("deadline") is not None:
                entry["deadline"] += ms
            if "opened" in entry:
                entry["opened"] += ms

    def _bank_of(self, entry: dict) -> int:
        """What a prompt may spend after its deadline: the seat's bank, or 0 if it uses none."""
        return self.data["banks"][entry["seat"]] if entry.get("bank", True) else 0
