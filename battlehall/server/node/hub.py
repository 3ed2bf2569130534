"""The matches this node runs: the registry of their actors, and what a match's life on
the node goes through (created here, loaded, ended, let go).

The hub is composed of one part per concern, each in its own module: loading.py (a
match brought from Redis once, batches taken at once, the recovery at start),
ownership.py (leases kept and lost, the node's record, where a socket of a match run
elsewhere goes), takeover.py (the scan for matches nobody holds), drain.py (handing
every match on), placement.py (which node makes a new match), mirror.py and caster.py (spectators and casters of matches run
elsewhere), audience.py (the spectator count over all nodes), metrics.py (the counters).
An actor gets only `MatchServices` of it (actor.py), a session `SessionServices`
(below; transport/session.py).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from battlehall.engine import get_ruleset
from battlehall.engine.errors import MatchOver
from battlehall.server.clock import Clock, now_ms
from battlehall.server.config import Settings
from battlehall.server.match import inputs, seeds
from battlehall.server.match.actor import MatchActor, MatchLive, MatchServices
from battlehall.server.match.bot_turns import BotTurns
from battlehall.server.match.deadlines import Deadlines
from battlehall.server.match.match_state import MatchState
from battlehall.server.match.spectators import DelayedFeed, copy_core
from battlehall.server.metrics import HubCollector, LoopLag, Metrics, exposition
from battlehall.server.node.audience import Audience
from battlehall.server.node.caster import Casting, Judging, created_fields, settings_of
from battlehall.server.node.drain import drain
from battlehall.server.node.loading import Loading
from battlehall.server.node.mirror import Mirrors
from battlehall.server.node.ownership import Ownership, socket_url
from battlehall.server.node.placement import Placement
from battlehall.server.node.takeover import Takeover
from battlehall.server.players import ratings
from battlehall.server.storage import listing
from battlehall.server.storage.judges import Judges
from battlehall.server.storage.lease import NotHere
from battlehall.server.storage.store import Store, StoreUnavailable

OPERATOR_TIMEOUT_S = 30  # an abort or delete waits this long for the actor and Redis
LINGER_S = 60  # a finished match stays in memory this long for its sockets (plus the spectator delay)

log = logging.getLogger("battlehall.hub")


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


@dataclass(frozen=True, slots=True)
class SessionServices:
    """All a session uses of the node that serves it (this hub), and nothing else of it."""
    settings: Settings
    store: Store  # the history's reads
    history_gate: asyncio.Semaphore  # history pages are read one at a time (history.py)
    metrics: Metrics
    audience: Audience  # the spectator count over all nodes
    meta: Callable[[str], Awaitable[dict | None]]  # the match's settings and tokens, without loading it
    player: Callable[[str], Awaitable[inputs.Receiver | None]]  # its actor; NotHere when run elsewhere
    spectator: Callable[[str], Awaitable[inputs.Receiver | None]]  # its actor, or a mirror when run elsewhere
    caster: Callable[[str], Awaitable[inputs.Receiver | None]]  # its caster mirror (caster.py)
    judge: Callable[[str], Awaitable[inputs.Receiver | None]]  # its judge mirror: every seat, live (caster.py)
    judges: Judges  # who holds a judge token, and which matches it opens


class Hub:
    def __init__(self, settings: Settings, store: Store):
        self.settings = settings
        self.store = store
        self.actors: dict[str, MatchActor] = {}  # the registry: every match in memory, by id
        self.metrics = Metrics()
        self.deadlines = Deadlines()  # every match's prompt deadlines, on one loop timer
        self.loop_lag = LoopLag()  # started with the server (app.py)
        self.history_gate = asyncio.Semaphore(1)  # history pages are read one at a time (history.py)
        # Leases (lease.py) whenever matches are written: with one node as with several.
        self.leased = store.persist
        self.ownership = Ownership(settings, store, self.actors, self.metrics, self.leased)
        self.bot_turns = BotTurns(settings.bot_think_ms, settings.bot_answers_per_s)  # when the server's bots answer
        self.services = MatchServices(store, settings, self.metrics, self.deadlines, self.bot_turns, self._ended,
                                      self.ownership.lost, round(settings.away_grace_s * 1000))
        self.loading = Loading(settings, store, self.actors, self.metrics, self.services, self.ownership,
                               self.match_ended, self.finished)
        self.takeover = Takeover(self.ownership, self.loading, self.metrics)
        # Spectators of matches that other nodes run (mirror.py), and the count over all nodes (audience.py).
        self.mirrors = Mirrors(store, self.metrics, lambda match_id: self.audience.changed(match_id))
        self.audience = Audience(store, settings.node, self.local_spectators, self.local_viewers)
        self.casting = Casting(store, self.metrics)  # casters of any match, on this node (caster.py)
        self.judging = Judging(store, self.metrics)  # judges of any match, on this node
        self.judges = Judges(store)
        self.placement = Placement(settings, store, self.ownership, self.create)  # where new matches go
        # Told of every match that ends here (its id, meta, result): the events' runner (tournaments/)
        self.ended_hooks: list[Callable[[str, dict, dict], None]] = []
        self.sessions = SessionServices(settings, store, self.history_gate, self.metrics, self.audience, self.meta,
                                        self.actor, self.spectated, self.casting.open, self.judging.open,
                                        self.judges)

    @property
    def draining(self) -> bool:
        """A drain is under way: no match is taken, every one is handed on (drain.py)."""
        return self.ownership.draining

    async def create(self, request: dict) -> dict:
        """Start a match here from a validated create request; SetupError if the ruleset
        refuses it. (A new match is placed first: `placement.create`.)"""
        ruleset = get_ruleset(request["ruleset"])
        seed = seeds.engine_seed(request["seed"], request["seed_public"])
        state, events = ruleset.start(request["seats"], seed, request["options"], request["setup"])
        # An event's game comes with its id (tournaments/games.py: one per game, so a takeover finds it made)
        match_id = request.get("match_id") or new_match_id()
        tokens = {seat: secrets.token_hex(16) for seat in request["seats"]}
        # meta never reaches a client; the seed leaves it only through the replay.
        meta = {**request, "seed": seeds.as_data(seed), "seed_commitment": seeds.commitment(seed),
                "options": ruleset.resolve_options(request["options"]),
                "tokens": tokens, "spectator_token": secrets.token_hex(16), "created_at": now_ms()}
        if request["caster"] is not None:
            meta["caster_token"] = secrets.token_hex(16)
        core = MatchState(meta, state, Clock.new(request["clock"], request["seats"]), 0)
        records = core.stamp(events, meta["created_at"])
        lease = self.new_lease()
        await self.launch(match_id, core, lease, self.store.create_commands(
            match_id, meta, core.snapshot(), records, meta["created_at"], lease, self.settings.lease_ms))
        bots = request.get("bots") or {}
        players = {seat: token for seat, token in tokens.items() if seat not in bots}  # nobody plays a bot's seat
        return {"match": match_id, "ruleset": request["ruleset"], **seed_fields(meta), "tokens": players,
                **({"bots": bots} if bots else {}),
                "spectator_token": meta["spectator_token"], **created_fields(meta), "ws": f"/ws/{match_id}",
                "ws_url": socket_url(self.settings.advertised_url, match_id)}

    def new_lease(self) -> str | None:
        """The lease a match made here starts with (token 1), when matches are written."""
        return f"1 {self.settings.node}" if self.leased else None

    async def launch(self, match_id: str, core: MatchState, lease: str | None, commands: list[tuple]) -> MatchActor:
        """Write a new match (`commands`, and its place in the public listing) and run it here."""
        await self.store.write(commands + listing.index_commands(match_id, core.meta))
        actor = MatchActor(self.services, match_id, core)
        actor.lease = lease
        delay_ms = core.meta["spectators"]["delay_ms"]
        if delay_ms:
            actor.feed = DelayedFeed(copy_core(core), delay_ms, self.metrics)
        self.actors[match_id] = actor
        actor.start()
        self.metrics.matches_created += 1
        return actor

    async def meta(self, match_id: str) -> dict | None:
        """The match's settings and tokens (None: no such match), without loading it."""
        actor = self.actors.get(match_id)
        if actor is not None:
            return actor.core.meta
        return await self.store.meta(match_id)

    async def actor(self, match_id: str) -> MatchActor | None:
        """The match's actor, loaded from Redis if this node does not run it yet (loading.py):
        NotHere if another node holds it (or this node is draining)."""
        return await self.loading.actor(match_id)

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

    def local_viewers(self, match_id: str) -> int:
        """The distinct viewers this node's spectators of the match are (audience.viewer_of)."""
        viewers: set[str | None] = set()
        for holder in (self.actors.get(match_id), self.mirrors.get(match_id)):
            if holder is not None:
                viewers |= holder.viewers()
        return len(viewers)

    # -- an operator's abort and delete ---------------------------------------------------

    async def abort(self, match_id: str) -> bool:
        """End a live match with reason "aborted", through its actor; False if there is no
        such match. MatchOver if it had already ended; StoreUnavailable if Redis did not
        take it (then nothing changed)."""
        actor = await self.live_actor(match_id)
        if actor is None:
            return False
        await self.through(actor, inputs.Abort, "abort")
        return True

    async def live_actor(self, match_id: str) -> MatchActor | None:
        """The live match's actor, loaded if need be, for an operator's or a judge's action;
        None if there is no such match. MatchOver if it has ended (never loaded for this)."""
        actor = self.actors.get(match_id)
        if actor is not None:
            return actor
        if not await self.store.is_live(match_id):
            if await self.store.exists(match_id):
                raise MatchOver("the match has already ended")
            return None
        return await self.actor(match_id)

    async def delete(self, match_id: str) -> bool:
        """Remove an ended match from Redis and memory; False if there is no such match.
        MatchLive if it has not ended (abort it first)."""
        await self.loading.settled(match_id)  # a load in progress: delete what it brings
        actor = self.actors.get(match_id)
        if actor is not None:
            await self.through(actor, inputs.Delete, "delete")  # after the match's last write
            await self.unload(match_id)  # its sockets are closed (1001)
            return True
        if await self.store.is_live(match_id):
            raise MatchLive("the match is live: abort it first")
        return await self.store.delete(match_id)

    @staticmethod
    async def through(actor: MatchActor, make: Callable[[asyncio.Future], inputs.Input], what: str,
                      timeout_s: float = OPERATOR_TIMEOUT_S) -> None:
        """Submit the input `make` builds around its reply (an operator's or a judge's) to the
        actor, and wait until it has been handled: StoreUnavailable if not within `timeout_s`."""
        done = asyncio.get_running_loop().create_future()
        actor.submit(make(done))
        try:
            await asyncio.wait_for(done, timeout_s)
        except asyncio.TimeoutError:
            raise StoreUnavailable(f"the {what} was not confirmed within {timeout_s:g} s") from None

    # -- the node's upkeep: each part's own, composed here -------------------------------

    async def recover_all(self, last_beat: int | None = None) -> int:
        """At start: bring back the live matches this node held before a restart, and its
        share of those nobody holds (every one, when it is the only node). `last_beat`:
        this node's last beat before it started (read now if not given)."""
        return await self.loading.recover(self.takeover.scan if self.leased else None, last_beat)

    async def beat(self) -> None:
        """Renew this node's leases and its record, while the server runs (ownership.py)."""
        await self.ownership.beat()

    async def watch(self) -> None:
        """Take this node's share of the matches nobody holds, while the server runs (takeover.py)."""
        await self.takeover.watch()

    async def drain(self) -> int:
        """Hand every live match on to the other nodes (drain.py); how many were."""
        return await drain(self.ownership)

    def record(self) -> dict:
        """This node's record (nodes.py): its URL, live matches, sockets, whether it drains."""
        return self.ownership.record()

    # -- a match's end, and letting it go -------------------------------------------------

    def finished(self, match_id: str) -> None:
        """A match's end has landed: it leaves the live matches (a key of no match's slot, so
        not in the fenced write; if this is lost, the next scan finds the match ended)."""
        self.store.unlist(match_id, _logged, match_id)

    def _ended(self, actor: MatchActor) -> None:
        """An actor's match ended here: its end is in Redis."""
        self.match_ended(actor)
        if actor.lease is not None:
            self.finished(actor.match_id)

    def match_ended(self, actor: MatchActor) -> None:
        """Keep a finished match in memory a while for its sockets, then let it go."""
        ratings.match_ended(self, actor.match_id, actor.core.meta, actor.core.state["result"])  # once: idempotent
        for hook in self.ended_hooks:  # each idempotent too: a result is entered once (tournaments/)
            hook(actor.match_id, actor.core.meta, actor.core.state["result"])
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
        await self.judging.close()
        await self.audience.close()
        self.deadlines.close()
        self.loop_lag.stop()

    # -- read-only views ----------------------------------------------------------------

    async def meta_and_state(self, match_id: str) -> tuple[dict, dict] | None:
        """The match's settings and state as Redis has them, from memory when memory is
        not ahead of Redis (None: no such match)."""
        actor = self.actors.get(match_id)
        if actor is not None and not actor.stale:
            return actor.core.meta, actor.core.state
        loaded = await self.store.load(match_id)
        return (loaded.meta, loaded.snapshot["state"]) if loaded is not None else None

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
                "result": state["result"], "seq": seq, "spectators": 0, "viewers": 0,
                "label": meta["label"], "created_at": meta["created_at"],
                "clock": meta["clock"], "spectator_settings": meta["spectators"],
                "caster_settings": settings_of(meta), **seed_fields(meta),
                "bots": meta.get("bots") or {}, "when_away": meta.get("when_away", "nothing"),
            })
        # Spectators, and the distinct viewers they are, on every node (audience.py), in one round trip for the lot.
        for summary, (total, viewers) in zip(out, await self.audience.tallies([s["match"] for s in out])):
            summary["spectators"], summary["viewers"] = total, viewers
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
        if actor is not None:
            meta = actor.core.meta
        else:
            loaded = await self.store.load(match_id)
            if loaded is None:  # expired since its summary was read
                return {}
            meta = loaded.meta
        log = await self.shown_log(match_id)
        return {"seed": meta["seed"], "options": meta["options"], "setup": meta["setup"], "log": log}

    async def shown_log(self, match_id: str) -> list[dict]:
        """Every entry of the match's log in Redis, in order, as a replay shows it: what was
        answered, timed out, resigned, marked, or ended, by whom (no act ids)."""
        _, entries = await self.store.load_from_start(match_id)
        log = []
        for entry in entries:
            shown = {"seq": entry["seq"], "at": entry["at"]}
            if entry.get("abort"):  # an operator ended the match, or the server an abandoned one
                shown["abort"] = True
                for name in ("reason", "rewound_to", "by", "note", "ruling", "seat"):  # a judge's rewind or ruling
                    if entry.get(name):
                        shown[name] = entry[name]
            elif entry.get("timeout"):
                shown.update(prompt=entry["prompt"], timeout=True)
            elif "judge" in entry:  # the clocks paused, resumed, or time added to a seat
                shown["judge"] = entry["judge"]
            elif "resign" in entry or "away" in entry or "back" in entry:  # a seat left, went away or came back
                kind = next(k for k in ("resign", "away", "back") if k in entry)
                shown[kind] = entry[kind]
            else:
                shown["prompt"] = entry["prompt"]
                shown.update(seat=entry["seat"], option=entry["option"], args=entry["args"])
                if "bot" in entry:  # answered by the server's bot of this level
                    shown["bot"] = entry["bot"]
            if "clock" in entry:  # what the answer or timeout spent: time used, lag credited, bank
                shown["clock"] = entry["clock"]
            log.append(shown)
        return log

    def prometheus(self) -> str:
        """GET /metrics: the counters above, through prometheus_client (metrics.py)."""
        return exposition(HubCollector(self))
