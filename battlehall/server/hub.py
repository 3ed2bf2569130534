"""The matches this process runs: creating them, finding them, bringing them back from Redis."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from dataclasses import dataclass, field

from ..engine import get_ruleset
from ..engine.errors import MatchOver
from .actor import MatchActor, MatchCore, MatchLive
from .clock import Clock, now_ms
from .config import Settings
from . import connection, seeds
from .deadlines import Deadlines
from .metrics import ACK_BUCKETS, Histogram, LoopLag
from .spectators import DelayedFeed, copy_core
from .store import LoadedMatch, Store, StoreUnavailable

RECOVERY_BATCH = 500  # matches loaded per pair of Redis round trips at startup
OPERATOR_TIMEOUT_S = 30  # an abort or delete waits this long for the actor and Redis
LINGER_S = 60  # a finished match stays in memory this long for its sockets (plus the spectator delay)

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
    timeouts: int = 0  # prompts answered by their default when their time ran out
    ack_seconds: Histogram = field(default_factory=lambda: Histogram(ACK_BUCKETS))  # act received -> ack sent


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
        core = MatchCore(meta, state, Clock.new(request["clock"], request["seats"]), 0)
        records = core.stamp(events, meta["created_at"])
        commands = self.store.create_commands(match_id, meta, core.snapshot(), records, meta["created_at"])
        await self.store.write(commands)
        actor = MatchActor(self, match_id, core)
        if request["spectators"]["delay_ms"]:
            actor.feed = DelayedFeed(copy_core(core), request["spectators"]["delay_ms"], self.metrics)
        self.actors[match_id] = actor
        actor.start()
        self.metrics.matches_created += 1
        return {"match": match_id, "ruleset": request["ruleset"], **seed_fields(meta), "tokens": tokens,
                "spectator_token": meta["spectator_token"], "ws": f"/ws/{match_id}"}

    async def meta(self, match_id: str) -> dict | None:
        """The match's settings and tokens (None: no such match), without loading it."""
        actor = self.actors.get(match_id)
        if actor is not None:
            return actor.core.meta
        return await self.store.meta(match_id)

    async def actor(self, match_id: str) -> MatchActor | None:
        """The match's actor, loading it from Redis if this process does not run it yet."""
        actor = self.actors.get(match_id)
        if actor is not None:
            return actor
        if match_id in self.loading:
            return await asyncio.shield(self.loading[match_id])
        future = asyncio.get_running_loop().create_future()
        self.loading[match_id] = future
        try:
            actor = await self._load(match_id)
            future.set_result(actor)
            return actor
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # mark retrieved
            raise
        finally:
            del self.loading[match_id]

    async def _load(self, match_id: str, loaded: LoadedMatch | None = None) -> MatchActor | None:
        loaded = loaded or await self.store.load(match_id)
        if loaded is None:
            return None
        core = MatchCore.from_loaded(loaded)
        if self.downtime_ms and not core.over:
            # Give open prompts back the time they lost while no server ran, and record
            # that in a snapshot, so that a later replay of the log sees the same clock.
            core.clock.shift(self.downtime_ms)
            await self.store.write(self.store.snapshot_commands(match_id, core.snapshot()))
            core.answers_since_snapshot = 0
        actor = MatchActor(self, match_id, core)
        delay = loaded.meta["spectators"]["delay_ms"]
        if delay:
            start, log_entries = await self.store.load_from_start(match_id)
            replica = MatchCore(loaded.meta, start["state"], Clock(start["clock"]), start["seq"])
            actor.feed = DelayedFeed(replica, delay, self.metrics)
            actor.feed.catch_up(log_entries)
        self.actors[match_id] = actor
        actor.start()
        if core.over:  # loaded for a late viewer: let it go like a match that ended here
            self.match_ended(actor)
        self.metrics.matches_recovered += 1
        return actor

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
        await self._through(actor, "abort")
        return True

    async def delete(self, match_id: str) -> bool:
        """Remove an ended match from Redis and memory; False if there is no such match.
        MatchLive if it has not ended (abort it first)."""
        if match_id in self.loading:  # a load in progress: delete what it brings
            with contextlib.suppress(Exception):
                await asyncio.shield(self.loading[match_id])
        actor = self.actors.get(match_id)
        if actor is not None:
            await self._through(actor, "delete")  # after the match's last write
            await self.unload(match_id)  # its sockets are closed (1001)
            return True
        if await self.store.is_live(match_id):
            raise MatchLive("the match is live: abort it first")
        return await self.store.delete(match_id)

    @staticmethod
    async def _through(actor: MatchActor, kind: str) -> None:
        """Submit an operator's message to the actor and wait until it has been handled."""
        done = asyncio.get_running_loop().create_future()
        actor.submit((kind, done))
        try:
            await asyncio.wait_for(done, OPERATOR_TIMEOUT_S)
        except asyncio.TimeoutError:
            raise StoreUnavailable(f"the {kind} was not confirmed within {OPERATOR_TIMEOUT_S} s") from None

    async def recover_all(self) -> int:
        """Bring back every live match recorded in Redis (after a restart).

        The clocks of recovered matches are paused for the time no server ran them:
        their open prompts get back the time they had when this node last beat.
        """
        last_beat = await self.store.heartbeat(self.settings.node)
        self.downtime_ms = max(0, now_ms() - last_beat) if last_beat else 0
        count = 0
        ids = [m for m in await self.store.live_ids() if m not in self.actors]
        for i in range(0, len(ids), RECOVERY_BATCH):
            batch = ids[i:i + RECOVERY_BATCH]
            loads = [self._load(m, loaded) for m, loaded in zip(batch, await self.store.load_many(batch))]
            # Together, so that their clock snapshots go to Redis in one pipeline.
            for match_id, result in zip(batch, await asyncio.gather(*loads, return_exceptions=True)):
                if isinstance(result, Exception):
                    log.error("could not recover match %s: %r", match_id, result)
                elif result is not None:
                    count += 1
        self.downtime_ms = 0
        return count

    async def beat(self, every_s: float = 1.0) -> None:
        """Record that this node is alive, for the clock pause of `recover_all`."""
        while True:
            try:
                await self.store.beat(self.settings.node, now_ms())
            except Exception:  # Redis away: readiness reports it; keep trying
                pass
            await asyncio.sleep(every_s)

    def match_ended(self, actor: MatchActor) -> None:
        """Keep a finished match in memory a while for its sockets, then let it go."""
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
        self.deadlines.close()
        self.loop_lag.stop()

    # -- read-only views ----------------------------------------------------------------

    async def summaries(self, match_ids: list[str]) -> list[dict]:
        """Public summaries (no tokens, nothing hidden) of the named matches that exist."""
        out = []
        for match_id in match_ids:
            actor = self.actors.get(match_id)
            if actor is not None and not actor.stale:  # stale: memory is ahead of Redis
                meta, state, seq = actor.core.meta, actor.core.state, actor.core.seq
                watching = actor.spectators
            else:
                loaded = await self.store.load(match_id)
                if loaded is None:
                    continue
                meta, state = loaded.meta, loaded.snapshot["state"]
                seq = loaded.log[-1]["last_seq"] if loaded.log else loaded.snapshot["seq"]
                watching = 0
            out.append({
                "match": match_id, "ruleset": meta["ruleset"], "seats": meta["seats"],
                "status": "finished" if state["result"] is not None else "live",
                "result": state["result"], "seq": seq, "spectators": watching,
                "label": meta["label"], "created_at": meta["created_at"],
                "clock": meta["clock"], "spectator_settings": meta["spectators"], **seed_fields(meta),
            })
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
        the options and setup it started from, and every answer and timeout in order."""
        actor = self.actors.get(match_id)
        loaded = None if actor is not None else await self.store.load(match_id)
        if actor is None and loaded is None:  # expired since its summary was read
            return {}
        meta = actor.core.meta if actor is not None else loaded.meta
        _, entries = await self.store.load_from_start(match_id)
        log = []
        for entry in entries:
            shown = {"seq": entry["seq"], "at": entry["at"]}
            if entry.get("abort"):  # an operator ended the match
                shown["abort"] = True
            elif entry.get("timeout"):
                shown.update(prompt=entry["prompt"], timeout=True)
            else:
                shown["prompt"] = entry["prompt"]
                shown.update(seat=entry["seat"], option=entry["option"], args=entry["args"])
            log.append(shown)
        return {"seed": meta["seed"], "options": meta["options"], "setup": meta["setup"], "log": log}

    def prometheus(self) -> str:
        m = self.metrics
        lines = [
            "# TYPE battlehall_answers_total counter", f"battlehall_answers_total {m.answers}",
            "# TYPE battlehall_deliveries_total counter", f"battlehall_deliveries_total {m.deliveries}",
            "# TYPE battlehall_matches_created_total counter", f"battlehall_matches_created_total {m.matches_created}",
            "# TYPE battlehall_matches_recovered_total counter", f"battlehall_matches_recovered_total {m.matches_recovered}",
            "# TYPE battlehall_recovery_seconds gauge", f"battlehall_recovery_seconds {m.recovery_seconds:.6f}",
            "# TYPE battlehall_matches_in_memory gauge", f"battlehall_matches_in_memory {len(self.actors)}",
            "# TYPE battlehall_connections gauge", f"battlehall_connections {m.connections}",
            "# TYPE battlehall_history_streams gauge", f"battlehall_history_streams {m.history_streams}",
            "# TYPE battlehall_ws_frames_total counter", f"battlehall_ws_frames_total {connection.counters.frames_sent}",
            "# TYPE battlehall_ws_writes_total counter", f"battlehall_ws_writes_total {connection.counters.writes}",
            "# TYPE battlehall_redis_flushes_total counter", f"battlehall_redis_flushes_total {self.store.batcher.flushes}",
            "# TYPE battlehall_redis_commands_total counter", f"battlehall_redis_commands_total {self.store.batcher.commands}",
            "# HELP battlehall_prompt_timeouts_total Prompts answered by their default because their time ran out.",
            "# TYPE battlehall_prompt_timeouts_total counter", f"battlehall_prompt_timeouts_total {m.timeouts}",
            "# HELP battlehall_errors_total Error messages sent to clients, by wire error code.",
            "# TYPE battlehall_errors_total counter",
        ]
        lines += [f'battlehall_errors_total{{code="{code}"}} {n}' for code, n in sorted(connection.counters.errors.items())]
        lines += m.ack_seconds.lines("battlehall_ack_seconds", "Time from receiving an act to sending its ack.")
        lines += self.store.batcher.latency.lines(
            "battlehall_redis_write_seconds", "Round trip of one send of coalesced writes to Redis, to its last reply.")
        lines += self.loop_lag.histogram.lines("battlehall_event_loop_lag_seconds", "How late the event loop ran a timer due every 0.5 s.")
        lines += ["# HELP battlehall_event_loop_lag_last_seconds The latest event loop lag measured.",
                  "# TYPE battlehall_event_loop_lag_last_seconds gauge",
                  f"battlehall_event_loop_lag_last_seconds {self.loop_lag.last:.6f}"]
        return "\n".join(lines) + "\n"
