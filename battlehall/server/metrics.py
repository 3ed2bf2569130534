"""Prometheus histograms on the hot path, and the event loop's lag.

A histogram here is a fixed array of bucket counters found by `bisect`: about 0.2 µs
per observation, against 1.4 µs for prometheus_client's `Histogram.observe` (which
takes a lock and walks its buckets) on the same machine, when one answer costs the
server about 175 µs of CPU in all (bench/RESULTS.md). The text format is a few lines.
"""

from __future__ import annotations

import asyncio
from bisect import bisect_left

# Seconds. Acks take milliseconds under load; Redis writes a fraction of that.
ACK_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
REDIS_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class Histogram:
    """Counts per bucket (upper bounds `bounds`, then +Inf), their sum, and the text format."""

    __slots__ = ("bounds", "counts", "sum")

    def __init__(self, bounds: tuple[float, ...]):
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.sum = 0.0

    def observe(self, value: float) -> None:
        self.counts[bisect_left(self.bounds, value)] += 1  # le is inclusive: bisect_left
        self.sum += value

    @property
    def count(self) -> int:
        return sum(self.counts)

    def lines(self, name: str, help_text: str) -> list[str]:
        out = [f"# HELP {name} {help_text}", f"# TYPE {name} histogram"]
        cumulative = 0
        for bound, count in zip(self.bounds, self.counts):
            cumulative += count
            out.append(f'{name}_bucket{{le="{bound:g}"}} {cumulative}')
        cumulative += self.counts[-1]
        out += [f'{name}_bucket{{le="+Inf"}} {cumulative}', f"{name}_sum {self.sum:.6f}", f"{name}_count {cumulative}"]
        return out


class LoopLag:
    """How late the event loop runs a timer: every `every_s`, the delay past its due time.

    While one callback holds the loop (a long recovery, a huge request), every other
    socket waits that long; this shows it. `last` is the latest lateness.
    """

    def __init__(self, every_s: float = 0.5):
        self.every_s = every_s
        self.histogram = Histogram(LAG_BUCKETS)
        self.last = 0.0
        self.timer: asyncio.TimerHandle | None = None
        self.due = 0.0

    def start(self) -> "LoopLag":
        loop = asyncio.get_running_loop()
        self.due = loop.time() + self.every_s
        self.timer = loop.call_at(self.due, self._tick)
        return self

    def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        now = loop.time()
        self.last = max(0.0, now - self.due)
        self.histogram.observe(self.last)
        self.due = now + self.every_s
        self.timer = loop.call_at(self.due, self._tick)

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
