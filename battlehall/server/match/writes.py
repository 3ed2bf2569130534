"""Entries committed in memory and written in one batch, and what follows the write (acks,
events, a rebuild after it failed): a part of the match's core (match_core.py)."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from battlehall.engine.errors import EngineError
from battlehall.server.empty import EMPTY, EMPTY_LIST
from battlehall.server.errors import Fenced, StoreUnavailable
from battlehall.server.match.effects import Ack, Ended, Lost, Publish, Resolve, Write, refusal
from battlehall.server.match.holds import Holds
from battlehall.server.match.inputs import Abandon, Abort, Act, AutoPass, Claim, Input, Judge, Rebuilt, Resign

#: How many acts' clock records a match keeps for their re-sent acts' acks.
ACK_CLOCKS_KEPT = 64
#: How many writes of a match may be in flight at once. Answers that come while one is
#: go out at once in a second, checked by Redis to follow the first (lease.FENCED_WRITE),
#: instead of waiting for the first's reply: a reaction window's answers, which come
#: together, are acknowledged one write later at most, not two. Answers that come while
#: two are in flight wait, and go out together in one write when the first returns.
IN_FLIGHT = 2


class Status(enum.Enum):
    IDLE = "idle"  # inputs are handled as they come
    WRITING = "writing"  # writes are in flight: answers may go out in the next (IN_FLIGHT), the rest waits
    FAILING = "failing"  # a write failed: the ones still in flight fail with it, then a rebuild
    STALE = "stale"  # memory may be ahead of Redis: rebuild before the next input
    REBUILDING = "rebuilding"  # a rebuild is in flight: inputs wait for it
    STOPPED = "stopped"  # released, fenced out or unloaded: nothing more is handled


@dataclass(slots=True)
class _Committed:
    """An entry applied in memory, waiting for its write."""
    entry: dict
    records: list


@dataclass(slots=True)
class _InFlight:
    """A write sent, not yet answered: its entries, and per input what follows it."""
    batch: list[tuple[dict, list]]
    outbox: list[tuple[Input, Any]]
    snapshot: bool  # it carries a snapshot
    ends: bool  # it carries the match's end


class Writes(Holds):
    """Entries committed in memory, written in one batch, and what follows the write: acks, events, a rebuild."""

    # What it reads of the MatchCore it is part of (match_core.py), past what Holds declares.
    ack_clocks: dict[str, dict]
    batch: list[tuple[dict, list]]
    damaged: bool
    outbox: list[tuple[Input, Any]]
    sent_seq: int
    snapshot_every: int
    status: Status
    timers: dict[str, int]
    writing: tuple[_InFlight, ...]

    def _arm(self) -> list:
        raise NotImplementedError  # match_core.py

    def _bots(self) -> list:
        raise NotImplementedError  # match_core.py

    def _commit(self, entry: dict, event: Input) -> None:
        """Apply in memory and add the entry to the next write. EngineError: nothing changed."""
        try:
            records = self.match.commit(entry)
        except EngineError:
            raise
        except Exception:  # a ruleset bug may have half-changed the state: rebuild it
            self.damaged = True
            raise
        if not self.batch:  # idle, both are the shared empty list (empty.py): lists of their own
            self.batch, self.outbox = [], []
        self.batch.append((entry, records))
        self.outbox.append((event, _Committed(entry, records)))
        if self.stops.modes:
            self._stops_on(records, event)

    def _write(self) -> Write:
        """The batch prepared goes out; the write before it, if still in flight, must land first."""
        snapshot = None if self.damaged else self.match.snapshot_due(self.snapshot_every)
        ends = self.match.over and not self.damaged
        after = self.writing[-1].batch[-1][0]["seq"] if self.writing else None
        self.writing += (_InFlight(self.batch, self.outbox, snapshot is not None, ends),)
        entries = tuple(self.batch)
        self.batch = self.outbox = EMPTY_LIST
        self.status = Status.WRITING
        return Write(entries, snapshot, ends, after)

    def _may_pipeline(self) -> bool:
        """Whether a new batch may go out before the writes in flight return: not behind
        a snapshot (its count restarts when it lands), an end, or a bug's damage."""
        last = self.writing[-1]
        return len(self.writing) < IN_FLIGHT and not (last.snapshot or last.ends or self.damaged)

    def _held(self) -> list[tuple[Input, Any]] | None:
        """Where the effects answering an input wait: behind the batch being prepared, or
        else the last write in flight; None when nothing is pending."""
        if self.batch:
            return self.outbox
        return self.writing[-1].outbox if self.writing else None

    def _write_done(self) -> None:
        if self.status is Status.FAILING:  # an earlier write failed: this one is not acknowledged either
            self._write_failed(StoreUnavailable("an earlier write of the match failed"))
            return
        if self.status is not Status.WRITING:
            return  # stopped meanwhile: nothing more is sent from here
        done, self.writing = self.writing[0], self.writing[1:]
        if done.snapshot:
            self.match.snapshot_written()
        last = done.batch[-1][0]
        out = self._out
        for event, result in done.outbox:
            if type(result) is not _Committed:
                out += result
                continue
            entry, records = result.entry, result.records
            out.append(Publish(records, entry))
            if records:
                self.sent_seq = records[-1]["seq"]
            if done.ends and entry is last:
                out.append(Ended())
            if type(event) is Act:
                out.append(Ack(event.conn, event.id, entry["last_seq"], event.received, self._ack_clock(event, entry)))
            elif type(event) is Resign or type(event) is Claim:
                out.append(Ack(event.conn, event.id, entry["last_seq"], event.received))
            elif type(event) is Abort or type(event) is Abandon or type(event) is Judge:
                out.append(Resolve(event.reply, True))
        if self.writing:
            return  # deadlines and bots follow the state Redis holds: armed when the last lands
        if self.damaged:
            self.damaged = False
            self.status = Status.STALE
        else:
            self.status = Status.IDLE
        out += self._arm()
        out += self._bots()

    def _ack_clock(self, act: Act, entry: dict) -> dict | None:
        """The clock record an act's ack shows, kept for the latest acts: a re-sent act
        gets the same ack (after a restart, without it)."""
        record = entry.get("clock")
        if record is not None:
            if self.ack_clocks is EMPTY:
                self.ack_clocks = {}
            self.ack_clocks[f"{act.seat} {act.id}"] = record
            if len(self.ack_clocks) > ACK_CLOCKS_KEPT:
                del self.ack_clocks[next(iter(self.ack_clocks))]
        return record

    def _write_failed(self, error: StoreUnavailable) -> None:
        if self.status is not Status.WRITING and self.status is not Status.FAILING:
            return
        failed, self.writing = self.writing[0], self.writing[1:]
        for event, _ in failed.outbox:  # nothing of it is known to be recorded: none of it is acknowledged
            self._out += refusal(event, error)
        if isinstance(error, Fenced):  # another node holds the match now
            self.status = Status.STOPPED
            self.timers.clear()
            self._out.append(Lost())  # what the writes still in flight hold is refused by `stop`
        elif self.writing:  # the writes sent after it are not acknowledged either
            self.status = Status.FAILING
        else:  # the state in memory is ahead of Redis
            self.damaged = False
            self.status = Status.STALE

    # -- rebuilding after a failed write -------------------------------------------------

    def _rebuilt(self, rebuilt: Rebuilt) -> None:
        if self.status is not Status.REBUILDING:
            return
        self.match = rebuilt.match
        self.status = Status.IDLE
        if rebuilt.missed:  # a write landed though its reply was lost: deliver it
            self._out.append(Publish(rebuilt.missed, None))
            self.sent_seq = rebuilt.missed[-1]["seq"]
        for prompt in self.match.ruleset.prompts(self.match.state):  # a pass lost with the write is due again
            if self.stops.passes(prompt):
                self.queue.append(AutoPass(prompt["seat"], prompt["id"]))
        self._out += self._arm()
        self._out += self._bots()

    def _rebuild_failed(self) -> None:
        """Redis is away: the input that waited for the rebuild is refused; the next one
        tries again."""
        if self.status is not Status.REBUILDING:
            return
        self.status = Status.STALE
        if self.queue:
            self._out += refusal(self.queue.pop(0), StoreUnavailable("match storage is unreachable"))
