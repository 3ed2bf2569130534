"""Three real `battlehall serve --redis-cluster` nodes on a real 3-master Redis Cluster,
bots playing through client.py: the fault tests of tests/nodes/test_nodes.py, run as they
are on the cluster. Leases, renewals and takeovers go through the cluster client's scripts
(store.ClusterUpkeep), the fenced writes through the cluster writer's EVALSHA, each on the
master of its match's slot; so a node killed or paused past its leases loses its matches
to the others there too, and nothing it writes afterwards reaches a log.
"""

from __future__ import annotations

import time

import httpx
import pytest
import redis

import nodes.test_nodes as on_one_redis
from redis_cluster import LocalCluster


class NodesOnCluster(on_one_redis.Cluster):
    """The same three nodes and checks, on a local Redis Cluster instead of one Redis."""

    def __init__(self, tmp_path, count: int = 3):
        self.redis_server = LocalCluster(tmp_path / "redis").start()
        self.redis = redis.RedisCluster.from_url(self.redis_server.url)
        self.start_nodes(tmp_path, count, args=("--redis-cluster",))
        self.created = 0

    def create(self, via: int = 0, **body) -> dict:
        """A match on the next master in turn: its id is random, so its slot's master is
        chance, and a dozen matches would miss one of three masters one time in fifty.
        A match that landed elsewhere is aborted and deleted, and another one made."""
        masters = [master.name for master in self.redis.get_primaries()]
        wanted = masters[self.created % len(masters)]
        for _ in range(50):
            created = super().create(via, **body)
            match_id = created["match"]
            if self.redis.get_node_from_key(f"bh:{{{match_id}}}:log").name == wanted:
                self.created += 1
                return created
            headers = {"authorization": f"Bearer {on_one_redis.KEY}"}
            url = f"{self.nodes[via].url}/matches/{match_id}"
            assert httpx.post(url + "/abort", headers=headers, timeout=10, follow_redirects=True).status_code == 200
            assert httpx.delete(url, headers=headers, timeout=10).status_code == 204
        raise AssertionError(f"no match of 50 landed on {wanted}")

    def wait_for_records(self, count: int) -> None:
        deadline = time.monotonic() + 10
        # The records' keys are spread over the masters: KEYS on every one of them.
        while len(self.redis.keys("bh:node:*", target_nodes=redis.RedisCluster.PRIMARIES)) < count:
            assert time.monotonic() < deadline, "the nodes did not publish their records"
            time.sleep(0.05)


@pytest.fixture
def cluster(tmp_path):
    c = NodesOnCluster(tmp_path)
    yield c
    c.stop()


def logs_per_master(cluster: NodesOnCluster) -> list[int]:
    """How many match logs each master holds: the matches' writes went to every one."""
    return [len(cluster.redis.keys("bh:*:log", target_nodes=master)) for master in cluster.redis.get_primaries()]


async def test_a_killed_node_s_matches_are_taken_over_on_the_cluster_and_finish(cluster):
    await on_one_redis.test_a_killed_node_s_matches_are_taken_over_and_finish(cluster)
    assert all(logs_per_master(cluster)), logs_per_master(cluster)


async def test_a_paused_node_writes_nothing_to_the_cluster_after_losing_its_leases(cluster):
    await on_one_redis.test_a_paused_node_writes_nothing_after_losing_its_leases(cluster)
    assert all(logs_per_master(cluster)), logs_per_master(cluster)
