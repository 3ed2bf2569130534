"""`GET /tv/featured` on any node: two real nodes on one real Redis, spectators on both.
The featured match is the one with the most spectators over every node, and both nodes
name the same one, whichever runs it."""

from __future__ import annotations

import time

import httpx
import pytest

from battlehall.client import JSON
from battlehall.server.embedded_redis import EmbeddedRedis
from servers import ServerProcess
from wsutil import Raw


@pytest.fixture(scope="module")
def two_nodes(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("redis"), fsync="everysec").start()
    nodes = [ServerProcess(tmp_path_factory.mktemp(name), redis.url,
                           env={"BATTLEHALL_NODE_ID": name, "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0",
                                "BATTLEHALL_PLACEMENT": "local"}).start()
             for name in ("node-a", "node-b")]
    yield nodes
    for node in nodes:
        node.stop()
    redis.stop()


def featured(node: ServerProcess) -> str | None:
    return httpx.get(f"{node.url}/tv/featured?ruleset=duel", timeout=5).json()["match"]


async def watch(node: ServerProcess, match_id: str, n: int) -> list[Raw]:
    out = []
    for _ in range(n):
        conn = await Raw.open(node.url, match_id, JSON)
        assert (await conn.hello(None))["role"] == "spectator"
        out.append(conn)
    return out


async def test_every_node_features_the_match_most_watched_over_all_nodes(two_nodes):
    a, b = two_nodes
    on_a = a.create(ruleset="duel", seed=1, spectators={"public": True})  # placement local: a runs it
    on_b = b.create(ruleset="duel", seed=2, spectators={"public": True})
    # on_a: 2 watching on a. on_b: 1 on a (a mirror of b's match) and 2 on b: 3 in all.
    sockets = await watch(a, on_a["match"], 2) + await watch(a, on_b["match"], 1) + await watch(b, on_b["match"], 2)
    deadline = time.monotonic() + 10
    while {featured(a), featured(b)} != {on_b["match"]}:
        assert time.monotonic() < deadline, (featured(a), featured(b))
        time.sleep(0.2)
    # on_b loses its watchers on b: on_a (2) is featured now, by both nodes.
    for conn in sockets[3:]:
        await conn.close()
    deadline = time.monotonic() + 10
    while {featured(a), featured(b)} != {on_a["match"]}:
        assert time.monotonic() < deadline, (featured(a), featured(b))
        time.sleep(0.2)
    for conn in sockets[:3]:
        await conn.close()
