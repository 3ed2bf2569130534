"""Wrong API keys, counted per client address: past a few, the address must wait.

Without a count, a client could try thousands of keys a second. Each wrong key from an
address is remembered for `window_s`; once `max_failures` are remembered, every request
from that address to a route that checks the key is answered 429 `key_throttled` with
`Retry-After` until the oldest of them is forgotten. The right key is refused too while
throttled: were it let through, the answers would still tell a guesser which guess was
right, at full speed. A request with no `Authorization` header guesses nothing and is
not counted.

The memory is bounded: at most `max_failures` times per address, and addresses whose
failures are all forgotten are dropped whenever the table reaches `MAX_ADDRESSES`
(then, if need be, the addresses known longest).
"""

from __future__ import annotations

import collections
import math
import time

MAX_ADDRESSES = 10_000  # past this many, the addresses with nothing left to remember are dropped


class KeyGuard:
    def __init__(self, max_failures: int, window_s: float, clock=time.monotonic):
        self.max_failures = max_failures
        self.window_s = window_s
        self.clock = clock
        self.failures: dict[str, collections.deque[float]] = {}  # address -> when its keys were wrong, oldest first

    def retry_after(self, address: str | None) -> int | None:
        """Whole seconds until `address` may try a key again; None when it may now."""
        if address is None or not self.max_failures:
            return None
        times = self.failures.get(address)
        if times is None:
            return None
        now = self.clock()
        while times and times[0] <= now - self.window_s:
            times.popleft()
        if not times:
            del self.failures[address]
            return None
        if len(times) < self.max_failures:
            return None
        return max(1, math.ceil(times[0] + self.window_s - now))

    def failed(self, address: str | None) -> None:
        """A wrong key came from `address`."""
        if address is None or not self.max_failures:
            return
        times = self.failures.get(address)
        if times is None:
            if len(self.failures) >= MAX_ADDRESSES:
                self._forget_expired()
            times = self.failures[address] = collections.deque(maxlen=self.max_failures)
        times.append(self.clock())

    def _forget_expired(self) -> None:
        horizon = self.clock() - self.window_s
        for address in [a for a, times in self.failures.items() if times[-1] <= horizon]:
            del self.failures[address]
        while len(self.failures) >= MAX_ADDRESSES:  # all still fresh: the longest-known go first
            del self.failures[next(iter(self.failures))]
