"""Where a new match is made. POST /matches, the quick-play matcher and the rematch all
make theirs through `Placement.create`.

With `least-loaded` placement and several nodes, a match goes to the live, not draining
node with the fewest live matches (nodes.py), this node unless another has fewer: the
create is passed on to that node as a `POST /matches` marked placed (PLACED_HEADER),
which it makes itself, and its answer is the creation's. If that node does not answer
201, the match is made here. With `local`, or a node without leases, it is made here.

Seats bound to profiles were proven here (the profiles' secrets or player tokens, or a
quick-play join's proof), and the proofs stay here: the binding goes to the other node
through Redis, under a random name given in BINDING_HEADER, which that node takes once.
Redis is already the nodes' trust boundary (docs/operations.md).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Awaitable, Callable

import httpx
import orjson

from battlehall.server.clock import now_ms
from battlehall.server.node import nodes
from battlehall.server.storage.store import StoreUnavailable

if TYPE_CHECKING:
    from battlehall.server.config import Settings
    from battlehall.server.node.ownership import Ownership
    from battlehall.server.storage.store import Store

log = logging.getLogger("battlehall.placement")

PLACED_HEADER = "x-battlehall-placed"  # a create passed on by placement: make it here
BINDING_HEADER = "x-battlehall-binding"  # with it: the name of its seats' binding in Redis
# A node that found itself alone makes its matches here for this long without reading the
# nodes' records again: two redis-py round trips per create, otherwise, for a lone node a
# tenth of a create's CPU. A node started meanwhile gets its first matches this much later.
ALONE_S = 1.0


class BindingGone(Exception):
    """A create names a binding that is not in Redis (taken already, or expired)."""


class Placement:
    """This node's placement. `create_here` makes a validated match on this node (hub.py);
    `ownership` tells this node's load and whether it drains."""

    def __init__(self, settings: Settings, store: Store, ownership: Ownership,
                 create_here: Callable[[dict], Awaitable[dict]]):
        self.settings = settings
        self.store = store
        self.ownership = ownership
        self.create_here = create_here
        self.sent = nodes.Placements()  # creates passed on lately, until the nodes' records count them
        self.alone_until = 0.0  # monotonic: until then, no other node to place on (ALONE_S)

    async def create(self, body: dict, request: dict, bound: dict, placed: bool = False) -> dict:
        """Make the match where placement says; the create answer. `body` is the create
        body as given (without `profiles` and `rated`), `request` the same validated,
        `bound` what the route adds to the meta: `made_by`, and its seats' profiles
        (`"profiles"` and `"rated"`, already proven) when it binds them. `placed`: another
        node placed it here. SetupError if the ruleset refuses it, StoreUnavailable if
        Redis does not answer."""
        if not placed:
            found = await self.choose()
            if found is not None:
                created = await self._pass_on(found, body, bound)
                if created is not None:
                    return created
        created = await self.create_here({**request, **bound})
        if bound.get("profiles"):
            await self.store.profiles.mark_pending(created["match"])  # settled at its end (ratings.py)
            created.update(profiles=bound["profiles"], rated=bound["rated"])
        return created

    async def choose(self) -> tuple[str, dict] | None:
        """The other node to make a new match on (its id and record); None for this one."""
        if self.settings.placement == "local" or not self.ownership.leased:
            return None
        if time.monotonic() < self.alone_until and not self.ownership.draining:
            return None
        node = self.settings.node
        try:
            async with asyncio.timeout(nodes.PLACEMENT_TIMEOUT_S):
                records = await self.store.nodes.live()
        except TimeoutError:  # Redis stopped or stalled: the write would wait out its own timeout too
            raise StoreUnavailable(f"Redis did not answer within {nodes.PLACEMENT_TIMEOUT_S:g} s") from None
        except StoreUnavailable:
            return None
        if not any(other != node for other in records):
            self.alone_until = time.monotonic() + ALONE_S
            return None  # alone: no need to count this node's matches (a walk over all of them)
        own = self.ownership.record()
        # This node as of now: matches made in a burst go elsewhere as soon as it has more,
        # not a renewal later, when its published record catches up.
        found = nodes.least_loaded(self.sent.adjusted({**records, node: own}, node, own["matches"]))
        if found is None or found[0] == node:
            return None
        if not own["draining"] and found[1].get("matches", 0) >= own["matches"]:
            return None  # as loaded as this node: no need to go elsewhere
        return found

    async def _pass_on(self, found: tuple[str, dict], body: dict, bound: dict) -> dict | None:
        """The other node's create answer; None if it made no match."""
        headers = {PLACED_HEADER: "1", "content-type": "application/json"}
        if self.settings.api_key:
            headers["authorization"] = f"Bearer {self.settings.api_key}"
        try:
            if bound:
                headers[BINDING_HEADER] = await self.hand_over(bound)
            answer = await nodes.forward(found[1]["url"], "POST", "/matches", orjson.dumps(body), headers)
        except (httpx.HTTPError, OSError, StoreUnavailable) as exc:  # OSError: the forward's socket, past httpx's errors
            log.warning("placing a match on node %s failed (%r): creating it here", found[0], exc)
            return None
        if answer.status_code != 201:
            log.warning("placing a match on node %s was answered %d: creating it here", found[0], answer.status_code)
            return None
        self.sent.placed(found[0], now_ms())
        return answer.json()

    async def hand_over(self, bound: dict) -> str:
        """Put a proven binding in Redis for the node a create is passed on to; its name."""
        return await self.store.bindings.hand_over(bound)

    async def take_over(self, name: str) -> dict:
        """The binding a placing node handed over under `name`, taken once; BindingGone if
        there is none (taken already, expired, or never made)."""
        found = await self.store.bindings.take(name)
        if found is None:
            raise BindingGone(name)
        return found
