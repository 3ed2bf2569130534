"""What a match's core is given (match_core.py): typed, slotted inputs, each handled in
the order it came, with the time as a number.

This is the one vocabulary of a match: a socket's session, an operator's route and the
node's upkeep (abandon.py, drain.py, hub.py) build these inputs, and the actor (actor.py)
only carries them to the core; a mirror of a match another node runs (mirror.py) takes
`Join`, `View` and `Leave`. The driver's own inputs (deadlines, writes, rebuilds, bots)
are here too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from battlehall.server.errors import StoreUnavailable
from battlehall.server.match.match_state import MatchState

# -- inputs ------------------------------------------------------------------------------
# `conn` is whoever sent the input and gets the answer (a socket's Connection: its
# `seat`, `role` and `audience` are read); `reply` is an opaque handle the driver
# resolves (a future). The core only hands them back in effects.

@dataclass(slots=True)  # not frozen, as the effects: one per answer, and frozen costs 5 times to build
class Act:
    """A seat's answer to a prompt; `received` (monotonic s) is for the ack latency metric."""
    conn: Any
    seat: str
    id: str | int
    prompt: str
    option: str
    args: dict
    received: float = 0.0


@dataclass(frozen=True, slots=True)
class SetStops:
    """A seat sets which window prompts it is asked (stops.py); the rest are passed for it."""
    conn: Any
    seat: str
    mode: str


@dataclass(frozen=True, slots=True)
class Lag:
    """A player's socket measured its round trip again (transport/lag.py): `ms`, 0 when
    it has no measure; its seat's late answers may be credited it (lag_credit.py)."""
    conn: Any
    ms: int


@dataclass(frozen=True, slots=True)
class AutoPass:
    """Pass `prompt` for its seat, if it is still open and the seat's stops still say so."""
    seat: str
    prompt: str


@dataclass(frozen=True, slots=True)
class HoldOver:
    """The windows' minimum time that ends at `due` (epoch ms) is up: the answers held
    for it are handled now (`MatchCore._hold_over`)."""
    due: int


@dataclass(frozen=True, slots=True)
class Resign:
    """A seat gives up: a `{"resign": seat}` entry, written and acknowledged like an answer
    (its `id` deduplicates a re-sent resign as an act's does)."""
    conn: Any
    seat: str
    id: str | int
    received: float = 0.0


@dataclass(frozen=True, slots=True)
class Claim:
    """A seat claims the win over the seats marked away (a match created with
    `"when_away": "claim"`): each is resigned, `{"resign": seat}` entries written and
    acknowledged like an answer."""
    conn: Any
    seat: str
    id: str | int
    received: float = 0.0


@dataclass(frozen=True, slots=True)
class BotMove:
    """A bot's think time for `prompt` is over: it answers for `seat`, if the prompt is
    still open and the seat still the bot's."""
    seat: str
    prompt: str


@dataclass(frozen=True, slots=True)
class Expire:
    """A prompt's deadline has come: apply its default if it is really due."""
    prompt: str


@dataclass(frozen=True, slots=True)
class AwayDue:
    """The seat may be due to be marked away (its grace without a socket ran out, or it let
    too many prompts time out): marked if it is. Also what an away or back entry answers to."""
    seat: str


@dataclass(frozen=True, slots=True)
class Join:
    """A socket joins: a welcome at the current seq, then the live events after it."""
    conn: Any
    resume: int | None
    reply: Any


@dataclass(frozen=True, slots=True)
class View:
    conn: Any


@dataclass(frozen=True, slots=True)
class Leave:
    conn: Any


@dataclass(frozen=True, slots=True)
class Abort:
    """An operator ends the match: a log entry like an answer, in order with them. A
    judge's rewind ends it as `judge_rewind`, naming the match that goes on (rewind.py),
    who did it and why; a judge's ruling as `judge_ruling` or `judge_void`, with the ruling
    and its seat."""
    reply: Any
    reason: str | None = None
    rewound_to: str | None = None
    by: str | None = None  # the judge
    note: str | None = None
    ruling: str | None = None  # a judge's ruling ("game_loss" | "game_win" | "void": engine/rulings.py)
    seat: str | None = None  # the seat a game loss or win is awarded to

    def entry(self, at: int) -> dict:
        """Its log entry: an abort, with what a judge's rewind or ruling adds to it."""
        given = {"reason": self.reason, "rewound_to": self.rewound_to, "by": self.by, "note": self.note,
                 "ruling": self.ruling, "seat": self.seat}
        return {"at": at, "abort": True, **{name: value for name, value in given.items() if value is not None}}


@dataclass(frozen=True, slots=True)
class Judge:
    """An operator (or judge) acts on the match's clocks: `action` is a judge entry's
    `{"action": "pause" | "resume" | "add_time", "by", "seat"?, "ms"?}`, logged like an
    answer; `reply` gets True once it is written (judging.py)."""
    reply: Any
    action: dict


@dataclass(frozen=True, slots=True)
class Abandon:
    """End the match with `reason` if nothing touched it since `idle_before` (epoch ms) and
    no socket is on it: recorded like an abort; `reply` gets True, or False if it was
    touched or watched meanwhile."""
    reply: Any
    idle_before: int
    reason: str


@dataclass(frozen=True, slots=True)
class Delete:
    """An operator removes an ended match's keys, after its last write."""
    reply: Any


@dataclass(frozen=True, slots=True)
class Release:
    """A drain: nothing more is written here; the match is handed on."""
    reply: Any


@dataclass(frozen=True, slots=True)
class WriteDone:
    """The last `Write` is in Redis."""


@dataclass(frozen=True, slots=True)
class WriteFailed:
    """The last `Write` is not known to have landed (`Fenced`: the lease is another node's)."""
    error: StoreUnavailable


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """The match as Redis has it, and the event records after `Rebuild.after_seq` (a write
    that landed though its reply was lost)."""
    match: MatchState
    missed: list


@dataclass(frozen=True, slots=True)
class RebuildFailed:
    pass


Input = (Act | Lag | AutoPass | HoldOver | BotMove | SetStops | Resign | Claim | Expire | AwayDue | Join | View | Leave
         | Abort | Judge | Abandon | Delete | Release)
#: What the driver tells the core of its own I/O: how a write or a rebuild's reads ended.
Outcome = WriteDone | WriteFailed | Rebuilt | RebuildFailed
BATCHED = (Act, AutoPass, HoldOver, BotMove, Resign, Claim, Expire, AwayDue, Abort, Judge, Abandon)  # inputs that may join a write in preparation


#: What a `Join`'s reply gives a socket that resumes from before the match's seq (None
#: otherwise): how each missed event record becomes its message, the seq it saw, the
#: seq it is sent up to (history.stream).
CatchUp = tuple[Callable[[dict], dict], int, int]


class Receiver(Protocol):
    """A match as a session sees it: its actor, or a mirror of it."""

    match_id: str

    def submit(self, event: Input) -> None: ...
