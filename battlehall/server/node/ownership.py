"""This node's hold on the live matches it runs: their leases (lease.py) acquired, kept,
and lost, and where the sockets of a match this node does not run should go.

The node renews every lease it holds in one send every third of a lease, with its node
record (nodes.py) in the same beat. Its heartbeat, far more frequent, is separate
(liveness.py): a node that sees another's heartbeat lapse may take that node's matches at
once, breaking their leases. A renewal that finds a lease gone (lapsed or broken), like a
write Redis fenced out, lets the match go: it leaves the hub and its sockets are sent to
the node that holds it now (`not_here`). While the node drains it acquires nothing
(drain.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.errors import NotHere
from battlehall.server.node import nodes
from battlehall.server.node.liveness import Liveness
from battlehall.server.storage.lease import holder

if TYPE_CHECKING:
    from battlehall.server.config import Settings
    from battlehall.server.match.actor import MatchActor
    from battlehall.server.metrics import Metrics
    from battlehall.server.storage.store import Store

log = logging.getLogger("battlehall.hub")



def socket_url(node_url: str, match_id: str) -> str:
    return f"{node_url}/ws/{match_id}"


def send_away(conn, redirect: str | None) -> None:
    """Tell a socket its match is run elsewhere (`not_here`), and close it with 4009."""
    conn.held = None  # a history still being sent stops here: the socket resumes at the redirect
    error = NotHere(redirect)
    conn.send(errors.ws_message(error))
    conn.close(error.close_code)


class Ownership:
    """The leases of this node's matches. `actors` is the hub's registry (hub.py): this
    reads it, and takes out of it the matches whose lease is another node's."""

    def __init__(self, settings: Settings, store: Store, actors: dict[str, MatchActor], metrics: Metrics,
                 leased: bool):
        self.settings = settings
        self.store = store
        self.actors = actors
        self.metrics = metrics
        self.leased = leased  # leases whenever matches are written: with one node as with several
        self.draining = False  # a drain is under way: no match is taken, every one is handed on
        self.liveness = Liveness(settings.node, settings.node_death_ms)  # the other nodes' heartbeats

    async def acquire(self, match_id: str) -> tuple[str, int | None]:
        """Take the live match's lease: its value and when it was last held (broken if its
        holder is dead, liveness.py). NotHere with where its sockets should go when another
        node holds it, or this node drains."""
        if self.draining:
            raise NotHere(await self.redirect_for(match_id))
        (won, value, held), = await self.store.acquire_many([match_id], self.settings.node,
                                                             self.settings.lease_ms, now_ms())
        if not won and holder(value) in self.liveness.dead:  # its node died: take it now, not at the lapse
            (won, value, held), = await self.store.acquire_many(
                [match_id], self.settings.node, self.settings.lease_ms, now_ms(), breaking={match_id: value},
                death_ms=self.settings.node_death_ms)
        if not won:
            raise NotHere(await self.redirect_for(match_id, value))
        return value, held

    async def redirect_for(self, match_id: str, lease: str | None = None) -> str | None:
        """Where a socket of this match should go: its owner's URL, or when nobody owns it
        and this node is draining, the least loaded other node's; None if unknown."""
        if lease is None:
            lease = (await self.store.owners([match_id]))[0]
        live = await self.store.nodes.live()
        owner = holder(lease)
        if owner is not None and owner != self.settings.node:
            record = live.get(owner)
            return socket_url(record["url"], match_id) if record else None
        found = nodes.least_loaded(live, exclude=(self.settings.node,))
        return socket_url(found[1]["url"], match_id) if found else None

    def held_leases(self) -> list[tuple[str, str]]:
        # An ended match's lease is left to lapse (lease.FENCED_WRITE): nothing more to hold.
        return [(m, a.lease) for m, a in self.actors.items() if a.lease is not None and not a.stopped and not a.core.over]

    async def renew(self) -> None:
        """Renew every lease this node holds, in one pipeline; let go of those it lost."""
        held = self.held_leases()
        for (match_id, value), ok in zip(held, await self.store.renew_many(held, self.settings.lease_ms, now_ms())):
            actor = self.actors.get(match_id)
            if not ok and actor is not None and actor.lease == value:
                self.lost(actor)

    def record(self) -> dict:
        """This node's record (nodes.py): where it is, how loaded, whether it drains."""
        live = sum(1 for a in self.actors.values() if a.lease is not None and not a.core.over)
        return {"url": self.settings.advertised_url, "matches": live, "sockets": self.metrics.connections,
                "draining": self.draining, "at": now_ms()}

    async def publish(self) -> None:
        await self.store.nodes.publish(self.settings.node, self.record(), self.settings.lease_ms, now_ms())

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
        asyncio.get_running_loop().create_task(self.send_away(actor, None))

    async def send_away(self, actor: MatchActor, redirect: str | None) -> None:
        """Send the match's sockets to `redirect` (None: to its owner, if known), refuse
        what waits for the actor, and stop it."""
        if redirect is None:
            with contextlib.suppress(Exception):
                redirect = await self.redirect_for(actor.match_id)
        for conn in actor.conns + (actor.feed.conns if actor.feed else []):
            send_away(conn, redirect)
        actor.refuse_pending(NotHere(redirect))
        await actor.stop()
