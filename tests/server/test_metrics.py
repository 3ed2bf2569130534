"""/metrics: what a Prometheus scrape (and a Grafana panel over it) sees, and that it moves."""

from __future__ import annotations

import asyncio
import re
import time

import httpx

from battlehall.client import JSON, Client
from servers import bearer
from wsutil import Raw

SAMPLE = re.compile(r"^([a-z_]+)(\{[^}]*\})? (\S+)$")


def scrape(server) -> dict[str, float]:
    """Every sample of the text format, keyed `name` or `name{labels}`."""
    text = httpx.get(server.url + "/metrics", timeout=10).text
    samples = {}
    for line in text.splitlines():
        if line.startswith("#") or not line:
            continue
        match = SAMPLE.match(line)
        assert match, f"not a Prometheus sample line: {line!r}"
        samples[match[1] + (match[2] or "")] = float(match[3])
    return samples


def check_histogram(samples: dict, name: str) -> None:
    """Cumulative buckets that never decrease, ending in +Inf = _count."""
    buckets = [(k, v) for k, v in samples.items() if k.startswith(name + "_bucket{")]
    assert buckets and buckets[-1][0] == name + '_bucket{le="+Inf"}'
    values = [v for _, v in buckets]
    assert values == sorted(values)
    assert values[-1] == samples[name + "_count"]
    assert samples[name + "_sum"] >= 0


async def test_ack_histogram_counts_every_ack_of_a_played_match(server):
    before = scrape(server)
    created = server.create(ruleset="duel", seed=11, options={"hp": 8})
    bots = [Client(server.url, created["match"], token, seed=i) for i, token in enumerate(created["tokens"].values())]
    await asyncio.gather(*(b.run() for b in bots))
    # Every answer recorded was acked once (the last ack may come after the bots stopped reading).
    replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created), timeout=10).json()
    acks = sum(1 for e in replay["events"] if e["kind"] == "prompt_closed" and e["data"]["reason"] == "answered")
    assert acks >= sum(len(b.acked) for b in bots) > 0
    after = scrape(server)
    assert after["battlehall_ack_seconds_count"] - before["battlehall_ack_seconds_count"] == acks
    assert after["battlehall_ack_seconds_sum"] > before["battlehall_ack_seconds_sum"]
    check_histogram(after, "battlehall_ack_seconds")
    # Each answer was one write at least: the Redis round trips were measured too.
    assert after["battlehall_redis_write_seconds_count"] > before["battlehall_redis_write_seconds_count"]
    check_histogram(after, "battlehall_redis_write_seconds")


async def test_errors_are_counted_by_code(server):
    created = server.create(ruleset="duel", seed=12)
    first = next(iter(created["tokens"]))
    conn = await Raw.open(server.url, created["match"], JSON)
    welcome = await conn.hello(created["tokens"][first])
    key = 'battlehall_errors_total{code="illegal_option"}'
    before = scrape(server).get(key, 0)
    await conn.send({"t": "act", "id": "x", "prompt": welcome["prompts"][0]["id"], "option": "no-such-option"})
    error = await conn.recv_until(lambda m: m["t"] == "error")
    assert error["code"] == "illegal_option"
    await conn.send({"t": "nonsense"})
    assert (await conn.recv_until(lambda m: m["t"] == "error"))["code"] == "bad_message"
    after = scrape(server)
    assert after[key] == before + 1
    assert after['battlehall_errors_total{code="bad_message"}'] >= 1
    await conn.close()


async def test_prompt_timeouts_are_counted(server):
    before = scrape(server)["battlehall_prompt_timeouts_total"]
    created = server.create(ruleset="duel", seed=13, clock={"prompt_ms": 100, "bank_ms": 0})
    conn = await Raw.open(server.url, created["match"], JSON)
    await conn.hello(created["tokens"]["bob"])
    closed = await conn.recv_until(lambda m: m["t"] == "event" and m["kind"] == "prompt_closed", timeout=5)
    assert closed["data"]["reason"] == "timeout"
    assert scrape(server)["battlehall_prompt_timeouts_total"] >= before + 1
    await conn.close()


async def test_event_loop_lag_is_sampled(server):
    before = scrape(server)["battlehall_event_loop_lag_seconds_count"]
    deadline = time.monotonic() + 5  # a sample every 0.5 s, later on a loaded machine
    while (after := scrape(server))["battlehall_event_loop_lag_seconds_count"] < before + 2:
        assert time.monotonic() < deadline, "fewer than two samples of the loop's lag in 5 s"
        await asyncio.sleep(0.25)
    check_histogram(after, "battlehall_event_loop_lag_seconds")
    assert after["battlehall_event_loop_lag_last_seconds"] >= 0


def test_every_documented_metric_is_exposed_with_its_type(server):
    """The text parses with prometheus_client's own parser, and every metric of the
    operations guide's table is there with the type it lists."""
    from pathlib import Path

    from prometheus_client.parser import text_string_to_metric_families

    text = httpx.get(server.url + "/metrics", timeout=10).text
    families = {f.name: f.type for f in text_string_to_metric_families(text)}
    guide = (Path(__file__).parents[2] / "docs" / "operations.md").read_text()
    table = re.findall(r"^\| `(\w+)` \| (counter|gauge|histogram) \|", guide, re.M)
    assert len(table) > 20
    for name, kind in table:
        family = "battlehall_" + (name[: -len("_total")] if kind == "counter" else name)
        assert families.get(family) == kind, (name, kind, families.get(family))
