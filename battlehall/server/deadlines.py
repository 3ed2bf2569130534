"""Every match's prompt deadlines on one event-loop timer.

Each answer closes a prompt and opens the next. With a loop timer per prompt that was
one timer made and one cancelled per answer. Here a deadline is an entry in a heap,
and one loop timer waits for the earliest. A deadline is never removed when its prompt
closes: it is skipped when it comes up, since its owner no longer expects it (`due`
returns False). So that skipped entries cannot pile up, the heap is rebuilt from the
entries still expected whenever it holds more than twice as many as at the last rebuild.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from typing import Callable

from .clock import now_ms

log = logging.getLogger("battlehall.deadlines")

MIN_COMPACT = 1024  # heaps smaller than this are never rebuilt


class Deadlines:
    def __init__(self) -> None:
        self.heap: list[tuple[int, int, Callable[[int], bool], Callable[[], None]]] = []
        self.order = itertools.count()  # equal due times fire in the order they were set
        self.timer: asyncio.TimerHandle | None = None
        self.timer_due: int | None = None
        self.compact_at = MIN_COMPACT

    def __len__(self) -> int:
        return len(self.heap)

    def at(self, due_ms: int, wanted: Callable[[int], bool], fire: Callable[[], None]) -> None:
        """Call `fire()` at `due_ms` (epoch ms) if `wanted(due_ms)` is still true then."""
        heapq.heappush(self.heap, (due_ms, next(self.order), wanted, fire))
        if len(self.heap) > self.compact_at:
            self._compact()
        if self.timer_due is None or due_ms < self.timer_due:
            self._arm()

    def _compact(self) -> None:
        self.heap = [entry for entry in self.heap if entry[2](entry[0])]
        heapq.heapify(self.heap)
        self.compact_at = max(MIN_COMPACT, 2 * len(self.heap))

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
            due, _, wanted, fire = heapq.heappop(self.heap)
            if wanted(due):
                try:
                    fire()
                except Exception:  # one match's bug must not stop every other match's clock
                    log.exception("a deadline's callback failed")
        self._arm()

    def close(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
        self.heap.clear()
        self.timer = self.timer_due = None
