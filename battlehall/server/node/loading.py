"""Matches brought into memory from Redis: each loaded once however many ask at the same
time, a live one only with its lease; batches of them taken at once (a takeover, the
recovery at start).

A loaded match's open prompts are given back the time it had no owner (since its
lease's last renewal or release; for a match of a version before leases, since this
node last beat), and that shift is saved in a snapshot, so that a later replay of the
log sees the same clock.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Awaitable, Callable, Mapping

from battlehall.server.clock import Clock, now_ms
from battlehall.server.match.actor import MatchActor, MatchServices
from battlehall.server.match.match_state import MatchState
from battlehall.server.match.spectators import DelayedFeed
from battlehall.server.node import abandon
from battlehall.server.node.ownership import Ownership
from battlehall.server.records import LoadedMatch

if TYPE_CHECKING:
    from battlehall.server.config import Settings
    from battlehall.server.metrics import Metrics
    from battlehall.server.storage.store import Store

log = logging.getLogger("battlehall.hub")

BATCH = 500  # matches loaded per pair of Redis round trips (a takeover, the recovery at start)
#: Reads of their own (through redis-py's pool) under way at once among a batch's loads: a
#: match's last log entry when not read with its batch, a delayed feed's whole log. The
#: pool refuses a hundred connections in use at once ("Too many connections"). Only those
#: reads wait here: the batch's clock snapshots go out together, in one send.
LOADS_AT_ONCE = 64


@dataclass(slots=True)
class Fetched:
    """A batch of a take read from Redis, ready to load."""
    won: list[tuple[str, str, int | None]]  # (match id, lease value, when it was last held) of each lease won
    loaded: list[LoadedMatch | None]  # each won match as read, in the same order
    touched: dict[str, int]  # match id -> when it was last touched (abandon.py), if counted


class Loading:
    """Loads matches into the hub's registry `actors` (hub.py). `ended` is the hub's
    hook for a match loaded already over (kept a while for its late viewers);
    `finished` takes an ended match off `bh:live`."""

    def __init__(self, settings: Settings, store: Store, actors: dict[str, MatchActor], metrics: Metrics,
                 services: MatchServices, ownership: Ownership, ended: Callable[[MatchActor], None],
                 finished: Callable[[str], None]):
        self.settings = settings
        self.store = store
        self.actors = actors
        self.metrics = metrics
        self.services = services
        self.ownership = ownership
        self.ended = ended
        self.finished = finished
        self.pending: dict[str, asyncio.Future] = {}  # match id -> the load under way: its actor, or None
        self.downtime_ms = 0  # during the recovery at start: how long this node was away
        self.loads_at_once = asyncio.Semaphore(LOADS_AT_ONCE)
        # The matches of each take under way not yet in a batch (in order), and those of
        # them someone asked for meanwhile: the next batch is theirs (`_next_batch`).
        self.waiting: list[dict[str, None]] = []
        self.asked: list[str] = []

    def busy(self, match_id: str) -> bool:
        """Whether the match is in memory or being loaded."""
        return match_id in self.actors or match_id in self.pending

    async def settled(self, match_id: str) -> None:
        """Until the match's load under way, if any, is over (whatever its outcome)."""
        if match_id in self.pending:
            try:
                await asyncio.shield(self.pending[match_id])
            except Exception:
                pass

    async def actor(self, match_id: str) -> MatchActor | None:
        """The match's actor, loading it from Redis if this process does not run it yet.

        A live match is loaded only with its lease: NotHere if another node holds it (or
        this node is draining).
        """
        for _ in range(3):  # a takeover scan that lost the lease leaves the claim to us
            actor = self.actors.get(match_id)
            if actor is not None:
                return actor
            if match_id in self.pending:
                if any(match_id in waiting for waiting in self.waiting):  # not yet in a batch: next
                    self.asked.append(match_id)
                actor = await asyncio.shield(self.pending[match_id])
                if actor is not None:
                    return actor
                continue
            future = asyncio.get_running_loop().create_future()
            self.pending[match_id] = future
            try:
                actor = await self._claim(match_id)
                future.set_result(actor)
                return actor
            except BaseException as exc:
                future.set_exception(exc)
                future.exception()  # mark retrieved
                raise
            finally:
                del self.pending[match_id]
        return None

    async def _claim(self, match_id: str) -> MatchActor | None:
        """Load a match not in memory: a finished one as it is, a live one with its lease."""
        if not self.ownership.leased or not await self.store.is_live(match_id):
            return await self.load(match_id)
        value, held = await self.ownership.acquire(match_id)
        return await self.load(match_id, None, value, held)

    async def load(self, match_id: str, loaded: LoadedMatch | None = None, lease: str | None = None,
                   held: int | None = None, last_at: int | None = None) -> MatchActor | None:
        """The match (`loaded`, or read now) started in memory under `lease`; None if it is
        not in Redis. `last_at`: when it was last touched, if read already (abandon.py)."""
        loaded = loaded or await self.store.load(match_id)
        if loaded is None:
            return None
        core = MatchState.from_loaded(loaded)
        # Give open prompts back the time the match had no owner (or, for matches of a
        # version before leases, no server ran), and record that in a snapshot, so that
        # a later replay of the log sees the same clock.
        shift = max(0, now_ms() - held) if held is not None else self.downtime_ms
        if shift and not core.over:
            core.clock.shift(shift)
            if lease is not None:
                await self.store.write([self.store.fenced(match_id, lease, snapshot=core.snapshot())])
            else:
                await self.store.write(self.store.snapshot_commands(match_id, core.snapshot()))
            core.answers_since_snapshot = 0
        actor = MatchActor(self.services, match_id, core)
        if not core.over and self.settings.abandon_s:  # the abandon countdown goes on from Redis' record
            last = last_at if last_at is not None else await self._last_touched(match_id, loaded)
            actor.touched = abandon.loaded_touch(self.settings.abandon_s, last, now_ms())
        actor.lease = lease if not core.over else None
        if core.over and lease is not None:  # ended, but its leaving `bh:live` was lost
            self.finished(match_id)
        delay = loaded.meta["spectators"]["delay_ms"]
        if delay:
            async with self.loads_at_once:
                start, log_entries = await self.store.load_from_start(match_id)
            replica = MatchState(loaded.meta, start["state"], Clock(start["clock"]), start["seq"])
            actor.feed = feed = DelayedFeed(replica, delay, self.metrics)
            feed.catch_up(log_entries)
        self.actors[match_id] = actor
        actor.start()
        if core.over:  # loaded for a late viewer: let it go like a match that ended here
            self.ended(actor)
        self.metrics.matches_recovered += 1
        return actor

    async def _last_touched(self, match_id: str, loaded: LoadedMatch) -> int:
        """When the match was last touched (abandon.py), read now: among LOADS_AT_ONCE reads."""
        async with self.loads_at_once:
            return await abandon.last_touched(self.store, match_id, loaded.log, loaded.meta["created_at"])

    async def last_touches(self, match_ids: list[str], loaded: list[LoadedMatch | None]) -> dict[str, int]:
        """When each loaded live match was last touched (abandon.py), for a batch: from its
        log after the snapshot, or for those with none, their last entries read at once."""
        if not self.settings.abandon_s:
            return {}
        found = {m: data.log[-1]["at"] for m, data in zip(match_ids, loaded) if data is not None and data.log}
        bare = [(m, data) for m, data in zip(match_ids, loaded) if data is not None and not data.log]
        for (m, data), last in zip(bare, await self.store.last_entries([m for m, _ in bare])):
            found[m] = last["at"] if last is not None else data.meta["created_at"]
        return found

    async def take_one(self, future: asyncio.Future, match_id: str, loaded: LoadedMatch | None, lease: str,
                       held: int | None, last_at: int | None) -> bool:
        """Load one match of a takeover, and hand it at once to the hellos waiting for it
        (`future`), not once its whole batch is loaded. Whether it was."""
        try:
            actor = await self.load(match_id, loaded, lease, held, last_at)
        except Exception as exc:
            log.error("could not take over match %s: %r", match_id, exc)
            actor = None
        self.settle(match_id, future, actor)
        return actor is not None

    def settle(self, match_id: str, future: asyncio.Future, actor: MatchActor | None) -> None:
        """The end of one match's load in a takeover: to the hellos waiting on it, and out of
        `pending` at once, so that a hello after a lost acquisition asks again (and is sent
        to the holder) rather than find the same empty result again."""
        if not future.done():
            future.set_result(actor)
        if self.pending.get(match_id) is future:
            del self.pending[match_id]

    async def take(self, match_ids: list[str], breaking: Mapping[str, str] | None = None) -> int:
        """Acquire the leases of these matches and load those won, BATCH at a time (a
        pipeline of acquisitions, two round trips of loads and one of last entries, one
        send of clock snapshots). The leases in `breaking` (match id -> lease) are a dead
        node's: broken (lease.ACQUIRE). The next batch's leases and reads are under way in
        Redis while a batch loads here: a batch's Python work and its Redis waits overlap."""
        loop = asyncio.get_running_loop()
        futures = {}
        for match_id in match_ids:  # a hello for one of them meanwhile waits for this load
            if not self.busy(match_id):
                futures[match_id] = self.pending[match_id] = loop.create_future()
        count = 0
        waiting = dict.fromkeys(futures)
        self.waiting.append(waiting)
        fetching: asyncio.Task[Fetched] | None = None
        try:
            if waiting:
                fetching = loop.create_task(self._fetch(self._next_batch(waiting), futures, breaking))
            while fetching is not None:
                fetched = await fetching
                fetching = loop.create_task(self._fetch(self._next_batch(waiting), futures, breaking)) \
                    if waiting else None
                loads = [self.take_one(futures[m], m, data, value, held, fetched.touched.get(m))
                         for (m, value, held), data in zip(fetched.won, fetched.loaded)]
                count += sum(await asyncio.gather(*loads))
        finally:
            if fetching is not None:
                fetching.cancel()
            self.waiting.remove(waiting)
            self.asked = [m for m in self.asked if m not in waiting]
            for match_id, future in futures.items():
                self.settle(match_id, future, None)
        return count

    async def _fetch(self, batch: list[str], futures: dict[str, asyncio.Future],
                     breaking: Mapping[str, str] | None) -> Fetched:
        """A batch's leases acquired, and what loading those won needs read (the hellos
        waiting on the others, held by another node, are answered at once)."""
        got = await self.store.acquire_many(batch, self.settings.node, self.settings.lease_ms, now_ms(),
                                            breaking, self.settings.node_death_ms)
        won = [(m, value, held) for m, (ok, value, held) in zip(batch, got) if ok]
        for m, (ok, _, _) in zip(batch, got):
            if not ok:  # another node holds it
                self.settle(m, futures[m], None)
        if not won:
            return Fetched([], [], {})
        loaded = await self.store.load_many([m for m, _, _ in won])
        return Fetched(won, loaded, await self.last_touches([m for m, _, _ in won], loaded))

    def _next_batch(self, waiting: dict[str, None]) -> list[str]:
        """The next matches of a take to load (out of `waiting`): those asked for meanwhile
        on their own, so that their askers wait for a handful of loads, not for BATCH;
        else the next BATCH in order."""
        batch = [m for m in dict.fromkeys(self.asked) if m in waiting][:BATCH]
        if batch:
            taken = set(batch)
            self.asked = [m for m in self.asked if m not in taken]
        else:
            batch = list(itertools.islice(waiting, BATCH))
        for match_id in batch:
            del waiting[match_id]
        return batch

    async def recover(self, scan: Callable[[], Awaitable[int]] | None, last_beat: int | None = None) -> int:
        """At start: bring back the live matches this node held before a restart, and its
        share of those nobody holds (`scan`, takeover.py); every live one when matches
        have no leases (`scan` None). How many were brought back.

        Matches of a version before leases have no `held` time: their clocks are paused for
        the time since this node last beat: `last_beat`, read before the node beats again
        (read here if not given).
        """
        if last_beat is None:
            last_beat = await self.store.heartbeat(self.settings.node)
        self.downtime_ms = max(0, now_ms() - last_beat) if last_beat else 0
        try:
            if scan is None:
                return await self._load_all([m for m in await self.store.live_ids() if m not in self.actors])
            return await scan()
        finally:
            self.downtime_ms = 0

    async def _load_all(self, ids: list[str]) -> int:
        count = 0
        for i in range(0, len(ids), BATCH):
            batch = ids[i:i + BATCH]
            loaded = await self.store.load_many(batch)
            touched = await self.last_touches(batch, loaded)
            loads = [self.load(m, data, last_at=touched.get(m)) for m, data in zip(batch, loaded)]
            for match_id, result in zip(batch, await asyncio.gather(*loads, return_exceptions=True)):
                if isinstance(result, Exception):
                    log.error("could not recover match %s: %r", match_id, result)
                elif result is not None:
                    count += 1
        return count
