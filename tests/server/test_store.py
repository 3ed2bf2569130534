"""store.py against a real Redis: an answer is one XADD, and the history reads back exactly."""

from __future__ import annotations

import random

import pytest

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer
from battlehall.server.actor import MatchCore
from battlehall.server.clock import Clock
from battlehall.server.config import Settings
from battlehall.server.embedded_redis import EmbeddedRedis
from battlehall.server import store as store_module
from battlehall.server.store import LoadedMatch, Store


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    yield redis.url
    redis.stop()


async def play(store: Store, match_id: str, ruleset: str, seed: int, answers: int | None = None):
    """A match through the server's own commit path; returns its core and every record."""
    state, events = get_ruleset(ruleset).start(["alice", "bob"], seed)
    meta = {"ruleset": ruleset, "seats": ["alice", "bob"], "spectators": {"delay_ms": 0}}
    core = MatchCore(meta, state, Clock.new({"prompt_ms": None, "bank_ms": 0}, ["alice", "bob"]), 0)
    records = core.stamp(events, 1_000)
    await store.write(Store.create_commands(match_id, meta, core.snapshot(), records, 1_000))
    rng, settings, n = random.Random(seed), Settings(snapshot_every=5, retention_s=60), 0
    while not core.over and (answers is None or n < answers):
        prompt = rng.choice(core.ruleset.prompts(core.state))
        option, args = random_answer(rng, prompt)
        entry = {"at": 2_000 + n, "seat": prompt["seat"], "prompt": prompt["id"], "option": option,
                 "args": args, "act": n}
        new, commands = core.advance(match_id, entry, settings)
        if n == 0:
            assert commands[0][0] == "XADD" and len(commands) == 1  # an answer is one command
        await store.write(commands)
        core.written()
        records += new
        n += 1
    return core, records


async def test_events_reads_back_any_range_of_the_history(redis_url):
    store = Store(redis_url)
    core, records = await play(store, "m_store_ranges", "spellfire", 4)
    assert [r["seq"] for r in records] == list(range(1, core.seq + 1))
    assert await store.events("m_store_ranges", 0) == records
    rng = random.Random(0)
    for _ in range(60):
        after = rng.randrange(0, core.seq + 1)
        upto = rng.choice([-1, rng.randrange(after, core.seq + 1)])
        expected = [r for r in records if r["seq"] > after and (upto < 0 or r["seq"] <= upto)]
        assert await store.events("m_store_ranges", after, upto) == expected, (after, upto)
    assert await store.events("m_no_such_match", 0) == []
    # Pages: at most `limit` log entries each (the start's events besides), ending at the
    # end of an entry; read one after another, they are the history exactly once.
    for after, limit in ((0, 1), (0, 7), (5, 3), (core.seq // 2, 4)):
        pages, seq = [], after
        while seq < core.seq:
            page = await store.events("m_store_ranges", seq, core.seq, limit=limit)
            assert page and page[0]["seq"] == seq + 1
            pages += page
            seq = page[-1]["seq"]
        assert pages == [r for r in records if r["seq"] > after]
    await store.close()


async def test_recovery_reads_the_snapshot_and_the_log_after_it(redis_url):
    store = Store(redis_url)
    core, _ = await play(store, "m_store_load", "duel", 3, answers=13)  # snapshots at 5 and 10 answers
    loaded = await store.load("m_store_load")
    assert len(loaded.log) == 3 and loaded.log[0]["seq"] == loaded.snapshot["seq"] + 1
    again = MatchCore.from_loaded(loaded)
    assert again.seq == core.seq and again.acts == core.acts and len(core.acts) == 13
    await store.close()


async def test_an_abort_is_one_log_entry_that_replays_and_delete_removes_every_key(redis_url):
    store = Store(redis_url)
    core, records = await play(store, "m_store_abort", "spellfire", 5, answers=7)
    entry = {"at": 9_000, "abort": True}
    new, commands = core.advance("m_store_abort", entry, Settings(snapshot_every=5, retention_s=60))
    assert core.over and new[-1]["kind"] == "match_ended"
    await store.write(commands)
    assert "m_store_abort" not in await store.live_ids()
    # Replayed from the start through the log, the abort entry gives the same ended match.
    start, log_entries = await store.load_from_start("m_store_abort")
    assert log_entries[-1] == {**entry, "seq": records[-1]["seq"] + 1, "last_seq": core.seq}
    replayed = MatchCore.from_loaded(LoadedMatch(core.meta, start, log_entries))
    assert replayed.state == core.state and replayed.seq == core.seq
    assert await store.events("m_store_abort", 0) == records + new
    assert await store.delete("m_store_abort") is True
    assert await store.load("m_store_abort") is None and await store.events("m_store_abort", 0) == []
    assert await store.delete("m_store_abort") is False
    await store.close()


async def test_a_whole_log_is_read_in_pages_and_whole(redis_url, monkeypatch):
    """load_from_start reads LOG_PAGE entries at a time (a long log read at once kept the
    event loop for tens of milliseconds); the pages are the log exactly, however it divides."""
    store = Store(redis_url)
    await play(store, "m_store_pages", "spellfire", 6, answers=23)
    _, whole = await store.load_from_start("m_store_pages")
    assert len(whole) == 23
    for page in (1, 5, 23, 24):
        monkeypatch.setattr(store_module, "LOG_PAGE", page)
        assert (await store.load_from_start("m_store_pages"))[1] == whole, page
    await store.close()
