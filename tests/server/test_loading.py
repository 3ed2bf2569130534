"""Matches brought into memory from Redis (loading.py): once however many ask, a live one
only with its lease, its clock given back the time it had no owner; and the recovery at
start. Hubs as nodes in this process, on a real Redis."""

from __future__ import annotations

import asyncio

import pytest

from battlehall.server.clock import now_ms
from battlehall.server.storage.lease import NotHere
from battlehall.server.storage.store import key
from hub_parts import duel, hub_on, redis_server, redis_url  # noqa: F401 (fixtures)


async def test_a_match_asked_for_many_times_at_once_is_loaded_once(redis_url):
    async with hub_on(redis_url) as hub:
        created = await hub.create(duel())
        await hub.unload(created["match"])  # as after a restart: in Redis, held under this node's name
        actors = await asyncio.gather(*(hub.actor(created["match"]) for _ in range(10)))
        assert all(a is actors[0] for a in actors) and hub.actors[created["match"]] is actors[0]
        assert hub.metrics.matches_recovered == 1
        assert await hub.store.owners([created["match"]]) == [actors[0].lease] == ["2 n0"]  # acquired again


async def test_a_live_match_another_node_holds_is_not_loaded_but_redirected_to_it(redis_url):
    async with hub_on(redis_url, "n0") as owner, hub_on(redis_url, "n1") as other:
        created = await owner.create(duel())
        await owner.ownership.publish()  # n0's record: where its matches' sockets go
        with pytest.raises(NotHere) as refused:
            await other.actor(created["match"])
        assert refused.value.redirect == f"ws://n0.test/ws/{created['match']}"
        assert other.actors == {} and other.loading.pending == {}


async def test_a_finished_match_is_loaded_without_a_lease(redis_url):
    async with hub_on(redis_url, "n0") as owner, hub_on(redis_url, "n1") as other:
        created = await owner.create(duel())
        assert await owner.abort(created["match"])
        actor = await other.actor(created["match"])
        assert actor.core.over and actor.lease is None
        assert await other.store.owners([created["match"]]) == ["1 n0"]  # n0's, left to lapse: not acquired


async def test_a_loaded_match_gets_back_the_time_it_had_no_owner_and_saves_it(redis_url):
    async with hub_on(redis_url, "n0") as owner, hub_on(redis_url, "n1") as other:
        created = await owner.create(duel(clock={"prompt_ms": 60_000, "bank_ms": 0}))
        match_id = created["match"]
        actor = owner.actors[match_id]
        deadlines = {p: e["deadline"] for p, e in actor.core.clock.data["open"].items()}
        await owner.unload(match_id)
        assert await owner.store.release(match_id, actor.lease, now_ms() - 10_000)  # nobody's for 10 s
        loaded = await other.actor(match_id)
        shifted = {p: e["deadline"] for p, e in loaded.core.clock.data["open"].items()}
        assert shifted.keys() == deadlines.keys()
        assert all(10_000 <= shifted[p] - deadlines[p] < 20_000 for p in deadlines)
        saved = await other.store.load(match_id)  # in a fenced snapshot: a replay sees the same clock
        assert {p: e["deadline"] for p, e in saved.snapshot["clock"]["open"].items()} == shifted


async def test_at_start_a_node_takes_back_the_matches_held_under_its_name(redis_url):
    async with hub_on(redis_url, "n0") as before, hub_on(redis_url, "n1") as other:
        ours = [(await before.create(duel()))["match"] for _ in range(3)]
        theirs = (await other.create(duel()))["match"]
        await other.ownership.publish()
    async with hub_on(redis_url, "n0") as after:  # the same node, restarted: its leases not lapsed yet
        assert await after.recover_all() == 3
        assert sorted(after.actors) == sorted(ours) and theirs not in after.actors
        assert after.metrics.matches_taken_over == 3


async def test_a_recovery_without_a_scan_loads_every_live_match(redis_url):
    """As a node that writes no leases recovers: every live match not in memory, with no lease."""
    async with hub_on(redis_url, "n0") as before:
        ids = [(await before.create(duel()))["match"] for _ in range(2)]
        assert await before.abort(ids[1])  # ended: off the live list
    async with hub_on(redis_url, "n1") as after:
        assert await after.loading.recover(None) == 1
        assert list(after.actors) == ids[:1] and after.actors[ids[0]].lease is None


async def test_a_takeover_keeps_each_match_s_abandon_countdown_from_redis(redis_url):
    """A takeover reads the last log entries of a batch at once (no log yet here: their
    creation is their last touch), and each match's countdown goes on from it."""
    async with hub_on(redis_url, "gone") as gone:
        ids = [(await gone.create(duel()))["match"] for _ in range(3)]
    async with hub_on(redis_url, "n0", abandon_s=7200) as n0:
        for m in ids:  # their leases lapsed
            await n0.store.client.delete(key(m, "owner"))
        assert await n0.loading.take(ids) == 3
        for m in ids:
            assert n0.actors[m].touched == (await n0.store.meta(m))["created_at"]


async def test_a_match_asked_for_during_the_recovery_is_loaded_next_not_in_its_turn(redis_url, monkeypatch):
    """The node serves while it recovers: a match someone asks for jumps the batches ahead of it."""
    monkeypatch.setattr("battlehall.server.node.loading.BATCH", 4)
    async with hub_on(redis_url, "n0") as before:
        ids = [(await before.create(duel()))["match"] for _ in range(16)]
    async with hub_on(redis_url, "n0") as after:  # restarted
        recovery = asyncio.ensure_future(after.recover_all())
        while not after.loading.waiting:  # the take has listed its matches, none loaded yet
            await asyncio.sleep(0.001)
        last = list(after.loading.waiting[0])[-1]
        actor = await after.actor(last)
        assert actor is after.actors[last]
        assert len(after.actors) <= 8, "it waited for the batches ahead of it"  # at most the batch in flight, and its own
        assert await recovery == 16
        assert sorted(after.actors) == sorted(ids) and after.loading.asked == [] and after.loading.waiting == []


async def test_a_recovery_sends_its_batch_s_clock_snapshots_together(redis_url):
    """Each match taken back gets its clock shifted and saved (a fenced snapshot): a batch's
    saves go to Redis in one send, not a few dozen at a time, each waiting for its fsync."""
    async with hub_on(redis_url, "n0") as before:
        ids = [(await before.create(duel()))["match"] for _ in range(150)]
    async with hub_on(redis_url, "n0") as after:  # restarted: every clock given back the time away
        sends = after.store.batcher.flushes
        assert await after.recover_all() == 150
        assert after.store.batcher.flushes - sends == 1
        saved = await after.store.load_many(ids)
        assert all(s is not None and s.snapshot["clock"] == after.actors[m].core.clock.data for m, s in zip(ids, saved))
