"""A match's state, clock, seq and act ids, advanced by log entries.

Shared by live play (match_core.py), recovery (snapshot + replay of the log), the
delayed spectator stream and mirrors: the same entries give the same state everywhere.
"""

from __future__ import annotations

from typing import cast

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import Event, LogEntry, Prompt, apply_entry
from battlehall.server.clock import Clock, PromptTime
from battlehall.server.empty import EMPTY
from battlehall.server.match.alike import share_settings
from battlehall.server.records import LoadedMatch


class ReplayMismatch(Exception):
    """Replaying the log did not give the seq it recorded: the log is not this match's."""


class ShownPrompt(Prompt, PromptTime):
    """An open prompt as its seat is shown it (and its bot answers it): with its clock."""


class MatchState:
    def __init__(self, meta: dict, state: dict, clock: Clock, seq: int, acts: dict[str, int] | None = None):
        self.meta = share_settings(meta)  # the parts equal to other matches' kept once
        self.ruleset = get_ruleset(meta["ruleset"])
        self.state = state
        self.clock = clock
        self.seq = seq
        self.acts: dict[str, int] = acts or EMPTY  # "seat act-id" -> seq of its ack (its own once written: empty.py)
        self.answers_since_snapshot = 0

    @classmethod
    def from_loaded(cls, loaded: LoadedMatch) -> "MatchState":
        """Snapshot + replay of the log after it."""
        snap = loaded.snapshot
        match = cls(loaded.meta, snap["state"], Clock(snap["clock"]), snap["seq"], snap.get("acts", {}))
        for entry in loaded.log:
            if entry["seq"] != match.seq + 1:
                raise ReplayMismatch(f"log entry at seq {entry['seq']}, expected {match.seq + 1}")
            match.apply(entry)
            if match.seq != entry["last_seq"]:
                raise ReplayMismatch(f"replay reached seq {match.seq}, log says {entry['last_seq']}")
        match.answers_since_snapshot = len(loaded.log)
        return match

    def commit(self, entry: dict) -> list[dict]:
        """Apply a new entry, giving it its seq range (`seq`, `last_seq`); its event records.

        EngineError before anything changed when the ruleset refuses it.
        """
        entry["seq"] = self.seq + 1
        records = self.apply(entry)
        entry["last_seq"] = self.seq
        return records

    def apply(self, entry: dict) -> list[dict]:
        """Apply one answer, timeout or abort; returns its stamped event records (seq, at)."""
        # The stored entry: one of the engine's LogEntry shapes, plus the server's own fields
        # (seq, last_seq, act); a plain dict until the log is typed end to end.
        events = apply_entry(self.ruleset, self.state, cast(LogEntry, entry))
        if "judge" in entry:  # a pause, a resume, time added: the clock's alone
            self.clock.judge(entry["judge"], entry["at"])
        self.answers_since_snapshot += 1
        # An answer's lag credit, decided when it came (its `clock` record), goes back to
        # the clock as it closes the prompt: replay spends the same quota and bank.
        record = entry.get("clock")
        credit = (entry["prompt"], record["lag_ms"]) if record and record.get("lag_ms") else None
        records = self.stamp(events, entry["at"], credit)
        if entry.get("act") is not None:  # a re-sent act (or resign) id gets this ack again
            if self.acts is EMPTY:
                self.acts = {}
            self.acts[f"{entry['seat'] if 'seat' in entry else entry['resign']} {entry['act']}"] = self.seq
        return records

    def stamp(self, events: list[Event], at: int, credit: tuple[str, int] | None = None) -> list[dict]:
        """Number the events, at `at`, and keep the clock in step with the prompts they
        open and close; `credit` is (prompt, lag ms) of an answer credited lag."""
        records = []
        for event in events:
            self.seq += 1
            data = event["data"]
            if event["kind"] == "prompt":
                data.update(self.clock.open(data["id"], data["seat"], at, data.get("time_ms"),
                                            data.get("bank", True), "window" in data))
            elif event["kind"] == "prompt_closed":
                self.clock.close(data["id"], at, credit[1] if credit and credit[0] == data["id"] else 0)
            record = {"seq": self.seq, "at": at, "kind": event["kind"], "data": data}
            if "private" in event:
                record["private"] = event["private"]
            records.append(record)
        return records

    def snapshot_due(self, every: int) -> dict | None:
        """The snapshot to write with the entries just committed: every `every` answers,
        and at the end; None otherwise. Written: `snapshot_written`."""
        if self.over or self.answers_since_snapshot >= every:
            return self.snapshot()
        return None

    def snapshot_written(self) -> None:
        self.answers_since_snapshot = 0

    def snapshot(self) -> dict:
        return {"seq": self.seq, "state": self.state, "clock": self.clock.data, "acts": self.acts}

    @property
    def over(self) -> bool:
        return self.state["result"] is not None

    def prompts_for(self, seat: str | None) -> list[ShownPrompt]:
        if seat is None:
            return []
        return [{**p, **self.clock.info(p["id"])} for p in self.ruleset.prompts(self.state) if p["seat"] == seat]
