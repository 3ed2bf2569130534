"""Prometheus histograms on the hot path, the event loop's lag, and /metrics.

A histogram here is a fixed array of bucket counters found by `bisect`: about 0.2 µs
per observation, against 1.4 µs for prometheus_client's `Histogram.observe` (which
takes a lock and walks its buckets) on the same machine, when one answer costs the
server about 175 µs of CPU in all (bench/RESULTS.md). So the hot path keeps its plain
counters, and only a scrape goes through prometheus_client: `HubCollector` reads them
into metric families, and prometheus_client writes the text format.
"""

from __future__ import annotations

import asyncio
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from prometheus_client.exposition import generate_latest
from prometheus_client.metrics_core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.utils import floatToGoString

# Seconds. Acks take milliseconds under load; Redis writes a fraction of that. The ack's
# buckets are about a quarter apart up to 1 s, so that a percentile interpolated in
# them (histogram_quantile) is within a few per cent: a 2.5x step, as the others
# have, left a p50 anywhere between 10 and 25 ms.
ACK_BUCKETS = (0.0005, 0.001, 0.0015, 0.002, 0.0025, 0.003, 0.004, 0.005, 0.006, 0.0075, 0.01, 0.0125, 0.015,
               0.0175, 0.02, 0.025, 0.03, 0.035, 0.04, 0.05, 0.06, 0.075, 0.1, 0.125, 0.15, 0.2, 0.25, 0.3,
               0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 10.0)
REDIS_BUCKETS = (0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
LAG_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class Counters:
    """Process-wide counters for /metrics: frames sent, and the socket writes they took.

    On an instance, not the class: assigning a class attribute invalidates the type's
    attribute caches, which made every `Connection` attribute (connection.py) read 2.5 times slower.
    """

    def __init__(self):
        self.frames_sent = 0
        self.writes = 0
        self.errors: dict[str, int] = {}  # error messages sent, by code


counters = Counters()


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

    def family(self, name: str, help_text: str) -> HistogramMetricFamily:
        """The histogram as prometheus_client reports it: cumulative buckets, then +Inf."""
        buckets = []
        cumulative = 0
        for bound, count in zip(self.bounds, self.counts):
            cumulative += count
            buckets.append((floatToGoString(bound), cumulative))
        buckets.append(("+Inf", cumulative + self.counts[-1]))
        return HistogramMetricFamily(name, help_text, buckets=buckets, sum_value=self.sum)


@dataclass
class Metrics:
    """The node's counters: the hot path adds to them, a scrape reads them (HubCollector)."""
    answers: int = 0
    deliveries: int = 0
    matches_created: int = 0
    matches_recovered: int = 0
    connections: int = 0
    history_streams: int = 0  # resumed sockets still being sent their missed events
    recovery_seconds: float = 0.0
    recovering: bool = False  # the startup recovery is loading matches (served meanwhile: http/app.py)
    matches_taken_over: int = 0  # live matches this node took because nobody held them (or at its restart)
    takeover_seconds: float = 0.0  # the last takeover: acquiring, loading and starting its matches
    matches_lost: int = 0  # live matches let go because another node held their lease
    fenced_writes: int = 0  # writes Redis refused: the match's lease was no longer this node's
    timeouts: int = 0  # prompts answered by their default when their time ran out
    bot_answers: int = 0  # answers the server's bots recorded (bot_turns.py)
    ack_seconds: Histogram = field(default_factory=lambda: Histogram(ACK_BUCKETS))  # act received -> ack sent


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


class HubCollector:
    """A prometheus_client collector over a hub's counters (hub.py), read at each scrape.

    Names, types and meanings are listed in docs/operations.md ("Metrics")."""

    def __init__(self, hub: Any):
        self.hub = hub

    def collect(self) -> Iterator[Metric]:
        hub, m = self.hub, self.hub.metrics
        batcher = hub.store.batcher
        for name, help_text, value in (
            ("answers", "Answers and timeouts recorded.", m.answers),
            ("deliveries", "Event messages queued to sockets.", m.deliveries),
            ("matches_created", "Matches created by this process.", m.matches_created),
            ("matches_recovered", "Matches loaded back from Redis.", m.matches_recovered),
            ("matches_taken_over", "Live matches taken because no node held their lease.", m.matches_taken_over),
            ("matches_lost", "Live matches let go because another node held their lease.", m.matches_lost),
            ("fenced_writes", "Writes Redis refused because the match's lease was another's.", m.fenced_writes),
            ("ws_frames", "WebSocket frames sent.", counters.frames_sent),
            ("ws_writes", "Socket writes those frames took.", counters.writes),
            ("redis_flushes", "Sends of coalesced writes to Redis.", batcher.flushes),
            ("redis_commands", "Commands in those sends.", batcher.commands),
            ("prompt_timeouts", "Prompts answered by their default because their time ran out.", m.timeouts),
            ("bot_answers", "Answers recorded by the server's bots.", m.bot_answers),
            ("bot_turns_delayed", "Bot turns that waited for the node's bot rate.", hub.bot_turns.delayed),
        ):
            yield CounterMetricFamily(f"battlehall_{name}", help_text, value=value)
        for name, help_text, value in (
            ("recovery_seconds", "How long the startup recovery took.", m.recovery_seconds),
            ("recovering", "1 while the startup recovery loads live matches (each loads first if asked for).",
             int(m.recovering)),
            ("takeover_seconds", "How long the last takeover of live matches took.", m.takeover_seconds),
            ("draining", "1 once the node drains.", int(hub.draining)),
            ("matches_in_memory", "Matches this process holds.", len(hub.actors)),
            ("mirrors", "Matches run by other nodes, copied here for spectators connected to this node.",
             len(hub.mirrors)),
            ("connections", "Open game sockets.", m.connections),
            ("history_streams", "Resumed sockets still being sent the events they missed.", m.history_streams),
            ("bot_turns_waiting", "Bot turns waiting for the node's bot rate now.", len(hub.bot_turns.waiting)),
            ("event_loop_lag_last_seconds", "The latest event loop lag measured.", hub.loop_lag.last),
        ):
            yield GaugeMetricFamily(f"battlehall_{name}", help_text, value=value)
        errors = CounterMetricFamily("battlehall_errors", "Error messages sent to clients, by wire error code.",
                                     labels=["code"])
        for code, n in sorted(counters.errors.items()):
            errors.add_metric([code], n)
        yield errors
        redirections = CounterMetricFamily("battlehall_redis_redirections",
                                           "Redis Cluster redirections the writer followed.", labels=["kind"])
        for kind, n in sorted(batcher.redirections.items()):
            redirections.add_metric([kind], n)
        yield redirections
        yield m.ack_seconds.family("battlehall_ack_seconds", "Time from receiving an act to sending its ack.")
        yield batcher.latency.family("battlehall_redis_write_seconds",
                                     "Round trip of one send of coalesced writes to Redis, to its last reply.")
        yield hub.loop_lag.histogram.family("battlehall_event_loop_lag_seconds",
                                            "How late the event loop ran a timer due every 0.5 s.")


def exposition(collector: HubCollector) -> str:
    """The Prometheus text format (version 0.0.4) of everything `collector` reports."""
    return generate_latest(collector).decode()
