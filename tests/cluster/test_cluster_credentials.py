"""`battlehall serve --redis-cluster` on a real 3-master Redis Cluster locked down:
every master asks for a password, the server logs in as an ACL user allowed only what
docs/operations.md ("Security") lists, and the same over TLS (clients and cluster bus).
Matches spread over every master must finish and replay, through the server's redis-py
cluster client and its own write connections to each master alike."""

from __future__ import annotations

import asyncio

from test_cluster_play import duels

from faults.test_kill import check_match
from locked_redis import BATTLEHALL_ACL
from redis_cluster import LocalCluster
from servers import ServerProcess


async def play_everywhere(tmp_path, cluster: LocalCluster, url: str) -> None:
    server = ServerProcess(tmp_path, redis_url=url, args=("--redis-cluster",),
                           env={"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}).start()
    try:
        games, tasks = await duels(server, cluster, hp=12, think_s=0)
        results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
        assert all(r[0] == r[1] for r in results)
        for g in games:
            check_match(server, g)
    finally:
        server.stop()


async def test_on_a_cluster_with_an_acl_user(tmp_path):
    cluster = LocalCluster(tmp_path / "cluster", password="admin-pass",
                           users={"battlehall": f"{BATTLEHALL_ACL} >node-pass"}).start()
    try:
        await play_everywhere(tmp_path, cluster, cluster.url_as("battlehall", "node-pass"))
        for port in cluster.ports:
            with cluster.client(port) as admin:
                # redis-py's CLIENT SETINFO aside (tests/nodes/test_nodes_on_locked_redis.py)
                refused = [e for e in admin.acl_log() if e["object"] != "client"]
                assert refused == [], (port, refused)
    finally:
        cluster.stop()


async def test_on_a_cluster_over_tls_with_a_password(tmp_path):
    cluster = LocalCluster(tmp_path / "cluster", password="tls-pass", tls=True).start()
    try:
        assert cluster.url.startswith("rediss://")
        await play_everywhere(tmp_path, cluster, cluster.url)
    finally:
        cluster.stop()
