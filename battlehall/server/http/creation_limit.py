"""How many matches one client address may create: a token bucket per address.

Each address may create `create_burst` matches at once, then `create_per_min` a minute
(one token back every 60 / `create_per_min` seconds); past that, `POST /matches` is
answered 429 `rate_limited` with `Retry-After`, and nothing is created. Requests that
carry the API key are not counted (operators and their tools create as they need).

The buckets are in the node's memory: each node counts the creates it receives. A create
that placement forwards from another node (match_routes.py) was counted there. Buckets that have
filled up again are forgotten, so memory stays bounded by the addresses of the last
`burst / rate` minutes.
"""

from __future__ import annotations

import math
import time

from battlehall.server import errors
from battlehall.server.token_bucket import TokenBucket

PRUNE_AT = 10_000  # addresses kept before the full buckets are dropped


class CreationLimit:
    def __init__(self, per_min: float, burst: int):
        self.rate = per_min / 60.0  # tokens per second
        self.burst = burst
        self.buckets: dict[str, TokenBucket] = {}

    def take(self, address: str) -> float:
        """Take a token for `address`: 0 when it may create now, else the seconds until it may."""
        if self.rate <= 0:
            return 0.0
        now = time.monotonic()
        bucket = self.buckets.get(address)
        if bucket is None:
            if len(self.buckets) >= PRUNE_AT:
                self._prune(now)
            bucket = self.buckets[address] = TokenBucket(self.rate, float(self.burst), now)
        return 0.0 if bucket.take(now) else bucket.wait_s()

    def spend(self, address: str | None, what: str) -> None:
        """Take a token for `address` (None: an unknown peer, never limited), or refuse with
        429 `rate_limited`: "this address has `what`: try again in N s"."""
        if address is None:
            return
        wait_s = self.take(address)
        if wait_s:
            raise errors.RateLimited(f"this address has {what}: try again in {retry_after(wait_s)} s",
                                     retry_after=retry_after(wait_s))

    def _prune(self, now: float) -> None:
        for address in [a for a, b in self.buckets.items() if b.refill(now) >= self.burst]:
            del self.buckets[address]


def retry_after(wait_s: float) -> int:
    """The `Retry-After` header: whole seconds, at least 1."""
    return max(1, math.ceil(wait_s))
