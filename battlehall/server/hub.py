"""The matches this process runs: creating them, finding them, bringing them back from Redis."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
import secrets
import time
from dataclasses import dataclass, field

from ..engine import get_ruleset
from ..engine.errors import MatchOver
from .actor import MatchActor, MatchLive, MatchServices
from .match_state import MatchState
from .audience import Audience
from .caster import Casting, created_fields, settings_of
from .clock import Clock, now_ms
from .config import Settings
from . import abandon, listing, messages, nodes, ratings, seeds
from .deadlines import Deadlines
from .lease import NotHere, holder
from .metrics import ACK_BUCKETS, Histogram, HubCollector, LoopLag, exposition
from .mirror import Mirrors
from .spectators import DelayedFeed, copy_core
from .store import LIVE, LoadedMatch, Store, StoreUnavailable

RECOVERY_BATCH = 500  # matches loaded per pair of Redis round trips at startup
OPERATOR_TIMEOUT_S = 30  # an abort or delete waits this long for the actor and Redis
LINGER_S = 60  # a finished match stays in memory this long for its sockets (plus the spectator delay)
CLOSE_NOT_HERE = 4009  # after a `not_here` error: connect to its redirect (docs/protocol.md)
OWNERS_BATCH = 1000  # lease reads per pipeline when scanning for matches nobody owns
DRAIN_BATCH = 100  # matches handed over at once by a drain


def send_away(conn, redirect: str | None) -> None:
    """Tell a socket its match is run elsewhere (`not_here`), and close it with 4009."""
    conn.held = None  # a history still being sent stops here: the socket resumes at the redirect
    message = {"t": "error", "code": "not_here", "message": "this match is run by another node: connect there"}
    if redirect:
        message["redirect"] = redirect
    conn.send(message)
    conn.close(CLOSE_NOT_HERE)

log = logging.getLogger("battlehall.hub")


@dataclass
class Metrics:
    answers: int = 0
    deliveries: int = 0
    matches_created: int = 0
    matches_recovered: int = 0
    connections: int = 0
    history_streams: int = 0  # resumed sockets still being sent their missed events
    recovery_seconds: float = 0.0
    matches_taken_over: int = 0  # live matches this node took because nobody held them (or at its restart)
    takeover_seconds: float = 0.0  # the last takeover: acquiring, loading and starting its matches
    matches_lost: int = 0  # live matches let go because another node held their lease
    fenced_writes: int = 0  # writes Redis refused: the match's lease was no longer this node's
    timeouts: int = 0  # prompts answered by their default when their time ran out
    ack_seconds: Histogram = field(default_factory=lambda: Histogram(ACK_BUCKETS))  # act received -> ack sent


def _logged(match_id: str, error: StoreUnavailable | None) -> None:
    if error is not None:
        log.warning("match %s: could not take it off the live list: %s", match_id, error)


def new_match_id() -> str:
    return "m_" + secrets.token_hex(8)


def seed_fields(meta: dict) -> dict:
    """What anyone may know of the match's seed before the end: its commitment, and the
    seed itself only when it was made public at creation."""
    if "seed_commitment" not in meta:  # a match created before seeds had commitments
        return {}
    fields = {"seed_commitment": meta["seed_commitment"], "seed_public": meta["seed_public"]}
    if meta["seed_public"]:
        fields["seed"] = meta["seed"]
    return fields


class Hub:
    def __init__(self, settings: Settings, store: Store):
        self.settings = settings
        self.store = store
        self.actors: dict[str, MatchActor] = {}
        self.loading: dict[str, asyncio.Future] = {}
        self.metrics = Metrics()
        self.deadlines = Deadlines()  # every match's prompt deadlines, on one loop timer
        self.loop_lag = LoopLag()  # started with the server (app.py)
        self.downtime_ms = 0
        self.history_gate = asyncio.Semaphore(1)  # history pages are read one at a time (history.py)
        # Leases (lease.py) whenever matches are written: with one node as with several.
        self.leased = store.persist
        self.draining = False  # a drain is under way: no match is taken, every one is handed on
        self.orphans_seen: set[str] = set()  # live matches nobody held at the last scan
        # Spectators of matches that other nodes run (mirror.py), and the count over all nodes (audience.py).
        self.mirrors = Mirrors(store, self.metrics, lambda match_id: self.audience.changed(match_id))
        self.audience = Audience(store.redis, store.url, settings.node, self.local_spectators)
        self.casting = Casting(store, self.metrics)  # casters of any match, on this node (caster.py)
        self.services = MatchServices(store, settings, self.metrics, self.deadlines, self._ended, self.lost)

    async def create(self, request: dict) -> dict:
        """Start a match from a validated create request; SetupError if the ruleset refuses it."""
        ruleset = get_ruleset(request["ruleset"])
        seed = seeds.engine_seed(request["seed"], request["seed_public"])
        state, events = ruleset.start(request["seats"], seed, request["options"], request["setup"])
        match_id = new_match_id()
        tokens = {seat: secrets.token_hex(16) for seat in request["seats"]}
        # meta never reaches a client; the seed leaves it only through the replay.
        meta = {**request, "seed": seeds.as_data(seed), "seed_commitment": seeds.commitment(seed),
                "options": ruleset.resolve_options(request["options"]),
                "tokens": tokens, "spectator_token": secrets.token_hex(16), "created_at": now_ms()}
        if request["caster"] is not None:
            meta["caster_token"] = secrets.token_hex(16)
        core = MatchState(meta, state, Clock.new(request["clock"], request["seats"]), 0)
        records = core.stamp(events, meta["created_at"])
        lease = f"1 {self.settings.node}" if self.leased else None
        commands = self.store.create_commands(match_id, meta, core.snapshot(), records, meta["created_at"],
                                              lease, self.settings.lease_ms)
        await self.store.write(commands + listing.index_commands(match_id, meta))
        actor = MatchActor(self.services, match_id, core)
        actor.lease = lease
        if request["spectators"]["delay_ms"]:
            actor.feed = DelayedFeed(copy_core(core), request["spectators"]["delay_ms"], self.metrics)
        self.actors[match_id] = actor
        actor.start()
        self.metrics.matches_created += 1
        return {"match": match_id, "ruleset": request["ruleset"], **seed_fields(meta), "tokens": tokens,
                "spectator_token": meta["spectator_token"], **created_fields(meta), "ws": f"/ws/{match_id}",
                "ws_url": self.socket_url(self.settings.advertised_url, match_id)}

    @staticmethod
    def socket_url(node_url: str, match_id: str) -> str:
        return f"{node_url}/ws/{match_id}"

    async def meta(self, match_id: str) -> dict | None:
        """The match's settings and tokens (None: no such match), without loading it."""
        actor = self.actors.get(match_id)
        if actor is not None:
            return actor.core.meta
        return await self.store.meta(match_id)

    async def actor(self, match_id: str) -> MatchActor | None:
        """The match's actor, loading it from Redis if this process does not run it yet.

        A live match is loaded only with its lease: NotHere if another node holds it (or
        this node is draining).
        """
        for _ in range(3):  # a takeover scan that lost the lease leaves the claim to us
            actor = self.actors.get(match_id)
            if actor is not None:
                return actor
            if match_id in self.loading:
                actor = await asyncio.shield(self.loading[match_id])
                if actor is not None:
                    return actor
                continue
            future = asyncio.get_running_loop().create_future()
            self.loading[match_id] = future
            try:
                actor = await self._claim(match_id)
                future.set_result(actor)
                return actor
            except BaseException as exc:
                future.set_exception(exc)
                future.exception()  # mark retrieved
                raise
            finally:
                del self.loading[match_id]
        return None

    async def _claim(self, match_id: str) -> MatchActor | None:
        """Load a match not in memory: a finished one as it is, a live one with its lease."""
        if not self.leased or not await self.store.is_live(match_id):
            return await self._load(match_id)
        if self.draining:
            raise NotHere(await self.redirect_for(match_id))
        (won, value, held), = await self.store.acquire_many([match_id], self.settings.node,
                                                             self.settings.lease_ms, now_ms())
        if not won:
            raise NotHere(await self.redirect_for(match_id, value))
        return await self._load(match_id, None, value, held)

    async def redirect_for(self, match_id: str, lease: str | None = None) -> str | None:
        """Where a socket of this match should go: its owner's URL, or when nobody owns it
        and this node is draining, the least loaded other node's; None if unknown."""
        if lease is None:
            lease = (await self.store.owners([match_id]))[0]
        live = await nodes.live(self.store.redis)
        owner = holder(lease)
        if owner is not None and owner != self.settings.node:
            record = live.get(owner)
            return self.socket_url(record["url"], match_id) if record else None
        found = nodes.least_loaded(live, exclude=(self.settings.node,))
        return self.socket_url(found[1]["url"], match_id) if found else None

    async def _load(self, match_id: str, loaded: LoadedMatch | None = None, lease: str | None = None,
                    held: int | None = None) -> MatchActor | None:
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
            last = await abandon.last_touched(self.store, match_id, loaded.log, loaded.meta["created_at"])
            actor.touched = abandon.loaded_touch(self.settings.abandon_s, last, now_ms())
        actor.lease = lease if not core.over else None
        if core.over and lease is not None:  # ended, but its leaving `bh:live` was lost
            self.finished(match_id)
        delay = loaded.meta["spectators"]["delay_ms"]
        if delay:
            start, log_entries = await self.store.load_from_start(match_id)
            replica = MatchState(loaded.meta, start["state"], Clock(start["clock"]), start["seq"])
            actor.feed = DelayedFeed(replica, delay, self.metrics)
            actor.feed.catch_up(log_entries)
        self.actors[match_id] = actor
        actor.start()
        if core.over:  # loaded for a late viewer: let it go like a match that ended here
            self.match_ended(actor)
        self.metrics.matches_recovered += 1
        return actor

    # -- spectators of matches run by other nodes -----------------------------------------

    async def spectated(self, match_id: str):
        """What a spectator of the match joins here: its actor, or a mirror of it when
        another node runs it (None: no such match). NotHere only while this node drains."""
        mirror = self.mirrors.get(match_id)
        if mirror is not None and not self.draining:
            return mirror
        try:
            return await self.actor(match_id)
        except NotHere:
            if self.draining:
                raise
            return await self.mirrors.open(match_id)

    def local_spectators(self, match_id: str) -> int:
        """This node's spectators of the match: of its actor and of its mirror."""
        count = 0
        for holder in (self.actors.get(match_id), self.mirrors.get(match_id)):
            if holder is not None:
                count += holder.spectators
        return count

    # -- an operator's abort and delete ---------------------------------------------------

    async def abort(self, match_id: str) -> bool:
        """End a live match with reason "aborted", through its actor; False if there is no
        such match. MatchOver if it had already ended; StoreUnavailable if Redis did not
        take it (then nothing changed)."""
        actor = self.actors.get(match_id)
        if actor is None:
            if not await self.store.is_live(match_id):  # never load an ended match for this
                if await self.store.exists(match_id):
                    raise MatchOver("the match has already ended")
                return False
            actor = await self.actor(match_id)
            if actor is None:
                return False
        await self._through(actor, messages.Abort)
        return True

    async def delete(self, match_id: str) -> bool:
        """Remove an ended match from Redis and memory; False if there is no such match.
        MatchLive if it has not ended (abort it first)."""
        if match_id in self.loading:  # a load in progress: delete what it brings
            with contextlib.suppress(Exception):
                await asyncio.shield(self.loading[match_id])
        actor = self.actors.get(match_id)
        if actor is not None:
            await self._through(actor, messages.Delete)  # after the match's last write
            await self.unload(match_id)  # its sockets are closed (1001)
            return True
        if await self.store.is_live(match_id):
            raise MatchLive("the match is live: abort it first")
        return await self.store.delete(match_id)

    @staticmethod
    async def _through(actor: MatchActor, kind: type[messages.Abort | messages.Delete]) -> None:
        """Submit an operator's message to the actor and wait until it has been handled."""
        done = asyncio.get_running_loop().create_future()
        actor.submit(kind(done))
        try:
            await asyncio.wait_for(done, OPERATOR_TIMEOUT_S)
        except asyncio.TimeoutError:
            raise StoreUnavailable(f"the {kind.__name__.lower()} was not confirmed within {OPERATOR_TIMEOUT_S} s") from None

    async def recover_all(self) -> int:
        """At start: bring back the live matches this node held before a restart, and its
        share of those nobody holds (every one, when it is the only node).

        Matches of a version before leases have no `held` time: their clocks are paused for
        the time since this node last beat.
        """
        last_beat = await self.store.heartbeat(self.settings.node)
        self.downtime_ms = max(0, now_ms() - last_beat) if last_beat else 0
        try:
            if not self.leased:
                return await self._load_all([m for m in await self.store.live_ids() if m not in self.actors])
            return await self.scan()
        finally:
            self.downtime_ms = 0

    async def _load_all(self, ids: list[str]) -> int:
        count = 0
        for i in range(0, len(ids), RECOVERY_BATCH):
            batch = ids[i:i + RECOVERY_BATCH]
            loads = [self._load(m, loaded) for m, loaded in zip(batch, await self.store.load_many(batch))]
            for match_id, result in zip(batch, await asyncio.gather(*loads, return_exceptions=True)):
                if isinstance(result, Exception):
                    log.error("could not recover match %s: %r", match_id, result)
                elif result is not None:
                    count += 1
        return count

    # -- leases: keeping them, finding the matches nobody holds, handing them on ---------

    async def scan(self) -> int:
        """Take the live matches whose lease lapsed (their node died or was paused) or is
        held under this node's name (a restart).

        The latter all; of the former, this node's share (their number over the live
        nodes, picked at random) so that the surviving nodes split a dead one's matches,
        and every one that was already without a lease at the previous scan. So a match
        is held again at most two scans after its lease lapsed. Returns how many it took.
        """
        node = self.settings.node
        ids = [m for m in await self.store.live_ids() if m not in self.actors and m not in self.loading]
        mine, orphans = [], []
        for i in range(0, len(ids), OWNERS_BATCH):
            chunk = ids[i:i + OWNERS_BATCH]
            for match_id, lease in zip(chunk, await self.store.owners(chunk)):
                if lease is None:
                    orphans.append(match_id)
                elif holder(lease) == node:
                    mine.append(match_id)
        seen, self.orphans_seen = self.orphans_seen, set(orphans)
        if orphans:
            # Nodes that renewed lately: a dead node's record outlives its last renewal.
            fresh = now_ms() - self.settings.lease_ms // 2
            live = await nodes.live(self.store.redis)
            others = sum(1 for n, r in live.items()
                         if n != node and not r.get("draining") and r.get("at", 0) >= fresh)
            waited = [m for m in orphans if m in seen]
            new = [m for m in orphans if m not in seen]
            random.shuffle(new)
            orphans = waited + new[:math.ceil(len(new) / (others + 1))]
        if not mine and not orphans:
            return 0
        started = time.perf_counter()
        taken = await self.take(mine + orphans)
        if taken:
            self.metrics.matches_taken_over += taken
            self.metrics.takeover_seconds = time.perf_counter() - started
            log.info("took over %d live matches in %.3f s", taken, self.metrics.takeover_seconds)
        return taken

    async def take(self, match_ids: list[str]) -> int:
        """Acquire the leases of these matches and load those won, RECOVERY_BATCH at a
        time (a pipeline of acquisitions, two round trips of loads, one of clock snapshots)."""
        loop = asyncio.get_running_loop()
        futures = {}
        for match_id in match_ids:  # a hello for one of them meanwhile waits for this load
            if match_id not in self.actors and match_id not in self.loading:
                futures[match_id] = self.loading[match_id] = loop.create_future()
        count = 0
        try:
            ids = list(futures)
            for i in range(0, len(ids), RECOVERY_BATCH):
                batch = ids[i:i + RECOVERY_BATCH]
                got = await self.store.acquire_many(batch, self.settings.node, self.settings.lease_ms, now_ms())
                won = [(m, value, held) for m, (ok, value, held) in zip(batch, got) if ok]
                if not won:
                    continue
                loaded = await self.store.load_many([m for m, _, _ in won])
                loads = [self._load(m, data, value, held) for (m, value, held), data in zip(won, loaded)]
                for (match_id, _, _), result in zip(won, await asyncio.gather(*loads, return_exceptions=True)):
                    if isinstance(result, Exception):
                        log.error("could not take over match %s: %r", match_id, result)
                        futures[match_id].set_result(None)
                    else:
                        futures[match_id].set_result(result)
                        count += result is not None
        finally:
            for match_id, future in futures.items():
                if not future.done():
                    future.set_result(None)
                if self.loading.get(match_id) is future:
                    del self.loading[match_id]
        return count

    async def watch(self) -> None:
        """Every `takeover_scan_ms`, take this node's share of the live matches nobody holds."""
        while True:
            await asyncio.sleep(self.settings.takeover_scan_ms / 1000)
            if self.draining or not self.leased:
                continue
            try:
                await self.scan()
            except Exception as exc:  # Redis away: readiness reports it; keep trying
                log.warning("scanning for matches to take over failed: %r", exc)

    def held_leases(self) -> list[tuple[str, str]]:
        # An ended match's lease went with its last write: nothing more to hold.
        return [(m, a.lease) for m, a in self.actors.items() if a.lease is not None and not a.stopped and not a.core.over]

    async def renew(self) -> None:
        """Renew every lease this node holds, in one pipeline; let go of those it lost."""
        held = self.held_leases()
        for (match_id, value), ok in zip(held, await self.store.renew_many(held, self.settings.lease_ms, now_ms())):
            actor = self.actors.get(match_id)
            if not ok and actor is not None and actor.lease == value:
                self.lost(actor)

    def record(self) -> dict:
        live = sum(1 for a in self.actors.values() if a.lease is not None and not a.core.over)
        return {"url": self.settings.advertised_url, "matches": live, "sockets": self.metrics.connections,
                "draining": self.draining, "at": now_ms()}

    async def publish(self) -> None:
        await nodes.publish(self.store.redis, self.settings.node, self.record(), self.settings.lease_ms, now_ms())

    async def beat(self, every_s: float = 1.0) -> None:
        """Renew this node's leases and its node record, every third of a lease; and
        record that the node is alive, for the clock pause of older matches."""
        every = min(every_s, self.settings.lease_ms / 3000)
        last_beat = 0.0
        while True:
            try:
                if self.leased:
                    await self.renew()
                    await self.publish()
                if time.monotonic() - last_beat >= every_s:
                    await self.store.beat(self.settings.node, now_ms())
                    last_beat = time.monotonic()
            except Exception as exc:  # Redis away: readiness reports it; keep trying
                log.debug("renewing leases failed: %r", exc)
            await asyncio.sleep(every)

    def lost(self, actor: MatchActor) -> None:
        """Another node holds the match now: let it go, sending its sockets there."""
        if self.actors.get(actor.match_id) is actor:
            del self.actors[actor.match_id]
            self.metrics.matches_lost += 1
            log.warning("match %s: its lease is no longer this node's (paused or cut off from Redis past it): "
                        "letting it go", actor.match_id)
        actor.stopped = True
        asyncio.get_running_loop().create_task(self._send_away(actor, None))

    async def _send_away(self, actor: MatchActor, redirect: str | None) -> None:
        if redirect is None:
            with contextlib.suppress(Exception):
                redirect = await self.redirect_for(actor.match_id)
        for conn in actor.conns + (actor.feed.conns if actor.feed else []):
            send_away(conn, redirect)
        actor.refuse_pending(NotHere(redirect))
        await actor.stop()

    def finished(self, match_id: str) -> None:
        """A match's end has landed: it leaves `bh:live` (a key of no match's slot, so
        not in the fenced write; if this is lost, the next scan finds the match ended)."""
        self.store.batcher.submit([("ZREM", LIVE, match_id)], _logged, match_id)

    async def drain(self) -> int:
        """Stop taking matches and hand every live one to the other nodes: each actor,
        after its last write, releases its lease and sends its sockets to the least loaded
        other node, which takes the match when they arrive (or its scan does). Returns
        how many matches were handed on."""
        self.draining = True
        with contextlib.suppress(Exception):
            await self.publish()
        live = await nodes.live(self.store.redis)
        others = sorted((r.get("matches", 0), n) for n, r in live.items()
                        if n != self.settings.node and not r.get("draining"))
        if not others:  # nowhere to go: the matches stay, and come back with this node's next start
            log.warning("drain: no other live node to hand matches to")
            return 0
        actors = [a for a in list(self.actors.values()) if a.lease is not None and not a.core.over and not a.stopped]
        moved = 0
        for i in range(0, len(actors), DRAIN_BATCH):
            batch = actors[i:i + DRAIN_BATCH]
            urls = [live[others[(i + j) % len(others)][1]]["url"] for j in range(len(batch))]
            results = await asyncio.gather(*(self._hand_on(a, url) for a, url in zip(batch, urls)),
                                           return_exceptions=True)
            moved += sum(1 for r in results if r is True)
        log.info("drained: %d live matches handed on to %d other nodes", moved, len(others))
        return moved

    async def _hand_on(self, actor: MatchActor, node_url: str | None) -> bool:
        if actor.stopped:  # lost meanwhile
            return False
        done = asyncio.get_running_loop().create_future()
        actor.submit(messages.Release(done))  # in order: after the write in flight, if any
        await asyncio.wait_for(done, OPERATOR_TIMEOUT_S)
        if self.actors.get(actor.match_id) is actor:
            del self.actors[actor.match_id]
        released = await self.store.release(actor.match_id, actor.lease, now_ms())
        await self._send_away(actor, self.socket_url(node_url, actor.match_id) if node_url else None)
        return released

    def _ended(self, actor: MatchActor) -> None:
        """An actor's match ended here: its end is in Redis."""
        self.match_ended(actor)
        if actor.lease is not None:
            self.finished(actor.match_id)

    def match_ended(self, actor: MatchActor) -> None:
        """Keep a finished match in memory a while for its sockets, then let it go."""
        ratings.match_ended(self, actor.match_id, actor.core.meta, actor.core.state["result"])  # once: idempotent
        loop = asyncio.get_running_loop()
        linger = LINGER_S + actor.core.meta["spectators"]["delay_ms"] / 1000  # delayed spectators see the end too
        loop.call_later(linger, lambda: loop.create_task(self.unload(actor.match_id, actor)))

    async def unload(self, match_id: str, actor: MatchActor | None = None) -> None:
        """Stop the match's actor (only if it is still `actor`, when given: the match may
        have been unloaded and loaded again since)."""
        if actor is not None and self.actors.get(match_id) is not actor:
            return
        actor = self.actors.pop(match_id, None)
        if actor is not None:
            await actor.stop()

    async def close(self) -> None:
        for match_id in list(self.actors):
            await self.unload(match_id)
        await self.mirrors.close()
        await self.casting.close()
        await self.audience.close()
        self.deadlines.close()
        self.loop_lag.stop()

    # -- read-only views ----------------------------------------------------------------

    async def summaries(self, match_ids: list[str]) -> list[dict]:
        """Public summaries (no tokens, nothing hidden) of the named matches that exist."""
        out = []
        in_memory = {m: a for m in match_ids if (a := self.actors.get(m)) is not None and not a.stale}
        to_load = [m for m in match_ids if m not in in_memory]  # stale: memory is ahead of Redis
        loads = dict(zip(to_load, await self.store.load_many(to_load))) if to_load else {}
        for match_id in match_ids:
            actor = in_memory.get(match_id)
            if actor is not None:
                meta, state, seq = actor.core.meta, actor.core.state, actor.core.seq
            else:
                loaded = loads[match_id]
                if loaded is None:
                    continue
                meta, state = loaded.meta, loaded.snapshot["state"]
                seq = loaded.log[-1]["last_seq"] if loaded.log else loaded.snapshot["seq"]
            out.append({
                "match": match_id, "ruleset": meta["ruleset"], "seats": meta["seats"],
                "status": "finished" if state["result"] is not None else "live",
                "result": state["result"], "seq": seq, "spectators": 0,
                "label": meta["label"], "created_at": meta["created_at"],
                "clock": meta["clock"], "spectator_settings": meta["spectators"],
                "caster_settings": settings_of(meta), **seed_fields(meta),
            })
        # Spectators on every node (audience.py), in one round trip for the lot.
        for summary, total in zip(out, await self.audience.totals([s["match"] for s in out])):
            summary["spectators"] = total
        return out

    def in_memory(self) -> list[str]:
        """The matches this server runs now: live ones, and finished ones still kept for their sockets."""
        return list(self.actors)

    def operator_details(self, match_id: str) -> dict:
        """What an operator sees of a match this server runs: sockets per seat, spectators,
        and each open prompt's seat, kind and clock (nothing hidden: no options, no cards).
        `{"in_memory": false}` for a match it does not run."""
        actor = self.actors.get(match_id)
        if actor is None:
            return {"in_memory": False}
        core = actor.core
        sockets = {seat: 0 for seat in core.meta["seats"]}
        for conn in actor.conns:
            if conn.role == "player" and conn.seat in sockets:
                sockets[conn.seat] += 1
        prompts = [{"id": p["id"], "seat": p["seat"], "kind": p["kind"], **core.clock.info(p["id"])}
                   for p in core.ruleset.prompts(core.state)]
        return {"in_memory": True, "sockets": sockets, "spectators": actor.spectators, "prompts": prompts,
                "banks_ms": dict(core.clock.data.get("banks", {})) if core.clock.timed else None}

    async def revealed(self, match_id: str) -> dict:
        """What the replay of a finished match adds to its summary to re-run it: the seed,
        the options and setup it started from, and every entry of its log in order."""
        actor = self.actors.get(match_id)
        loaded = None if actor is not None else await self.store.load(match_id)
        if actor is None and loaded is None:  # expired since its summary was read
            return {}
        meta = actor.core.meta if actor is not None else loaded.meta
        _, entries = await self.store.load_from_start(match_id)
        log = []
        for entry in entries:
            shown = {"seq": entry["seq"], "at": entry["at"]}
            if entry.get("abort"):  # an operator ended the match, or the server an abandoned one
                shown["abort"] = True
                if entry.get("reason"):
                    shown["reason"] = entry["reason"]
            elif entry.get("timeout"):
                shown.update(prompt=entry["prompt"], timeout=True)
            elif "resign" in entry or "away" in entry or "back" in entry:  # a seat left, went away or came back
                kind = next(k for k in ("resign", "away", "back") if k in entry)
                shown[kind] = entry[kind]
            else:
                shown["prompt"] = entry["prompt"]
                shown.update(seat=entry["seat"], option=entry["option"], args=entry["args"])
            log.append(shown)
        return {"seed": meta["seed"], "options": meta["options"], "setup": meta["setup"], "log": log}

    def prometheus(self) -> str:
        """GET /metrics: the counters above, through prometheus_client (metrics.py)."""
        return exposition(HubCollector(self))
