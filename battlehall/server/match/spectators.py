"""The delayed spectator stream: spectators see the match `delay_ms` late, view included.

A second copy of the match (a replica) is advanced by the same log entries as the
live match, each one `delay_ms` after it happened. Since the engine is deterministic,
the replica produces exactly the live events, only later; its state is what a late
joining spectator is shown. A streamer's opponent watching the stream learns nothing
about the present.
"""

from __future__ import annotations

import asyncio
import collections
from collections.abc import Callable
from typing import TYPE_CHECKING

import msgpack

from battlehall.server.clock import Clock, now_ms
from battlehall.server.match.fanout import event_message, fan_out
from battlehall.server.match.match_state import MatchState

if TYPE_CHECKING:
    from battlehall.server.match.connection import Connection
    from battlehall.server.metrics import Metrics


def copy_core(core: MatchState) -> MatchState:
    """An independent copy of a MatchState (state and clock), through MessagePack."""
    data = msgpack.unpackb(msgpack.packb({"state": core.state, "clock": core.clock.data}), raw=False,
                           strict_map_key=False)
    return MatchState(core.meta, data["state"], Clock(data["clock"]), core.seq)


class DelayedFeed:
    def __init__(self, replica: MatchState, delay_ms: int, metrics: Metrics):
        self.replica = replica
        self.delay_ms = delay_ms
        self.metrics = metrics
        self.conns: list = []
        self.pending: collections.deque[dict] = collections.deque()
        self.timer: asyncio.TimerHandle | None = None
        self.on_applied: Callable[[], None] | None = None  # called after entries were shown (a mirror watches for the end)

    @property
    def seq(self) -> int:
        """The last seq its viewers have been shown."""
        return self.replica.seq

    def push(self, entry: dict) -> None:
        """A committed log entry: show it to spectators once its delay has passed."""
        self.pending.append(entry)
        if self.timer is None:
            self._schedule()

    def _schedule(self) -> None:
        due = self.pending[0]["at"] + self.delay_ms
        self.timer = asyncio.get_running_loop().call_later(max(0, due - now_ms()) / 1000, self._tick)

    def _tick(self) -> None:
        self.timer = None
        now = now_ms()
        while self.pending and self.pending[0]["at"] + self.delay_ms <= now:
            records = self.replica.apply(self.pending.popleft())
            self.metrics.deliveries += self.deliver(records)
        if self.pending:
            self._schedule()
        if self.on_applied is not None:
            self.on_applied()

    def deliver(self, records: list[dict]) -> int:
        """Send the replica's new events to the sockets; returns the number of deliveries."""
        return fan_out(self.replica.ruleset, records, self.conns, self.delay_ms)

    def catch_up(self, entries: list[dict]) -> None:
        """After a recovery: apply what is already old enough, queue the rest."""
        for entry in entries:
            self.push(entry)
        if self.timer:
            self.timer.cancel()
            self.timer = None
        self._tick()

    def welcome(self, match_id: str, conn: Connection) -> dict:
        r = self.replica
        return {"t": "welcome", "match": match_id, "role": conn.role, "seat": None, "seq": r.seq,
                "view": r.ruleset.view(r.state, None), "prompts": [], "now": now_ms(),
                "delay_ms": self.delay_ms, "definitions": r.ruleset.definitions(r.state)}

    def message(self, record: dict) -> dict:
        return event_message(self.replica.ruleset, record, None, self.delay_ms)

    def stop(self) -> None:
        if self.timer:
            self.timer.cancel()
            self.timer = None
