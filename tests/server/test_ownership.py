"""This node's hold on its matches (ownership.py), the takeover scan (takeover.py) and the
drain (drain.py): hubs as nodes in this process, on a real Redis, connections with no
socket. tests/nodes runs the same with real server processes killed, paused and drained."""

from __future__ import annotations

import asyncio

import pytest
import redis.asyncio as aioredis

from battlehall.server.match import inputs
from battlehall.server.node.liveness import taker
from battlehall.server.storage.heartbeat import BEATS, Beats
from battlehall.server.storage.lease import NotHere
from battlehall.server.storage.store import key
from hub_parts import connection, duel, hub_on, received, redis_server, redis_url  # noqa: F401 (fixtures)


async def settled() -> None:
    for _ in range(5):
        await asyncio.sleep(0.02)


async def join(actor, conn) -> None:
    reply = asyncio.get_running_loop().create_future()
    actor.submit(inputs.Join(conn, None, reply))
    await asyncio.wait_for(reply, 5)


async def take_lease(redis_url: str, match_id: str, value: str) -> None:
    """Another node's lease on the match, as if it had taken it over."""
    async with aioredis.from_url(redis_url) as client:
        await client.set(key(match_id, "owner"), value)


async def test_the_record_counts_the_live_matches_held_here(redis_url):
    async with hub_on(redis_url, "n0") as hub:
        ids = [(await hub.create(duel()))["match"] for _ in range(3)]
        assert await hub.abort(ids[0])
        record = hub.record()
        assert record["matches"] == 2 and record["url"] == "ws://n0.test" and not record["draining"]
        await hub.ownership.publish()
        assert (await hub.store.nodes.live())["n0"]["matches"] == 2


async def test_a_renewal_that_finds_the_lease_taken_lets_the_match_go_to_its_holder(redis_url):
    async with hub_on(redis_url, "n0") as hub, hub_on(redis_url, "n1") as other:
        kept, taken = [(await hub.create(duel()))["match"] for _ in range(2)]
        alice = connection("alice")
        await join(hub.actors[taken], alice)
        await other.ownership.publish()
        await take_lease(redis_url, taken, "7 n1")
        await hub.ownership.renew()
        await settled()
        assert list(hub.actors) == [kept] and hub.metrics.matches_lost == 1
        assert received(alice)[-1]["code"] == "not_here"
        assert received(alice)[-1]["redirect"] == f"ws://n1.test/ws/{taken}" and alice.socket.closed == 4009
        assert await hub.store.owners([kept]) == ["1 n0"]  # still ours, renewed


async def test_a_write_fenced_out_lets_the_match_go_through_the_actor_s_services(redis_url):
    async with hub_on(redis_url, "n0") as hub, hub_on(redis_url, "n1") as other:
        created = await hub.create(duel(clock={"prompt_ms": None}))
        actor, alice = hub.actors[created["match"]], connection("alice")
        await join(actor, alice)
        prompt = next(p for p in received(alice)[0]["prompts"] if p["seat"] == "alice")
        await other.ownership.publish()
        await take_lease(redis_url, created["match"], "7 n1")
        actor.submit(inputs.Act(alice, "alice", 1, prompt["id"], "guard", {}))
        await settled()
        assert hub.actors == {} and hub.metrics.fenced_writes == 1 and hub.metrics.matches_lost == 1
        assert not any(m["t"] == "ack" for m in received(alice))  # nothing acknowledged
        assert received(alice)[-1]["redirect"] == f"ws://n1.test/ws/{created['match']}"


async def test_a_draining_node_acquires_nothing_and_sends_sockets_to_another(redis_url):
    async with hub_on(redis_url, "n0") as owner, hub_on(redis_url, "n1") as other:
        created = await owner.create(duel())
        await owner.unload(created["match"])
        await owner.store.release(created["match"], "1 n0", 0)  # nobody holds it now
        await other.ownership.publish()
        owner.ownership.draining = True
        with pytest.raises(NotHere) as refused:
            await owner.actor(created["match"])
        assert refused.value.redirect == f"ws://n1.test/ws/{created['match']}"
        assert await owner.store.owners([created["match"]]) == [None]


# -- takeover.py -----------------------------------------------------------------------

async def orphans(redis_url: str, count: int) -> list[str]:
    """Live matches whose node died: made by a node gone since, their leases lapsed."""
    async with hub_on(redis_url, "dead") as gone:
        ids = [(await gone.create(duel()))["match"] for _ in range(count)]
    async with aioredis.from_url(redis_url) as client:
        await client.delete(*(key(m, "owner") for m in ids))
    return ids


async def test_the_survivors_split_a_dead_node_s_matches_each_within_two_scans(redis_url):
    async with hub_on(redis_url, "n0") as n0, hub_on(redis_url, "n1") as n1:
        for hub in (n0, n1):
            await hub.ownership.publish()
        ids = await orphans(redis_url, 10)
        share = [m for m in ids if taker(m, ["n0", "n1"]) == "n0"]
        assert 0 < len(share) < 10  # rendezvous hashing splits ten ids between two nodes
        assert await n0.takeover.scan() == len(share)  # its share, by the same hash on both nodes
        assert await n1.takeover.scan() == 10 - len(share)  # the rest: the two shares are the whole
        assert sorted(n0.actors) == sorted(share) and sorted([*n0.actors, *n1.actors]) == sorted(ids)
        owners = await n0.store.owners(ids)
        assert all(o.split()[1] == ("n0" if m in n0.actors else "n1") for m, o in zip(ids, owners))
        assert n0.metrics.matches_taken_over == len(share) and n1.metrics.matches_taken_over == 10 - len(share)


async def test_a_share_whose_taker_failed_is_taken_by_anyone_at_the_next_scan(redis_url):
    async with hub_on(redis_url, "n0") as n0, hub_on(redis_url, "n1") as n1:
        for hub in (n0, n1):
            await hub.ownership.publish()
        ids = await orphans(redis_url, 10)
        share = [m for m in ids if taker(m, ["n0", "n1"]) == "n0"]
        assert await n0.takeover.scan() == len(share)  # n1 never scans (it stalled)
        assert await n0.takeover.scan() == 10 - len(share)  # unheld at its last scan too: all of them
        assert sorted(n0.actors) == sorted(ids) and n1.actors == {}


async def beats(redis_url: str, **silent_ms: int) -> Beats:
    """Each named node's beat in `bh:beats`, that long ago by Redis' clock."""
    async with aioredis.from_url(redis_url) as client:
        seconds, micros = await client.time()
        now = seconds * 1000 + micros // 1000
        await client.zadd(BEATS, {node: now - ago for node, ago in silent_ms.items()})
    return Beats(now, {node: now - ago for node, ago in silent_ms.items()})


async def test_a_dead_node_s_leases_are_broken_before_they_lapse_and_it_lets_its_matches_go(redis_url):
    async with hub_on(redis_url, "n0") as n0, hub_on(redis_url, "n1") as n1:
        ids = [(await n1.create(duel()))["match"] for _ in range(4)]
        for hub in (n0, n1):
            await hub.ownership.publish()
        before = await n0.store.owners(ids)
        n0.ownership.liveness.saw(await beats(redis_url, n0=0, n1=n0.settings.node_death_ms + 500))
        assert n0.ownership.liveness.dead == {"n1"} and n0.ownership.liveness.died.is_set()
        assert await n0.takeover.scan() == 4  # the leases, minutes from lapsing, broken
        after = await n0.store.owners(ids)
        for old, new in zip(before, after):
            assert new.split()[1] == "n0" and int(new.split()[0]) == int(old.split()[0]) + 1  # a new fencing token
        # n1 comes back (it was paused): its renewal finds the leases gone, and it lets them go.
        await n1.ownership.renew()
        await settled()
        assert n1.actors == {} and n1.metrics.matches_lost == 4
        assert sorted(n0.actors) == sorted(ids)


async def test_a_lease_is_not_broken_while_its_holder_beats(redis_url):
    """The taker's reading of the beats may be old: ACQUIRE checks the holder's beat again,
    on Redis' clock, and leaves a live holder its match."""
    async with hub_on(redis_url, "n0") as n0, hub_on(redis_url, "n1") as n1:
        match_id = (await n1.create(duel()))["match"]
        await n1.ownership.publish()
        n0.ownership.liveness.saw(Beats(0, {"n0": 10_000, "n1": 0}))  # an old reading: n1 silent
        await beats(redis_url, n0=0, n1=50)  # but n1 beat 50 ms ago
        assert await n0.takeover.scan() == 0 and n0.actors == {}
        with pytest.raises(NotHere):
            await n0.ownership.acquire(match_id)  # nor does a hello take it
        assert (await n0.store.owners([match_id]))[0].split()[1] == "n1"
        # Nor is a lease broken whose holder never beat (a node of a version before heartbeats).
        async with aioredis.from_url(redis_url) as client:
            await client.zrem(BEATS, "n1")
        assert await n0.takeover.scan() == 0


async def test_a_hello_for_a_dead_node_s_match_takes_it_at_once(redis_url):
    async with hub_on(redis_url, "n0") as n0, hub_on(redis_url, "n1") as n1:
        match_id = (await n1.create(duel()))["match"]
        n0.ownership.liveness.saw(await beats(redis_url, n0=0, n1=n0.settings.node_death_ms + 1))
        value, _ = await n0.ownership.acquire(match_id)
        assert value.split()[1] == "n0" and (await n0.store.owners([match_id]))[0] == value


async def test_the_heartbeat_thread_beats_and_reads_every_node_s_beat(redis_url):
    async with hub_on(redis_url, "n0") as n0:
        await beats(redis_url, gone=60_000)
        seen: list[Beats] = []
        heartbeat = n0.store.heartbeat_thread("n0", 50, seen.append)
        heartbeat.start()
        try:
            while len(seen) < 3:
                await asyncio.sleep(0.02)
        finally:
            await asyncio.get_running_loop().run_in_executor(None, heartbeat.stop, True)
        assert set(seen[-1].last) == {"n0", "gone"}
        assert 0 <= seen[-1].silent_ms("n0") < 50 and seen[-1].silent_ms("gone") >= 60_000
        assert seen[-1].now_ms - seen[0].now_ms >= (len(seen) - 1) * 40  # a beat every 50 ms, not faster
        async with aioredis.from_url(redis_url) as client:
            assert await client.zscore(BEATS, "n0") is None  # stopped for good: out of the set


async def test_a_scan_leaves_the_matches_another_live_node_holds(redis_url):
    async with hub_on(redis_url, "n0") as n0, hub_on(redis_url, "n1") as n1:
        [await n1.create(duel()) for _ in range(3)]
        await n1.ownership.publish()
        assert await n0.takeover.scan() == 0 and n0.actors == {}


async def test_a_match_caught_between_its_end_and_leaving_the_live_list_is_not_taken(redis_url):
    """A match's end is written, then it leaves `bh:live` (a key of no match's slot): a scan
    in between finds it still listed. Its lease, no longer renewed, is left to lapse, so
    the scan leaves it alone rather than load a finished match. If that last step was
    lost, the lease lapses and the next scan takes the match only to take it off the list."""
    async with hub_on(redis_url, "n0") as n0, hub_on(redis_url, "n1") as n1:
        ended = (await n1.create(duel()))["match"]
        await n1.ownership.publish()
        assert await n1.abort(ended)
        await settled()
        async with aioredis.from_url(redis_url) as client:
            await client.zadd("bh:live", {ended: 1})  # its leaving not landed yet, or lost
            assert 0 < await client.pttl(key(ended, "owner")) <= n1.settings.lease_ms
            assert await n0.takeover.scan() == 0 and ended not in n0.actors
            assert ended not in dict(n1.ownership.held_leases())  # not renewed
            await client.delete(key(ended, "owner"))  # lapsed
        for _ in range(2):  # its share (n1's, by the hash, would take it first), or anyone's at the next scan
            await n0.takeover.scan()
        await settled()
        assert not await n0.store.is_live(ended) and await n0.store.exists(ended)


# -- drain.py --------------------------------------------------------------------------

async def test_a_drain_hands_every_live_match_on_after_its_last_write(redis_url):
    async with hub_on(redis_url, "n0") as n0, hub_on(redis_url, "n1") as n1:
        ids = [(await n0.create(duel()))["match"] for _ in range(3)]
        assert await n0.abort(ids[2])  # ended: nothing to hand on
        alice = connection("alice")
        await join(n0.actors[ids[0]], alice)
        await n1.ownership.publish()
        assert await n0.drain() == 2
        assert n0.draining and (await n0.store.nodes.live())["n0"]["draining"]
        assert list(n0.actors) == [ids[2]]
        assert await n0.store.owners(ids[:2]) == [None, None]  # released: the next owner needs no wait
        await settled()
        assert received(alice)[-1]["redirect"] == f"ws://n1.test/ws/{ids[0]}" and alice.socket.closed == 4009
        for match_id in ids[:2]:  # where the sockets go, the match is taken
            assert (await n1.actor(match_id)).lease.endswith(" n1")


async def test_a_drain_with_no_other_node_keeps_the_matches(redis_url):
    async with hub_on(redis_url, "n0") as n0:
        created = await n0.create(duel())
        assert await n0.drain() == 0
        assert list(n0.actors) == [created["match"]]
        assert await n0.store.owners([created["match"]]) == ["1 n0"]
