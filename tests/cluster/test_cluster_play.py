"""`battlehall serve --redis-cluster` on a real 3-master Redis Cluster, with bots playing:
matches spread over every master, finish and replay; a restarted server recovers them
from the cluster; and a slot moved during play (ASK, then MOVED) loses and doubles
nothing."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest
from redis.crc import key_slot

from battlehall.client import JSON, MSGPACK, Client
from battlehall.server.storage.store import key
from faults.test_kill import check_match
from redis_cluster import LocalCluster
from servers import ServerProcess


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = LocalCluster(tmp_path_factory.mktemp("cluster")).start()
    yield c
    c.stop()


def serve(tmp_path, cluster: LocalCluster) -> ServerProcess:
    return ServerProcess(tmp_path, redis_url=cluster.url, args=("--redis-cluster",),
                         env={"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}).start()


def home(cluster: LocalCluster, match_id: str) -> int:
    return cluster.port_of_slot(key_slot(key(match_id, "log").encode()))


async def duels(server: ServerProcess, cluster: LocalCluster, hp: int, think_s: float, at_least: int = 1,
                 every_master: bool = True):
    """Bots playing duels: at least `at_least`, and more until every master holds one."""
    games, homes = [], set()
    while len(games) < at_least or (every_master and len(homes) < len(cluster.ports)):
        assert len(games) < 40, "match ids do not spread over the masters"
        created = server.create(ruleset="duel", seed=len(games), options={"hp": hp})
        homes.add(home(cluster, created["match"]))
        games.append([Client(server.url, created["match"], token, wire=(JSON, MSGPACK)[j], seed=len(games) * 2 + j,
                             think_s=think_s, give_up_s=60) for j, token in enumerate(created["tokens"].values())])
    return games, [asyncio.ensure_future(asyncio.gather(*(c.run() for c in g))) for g in games]


def redirections(server: ServerProcess) -> dict[str, int]:
    text = httpx.get(server.url + "/metrics").text
    return {kind: int(float(n)) for kind, n in re.findall(r'battlehall_redis_redirections_total\{kind="(\w+)"\} (\S+)', text)}


async def test_matches_spread_over_every_master_finish_and_replay(tmp_path, cluster):
    server = serve(tmp_path, cluster)
    try:
        games, tasks = await duels(server, cluster, hp=30, think_s=0)
        results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
        assert all(r[0] == r[1] for r in results)
        homes = {}
        for g in games:
            replay = check_match(server, g)
            match_id = g[0].url.rsplit("/", 1)[1]
            homes.setdefault(home(cluster, match_id), []).append(match_id)
            with cluster.client(home(cluster, match_id)) as c:  # on its master, ended, expiring
                assert c.xlen(key(match_id, "log")) == len([e for e in replay["log"]]) > 0
                assert c.ttl(key(match_id, "meta")) > 0
        assert sorted(homes) == sorted(cluster.ports), homes
        assert httpx.get(server.url + "/readyz").json() == {"ready": True}
        log = (tmp_path / f"server-{server.port}.log").read_text()
        assert "appendfsync everysec" in log  # read on the masters: what an ack survives
    finally:
        server.stop()


async def test_a_restarted_server_recovers_its_matches_from_the_cluster(tmp_path, cluster):
    server = serve(tmp_path, cluster)
    try:
        games, tasks = await duels(server, cluster, hp=60, think_s=0.01, at_least=4)
        await asyncio.sleep(0.8)
        server.kill()
        assert sum(len(c.acked) for g in games for c in g) > 10
        server.start()
        results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
        assert all(r[0] == r[1] for r in results)
        for g in games:
            check_match(server, g)
        # Recovered from every master (they all hold one), by one pipeline across them.
        assert f"battlehall_matches_recovered_total {len(games)}" in httpx.get(server.url + "/metrics").text
    finally:
        server.stop()


async def test_a_slot_moved_during_play_loses_and_doubles_nothing(tmp_path, cluster):
    server = serve(tmp_path, cluster)
    try:
        games, tasks = await duels(server, cluster, hp=150, think_s=0.03, at_least=2, every_master=False)
        moved = games[0][0].url.rsplit("/", 1)[1]
        slot = key_slot(key(moved, "log").encode())
        source = home(cluster, moved)
        target = next(p for p in cluster.ports if p != source)

        def answers() -> int:
            return sum(len(c.acked) for c in games[0])

        async def played_on(at_least: int) -> None:
            while answers() < at_least:
                assert not tasks[0].done(), "the match ended before the migration did"
                await asyncio.sleep(0.02)

        await played_on(5)
        cluster.begin_migration(slot, source, target)
        await played_on(answers() + 5)  # keys still at the source: served there
        assert cluster.move_keys(source, target, cluster.keys_in_slot(source, slot)) >= 4
        await played_on(answers() + 5)  # each write to the slot: ASK, then ASKING + it at the target
        cluster.end_migration(slot, target)
        await played_on(answers() + 5)  # the source now answers MOVED; the map learns the target
        seen = redirections(server)
        assert seen.get("ASK", 0) >= 3 and seen.get("MOVED", 0) >= 1, seen
        for c in (c for g in games for c in g):
            c.think_s = 0  # the rest at full speed
        assert not [e for g in games for c in g for e in c.errors], "a write failed during the migration"
        results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
        assert all(r[0] == r[1] for r in results)
        for g in games:
            check_match(server, g)
        assert home(cluster, moved) == target
        assert cluster.keys_in_slot(source, slot) == []
        with cluster.client(target) as c:
            assert c.xlen(key(moved, "log")) > 20
        assert redirections(server).get("MOVED") == seen["MOVED"]  # learnt once, not per write
    finally:
        server.stop()
