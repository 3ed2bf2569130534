"""The benchmarks' reading of the server's histograms (bench/server_histogram.py): a window
cut out of two scrapes, and quantiles interpolated in its buckets. Pure: /metrics text."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

# Loaded from its file: bench/ on sys.path would shadow the tests' own modules (bench/nodes.py
# hides tests/nodes/ from the modules that import nodes.test_nodes).
_spec = importlib.util.spec_from_file_location(
    "server_histogram", Path(__file__).resolve().parents[2] / "bench" / "server_histogram.py")
assert _spec is not None and _spec.loader is not None
server_histogram = importlib.util.module_from_spec(_spec)
sys.modules["server_histogram"] = server_histogram  # its dataclasses look their module up there
_spec.loader.exec_module(server_histogram)
Buckets, parse = server_histogram.Buckets, server_histogram.parse

METRICS = """# HELP battlehall_ack_seconds Time from receiving an act to sending its ack.
# TYPE battlehall_ack_seconds histogram
battlehall_ack_seconds_bucket{le="0.01"} 10.0
battlehall_ack_seconds_bucket{le="0.02"} 30.0
battlehall_ack_seconds_bucket{le="0.05"} 40.0
battlehall_ack_seconds_bucket{le="+Inf"} 40.0
battlehall_ack_seconds_count 40.0
battlehall_ack_seconds_sum 0.6
battlehall_redis_write_seconds_bucket{le="0.001"} 7.0
"""


def test_a_histogram_is_read_from_the_metrics_text_by_its_name():
    buckets = parse(METRICS, "battlehall_ack_seconds")
    assert buckets == Buckets([0.01, 0.02, 0.05, math.inf], [10.0, 30.0, 40.0, 40.0], 0.6)
    assert parse(METRICS, "battlehall_missing_seconds") is None


def test_a_quantile_is_interpolated_linearly_inside_the_bucket_holding_its_rank():
    buckets = parse(METRICS, "battlehall_ack_seconds")
    assert buckets is not None
    assert buckets.quantile(0.5) == 0.015  # rank 20: halfway through the 10..30 of (0.01, 0.02]
    assert math.isclose(buckets.quantile(0.125), 0.005)  # rank 5 of the first bucket, from 0
    assert math.isclose(buckets.quantile(0.99), 0.02 + 0.03 * (39.6 - 30) / 10)
    assert buckets.summary() == {"count": 40, "mean_ms": 15.0, "p50_ms": 15.0, "p99_ms": 48.8}


def test_a_window_is_the_difference_of_two_scrapes_and_a_rank_past_the_last_bound_gets_that_bound():
    earlier = Buckets([0.01, 0.02, math.inf], [5.0, 5.0, 5.0], 0.02)
    later = Buckets([0.01, 0.02, math.inf], [5.0, 6.0, 10.0], 0.5)
    window = later.minus(earlier)
    assert window.cumulative == [0.0, 1.0, 5.0] and math.isclose(window.total, 0.48)
    assert window.quantile(0.99) == 0.02  # in +Inf: the highest finite bound is all we know
    assert Buckets([0.01, math.inf], [0.0, 0.0], 0.0).summary() is None
