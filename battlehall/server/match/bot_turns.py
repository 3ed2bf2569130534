"""When the server's bots answer: after a think time, never faster than the node allows,
and with the node's rate shared fairly between the players who wait on them.

A bot's answer is computed on the event loop, like every answer (match_core.py, `BotMove`).
So that bots can never starve a node, however many matches they play, this node lets at
most `per_s` bot answers through a second, over all its matches (a token bucket with a
tenth of a second's worth of burst). A bot answer costs the server from about 0.4 ms
(duel, spellfire) to about 2 ms (hourglass, demigod) of CPU, writing it included
(bench/bots.py), so the default 100 a second keeps bots to at most about a fifth of one
core, whatever they play.

Each turn also waits `think_ms` first, so that a bot's move is seen before the next comes
and a player has the time to follow it.

Past the rate, turns wait, and the wait is shared out rather than first come, first
served: one address that made a hundred bot matches would otherwise put a hundred turns
in front of every other player's one. Waiting turns are kept in lanes, and the lanes take
turns, one answer each, round robin:

- a match that some socket is on (a player, a spectator) waits in the lane of the address
  that made it (the match's meta `made_from`, recorded by POST /matches and POST
  /bot-matches, so it holds after a restart or a takeover); a match made without one
  (quick play, or before the field was recorded) is a lane of its own;
- every match nobody is on (all bots, or a player who never came or left: its seat is then
  the bot's) waits in one lane together, whoever made it: nobody waits on those answers,
  so together they get one lane's share when the rate is short, and what the others leave.

Within a lane the matches take turns the same way, and one match's turns go in the order
they came. So a turn waits at most about one answer per lane with turns waiting, plus its
own match's earlier turns, however many turns the other lanes hold. A match's lane is
decided when its turn's think time is over: a player who joins a match nobody was on gets
their lane from the next turn.
"""

from __future__ import annotations

import asyncio
import collections
from typing import Any, Protocol

from battlehall.server.token_bucket import TokenBucket

UNWATCHED = ""  # the lane of every match no socket is on (no address or match id is empty)


class Player(Protocol):
    """A match actor, as a bot's turn reaches it."""

    match_id: str

    def submit(self, event: Any) -> None: ...

    @property
    def made_from(self) -> str | None: ...  # the address that made the match, if known

    @property
    def watched(self) -> bool: ...  # some socket is on the match


def lane_of(player: Player) -> str:
    """The lane a match's turns wait in: who is waiting on them (see the module's docstring)."""
    if not player.watched:
        return UNWATCHED
    return player.made_from or player.match_id


class RoundRobin:
    """Keys taking turns, each with its items in order: `take` gives the oldest item of the
    first key in line, and that key goes back to the end of the line if it has more."""

    def __init__(self) -> None:
        # key -> its items, in line order. An OrderedDict: taking from the front of a plain
        # dict leaves holes that every later look for its first key walks over.
        self.line: collections.OrderedDict[Any, collections.deque] = collections.OrderedDict()
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def put(self, key: Any, item: Any) -> None:
        items = self.line.get(key)
        if items is None:  # a key with nothing waiting joins at the end of the line
            items = self.line[key] = collections.deque()
        items.append(item)
        self.count += 1

    def take(self) -> Any:
        """The oldest item of the first key in line."""
        key, items = self.line.popitem(last=False)
        item = items.popleft()
        if items:
            self.line[key] = items  # back in line, last
        self.count -= 1
        return item


class Lanes:
    """The waiting turns: the lanes round robin, and in each lane its matches round robin."""

    def __init__(self) -> None:
        self.line: collections.OrderedDict[str, RoundRobin] = collections.OrderedDict()  # lane -> its matches
        self.count = 0

    def __len__(self) -> int:
        return self.count

    def put(self, player: Player, move: Any) -> None:
        lane = lane_of(player)
        matches = self.line.get(lane)
        if matches is None:  # a lane with nothing waiting joins at the end of the line
            matches = self.line[lane] = RoundRobin()
        matches.put(player, (player, move))
        self.count += 1

    def take(self) -> tuple[Player, Any]:
        """The next turn to let through: (its match, its move)."""
        lane, matches = self.line.popitem(last=False)
        turn = matches.take()
        if matches:
            self.line[lane] = matches  # back in line, last; an empty lane is forgotten
        self.count -= 1
        return turn


class BotTurns:
    def __init__(self, think_ms: int, per_s: float):
        self.think_s = think_ms / 1000
        self.per_s = per_s  # 0: no limit
        self.burst = max(1.0, per_s / 10)
        self.bucket = TokenBucket(per_s, self.burst)
        self.waiting = Lanes()
        self.timer: asyncio.TimerHandle | None = None
        self.answered = 0  # turns let through (the metrics' bot answers, roughly: a turn may find its prompt gone)
        self.delayed = 0  # turns that had to wait for the node's rate

    def schedule(self, player: Player, move: Any) -> None:
        """Feed `move` to `player` once its think time is over and the node's rate allows."""
        asyncio.get_running_loop().call_later(self.think_s, self._due, player, move)

    def _due(self, player: Player, move: Any) -> None:
        if self.waiting or not self._take():  # turns wait already: this one takes its place among them
            self.delayed += 1
            self.waiting.put(player, move)
            self._wake_later()
            return
        self._let(player, move)

    def _let(self, player: Player, move: Any) -> None:
        self.answered += 1
        player.submit(move)

    def _take(self) -> bool:
        return not self.per_s or self.bucket.take()

    def _wake_later(self) -> None:
        if self.timer is None:
            wait_s = max(0.001, self.bucket.wait_s())
            self.timer = asyncio.get_running_loop().call_later(wait_s, self._release)

    def _release(self) -> None:
        self.timer = None
        while self.waiting and self._take():
            self._let(*self.waiting.take())
        if self.waiting:
            self._wake_later()
