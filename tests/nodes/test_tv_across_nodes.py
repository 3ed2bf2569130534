"""`GET /tv/featured` on any node: two real nodes on one real Redis, spectators on both.
The featured match is the one with the most viewers over every node, and both nodes
name the same one, whichever runs it. Each spectator socket is sent from an address of
its own on loopback (127.x.y.z), a viewer each, unless a test means one client."""

from __future__ import annotations

import time

import httpx
import pytest

from battlehall.client import JSON
from battlehall.server.storage.embedded_redis import EmbeddedRedis
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


def becomes(nodes: list[ServerProcess], want: str, timeout: float = 10) -> None:
    """Every node features `want` within `timeout`."""
    deadline = time.monotonic() + timeout
    while {featured(node) for node in nodes} != {want}:
        assert time.monotonic() < deadline, [featured(node) for node in nodes]
        time.sleep(0.2)


async def watch(node: ServerProcess, match_id: str, sources: list[str]) -> list[Raw]:
    """A spectator socket from each of `sources`, the client addresses they are sent from."""
    out = []
    for source in sources:
        conn = await Raw.open(node.url, match_id, JSON, local_addr=(source, 0))
        assert (await conn.hello(None))["role"] == "spectator"
        out.append(conn)
    return out


async def test_every_node_features_the_match_most_watched_over_all_nodes(two_nodes):
    a, b = two_nodes
    on_a = a.create(ruleset="duel", seed=1, spectators={"public": True})  # placement local: a runs it
    on_b = b.create(ruleset="duel", seed=2, spectators={"public": True})
    # on_a: 2 watching on a. on_b: 1 on a (a mirror of b's match) and 2 on b: 3 in all.
    sockets = (await watch(a, on_a["match"], ["127.0.0.2", "127.0.0.3"]) + await watch(a, on_b["match"], ["127.0.0.4"])
               + await watch(b, on_b["match"], ["127.0.0.5", "127.0.0.6"]))
    becomes(two_nodes, on_b["match"])
    # on_b loses its watchers on b: on_a (2) is featured now, by both nodes.
    for conn in sockets[3:]:
        await conn.close()
    becomes(two_nodes, on_a["match"])
    for conn in sockets[:3]:
        await conn.close()


async def test_a_client_on_two_nodes_is_a_viewer_on_each_not_one_per_socket(two_nodes):
    """10 sockets of one client on each node are 2 viewers (one a node: the nodes write
    counts, not addresses), short of a match that 3 clients watch over the two nodes."""
    a, b = two_nodes
    real = a.create(ruleset="duel", seed=3, spectators={"public": True})
    spam = b.create(ruleset="duel", seats=["visit.scam.example", "free.coins.now"], seed=4,
                    spectators={"public": True})
    sockets = await watch(a, real["match"], ["127.0.0.10"]) + await watch(b, real["match"], ["127.0.0.11", "127.0.0.12"])
    sockets += await watch(a, spam["match"], ["127.0.0.9"] * 10) + await watch(b, spam["match"], ["127.0.0.9"] * 10)
    for node in two_nodes:  # each node counts the other's spectators of it, and the viewers they are
        deadline = time.monotonic() + 10
        while (summary := httpx.get(f"{node.url}/matches/{spam['match']}", timeout=5).json())["spectators"] != 20:
            assert time.monotonic() < deadline, summary["spectators"]
            time.sleep(0.1)
        assert summary["viewers"] == 2
    time.sleep(1.2)  # past every node's cached answer (a second), which could predate the spam's sockets
    becomes(two_nodes, real["match"])
    answer = httpx.get(f"{b.url}/tv/featured?ruleset=duel", timeout=5).json()
    assert (answer["spectators"], answer["viewers"]) == (3, 3)
    for conn in sockets:
        await conn.close()
