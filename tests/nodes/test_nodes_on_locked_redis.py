"""Several real nodes on a real Redis locked down as docs/operations.md ("Security") says:
an ACL user allowed only the commands and `bh:` keys and channels listed there, and TLS.

Two nodes share the Redis; bots play matches created through both, a spectator watches
from the node that does not run its match (pub/sub), and one node is killed so that the other takes its matches over
(leases, fencing scripts). Every match must end with every answer in its log once, and
Redis must have refused nothing (`ACL LOG`).
"""

from __future__ import annotations

import asyncio

import pytest
import redis
from test_nodes import Cluster, check_match, node_index

from battlehall.client import Client
from locked_redis import BATTLEHALL_ACL, LockedRedis


class _Redis:
    """What `Cluster` needs of its Redis: the nodes' URL, and stop."""

    def __init__(self, locked: LockedRedis, url: str):
        self.locked, self.url = locked, url

    def stop(self) -> None:
        self.locked.stop()


def nodes_on(tmp_path, locked: LockedRedis, url: str) -> Cluster:
    cluster = Cluster.__new__(Cluster)
    cluster.redis_server = _Redis(locked, url)
    cluster.redis = redis.Redis.from_url(locked.url())  # the test's own view, as the admin
    cluster.start_nodes(tmp_path, 2)
    return cluster


async def play_kill_and_take_over(cluster: Cluster) -> None:
    games = []
    for i in range(4):  # created through both nodes, so that each runs some
        created = cluster.create(via=i % 2, ruleset="duel", seed=i, options={"hp": 12})
        games.append((created, [Client(cluster.urls, created["match"], token, seed=i * 2 + j, think_s=0.03,
                                       give_up_s=60, max_backoff_s=0.5)
                                for j, token in enumerate(created["tokens"].values())]))
    tasks = [asyncio.ensure_future(asyncio.gather(*(c.run() for c in clients))) for _, clients in games]
    on_1 = [created for created, _ in games if node_index(cluster, created) == 1]
    assert on_1 and len(on_1) < len(games)
    # A spectator on node 0 of a match node 1 runs: served over pub/sub, then locally after the takeover.
    seen: list[dict] = []
    watcher = Client(cluster.nodes[0].url, on_1[0]["match"], on_1[0]["spectator_token"], on_message=seen.append,
                     give_up_s=60, max_backoff_s=0.5)
    watching = asyncio.create_task(watcher.run())
    await asyncio.sleep(1.0)
    cluster.nodes[1].kill()
    await asyncio.wait_for(asyncio.gather(*tasks), 90)
    await asyncio.wait_for(watching, 30)
    for created, clients in games:
        check_match(cluster, created, clients)
    assert any(m.get("t") == "event" and m.get("kind") == "match_ended" for m in seen)


async def test_nodes_need_no_more_than_the_documented_acl(tmp_path):
    locked = LockedRedis(tmp_path / "redis", password="admin-pass",
                         users={"battlehall": f"{BATTLEHALL_ACL} >node-pass"}).start()
    cluster = nodes_on(tmp_path, locked, locked.url("battlehall", "node-pass"))
    try:
        await play_kill_and_take_over(cluster)
        with locked.admin() as admin:
            # Nothing the nodes asked was refused, but redis-py's CLIENT SETINFO (its name, on
            # each new connection; it ignores a refusal, and Redis before 7.2 has no such command).
            refused = [entry for entry in admin.acl_log() if entry["object"] != "client"]
            assert refused == [], refused
            # ... and the user is locked down indeed
            with redis.Redis.from_url(locked.url("battlehall", "node-pass")) as node_user:
                with pytest.raises(redis.exceptions.NoPermissionError):
                    node_user.set("elsewhere", 1)
                with pytest.raises(redis.exceptions.NoPermissionError):
                    node_user.flushall()
    finally:
        cluster.stop()


async def test_nodes_on_redis_over_tls_with_a_password(tmp_path):
    locked = LockedRedis(tmp_path / "redis", password="tls-pass", tls=True).start()
    cluster = nodes_on(tmp_path, locked, locked.url())
    try:
        await play_kill_and_take_over(cluster)
        with locked.admin() as admin:
            clients = admin.client_list()
        # Every connection of the nodes' (writes, reads, lease upkeep, pub/sub) came over TLS:
        # the server has no plain port to reach.
        assert locked.url().startswith("rediss://") and len(clients) >= 2
    finally:
        cluster.stop()
