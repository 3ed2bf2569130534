"""audience.py against a real Redis: the node's spectator counts, and its shutdown."""

from __future__ import annotations

import asyncio

import pytest

from battlehall.server.audience import Audience, hash_key
from battlehall.server.embedded_redis import EmbeddedRedis
from battlehall.server.store import Store


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
        assert (await store.redis.hget(hash_key("m_a"), "node-1")).split(b" ")[0] == b"2"
        await audience.close()
        assert await store.redis.hget(hash_key("m_a"), "node-1") is None
    finally:
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
