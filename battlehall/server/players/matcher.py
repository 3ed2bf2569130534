"""The quick-play matcher: on the one node holding its lease, turns waiting tickets into matches.

Every node runs a `Matcher`; the one holding the matcher's lease (storage/queue.py,
renewed every third of `lease_ms`) works, the others only try to take the lease when it lapses.
So if that node dies the queue is matched again within about one lease.

Each pass, for each pool with tickets: drop the tickets whose holders went silent
(storage/queue.py's PRUNE), form groups (pairing.py), take each group out of the queue atomically
(TAKE, which also checks the lease: a matcher that lost it takes nothing), create
its match (as POST /matches does, placed on the least loaded node), and hand each ticket
its seat (COMPLETE). Each seat is bound to its ticket's proven profile, and the
match is rated when every seat has one (ratings.py settles it at its end). A group whose match could not be made goes back to the queue;
one left forming by a dead node goes back after `queue.FORMING_TIMEOUT_MS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time

from battlehall.engine import get_ruleset, ruleset_names
from battlehall.engine.errors import SetupError
from battlehall.server.clock import now_ms
from battlehall.server.match import validate
from battlehall.server.players import queue
from battlehall.server.players.pairing import groups
from battlehall.server.players.queue import Entry, QueueRecords
from battlehall.server.storage.store import StoreUnavailable

log = logging.getLogger("battlehall.matcher")

#: The clock of every quick-play match: 30 s a prompt and a 60 s bank per seat.
QUICK_CLOCK = {"prompt_ms": 30_000, "bank_ms": 60_000}
#: The label every quick-play match carries (in its summary).
QUICK_LABEL = {"queue": "quick play"}
TICK_S = 0.05  # how often the lease holder looks at the pools while tickets wait
# ... and while none does: a ticket joined on this node wakes it at once (`wake`), one
# joined on another is seen within this. A look is a Redis round trip through redis-py;
# 20 a second with the queue empty were nine tenths of an idle node's CPU (23 ms a second).
IDLE_S = 0.5
RECOVER_EVERY_S = 1.0  # how often it looks for groups a dead node left forming
CREATES_AT_ONCE = 32  # matches being created at once
CREATE_TIMEOUT_S = queue.FORMING_TIMEOUT_MS / 2000  # well before the group would be requeued


def pools() -> list[tuple[str, str, int]]:
    """(pool, ruleset, seats) for every ruleset this server runs and each seat count it allows."""
    out = []
    for name in ruleset_names():
        try:
            rules = get_ruleset(name)
        except Exception:  # a ruleset that fails to load has no queue here (GET /rulesets says why)
            continue
        for seats in range(rules.min_seats, min(validate.MAX_SEATS, rules.max_seats) + 1):
            out.append((queue.pool_name(name, seats), name, seats))
    return out


def seat_names(group: list[Entry]) -> list[str]:
    """Each player's chosen name, made unique in the match by a number where two are alike."""
    names, seen = [], set()
    for entry in group:
        name, n = entry.name, 1
        while name in seen:
            n += 1
            suffix = f"-{n}"
            name = entry.name[:32 - len(suffix)] + suffix
        seen.add(name)
        names.append(name)
    return names


def binding(group: list[Entry], names: list[str]) -> dict:
    """`{"profiles": {seat: profile id}, "rated": bool}` for the group's match ({} when no
    ticket has a profile): rated when every seat is bound. A profile on two tickets of one
    group (one player queued twice) binds neither seat."""
    ids = [e.profile for e in group]
    bound = {name: e.profile for e, name in zip(group, names) if e.profile is not None and ids.count(e.profile) == 1}
    return {"profiles": bound, "rated": len(bound) == len(group)} if bound else {}


class Matcher:
    def __init__(self, hub, settings, queue_: QueueRecords):
        self.hub = hub
        self.settings = settings
        self.queue = queue_
        self.pools = pools()
        self.lease = f"{settings.node} {secrets.token_hex(4)}"  # this run's: a restart is a new holder
        self.holding = False
        self.renewed = 0.0
        self.recovered = 0.0
        self.forming: set[asyncio.Task] = set()
        self.creates = asyncio.Semaphore(CREATES_AT_ONCE)
        self.lease_record = queue_.matcher_lease(self.lease, settings.lease_ms)
        self.wake = asyncio.Event()  # set when a ticket joins on this node: look at the pools now

    async def run(self) -> None:
        while True:
            self.wake.clear()  # before the look: a ticket joined during it wakes the next one
            busy = False
            try:
                if await self.hold():
                    busy = await self.pass_once()
            except asyncio.CancelledError:
                raise
            except StoreUnavailable as exc:
                log.warning("the quick-play matcher could not reach Redis: %r", exc)
                self.holding = False
                await asyncio.sleep(1)
            except Exception:
                log.exception("the quick-play matcher failed a pass")
                await asyncio.sleep(1)
            if busy:
                await asyncio.sleep(TICK_S)
            else:  # nothing waits: until a ticket joins here, or long enough to see one joined elsewhere
                with contextlib.suppress(TimeoutError):  # asyncio.timeout: it never swallows a cancel
                    async with asyncio.timeout(min(IDLE_S, self.settings.lease_ms / 3000)):
                        await self.wake.wait()

    async def hold(self) -> bool:
        """Whether this node holds the matcher's lease (taking or renewing it as due)."""
        now = time.monotonic()
        if self.holding and now - self.renewed < self.settings.lease_ms / 3000:
            return True
        if self.holding:
            self.holding = await self.lease_record.renew()
        else:
            self.holding = await self.lease_record.take()
        if self.holding:
            self.renewed = now
        return self.holding

    async def release(self) -> None:
        """Give the lease up at shutdown, so another node takes the queue at once."""
        if self.forming:  # let the matches being made reach their players (each has its timeout)
            await asyncio.wait(list(self.forming), timeout=CREATE_TIMEOUT_S)
        if self.holding:
            with contextlib.suppress(StoreUnavailable):
                await self.lease_record.release()
        self.holding = False

    async def pass_once(self) -> bool:
        """One look at every pool; whether any ticket was waiting (then the next comes soon)."""
        now = now_ms()
        names = [p[0] for p in self.pools]
        busy = False
        size: int | None
        for (pool, ruleset, seats), size in zip(self.pools, await self.queue.sizes(names)):
            if not size:
                continue
            busy = True
            if await self.queue.prune(pool, now):
                size = None  # read again below
            if size is not None and size < seats:
                continue
            formed = {"g_" + secrets.token_hex(8): group for group in groups(await self.queue.waiting(pool), seats, now)}
            if not formed:
                continue
            taken = await self.queue.take(self.lease, pool, {g: [e.ticket for e in group] for g, group in formed.items()}, now)
            for (group_id, group), ok in zip(formed.items(), taken):
                if ok:
                    task = asyncio.get_running_loop().create_task(self.form(group_id, ruleset, group))
                    self.forming.add(task)
                    task.add_done_callback(self.forming.discard)
        if time.monotonic() - self.recovered >= RECOVER_EVERY_S:
            self.recovered = time.monotonic()
            await self.recover(now)
        return busy

    async def recover(self, now: int) -> None:
        """Groups left forming past the timeout (their node died): back to the queue."""
        for group_id, record in (await self.queue.forming()).items():
            if now - record["at"] > queue.FORMING_TIMEOUT_MS:
                if await self.queue.requeue(group_id, record["pool"], [e[0] for e in record["entries"]], now):
                    self.wake.set()  # matched again at once
                    log.warning("quick-play group %s was left forming: its %d tickets are back in the queue",
                                group_id, len(record["entries"]))

    async def form(self, group_id: str, ruleset: str, group: list[Entry]) -> None:
        """Make the group's match and hand each ticket its seat."""
        names = seat_names(group)
        body = {"ruleset": ruleset, "seats": names, "clock": QUICK_CLOCK, "label": QUICK_LABEL, "when_away": "bot"}
        bound = binding(group, names)
        try:
            async with asyncio.timeout(CREATE_TIMEOUT_S):  # waiting for a turn included
                async with self.creates:
                    created = await self.create(body, bound)
        except SetupError as exc:  # the ruleset refuses its defaults at this seat count
            error = {"error": {"code": exc.code, "message": exc.message}}
            await self.queue.complete(group_id, {e.ticket: error for e in group}, queue.FAILED)
            return
        except Exception as exc:  # Redis, a node, the time: try again from the queue
            log.warning("a quick-play match could not be made (%r): its players wait on", exc)
            with contextlib.suppress(StoreUnavailable):
                await self.queue.requeue(group_id, queue.pool_name(ruleset, len(group)),
                                         [e.ticket for e in group], now_ms())
            self.wake.set()
            return
        shared = {**{k: created[k] for k in ("match", "ruleset", "ws", "ws_url")}, "rated": bool(bound.get("rated"))}
        results = {e.ticket: {**shared, "seat": name, "token": created["tokens"][name]}
                   for e, name in zip(group, names)}
        try:
            done = await self.queue.complete(group_id, results)
        except StoreUnavailable as exc:  # unknown whether it was written: leave the match be
            log.warning("quick-play group %s may not have been told its match %s (%r): if not, its tickets "
                        "go back to the queue and the match ends abandoned", group_id, created["match"], exc)
            return
        if not done:
            log.warning("quick-play group %s went back to the queue before its match %s was made: "
                        "nobody was told the match", group_id, created["match"])
            with contextlib.suppress(Exception):  # here; on another node it ends abandoned
                await self.hub.abort(created["match"])

    async def create(self, body: dict, bound: dict) -> dict:
        """The match, placed as POST /matches places one (placement.py)."""
        return await self.hub.placement.create(body, validate.create_request(body), {**bound, "made_by": "quick_play"})
