"""store.py against a real Redis: an answer is one XADD, and the history reads back exactly."""

from __future__ import annotations

import random

import pytest

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer
from battlehall.server.clock import Clock
from battlehall.server.config import Settings
from battlehall.server.match.match_state import MatchState
from battlehall.server.storage import reads as store_reads
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.store import LoadedMatch, Store
from battlehall.server.storage.writer import Fenced, StoreUnavailable


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    yield redis.url
    redis.stop()


async def play(store: Store, match_id: str, ruleset: str, seed: int, answers: int | None = None):
    """A match through the server's own commit path; returns its core and every record."""
    state, events = get_ruleset(ruleset).start(["alice", "bob"], seed)
    meta = {"ruleset": ruleset, "seats": ["alice", "bob"], "spectators": {"delay_ms": 0}}
    core = MatchState(meta, state, Clock.new({"prompt_ms": None, "bank_ms": 0}, ["alice", "bob"]), 0)
    records = core.stamp(events, 1_000)
    await store.write(Store.create_commands(match_id, meta, core.snapshot(), records, 1_000))
    rng, settings, n = random.Random(seed), Settings(snapshot_every=5, retention_s=60), 0
    while not core.over and (answers is None or n < answers):
        prompt = rng.choice(core.ruleset.prompts(core.state))
        option, args = random_answer(rng, prompt)
        entry = {"at": 2_000 + n, "seat": prompt["seat"], "prompt": prompt["id"], "option": option,
                 "args": args, "act": n}
        new = core.commit(entry)
        snapshot = core.snapshot_due(settings.snapshot_every)
        commands = Store.write_commands(match_id, [(entry, new)], snapshot, core.over, settings.retention_s, None)
        if n == 0:
            assert commands[0][0] == "XADD" and len(commands) == 1  # an answer is one command
        await store.write(commands)
        if snapshot is not None:
            core.snapshot_written()
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
    again = MatchState.from_loaded(loaded)
    assert again.seq == core.seq and again.acts == core.acts and len(core.acts) == 13
    await store.close()


async def test_an_abort_is_one_log_entry_that_replays_and_delete_removes_every_key(redis_url):
    store = Store(redis_url)
    core, records = await play(store, "m_store_abort", "spellfire", 5, answers=7)
    entry = {"at": 9_000, "abort": True}
    new = core.commit(entry)
    assert core.over and new[-1]["kind"] == "match_ended"
    await store.write(Store.write_commands("m_store_abort", [(entry, new)], core.snapshot_due(5), True, 60, None))
    assert "m_store_abort" not in await store.live_ids()
    # Replayed from the start through the log, the abort entry gives the same ended match.
    start, log_entries = await store.load_from_start("m_store_abort")
    assert log_entries[-1] == {**entry, "seq": records[-1]["seq"] + 1, "last_seq": core.seq}
    replayed = MatchState.from_loaded(LoadedMatch(core.meta, start, log_entries))
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
        monkeypatch.setattr(store_reads, "LOG_PAGE", page)
        assert (await store.load_from_start("m_store_pages"))[1] == whole, page
async def test_a_fenced_write_of_several_entries_lands_whole_or_not_at_all(redis_url):
    """Answers that waited for a write go out together in one fenced script call."""
    store, match_id = Store(redis_url), "m_store_fenced_batch"
    seats = ["alice", "bob"]
    state, events = get_ruleset("duel").start(seats, 9, {"simultaneous": True})
    meta = {"ruleset": "duel", "seats": seats, "spectators": {"delay_ms": 0}}
    core = MatchState(meta, state, Clock.new({"prompt_ms": None, "bank_ms": 0}, seats), 0)
    records = core.stamp(events, 1_000)
    await store.write(Store.create_commands(match_id, meta, core.snapshot(), records, 1_000, "1 n1", 60_000))
    rng, batch = random.Random(1), []
    for n in range(2):  # both seats answer the round: two entries
        prompt = core.ruleset.prompts(core.state)[0]
        option, args = random_answer(rng, prompt)
        entry = {"at": 2_000 + n, "seat": prompt["seat"], "prompt": prompt["id"], "option": option,
                 "args": args, "act": n}
        batch.append((entry, core.commit(entry)))
    with pytest.raises(Fenced):  # a lease that is no longer the match's: nothing of it lands
        await store.write(Store.write_commands(match_id, batch, core.snapshot_due(1), False, 60, "0 n0"))
    assert (await store.load(match_id)).log == [] and await store.events(match_id, 0) == records
    await store.write(Store.write_commands(match_id, batch, None, False, 60, "1 n1"))
    start, log_entries = await store.load_from_start(match_id)
    assert log_entries == [entry for entry, _ in batch]
    assert await store.events(match_id, 0) == records + batch[0][1] + batch[1][1]
    again = MatchState.from_loaded(LoadedMatch(meta, start, log_entries))
    assert again.state == core.state and again.seq == core.seq and again.acts == core.acts
    await store.close()


async def test_a_write_sent_behind_another_lands_only_if_the_log_ends_with_it(redis_url):
    """A write that went out while the one before it was in flight (`after`, writes.py)
    is refused whole if that one did not land: the log never has a gap."""
    store, match_id = Store(redis_url), "m_store_after"
    seats = ["alice", "bob"]
    state, events = get_ruleset("duel").start(seats, 9, {"simultaneous": True})
    meta = {"ruleset": "duel", "seats": seats, "spectators": {"delay_ms": 0}}
    core = MatchState(meta, state, Clock.new({"prompt_ms": None, "bank_ms": 0}, seats), 0)
    await store.write(Store.create_commands(match_id, meta, core.snapshot(), core.stamp(events, 1_000), 1_000,
                                            "1 n1", 60_000))
    rng, writes = random.Random(1), []
    for n in range(3):
        prompt = core.ruleset.prompts(core.state)[0]
        option, args = random_answer(rng, prompt)
        entry = {"at": 2_000 + n, "seat": prompt["seat"], "prompt": prompt["id"], "option": option,
                 "args": args, "act": n}
        writes.append([(entry, core.commit(entry))])
    first, second, third = writes
    # The second, sent behind the first, which has not landed: a gap, refused.
    with pytest.raises(StoreUnavailable, match="GAP"):
        await store.write(Store.write_commands(match_id, second, None, False, 60, "1 n1", after=first[0][0]["seq"]))
    assert (await store.load(match_id)).log == []
    await store.write(Store.write_commands(match_id, first, None, False, 60, "1 n1"))
    await store.write(Store.write_commands(match_id, second, None, False, 60, "1 n1", after=first[0][0]["seq"]))
    # Behind an entry that is not the log's last (the first, once the second landed): refused too.
    with pytest.raises(StoreUnavailable, match="GAP"):
        await store.write(Store.write_commands(match_id, third, None, False, 60, "1 n1", after=first[0][0]["seq"]))
    await store.write(Store.write_commands(match_id, third, None, False, 60, "1 n1", after=second[0][0]["seq"]))
    assert (await store.load(match_id)).log == [w[0][0] for w in writes]
    await store.close()
