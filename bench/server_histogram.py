"""A histogram of the server's /metrics over a window, and its quantiles.

The server exports cumulative buckets (`<name>_bucket{le="..."}`), their `_sum` and
`_count`. The window's histogram is the difference of two scrapes, taken at its start and
its end; a quantile is interpolated linearly inside the bucket that holds its rank, as
Prometheus' `histogram_quantile` does: the rank's share of that bucket's count, placed
between the bucket's lower bound (the bound below, 0 for the first) and its upper one.
A rank in the +Inf bucket is given the highest finite bound.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass

import httpx


@dataclass(slots=True)
class Buckets:
    """One scrape of one histogram: cumulative counts per upper bound (+Inf last), and the sum."""
    bounds: list[float]
    cumulative: list[float]
    total: float

    @property
    def count(self) -> float:
        return self.cumulative[-1] if self.cumulative else 0.0

    def minus(self, earlier: "Buckets") -> "Buckets":
        """The observations made between `earlier` and this scrape."""
        if earlier.bounds != self.bounds:
            raise ValueError("the two scrapes have different buckets")
        return Buckets(self.bounds, [a - b for a, b in zip(self.cumulative, earlier.cumulative)],
                       self.total - earlier.total)

    def quantile(self, q: float) -> float | None:
        """The q-quantile (0 < q < 1), linearly interpolated in its bucket; None without observations."""
        count = self.count
        if not count:
            return None
        rank = q * count
        below, lower = 0.0, 0.0
        for bound, cumulative in zip(self.bounds, self.cumulative):
            if cumulative >= rank:
                if math.isinf(bound):  # past the last finite bound: that bound is all we know
                    return lower
                inside = cumulative - below
                return lower + (bound - lower) * ((rank - below) / inside if inside else 1.0)
            below, lower = cumulative, bound
        return lower

    def summary(self) -> dict | None:
        """count, mean, p50 and p99 in ms (interpolated), or None without observations."""
        if not self.count:
            return None
        p50, p99 = self.quantile(0.5), self.quantile(0.99)
        assert p50 is not None and p99 is not None
        return {"count": int(self.count), "mean_ms": round(self.total / self.count * 1000, 3),
                "p50_ms": round(p50 * 1000, 3), "p99_ms": round(p99 * 1000, 3)}


def parse(metrics: str, name: str) -> Buckets | None:
    """The histogram `name` of a /metrics text, or None if it has no buckets there."""
    bounds, cumulative, total = [], [], 0.0
    prefix = name + '_bucket{le="'
    for line in metrics.splitlines():
        if line.startswith(prefix):
            bound = line[len(prefix):].split('"', 1)[0]
            bounds.append(math.inf if bound == "+Inf" else float(bound))
            cumulative.append(float(line.rsplit(" ", 1)[1]))
        elif line.startswith(name + "_sum "):
            total = float(line.split()[1])
    return Buckets(bounds, cumulative, total) if bounds else None


class Scraper:
    """Scrapes one histogram of a server every `every_s` in a thread, each with its wall
    clock time, so that the load tool's measured window (wall clock) can be cut out after."""

    def __init__(self, url: str, name: str, every_s: float = 0.5):
        self.url, self.name, self.every_s = url, name, every_s
        self.scrapes: list[tuple[float, Buckets]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="metrics-scraper", daemon=True)

    def __enter__(self) -> "Scraper":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(10)

    def _run(self) -> None:
        with httpx.Client(timeout=5, trust_env=False) as http:
            while True:
                try:
                    text = http.get(self.url + "/metrics").text
                    buckets = parse(text, self.name)
                    if buckets is not None:
                        self.scrapes.append((time.time(), buckets))
                except httpx.HTTPError:
                    pass
                if self._stop.wait(self.every_s):
                    return

    def window(self, start: float, end: float) -> Buckets | None:
        """The observations between the scrapes nearest to `start` and to `end` (epoch s)."""
        if len(self.scrapes) < 2:
            return None
        first = min(self.scrapes, key=lambda s: abs(s[0] - start))
        last = min(self.scrapes, key=lambda s: abs(s[0] - end))
        if last[0] <= first[0]:
            return None
        return last[1].minus(first[1])
