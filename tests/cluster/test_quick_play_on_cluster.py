"""Quick play on a real 3-master Redis Cluster: the queue's keys share one slot, its
scripts run there, and players are matched (woken by the recheck: no subscription)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from redis_cluster import LocalCluster
from servers import ServerProcess


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = LocalCluster(tmp_path_factory.mktemp("qcluster")).start()
    yield c
    c.stop()


async def test_players_are_matched_on_a_redis_cluster(tmp_path, cluster):
    server = ServerProcess(tmp_path, redis_url=cluster.url, args=("--redis-cluster",),
                           env={"BATTLEHALL_QUEUE_JOIN_PER_MIN": "0"}).start()
    try:
        async with httpx.AsyncClient(timeout=30) as http:
            tickets = [(await http.post(server.url + "/queue", json={"ruleset": "hourglass", "seats": 3})).json()
                       for _ in range(6)]
            assert all("ticket" in t for t in tickets), tickets

            async def matched(ticket: str) -> dict:
                for _ in range(20):
                    status = (await http.get(f"{server.url}/queue/{ticket}", params={"wait_ms": 2000})).json()
                    if status["state"] == "matched":
                        return status
                raise AssertionError(f"not matched: {status}")
            got = await asyncio.gather(*(matched(t["ticket"]) for t in tickets))
            left = await http.post(server.url + "/queue", json={"ruleset": "hourglass", "seats": 3})
            assert (await http.delete(f"{server.url}/queue/{left.json()['ticket']}")).json()["state"] == "left"
    finally:
        server.stop()
    assert len({g["match"] for g in got}) == 2 and len({(g["match"], g["seat"]) for g in got}) == 6
