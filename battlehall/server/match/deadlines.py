"""Every match's prompt deadlines on one event-loop timer (and its other timed inputs,
match_core's `Later`: the end of a seat's away grace, a retry once Redis is back).

Each answer closes a prompt and opens the next. With a loop timer per prompt that was
one timer made and one cancelled per answer. Here a deadline is an entry in a heap,
and one loop timer waits for the earliest. A deadline is never removed when its prompt
closes: it is skipped when it comes up, since its owner no longer expects it
(`owner.deadline_wanted(key, due)` returns False). So that skipped entries cannot pile
up, the heap is rebuilt from the entries still expected whenever it holds more than
twice as many as at the last rebuild, or once the entries its owners said they no
longer expect (`forgotten`) are half of it.

An entry names its owner and key rather than holding callbacks: one is set per answer,
and two bound partials each were a fifth of the cost of setting it.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from typing import Hashable, Protocol

from battlehall.server.clock import now_ms

log = logging.getLogger("battlehall.deadlines")

MIN_COMPACT = 1024  # heaps smaller than this are never rebuilt


class Owner(Protocol):
    def deadline_wanted(self, key: Hashable, due_ms: int) -> bool:
        """Whether the deadline set for `key` at `due_ms` still stands."""

    def deadline_due(self, key: Hashable) -> None:
        """The deadline for `key` has come."""


class Deadlines:
    def __init__(self) -> None:
        self.heap: list[tuple[int, int, Owner, Hashable]] = []
        self.order = itertools.count()  # equal due times fire in the order they were set
        self.timer: asyncio.TimerHandle | None = None
        self.timer_due: int | None = None
        self.compact_at = MIN_COMPACT
        self.forgot = 0  # entries owners said they no longer expect, since the last rebuild

    def __len__(self) -> int:
        return len(self.heap)

    def at(self, due_ms: int, owner: Owner, key: Hashable) -> None:
        """Call `owner.deadline_due(key)` at `due_ms` (epoch ms), if it still wants it then."""
        heapq.heappush(self.heap, (due_ms, next(self.order), owner, key))
        if len(self.heap) > self.compact_at:
            self._compact()
        if self.timer_due is None or due_ms < self.timer_due:
            self._arm()

    def forgotten(self) -> None:
        """An entry is likely no longer expected, long before it is due: a seat's away
        grace, its player back. Each match's seats get one as it is made, due a minute
        later; without this, the players of 10,000 matches connected within that minute
        left 20,000 of them in memory (about a third of a KiB per idle match,
        bench/RESULTS.md). The heap is rebuilt once these are half of it."""
        self.forgot += 1
        if self.forgot * 2 >= len(self.heap) >= MIN_COMPACT:
            self._compact()

    def _compact(self) -> None:
        self.heap = [entry for entry in self.heap if entry[2].deadline_wanted(entry[3], entry[0])]
        heapq.heapify(self.heap)
        self.compact_at = max(MIN_COMPACT, 2 * len(self.heap))
        self.forgot = 0

    def _arm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = self.timer_due = None
        if self.heap:
            self.timer_due = self.heap[0][0]
            self.timer = asyncio.get_running_loop().call_later(max(0, self.timer_due - now_ms()) / 1000, self._fire)

    def _fire(self) -> None:
        self.timer = self.timer_due = None
        now = now_ms()
        while self.heap and self.heap[0][0] <= now:
            due, _, owner, key = heapq.heappop(self.heap)
            if owner.deadline_wanted(key, due):
                try:
                    owner.deadline_due(key)
                except Exception:  # one match's bug must not stop every other match's clock
                    log.exception("a deadline's callback failed")
        self._arm()

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.heap.clear()
        self.timer = self.timer_due = None
