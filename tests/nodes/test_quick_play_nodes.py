"""Quick play on three real nodes sharing one real Redis: whichever node a player joins
and waits through, every player is matched once; a node killed with players queued
loses none of them."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import httpx
import pytest
from test_nodes import LEASE_MS, Cluster

from battlehall.server.storage import queue


@pytest.fixture
def cluster(tmp_path, monkeypatch):
    monkeypatch.setenv("BATTLEHALL_QUEUE_JOIN_PER_MIN", "0")  # every player joins from 127.0.0.1
    c = Cluster(tmp_path)
    yield c
    c.stop()


def alive(cluster: Cluster) -> list[str]:
    return [n.url for n in cluster.nodes if n.proc.poll() is None]


async def join(http: httpx.AsyncClient, url: str, ruleset: str, seats: int) -> str:
    r = await http.post(url + "/queue", json={"ruleset": ruleset, "seats": seats})
    assert r.status_code == 201, r.text
    return r.json()["ticket"]


async def wait_matched(http: httpx.AsyncClient, cluster: Cluster, ticket: str, first: int, within_s: float) -> dict:
    """Long-poll the ticket, moving to another node when the one polled goes away."""
    deadline = time.monotonic() + within_s
    turn = first
    while True:
        urls = alive(cluster)
        try:
            r = await http.get(f"{urls[turn % len(urls)]}/queue/{ticket}", params={"wait_ms": 2000})
        except httpx.TransportError:
            turn += 1
            continue
        assert r.status_code == 200, r.text
        status = r.json()
        if status["state"] not in ("waiting", "forming"):
            return status
        assert time.monotonic() < deadline, f"not matched within {within_s} s: {status}"


def check_groups(results: list[dict], seats: int) -> None:
    assert all(r["state"] == "matched" for r in results), Counter(r["state"] for r in results)
    by_match = Counter(r["match"] for r in results)
    assert set(by_match.values()) == {seats}, "a match with the wrong number of players"
    seats_taken = [(r["match"], r["seat"]) for r in results]
    assert len(seats_taken) == len(set(seats_taken)), "two tickets were given one seat"
    assert len({r["token"] for r in results}) == len(results)


async def test_200_players_joining_three_nodes_are_all_matched_once(cluster):
    limits = httpx.Limits(max_connections=400, max_keepalive_connections=400)
    async with httpx.AsyncClient(timeout=30, limits=limits) as http:
        tickets = await asyncio.gather(*(join(http, cluster.urls[i % 3], "duel", 2) for i in range(200)))
        results = await asyncio.gather(*(wait_matched(http, cluster, t, i + 1, 60) for i, t in enumerate(tickets)))
    check_groups(results, 2)
    assert len({r["match"] for r in results}) == 100
    nodes_used = {r["ws_url"].split("/ws/")[0] for r in results}
    assert len(nodes_used) >= 2, f"placement spread the matches over the nodes: {nodes_used}"
    for r in results[:4]:  # each match exists, with the quick-play clock
        summary = httpx.get(f"{cluster.urls[0]}/matches/{r['match']}").json()
        assert summary["status"] == "live" and summary["clock"]["prompt_ms"] == 30_000
    assert cluster.redis.hlen(queue.FORMING) == 0
    assert cluster.redis.zcard(queue.wait_key("duel:2")) == 0


async def test_a_node_killed_with_players_queued_loses_none_of_them(cluster):
    pools = [("hourglass", 4), ("spellfire", 6), ("demigod", 3)]
    holder = cluster.redis.get(queue.MATCHER_LEASE)
    deadline = time.monotonic() + 10
    while holder is None:
        assert time.monotonic() < deadline, "no node took the matcher's lease"
        await asyncio.sleep(0.05)
        holder = cluster.redis.get(queue.MATCHER_LEASE)
    victim = int(holder.decode().split(" ")[0][1:])  # node ids are n0, n1, n2
    async with httpx.AsyncClient(timeout=30) as http:
        # All but one player of each match queue, half of them through the doomed node.
        queued = {}
        for ruleset, seats in pools:
            queued[ruleset] = [await join(http, cluster.urls[victim if i % 2 else (victim + 1) % 3], ruleset, seats)
                               for i in range(seats - 1)]
        polls = {ruleset: [asyncio.ensure_future(wait_matched(http, cluster, t, victim, 30)) for t in ts]
                 for ruleset, ts in queued.items()}
        await asyncio.sleep(0.5)
        cluster.nodes[victim].kill()
        await asyncio.sleep(0.2)
        survivors = alive(cluster)
        last = {ruleset: await join(http, survivors[0], ruleset, seats) for ruleset, seats in pools}
        for ruleset, _seats in pools:
            polls[ruleset].append(asyncio.ensure_future(wait_matched(http, cluster, last[ruleset], 0, 30)))
        killed_at = time.monotonic()
        for ruleset, seats in pools:
            check_groups(await asyncio.gather(*polls[ruleset]), seats)
        waited = time.monotonic() - killed_at
    assert waited < LEASE_MS / 1000 + 5, f"the queue was matched again {waited:.1f} s after the node died"
    assert cluster.redis.get(queue.MATCHER_LEASE).decode().split(" ")[0] != f"n{victim}"
