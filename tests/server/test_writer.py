"""writer.py against a real Redis: one send per loop turn, replies matched in order,
and every way a write can fail reported to its own callback, nothing acknowledged."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.writer import StoreUnavailable, WriteBatcher


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    yield redis.url
    redis.stop()


class Outcomes:
    """Collects what each write's callback was told, in the order the callbacks ran."""

    def __init__(self):
        self.calls: list[tuple[str, StoreUnavailable | None]] = []
        self.all_in = asyncio.Event()
        self.expected = 0

    def expect(self, n: int) -> None:
        self.expected += n

    def __call__(self, name: str, error: StoreUnavailable | None) -> None:
        self.calls.append((name, error))
        if len(self.calls) == self.expected:
            self.all_in.set()

    async def wait(self) -> list:
        await asyncio.wait_for(self.all_in.wait(), 10)
        return self.calls


async def test_writes_of_one_loop_turn_go_in_one_send_and_are_called_back_in_order(redis_url):
    writer, outcomes = WriteBatcher(redis_url), Outcomes()
    outcomes.expect(50)
    for i in range(50):
        writer.submit([("SET", f"w:one:{i}", i), ("INCR", "w:one:count")], outcomes, f"w{i}")
    calls = await outcomes.wait()
    assert calls == [(f"w{i}", None) for i in range(50)]
    assert (writer.flushes, writer.commands) == (1, 100)
    check = aioredis.from_url(redis_url)
    assert await check.get("w:one:49") == b"49" and await check.get("w:one:count") == b"50"
    await check.aclose()
    await writer.close()


async def test_an_error_reply_fails_its_own_write_only(redis_url):
    writer, outcomes = WriteBatcher(redis_url), Outcomes()
    await writer.write([("SET", "w:err:string", "x")])
    outcomes.expect(3)
    writer.submit([("SET", "w:err:a", 1)], outcomes, "before")
    writer.submit([("SET", "w:err:b", 1), ("XADD", "w:err:string", "*", "f", "v")], outcomes, "wrongtype")
    writer.submit([("SET", "w:err:c", 1)], outcomes, "after")
    calls = await outcomes.wait()
    assert [name for name, _ in calls] == ["before", "wrongtype", "after"]
    assert calls[0][1] is None and calls[2][1] is None
    assert isinstance(calls[1][1], StoreUnavailable) and "WRONGTYPE" in str(calls[1][1])
    with pytest.raises(StoreUnavailable):
        await writer.write([("XADD", "w:err:string", "*", "f", "v")])
    await writer.write([("SET", "w:err:d", 1)])  # the connection is still good
    await writer.close()


async def test_an_unreachable_redis_fails_the_writes_and_a_later_write_connects_again(tmp_path):
    redis = EmbeddedRedis(tmp_path)
    writer = WriteBatcher(redis.url, timeout_s=1.0)  # its socket does not exist yet
    with pytest.raises(StoreUnavailable, match="cannot connect"):
        await writer.write([("SET", "w:down", 1)])
    redis.start()
    try:
        await writer.write([("SET", "w:down", 2)])
        check = aioredis.from_url(redis.url)
        assert await check.get("w:down") == b"2"
        await check.aclose()
        redis.stop()  # in the middle of nothing: the next write finds the connection gone
        with pytest.raises(StoreUnavailable):
            await writer.write([("SET", "w:down", 3)])
    finally:
        redis.stop()
        await writer.close()


async def test_a_redis_that_stops_answering_fails_the_writes_in_flight_after_the_timeout(redis_url):
    admin = aioredis.from_url(redis_url)
    writer = WriteBatcher(redis_url, timeout_s=0.3)
    await writer.write([("SET", "w:slow", 0)])  # connected
    await admin.execute_command("CLIENT", "PAUSE", 1500, "WRITE")  # writes wait, unanswered
    started = asyncio.get_running_loop().time()
    with pytest.raises(StoreUnavailable, match="did not answer within 0.3 s"):
        await writer.write([("SET", "w:slow", 1)])
    assert 0.25 < asyncio.get_running_loop().time() - started < 1.4  # the timeout, not the pause
    await admin.execute_command("CLIENT", "UNPAUSE")
    await writer.write([("SET", "w:slow", 2)])  # a new connection
    assert await admin.get("w:slow") == b"2"
    await admin.aclose()
    await writer.close()


async def test_the_database_of_the_url_is_selected(redis_url):
    url = redis_url + "?db=3"
    writer = WriteBatcher(url)
    await writer.write([("SET", "w:db", "three")])
    (db0, db3) = (aioredis.from_url(redis_url), aioredis.from_url(url))
    assert await db0.get("w:db") is None and await db3.get("w:db") == b"three"
    await db0.aclose()
    await db3.aclose()
    await writer.close()


async def test_closing_fails_what_is_still_queued(redis_url):
    writer, outcomes = WriteBatcher(redis_url), Outcomes()
    outcomes.expect(1)
    writer.submit([("SET", "w:closed", 1)], outcomes, "queued")
    await writer.close()  # before the loop turn that would send it
    (name, error), = await outcomes.wait()
    assert name == "queued" and isinstance(error, StoreUnavailable)


async def test_the_password_of_the_url_is_sent_and_a_wrong_one_fails_the_writes(tmp_path):
    redis = EmbeddedRedis(tmp_path).start()
    try:
        admin = aioredis.from_url(redis.url)
        await admin.config_set("requirepass", "s3cret")
        await admin.aclose()
        path = redis.url.removeprefix("unix://")
        writer = WriteBatcher(f"unix://:s3cret@{path}")
        await writer.write([("SET", "w:auth", "ok")])
        await writer.close()
        wrong = WriteBatcher(f"unix://:nope@{path}")
        with pytest.raises(StoreUnavailable, match="AUTH"):
            await wrong.write([("SET", "w:auth", "no")])
        await wrong.close()
        check = aioredis.from_url(f"unix://:s3cret@{path}")
        assert await check.get("w:auth") == b"ok"
        await check.aclose()
    finally:
        redis.stop()


def test_tls_is_set_up_from_the_url_as_redis_py_does():
    import ssl

    from redis.connection import parse_url

    from battlehall.server.storage.writer import _tls
    assert _tls("redis://h:6379/0", parse_url("redis://h:6379/0")) is None
    strict = _tls("rediss://h:6379/0", parse_url("rediss://h:6379/0"))
    assert strict.verify_mode == ssl.CERT_REQUIRED and strict.check_hostname
    url = "rediss://h:6379/0?ssl_cert_reqs=none"
    lax = _tls(url, parse_url(url))
    assert lax.verify_mode == ssl.CERT_NONE and not lax.check_hostname


async def test_a_registered_script_is_loaded_before_any_write_that_follows_and_on_every_new_connection(tmp_path):
    redis = EmbeddedRedis(tmp_path).start()
    writer = WriteBatcher(redis.url)
    try:
        sha = writer.register_script("return redis.call('INCR', KEYS[1])")
        await writer.write([("EVALSHA", sha, 1, "w:script")])  # in the same turn as the load
        check = aioredis.from_url(redis.url)
        await check.script_flush()  # as a restarted Redis without the script in its files
        await check.client_kill_filter(_type="normal", skipme=True)  # the writer's connection
        await asyncio.sleep(0.1)  # the connection is seen closed
        await writer.write([("EVALSHA", sha, 1, "w:script")])
        assert await check.get("w:script") == b"2"
        later = writer.register_script("return redis.call('DECR', KEYS[1])")  # on a live connection
        await writer.write([("EVALSHA", later, 1, "w:script")])
        assert await check.get("w:script") == b"1"
        await check.aclose()
    finally:
        await writer.close()
        redis.stop()
