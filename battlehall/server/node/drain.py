"""A drain (POST /drain, SIGTERM): this node stops taking matches and hands every live one
it runs to the other nodes.

Each actor gets a `Release`, handled in order after the write in flight; then the lease
is given up (`held` set to now, so the next owner charges nobody for the gap) and the
sockets are sent to another node with `not_here`. That node takes the match when they
arrive, or its takeover scan does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from battlehall.server.clock import now_ms
from battlehall.server.match import inputs
from battlehall.server.node.ownership import Ownership, socket_url

if TYPE_CHECKING:
    from battlehall.server.match.actor import MatchActor

log = logging.getLogger("battlehall.hub")

BATCH = 100  # matches handed over at once
RELEASE_TIMEOUT_S = 30  # an actor has this long to finish its write in flight, as for an operator's abort


async def drain(ownership: Ownership) -> int:
    """Mark the node draining and hand on its live matches, to the other live nodes in
    turn; how many were handed on (0 when there is no other node: the matches stay, and
    come back with this node's next start)."""
    ownership.draining = True
    with contextlib.suppress(Exception):
        await ownership.publish()
    node = ownership.settings.node
    live = await ownership.store.nodes.live()
    others = sorted((r.get("matches", 0), n) for n, r in live.items() if n != node and not r.get("draining"))
    if not others:
        log.warning("drain: no other live node to hand matches to")
        return 0
    actors = [a for a in list(ownership.actors.values()) if a.lease is not None and not a.core.over and not a.stopped]
    moved = 0
    for i in range(0, len(actors), BATCH):
        batch = actors[i:i + BATCH]
        urls = [live[others[(i + j) % len(others)][1]]["url"] for j in range(len(batch))]
        results = await asyncio.gather(*(hand_on(ownership, a, url) for a, url in zip(batch, urls)),
                                       return_exceptions=True)
        moved += sum(1 for r in results if r is True)
    log.info("drained: %d live matches handed on to %d other nodes", moved, len(others))
    return moved


async def hand_on(ownership: Ownership, actor: MatchActor, node_url: str | None) -> bool:
    """Release one match after its last write, and send its sockets to `node_url`."""
    lease = actor.lease
    if actor.stopped or lease is None:  # lost meanwhile (drain only hands on leased matches)
        return False
    done = asyncio.get_running_loop().create_future()
    actor.submit(inputs.Release(done))  # in order: after the write in flight, if any
    await asyncio.wait_for(done, RELEASE_TIMEOUT_S)
    if ownership.actors.get(actor.match_id) is actor:
        del ownership.actors[actor.match_id]
    released = await ownership.store.release(actor.match_id, lease, now_ms())
    await ownership.send_away(actor, socket_url(node_url, actor.match_id) if node_url else None)
    return released
