"""This node's events: creating them, changing them (every change one log entry), the
runners of those whose lease it holds, their leases kept, and the sweep that takes on
the events whose lease lapsed (docs/tournaments.md, "Running an event").
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
from collections.abc import Callable

from battlehall.server.clock import now_ms
from battlehall.server.errors import Fenced
from battlehall.server.node.hub import Hub
from battlehall.server.storage.store import StoreUnavailable
from battlehall.server.storage.tournaments import Stale, Tournaments, organiser_hash
from battlehall.server.tournaments.folding import Folded, Folds
from battlehall.server.tournaments.refusals import refused
from battlehall.server.tournaments.runner import EventRunner
from battlehall.server.tournaments.settings import TournamentSettings
from battlehall.tournaments import Spec, TournamentError

log = logging.getLogger("battlehall.tournaments")

RETRIES = 8  # a change re-decided this often when other nodes' changes keep landing first
ENDED = ("finished", "cancelled")


def new_tournament_id() -> str:
    return "t_" + secrets.token_hex(8)


def seed_commitment(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


class Events:
    def __init__(self, hub: Hub, settings: TournamentSettings):
        self.hub = hub
        self.settings = settings
        self.storage = Tournaments(hub.store)
        self.folds = Folds(self.storage)
        self.runners: dict[str, EventRunner] = {}
        self.tasks: list[asyncio.Task] = []
        self.versions: dict[str, asyncio.Event] = {}  # long polls waiting on an event of this node

    # -- the node's share -----------------------------------------------------------------

    def start(self) -> None:
        self.hub.ended_hooks.append(self.match_ended)
        loop = asyncio.get_running_loop()
        self.tasks = [loop.create_task(self._sweep()), loop.create_task(self._renew())]

    async def close(self) -> None:
        """Stop this node's runners and give their events up, so another node goes on at once."""
        for task in self.tasks:
            task.cancel()
        for runner in list(self.runners.values()):
            await runner.stop()
            with contextlib.suppress(Exception):  # Redis away: the lease lapses by itself
                await self.storage.release(runner.tournament_id, runner.lease, now_ms())
        with contextlib.suppress(ValueError):
            self.hub.ended_hooks.remove(self.match_ended)

    def run(self, tournament_id: str, lease: str) -> None:
        if tournament_id in self.runners:
            return
        runner = EventRunner(self, tournament_id, lease)
        self.runners[tournament_id] = runner
        runner.start()

    def let_go(self, runner: EventRunner) -> None:
        if self.runners.get(runner.tournament_id) is runner:
            del self.runners[runner.tournament_id]

    def match_ended(self, match_id: str, meta: dict, result: dict) -> None:
        """The hub's end-of-match hook: the runner of the match's event, if it is here, hears now."""
        label = meta.get("label") or {}
        runner = self.runners.get(label.get("tournament", ""))
        if runner is not None:
            runner.heard(match_id, result)

    async def _sweep(self) -> None:
        """Every few seconds: take on the events nobody holds (a dead node's, or this node's
        own from before a restart)."""
        while True:
            try:
                if not self.hub.draining:
                    await self.take_unheld()
            except Exception as exc:  # Redis away: try again at the next sweep
                log.debug("the events' sweep failed: %r", exc)
            await asyncio.sleep(self.settings.scan_s)

    async def take_unheld(self) -> int:
        ids = [t for t in await self.storage.live_ids() if t not in self.runners]
        taken = 0
        for tournament_id, owner in zip(ids, await self.storage.owners(ids)):
            if owner is not None and owner.split(" ", 1)[-1] != self.settings.node:
                continue
            lease = await self.storage.acquire(tournament_id, self.settings.node, self.settings.lease_ms, now_ms())
            if lease is not None:
                log.info("tournament %s: taken on by node %s", tournament_id, self.settings.node)
                self.run(tournament_id, lease)
                taken += 1
        return taken

    async def _renew(self) -> None:
        every = self.settings.lease_ms / 3000
        while True:
            await asyncio.sleep(every)
            held = [(t, r.lease) for t, r in self.runners.items() if not r.stopped]
            try:
                kept = await self.storage.renew(held, self.settings.lease_ms, now_ms())
            except Exception as exc:  # Redis away: the writes are fenced meanwhile anyway
                log.debug("renewing the events' leases failed: %r", exc)
                continue
            for (tournament_id, lease), ok in zip(held, kept):
                runner = self.runners.get(tournament_id)
                if not ok and runner is not None and runner.lease == lease:
                    log.warning("tournament %s: its lease is no longer this node's: letting it go", tournament_id)
                    await runner.stop()

    # -- creating and changing an event ----------------------------------------------------

    async def create(self, spec: Spec, organiser: dict | None, made_by: str, caster: dict | None = None) -> dict:
        """A new event, run by this node; its id, organiser token and commitment; with
        `caster` settings, its caster token (every game gets a caster link at that delay)."""
        tournament_id = new_tournament_id()
        seed = secrets.token_hex(32)
        token = secrets.token_urlsafe(24)
        now = now_ms()
        meta = {"tournament": tournament_id, "spec": spec.body(), "seed": seed, "seed_commitment": seed_commitment(seed),
                "organiser_hash": organiser_hash(token), "organiser": organiser, "created_at": now,
                "made_by": made_by, "expire_at": now + self.settings.expire_s * 1000}
        cast = {}
        if caster is not None:
            caster_token = secrets.token_urlsafe(24)
            meta.update(caster=caster, caster_hash=organiser_hash(caster_token))
            cast = {"caster_token": caster_token}
        lease = f"1 {self.settings.node}"
        await self.storage.create(tournament_id, meta, lease, self.settings.lease_ms, spec.public)
        self.run(tournament_id, lease)
        return {"tournament": tournament_id, "organiser_token": token, "seed_commitment": meta["seed_commitment"],
                "status": "registering", "version": 0, "url": f"/tournaments/{tournament_id}", **cast}

    async def change(self, tournament_id: str, decide: Callable[[Folded], list[dict]],
                     lease: str | None = None, applies: bool = False) -> Folded | None:
        """Append what `decide` makes of the event as it is now (its entries, each with its
        `at`), after checking them with the fold (`applies`: `decide` folded them itself, a
        decision that reads its own first entries); again if another node's entry landed
        first. None for no such event; the core's refusal as the wire's (409); Fenced if
        `lease` is given and lost."""
        for _ in range(RETRIES):
            async with self.folds.lock(tournament_id):
                folded = await self.folds.get_locked(tournament_id)
                if folded is None:
                    return None
                version = folded.version
                try:
                    entries = decide(folded)
                    if not entries:
                        return folded
                    for entry in entries if not applies else ():
                        folded.apply(entry)
                except TournamentError as exc:
                    self.folds.forget(tournament_id)  # some applied in memory only
                    raise refused(exc) from None
                ends = entries[-1].get("k") in ENDED
                try:
                    await self.storage.append(tournament_id, version, entries, lease,
                                              self.settings.retention_s if ends else None)
                except Stale:
                    self.folds.forget(tournament_id)
                    continue
                except (Fenced, StoreUnavailable):
                    self.folds.forget(tournament_id)
                    raise
            await self.changed(folded)
            return folded
        raise StoreUnavailable("the event kept changing under this request: try again")

    async def changed(self, folded: Folded) -> None:
        """After an entry landed: the listing follows the status, the runner here and the
        long polls here hear of it."""
        tid = folded.tournament_id
        status = folded.t.phase
        last = folded.entries[-1] if folded.entries else {}
        if last.get("k") in ("started", "finished", "cancelled"):
            with contextlib.suppress(StoreUnavailable):
                await self.storage.moved(tid, status, last.get("at", now_ms()), folded.spec.public)
        runner = self.runners.get(tid)
        if runner is not None:
            runner.wake.set()
        waiting = self.versions.pop(tid, None)
        if waiting is not None:
            waiting.set()

    def wake_waiters(self, tournament_id: str) -> None:
        """Something a long poll shows changed outside the log (a player's seat): answer them."""
        waiting = self.versions.pop(tournament_id, None)
        if waiting is not None:
            waiting.set()

    async def wait_change(self, tournament_id: str, version: int, wait_s: float) -> None:
        """Return once the event's log has more than `version` entries, or after `wait_s`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait_s
        while loop.time() < deadline:
            if await self.storage.version(tournament_id) > version:
                return
            event = self.versions.setdefault(tournament_id, asyncio.Event())
            with contextlib.suppress(TimeoutError):  # another node's change: seen at the next look
                await asyncio.wait_for(event.wait(), min(0.5, max(0.0, deadline - loop.time())))
