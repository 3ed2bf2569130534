"""When the server's bots answer: after a think time, and never faster than the node allows.

A bot's answer is computed on the event loop, like every answer (match_core.py, `BotMove`).
So that bots can never starve a node, however many matches they play, this node lets at
most `per_s` bot answers through a second, over all its matches (a token bucket with a
tenth of a second's worth of burst); the others wait their turn, in order. A bot answer
costs the server from about 0.4 ms (duel, spellfire) to about 2 ms (hourglass, demigod)
of CPU, writing it included (bench/bots.py), so the default 100 a second keeps bots to
at most about a fifth of one core, whatever they play.

Each turn also waits `think_ms` first, so that a bot's move is seen before the next comes
and a player has the time to follow it.
"""

from __future__ import annotations

import asyncio
import collections
import time
from typing import Any, Protocol


class Player(Protocol):
    """A match actor, as a bot's turn reaches it."""

    def feed_input(self, event: Any) -> None: ...


class BotTurns:
    def __init__(self, think_ms: int, per_s: float):
        self.think_s = think_ms / 1000
        self.per_s = per_s  # 0: no limit
        self.burst = max(1.0, per_s / 10)
        self.tokens = self.burst
        self.stamp = time.monotonic()
        self.waiting: collections.deque[tuple[Player, Any]] = collections.deque()
        self.timer: asyncio.TimerHandle | None = None
        self.answered = 0  # turns let through (the metrics' bot answers, roughly: a turn may find its prompt gone)
        self.delayed = 0  # turns that had to wait for the node's rate

    def schedule(self, player: Player, move: Any) -> None:
        """Feed `move` to `player` once its think time is over and the node's rate allows."""
        asyncio.get_running_loop().call_later(self.think_s, self._due, player, move)

    def _due(self, player: Player, move: Any) -> None:
        if self.waiting or not self._take():
            self.delayed += 1
            self.waiting.append((player, move))
            self._wake_later()
            return
        self._let(player, move)

    def _let(self, player: Player, move: Any) -> None:
        self.answered += 1
        player.feed_input(move)

    def _take(self) -> bool:
        if not self.per_s:
            return True
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.per_s)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def _wake_later(self) -> None:
        if self.timer is None:
            wait_s = max(0.001, (1 - self.tokens) / self.per_s)
            self.timer = asyncio.get_running_loop().call_later(wait_s, self._release)

    def _release(self) -> None:
        self.timer = None
        while self.waiting and self._take():
            self._let(*self.waiting.popleft())
        if self.waiting:
            self._wake_later()
