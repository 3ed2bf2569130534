"""What is submitted to a match: by its sockets' sessions (session.py), by operators and
the node's own upkeep (hub.py, abandon.py, drain.py).

The receiver is the match's actor (actor.py), which maps each message to an input of its
sans-I/O core (match_core.py), adding what the core needs beyond the message (the seat,
the time it came); or, for spectators of a match another node runs, its mirror
(mirror.py), which takes `Join`, `View` and `Leave` only.

`conn` is the sender's Connection; `reply` a future the receiver resolves once the
message has been handled. Slotted and not frozen: an `Act` is made for every answer,
and a frozen dataclass costs several times as much to build.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

#: What a `Join`'s reply gives a socket that resumes from before the match's seq (None
#: otherwise): how each missed event record becomes its message, the seq it saw, the
#: seq it is sent up to (history.stream).
CatchUp = tuple[Callable[[dict], dict], int, int]


@dataclass(slots=True)
class Act:
    """A seat's answer: the `act` message as decoded and checked by the session."""
    conn: Any
    message: dict


@dataclass(slots=True)
class Stops:
    """A seat sets its stops (stops.py): one of `stops.MODES`."""
    conn: Any
    mode: str


@dataclass(slots=True)
class Resign:
    conn: Any
    id: str | int


@dataclass(slots=True)
class ClaimWin:
    """A seat claims the win over the seats marked away."""
    conn: Any
    id: str | int


@dataclass(slots=True)
class Join:
    """A socket joins: its welcome, then the live events (with `resume`, those it missed first)."""
    conn: Any
    resume: int | None
    reply: Any


@dataclass(slots=True)
class View:
    conn: Any


@dataclass(slots=True)
class Leave:
    conn: Any


@dataclass(slots=True)
class Abort:
    """An operator ends the match."""
    reply: Any


@dataclass(slots=True)
class Delete:
    """An operator removes an ended match, after its last write."""
    reply: Any


@dataclass(slots=True)
class Release:
    """A drain hands the match on, after its last write."""
    reply: Any


@dataclass(slots=True)
class Abandon:
    """End the match as abandoned if nothing touched it since `idle_before` (epoch ms)."""
    reply: Any
    idle_before: int


Message = Act | Stops | Resign | ClaimWin | Join | View | Leave | Abort | Delete | Release | Abandon


class Receiver(Protocol):
    """A match as a session sees it: its actor, or a mirror of it."""

    def submit(self, message: Message) -> None: ...
