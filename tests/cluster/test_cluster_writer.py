"""cluster_writer.py against a real 3-master Redis Cluster: each command goes to the master
of its slot, one send per master per loop turn, and MOVED, ASK, TRYAGAIN and NOSCRIPT are
followed without ever running a command twice or calling a write back twice."""

from __future__ import annotations

import asyncio
import itertools

import pytest
import redis
from redis.crc import key_slot

from battlehall.server.node.audience import Audience
from battlehall.server.storage.audience import hash_key
from battlehall.server.storage.cluster_writer import ClusterWriteBatcher
from battlehall.server.storage.store import Store, key
from battlehall.server.storage.writer import StoreUnavailable
from redis_cluster import LocalCluster

_ids = itertools.count()


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = LocalCluster(tmp_path_factory.mktemp("cluster")).start()
    yield c
    c.stop()


@pytest.fixture
async def store(cluster):
    s = Store(cluster.url, cluster=True)
    yield s
    await s.close()


def match_on(cluster: LocalCluster, port: int, avoid: set[int] = frozenset()) -> tuple[str, int]:
    """A fresh match id whose slot is served by the master on `port` (and none of `avoid`)."""
    while True:
        match_id = f"m_w{next(_ids)}"
        slot = key_slot(key(match_id, "log").encode())
        if cluster.port_of_slot(slot) == port and slot not in avoid:
            return match_id, slot


def on(cluster: LocalCluster, port: int) -> redis.Redis:
    return cluster.client(port)


def entry(match_id: str, seq: int) -> tuple:
    return ("XADD", key(match_id, "log"), f"{seq}-0", "e", f"entry {seq}")


async def test_each_command_goes_to_the_master_of_its_slot_in_one_send_per_master(cluster, store):
    writer = store.batcher
    calls = []
    ids = [f"m_spread{i}" for i in range(30)]
    for i, match_id in enumerate(ids):
        writer.submit([("SET", key(match_id, "meta"), i), entry(match_id, 1)], lambda n, e: calls.append((n, e)), i)
    while len(calls) < len(ids):
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.05)
    assert sorted(calls) == [(i, None) for i in range(len(ids))]  # each called back once, no error
    # All three masters, one send each, which begins with the store's scripts (SCRIPT LOAD).
    assert writer.flushes == 3 and writer.commands == 60 + 3 * len(writer.scripts)
    homes = {}
    for i, match_id in enumerate(ids):
        port = cluster.port_of_slot(key_slot(key(match_id, "meta").encode()))
        homes.setdefault(port, []).append(match_id)
        with on(cluster, port) as c:  # stored on that master itself, not reached by redirection
            assert c.get(key(match_id, "meta")) == str(i) and c.xlen(key(match_id, "log")) == 1
    assert sorted(homes) == sorted(cluster.ports)
    assert not writer.redirections


async def test_a_moved_slot_is_followed_and_learnt(cluster, store):
    source, target = cluster.ports[0], cluster.ports[1]
    match_id, slot = match_on(cluster, source)
    writer = store.batcher
    await writer.write([("SET", key(match_id, "meta"), "m"), entry(match_id, 1)])  # the map says: source
    cluster.begin_migration(slot, source, target)
    assert cluster.move_keys(source, target, cluster.keys_in_slot(source, slot)) == 2
    cluster.end_migration(slot, target)

    await writer.write([entry(match_id, 2), ("SET", key(match_id, "snap"), "s")])
    assert writer.redirections == {"MOVED": 2}  # each command once, then sent to the target
    assert writer.slots[slot] == f"127.0.0.1:{target}"
    await writer.write([entry(match_id, 3)])
    assert writer.redirections == {"MOVED": 2}  # learnt: no more redirection
    with on(cluster, target) as t:
        assert [i for i, _ in t.xrange(key(match_id, "log"))] == ["1-0", "2-0", "3-0"]
        assert t.get(key(match_id, "snap")) == "s"


async def test_a_migrating_slot_sends_moved_keys_to_the_target_by_ask(cluster, store):
    source, target = cluster.ports[1], cluster.ports[2]
    match_id, slot = match_on(cluster, source)
    writer = store.batcher
    await writer.write([("SET", key(match_id, "meta"), "m"), entry(match_id, 1)])
    cluster.begin_migration(slot, source, target)
    await writer.write([entry(match_id, 2)])  # still at the source: served there
    assert not writer.redirections
    cluster.move_keys(source, target, [key(match_id, "log")])  # the log moves, the meta stays
    await writer.write([entry(match_id, 3), ("SET", key(match_id, "meta"), "m2")])
    assert writer.redirections == {"ASK": 1}
    assert writer.slots[slot] == f"127.0.0.1:{source}"  # ASK is for one command, not the map
    assert cluster.keys_in_slot(source, slot) == [key(match_id, "meta")]  # the log stayed away
    with on(cluster, source) as s:
        assert s.get(key(match_id, "meta")) == "m2"
    cluster.move_keys(source, target, [key(match_id, "meta")])
    cluster.end_migration(slot, target)
    with on(cluster, target) as t:
        assert [i for i, _ in t.xrange(key(match_id, "log"))] == ["1-0", "2-0", "3-0"]
        assert t.execute_command("INFO", "commandstats")["cmdstat_asking"]["calls"] >= 1


async def test_tryagain_while_a_scripts_keys_are_split_waits_for_the_migration(cluster, store):
    source, target = cluster.ports[2], cluster.ports[0]
    match_id, slot = match_on(cluster, source)
    writer = store.batcher
    sha = writer.register_script("redis.call('SET', KEYS[1], ARGV[1]); return redis.call('SET', KEYS[2], ARGV[1])")
    a, b = key(match_id, "meta"), key(match_id, "snap")
    await writer.write([("SET", a, 0), ("SET", b, 0)])
    cluster.begin_migration(slot, source, target)
    cluster.move_keys(source, target, [a])  # one key of the script at each end: neither can run it

    async def finish():
        while not writer.redirections["TRYAGAIN"]:  # the script was refused at both ends
            await asyncio.sleep(0.005)
        cluster.move_keys(source, target, [b])
        cluster.end_migration(slot, target)

    finishing = asyncio.ensure_future(asyncio.wait_for(finish(), 5))
    await writer.write([("EVALSHA", sha, 2, a, b, "both")])
    await finishing
    assert writer.redirections["TRYAGAIN"] >= 1 and writer.redirections["MOVED"] == 1
    with on(cluster, target) as t:
        assert t.get(a) == "both" and t.get(b) == "both"


async def test_evalsha_goes_by_its_first_key_and_noscript_loads_the_script_there(cluster, store):
    writer = store.batcher
    ids = [match_on(cluster, port)[0] for port in cluster.ports]
    await writer.write([("SET", key(m, "meta"), 0) for m in ids])  # connected to every master
    sha = writer.register_script("return redis.call('INCR', KEYS[1])")  # after connecting: no node has it
    await writer.write([("EVALSHA", sha, 1, key(m, "meta")) for m in ids])
    assert writer.redirections == {"NOSCRIPT": 3}
    for port, match_id in zip(cluster.ports, ids):
        with on(cluster, port) as c:
            assert c.get(key(match_id, "meta")) == "1"  # run once, on the match's own master
            c.script_flush()
    await writer.write([("EVALSHA", sha, 1, key(m, "meta")) for m in ids])  # flushed: loaded again
    assert writer.redirections == {"NOSCRIPT": 6}
    with on(cluster, cluster.ports[0]) as c:
        assert c.get(key(ids[0], "meta")) == "2"


async def test_a_write_across_masters_fails_once_when_one_does_not_answer(cluster, store):
    writer = ClusterWriteBatcher(cluster.url, store._slot_map, timeout_s=0.3)
    fast, slow = cluster.ports[0], cluster.ports[1]
    m_fast, m_slow = match_on(cluster, fast)[0], match_on(cluster, slow)[0]
    await writer.write([("SET", key(m_fast, "meta"), 0), ("SET", key(m_slow, "meta"), 0)])
    calls = []
    with on(cluster, slow) as c:
        c.execute_command("CLIENT", "PAUSE", 700, "WRITE")
    loop = asyncio.get_running_loop()
    paused_at = loop.time()
    writer.submit([("SET", key(m_fast, "meta"), 1), ("SET", key(m_slow, "meta"), 1)], lambda e: calls.append(e))
    while not calls:
        assert loop.time() - paused_at < 5
        await asyncio.sleep(0.01)
    await asyncio.sleep(max(0.0, paused_at + 0.9 - loop.time()))  # the pause over: the slow reply came late
    assert len(calls) == 1 and isinstance(calls[0], StoreUnavailable) and "did not answer" in str(calls[0])
    await writer.write([("SET", key(m_slow, "meta"), 2)])  # a new connection
    with on(cluster, slow) as c:
        assert c.get(key(m_slow, "meta")) == "2"
    await writer.close()


async def test_a_node_refusing_the_password_fails_the_writes(cluster, store):
    writer = ClusterWriteBatcher(cluster.url.replace("redis://", "redis://:wrong@"), store._slot_map)
    with pytest.raises(StoreUnavailable, match="AUTH"):
        await writer.write([("SET", "bh:{m_auth}:meta", 1)])
    await writer.close()


async def test_the_store_reads_deletes_and_reports_across_the_masters(cluster, store):
    ids = [match_on(cluster, port)[0] for port in cluster.ports]
    for i, match_id in enumerate(ids):
        snapshot = {"seq": 0, "state": i}
        await store.write(Store.create_commands(match_id, {"seats": ["a", "b"]}, snapshot, [], 1000 + i))
        await store.write([Store.entry_command(match_id, {"seq": 1, "act": f"a{i}"}, [])])
    loaded = await store.load_many(ids + ["m_missing"])  # one pipeline over three masters
    assert [m.snapshot["state"] for m in loaded[:3]] == [0, 1, 2] and loaded[3] is None
    assert [m.log for m in loaded[:3]] == [[{"seq": 1, "act": f"a{i}"}] for i in range(3)]
    assert set(ids) <= set(await store.live_ids())
    assert await store.delete(ids[1]) and not await store.exists(ids[1])
    assert ids[1] not in await store.live_ids()
    assert await store.ping()
    with on(cluster, cluster.ports[2]) as c:
        c.config_set("appendfsync", "no")
    try:
        assert await store.durability() == {"appendonly": "yes", "appendfsync": "no"}  # the weakest master
    finally:
        with on(cluster, cluster.ports[2]) as c:
            c.config_set("appendfsync", "everysec")
    assert await store.durability() == {"appendonly": "yes", "appendfsync": "everysec"}


async def test_spectator_counts_of_several_nodes_on_a_cluster(store):
    """audience.py's writes and reads go on the store's upkeep connection, whose cluster
    form answers HGETALL with a map where a single Redis gives a list."""
    first = Audience(store, "node-1", lambda m: 2 if m == "m_watched" else 0, lambda m: 1 if m == "m_watched" else 0)
    second = Audience(store, "node-2", lambda m: 3 if m == "m_watched" else 0)
    for audience in (first, second, first):
        audience.read_at = 0
        audience.dirty.add("m_watched")
        await audience.flush()
    assert first.count("m_watched") == 5
    assert await second.tallies(["m_watched"]) == [(5, 4)]  # the first node's 2 sockets are one viewer
    await first.close()
    await second.close()
    assert await store.client.exists(hash_key("m_watched")) == 0
