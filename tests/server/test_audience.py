"""audience.py against a real Redis: the node's spectator counts, and its shutdown."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from battlehall.server.clock import now_ms
from battlehall.server.node.audience import FLUSH_S, READ_S, STALE_MS, Audience, viewer_of
from battlehall.server.storage.audience import hash_key
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.store import Store


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    yield redis.url
    redis.stop()


async def test_a_count_is_written_and_removed_at_close(redis_url):
    store = Store(redis_url)
    watching = {"m_a": 2}
    audience = Audience(store, "node-1", lambda m: watching.get(m, 0))
    try:
        audience.changed("m_a")
        await audience.flush()
        assert (await store.client.hget(hash_key("m_a"), "node-1")).split(b" ")[0] == b"2"
        await audience.close()
        assert await store.client.hget(hash_key("m_a"), "node-1") is None
    finally:
        await store.close()


async def two_nodes_watching(store) -> tuple[Audience, Audience]:
    """Two nodes' audiences on one store, with 2 and 3 spectators of m_two, each node's
    count written and the other's read."""
    first = Audience(store, "node-1", lambda m: 2 if m == "m_two" else 0)
    second = Audience(store, "node-2", lambda m: 3 if m == "m_two" else 0)
    for audience in (first, second, first):  # the first node reads after the second wrote
        audience.read_at = 0  # due now, not READ_S after the last read
        audience.dirty.add("m_two")
        await audience.flush()
    return first, second


async def test_each_node_counts_the_other_nodes_spectators(redis_url):
    store = Store(redis_url)
    try:
        first, second = await two_nodes_watching(store)
        assert first.count("m_two") == 5
        assert second.count("m_two") == 5
        await first.close()
        second.read_at = 0
        second.dirty.add("m_two")
        await second.flush()
        assert second.count("m_two") == 3  # the first node's spectators left with it
        await second.close()
        assert await store.client.exists(hash_key("m_two")) == 0
    finally:
        await store.close()


def earlier_versions_count(fields: dict[bytes, bytes], node: str, now: int) -> int:
    """What a node of the version before viewers makes of a hash: every other field is a
    node's "<count> <ms>", counted while fresh."""
    total = 0
    for name, value in fields.items():
        count, _, at = value.decode().partition(" ")
        if name.decode() != node and int(at) >= now - STALE_MS:
            total += int(count)
    return total


async def test_viewers_are_summed_over_nodes_and_spectators_stay_counted_as_before(redis_url):
    """Node 1 has 4 spectator sockets of one client, node 2 three of three clients: 7
    spectators, 4 viewers. The viewers' field does not change what a node of the earlier
    version counts (a rolling deploy), and a node of that version, which writes no
    viewers, counts one viewer per spectator."""
    store = Store(redis_url)
    first = Audience(store, "node-1", lambda m: 4, lambda m: 1)
    second = Audience(store, "node-2", lambda m: 3, lambda m: 3)
    try:
        for audience in (first, second):
            audience.dirty.add("m_v")
            await audience.flush()
        assert await first.tallies(["m_v", "m_none"]) == [(7, 4), (4, 1)]
        assert await second.tallies(["m_v"]) == [(7, 4)]
        fields = await store.client.hgetall(hash_key("m_v"))
        assert earlier_versions_count(fields, "node-3", now_ms()) == 7
        await store.client.hset(hash_key("m_v"), "node-3", f"2 {now_ms()}")  # an earlier version's node
        assert await first.tallies(["m_v"]) == [(9, 6)]
        await first.close()  # its viewers go with its count
        assert await second.tallies(["m_v"]) == [(5, 5)]
    finally:
        await first.close()
        await second.close()
        await store.close()


def test_one_client_is_one_viewer_whichever_of_its_addresses_it_uses():
    assert viewer_of("203.0.113.7") == viewer_of("::ffff:203.0.113.7") == "203.0.113.7"
    assert viewer_of("203.0.113.7") != viewer_of("203.0.113.8")
    # One IPv6 host holds a /64: any address of it is the same viewer, another /64 another.
    assert viewer_of("2001:db8:0:1::1") == viewer_of("2001:db8:0:1:ffff:ffff:ffff:ffff") == "2001:db8:0:1::/64"
    assert viewer_of("2001:db8:0:1::1") != viewer_of("2001:db8:0:2::1")
    assert viewer_of("fe80::1%eth0") == viewer_of("fe80::2")
    assert viewer_of(None) is None  # not an IP connection (a Unix socket): one viewer


async def test_the_other_nodes_are_read_once_a_read_interval(redis_url):
    """Counts change five times a second on a busy node: the reads of every watched match
    go with a write only once per READ_S."""
    store = Store(redis_url)
    try:
        first, second = await two_nodes_watching(store)
        await store.client.hset(hash_key("m_two"), "node-3", f"4 {now_ms()}")
        first.dirty.add("m_two")
        await first.flush()  # a write, within READ_S of the last read: no read
        assert first.count("m_two") == 5
        first.read_at = 0
        await first.flush()  # nothing to write, a read due
        assert first.count("m_two") == 9
        await first.close()
        await second.close()
    finally:
        await store.close()


async def test_a_change_between_reads_does_not_put_the_next_read_off(redis_url):
    """The writer task reads the other nodes' counts every READ_S even when a change is
    flushed in between: the cap's bound over nodes is READ_S, not twice that."""
    store = Store(redis_url)
    audience = Audience(store, "node-1", lambda m: 1)
    try:
        audience.changed("m_gap")  # starts the writer task: a write and a read FLUSH_S later
        await asyncio.sleep(FLUSH_S + 0.1)
        assert audience.read_at > 0
        await store.client.hset(hash_key("m_gap"), "node-2", f"4 {now_ms()}")
        await asyncio.sleep(READ_S * 0.6)
        audience.changed("m_gap")  # flushed FLUSH_S later, between two reads
        read_due = audience.read_at
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2 * READ_S
        while audience.count("m_gap") != 5 and loop.time() < deadline:
            await asyncio.sleep(0.02)
        assert audience.count("m_gap") == 5
        assert time.monotonic() - read_due < 0.3  # read when due, not READ_S after the change
    finally:
        await audience.close()
        await store.close()


async def test_redis_away_is_tried_again_once_a_read_interval_not_in_a_loop():
    """With Redis not answering, the writer task waits READ_S between tries: the read that
    failed is not due at once again."""
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    store = Store(f"redis://127.0.0.1:{port}/0")
    audience = Audience(store, "node-1", lambda m: 1)
    calls = []
    call = audience.records.upkeep.call

    async def counted(commands):
        calls.append(time.monotonic())
        return await call(commands)

    audience.records.upkeep.call = counted
    try:
        audience.changed("m_away")
        await asyncio.sleep(2.5 * READ_S)
        assert 2 <= len(calls) <= 4, f"{len(calls)} tries in {2.5 * READ_S} s"
    finally:
        await audience.close()
        await store.close()


@pytest.mark.parametrize("turns", range(6))
async def test_close_ends_even_when_a_change_comes_with_it(redis_url, turns):
    """A spectator leaving as the node stops wakes the writer task in the same turns of
    the loop as close() cancels it. With asyncio.wait_for (Python 3.11) the cancel could
    be swallowed: the task looped on and the server's shutdown waited for ever."""
    store = Store(redis_url)
    audience = Audience(store, "node-1", lambda m: 1)
    try:
        audience.changed("m_b")  # starts the writer task
        await asyncio.sleep(0.5)  # the writer waits on its event again, its first flush done
        audience.changed("m_b")
        for _ in range(turns):  # every interleaving of the wake-up with the cancel
            await asyncio.sleep(0)
        closing = asyncio.ensure_future(audience.close())
        done, _ = await asyncio.wait({closing}, timeout=3)  # wait, never cancel: close() must end by itself
        assert closing in done, "close() waits on a writer task that swallowed its cancel"
        assert audience.writer is not None and audience.writer.cancelled()
    finally:
        await store.close()


async def test_close_ends_even_when_a_flush_swallows_the_cancel(redis_url, monkeypatch):
    """A library call that swallows a cancel (the writer was once seen "cancelling" but
    waiting on its event again, and the shutdown with it) does not keep the writer alive:
    it stops at close() all the same."""
    store = Store(redis_url)
    audience = Audience(store, "node-1", lambda m: 1)
    flushing = asyncio.Event()
    flush = audience.flush

    async def swallowing_flush():
        flushing.set()
        try:
            await asyncio.sleep(0.3)
        except asyncio.CancelledError:
            pass  # what the library did
        await flush()

    monkeypatch.setattr(audience, "flush", swallowing_flush)
    try:
        audience.changed("m_c")
        await flushing.wait()
        closing = asyncio.ensure_future(audience.close())
        done, _ = await asyncio.wait({closing}, timeout=3)
        assert closing in done, "close() waits on a writer task that swallowed its cancel"
        assert audience.writer.done()
    finally:
        await store.close()
