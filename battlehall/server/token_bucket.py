"""The token bucket every rate of the server is kept with: a client's messages and view
bytes (match/connection.py), an address's creates (http/creation_limit.py), the node's bot
answers (match/bot_turns.py).

`rate` tokens a second flow in, up to `capacity`; it starts full. The time is
`time.monotonic()` unless a caller gives its own (`now`), as a test does.
"""

from __future__ import annotations

import time


class TokenBucket:
    # Slots, not an instance dict: one per open socket (two), one per address that creates.
    __slots__ = ("rate", "capacity", "tokens", "stamp")

    def __init__(self, rate: float, capacity: float, now: float | None = None):
        self.rate = rate
        self.capacity = capacity
        self.tokens = capacity
        self.stamp = time.monotonic() if now is None else now

    def refill(self, now: float | None = None) -> float:
        """What the bucket holds now, after what flowed in since the last look."""
        if now is None:
            now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        return self.tokens

    def take(self, now: float | None = None) -> bool:
        """Take a token if there is a whole one."""
        if self.refill(now) >= 1:
            self.tokens -= 1
            return True
        return False

    def wait_s(self) -> float:
        """Seconds from the last look until a whole token is in (0: one is)."""
        return max(0.0, (1 - self.tokens) / self.rate)
