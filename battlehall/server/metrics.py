"""A node's counters and their Prometheus text; histograms on the hot path; the event loop's lag.

A histogram here is a fixed array of bucket counters found by `bisect`: about 0.2 µs
per observation, against 1.4 µs for prometheus_client's `Histogram.observe` (which
takes a lock and walks its buckets) on the same machine, when one answer costs the
server about 175 µs of CPU in all (bench/RESULTS.md). The text format is a few lines.
"""

from __future__ import annotations

import asyncio
from bisect import bisect_left
from dataclasses import dataclass, field

from . import connection

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


@dataclass
class Metrics:
    """What a node counts (one per hub), exported by `exposition`."""

    answers: int = 0
    deliveries: int = 0
    matches_created: int = 0
    matches_recovered: int = 0
    connections: int = 0
    history_streams: int = 0  # resumed sockets still being sent their missed events
    recovery_seconds: float = 0.0
    matches_taken_over: int = 0  # live matches this node took because nobody held them (or at its restart)
    takeover_seconds: float = 0.0  # the last takeover: acquiring, loading and starting its matches
    matches_lost: int = 0  # live matches let go because another node held their lease
    fenced_writes: int = 0  # writes Redis refused: the match's lease was no longer this node's
    timeouts: int = 0  # prompts answered by their default when their time ran out
    ack_seconds: Histogram = field(default_factory=lambda: Histogram(ACK_BUCKETS))  # act received -> ack sent


def exposition(metrics: Metrics, batcher, loop_lag: "LoopLag", draining: bool, in_memory: int, mirrors: int) -> str:
    """The Prometheus text of a node: its counters, the writer's and the event loop's."""
    m = metrics
    lines = [
        "# TYPE battlehall_answers_total counter", f"battlehall_answers_total {m.answers}",
        "# TYPE battlehall_deliveries_total counter", f"battlehall_deliveries_total {m.deliveries}",
        "# TYPE battlehall_matches_created_total counter", f"battlehall_matches_created_total {m.matches_created}",
        "# TYPE battlehall_matches_recovered_total counter", f"battlehall_matches_recovered_total {m.matches_recovered}",
        "# TYPE battlehall_recovery_seconds gauge", f"battlehall_recovery_seconds {m.recovery_seconds:.6f}",
        "# HELP battlehall_matches_taken_over_total Live matches taken because no node held their lease.",
        "# TYPE battlehall_matches_taken_over_total counter", f"battlehall_matches_taken_over_total {m.matches_taken_over}",
        "# TYPE battlehall_takeover_seconds gauge", f"battlehall_takeover_seconds {m.takeover_seconds:.6f}",
        "# HELP battlehall_matches_lost_total Live matches let go because another node held their lease.",
        "# TYPE battlehall_matches_lost_total counter", f"battlehall_matches_lost_total {m.matches_lost}",
        "# HELP battlehall_fenced_writes_total Writes Redis refused because the match's lease was another's.",
        "# TYPE battlehall_fenced_writes_total counter", f"battlehall_fenced_writes_total {m.fenced_writes}",
        "# TYPE battlehall_draining gauge", f"battlehall_draining {int(draining)}",
        "# TYPE battlehall_matches_in_memory gauge", f"battlehall_matches_in_memory {in_memory}",
        "# HELP battlehall_mirrors Matches run by other nodes, copied here for spectators connected to this node.",
        "# TYPE battlehall_mirrors gauge", f"battlehall_mirrors {mirrors}",
        "# TYPE battlehall_connections gauge", f"battlehall_connections {m.connections}",
        "# TYPE battlehall_history_streams gauge", f"battlehall_history_streams {m.history_streams}",
        "# TYPE battlehall_ws_frames_total counter", f"battlehall_ws_frames_total {connection.counters.frames_sent}",
        "# TYPE battlehall_ws_writes_total counter", f"battlehall_ws_writes_total {connection.counters.writes}",
        "# TYPE battlehall_redis_flushes_total counter", f"battlehall_redis_flushes_total {batcher.flushes}",
        "# TYPE battlehall_redis_commands_total counter", f"battlehall_redis_commands_total {batcher.commands}",
        "# HELP battlehall_prompt_timeouts_total Prompts answered by their default because their time ran out.",
        "# TYPE battlehall_prompt_timeouts_total counter", f"battlehall_prompt_timeouts_total {m.timeouts}",
        "# HELP battlehall_errors_total Error messages sent to clients, by wire error code.",
        "# TYPE battlehall_errors_total counter",
    ]
    lines += [f'battlehall_errors_total{{code="{code}"}} {n}' for code, n in sorted(connection.counters.errors.items())]
    lines += m.ack_seconds.lines("battlehall_ack_seconds", "Time from receiving an act to sending its ack.")
    lines += batcher.latency.lines(
        "battlehall_redis_write_seconds", "Round trip of one send of coalesced writes to Redis, to its last reply.")
    lines += loop_lag.histogram.lines("battlehall_event_loop_lag_seconds", "How late the event loop ran a timer due every 0.5 s.")
    lines += ["# HELP battlehall_redis_redirections_total Redis Cluster redirections the writer followed.",
              "# TYPE battlehall_redis_redirections_total counter"]
    lines += [f'battlehall_redis_redirections_total{{kind="{kind}"}} {n}'
              for kind, n in sorted(batcher.redirections.items())]
    lines += ["# HELP battlehall_event_loop_lag_last_seconds The latest event loop lag measured.",
              "# TYPE battlehall_event_loop_lag_last_seconds gauge",
              f"battlehall_event_loop_lag_last_seconds {loop_lag.last:.6f}"]
    return "\n".join(lines) + "\n"
