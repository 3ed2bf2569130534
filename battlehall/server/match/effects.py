"""What a match's core returns (match_core.py): the effects its driver performs in order
(actor.py), and `refusal`, the one place that decides how a refused input is told."""

from __future__ import annotations

import builtins
from dataclasses import dataclass, field
from typing import Any

from battlehall.server import errors
from battlehall.server.errors import Fenced, NotHere, StoreUnavailable
from battlehall.server.match.inputs import (
    Abandon,
    Abort,
    Act,
    AutoPass,
    AwayDue,
    BotMove,
    Claim,
    Delete,
    Expire,
    HoldOver,
    Input,
    Join,
    Judge,
    Release,
    Resign,
    View,
)

RETRY_MS = 500  # a timeout that could not be recorded is tried again this much later

# -- effects -----------------------------------------------------------------------------
# Not frozen: the driver performs each at once, and an answer makes several, where a
# frozen dataclass costs about five times as much to build.

@dataclass(slots=True)
class Write:
    """Write these log entries (entry, its event records), in order, in one call; with
    the snapshot, and the match's end when `ends`. Feed back WriteDone or WriteFailed,
    in the order the writes were asked for. With `after`, the write goes out while the
    one before it is in flight: it must land only if the log ends with that seq's entry."""
    entries: tuple
    snapshot: dict | None
    ends: bool
    after: int | None = None


@dataclass(slots=True)
class Publish:
    """Send these event records to the match's live sockets; the entry (None for a
    rebuild's catch-up) goes to the delayed spectator stream."""
    records: list
    entry: dict | None


@dataclass(slots=True)
class Send:
    conn: Any
    message: dict


@dataclass(slots=True)
class ShowView:
    """Send a `view` message (its own effect: a view's cost is the viewer's to bear)."""
    conn: Any
    message: dict


@dataclass(slots=True)
class Ack:
    conn: Any
    id: str | int
    seq: int
    received: float
    # An answer's clock record (expiry.py), shown to its player with the ack; not part of
    # what the ack is (two acks of one act are the same ack).
    clock: dict | None = field(default=None, compare=False)


@dataclass(slots=True)
class Resolve:
    reply: Any
    value: Any


@dataclass(slots=True)
class Reject:
    reply: Any
    # Spelled through its module: a compiled dataclass (setup.py) looks a field's type up
    # among the module's globals, where a bare builtin name is not.
    error: builtins.BaseException


@dataclass(slots=True)
class Attach:
    """The socket (already sent its welcome at `seq`) gets the live events from now on;
    with `resume_after`, it is sent the events after that up to `seq` first."""
    conn: Any
    reply: Any
    resume_after: int | None
    seq: int


@dataclass(slots=True)
class AttachDelayed:
    """A spectator of a delayed match joins the delayed stream instead."""
    conn: Any
    reply: Any
    resume: int | None


@dataclass(slots=True)
class ViewDelayed:
    conn: Any


@dataclass(slots=True)
class Detach:
    conn: Any


@dataclass(slots=True)
class Arm:
    """Feed `Expire(prompt)` at `due` (epoch ms), if `MatchCore.wants(prompt, due)` then."""
    prompt: str
    due: int


@dataclass(slots=True)
class Think:
    """A bot plays `seat` and `prompt` is open for it: feed `BotMove(seat, prompt)` when
    its think time is over (the node paces bots: bot_turns.py)."""
    seat: str
    prompt: str


@dataclass(slots=True)
class Later:
    """Feed `input` again after `delay_ms`."""
    delay_ms: int
    input: Any


@dataclass(slots=True)
class Rebuild:
    """Load the match from Redis; feed back Rebuilt (with the records after `after_seq`)
    or RebuildFailed."""
    after_seq: int


@dataclass(slots=True)
class DeleteKeys:
    """Remove the match's keys; then resolve `reply` (True) or reject it."""
    reply: Any


@dataclass(slots=True)
class Ended:
    """The match's end is in Redis."""


@dataclass(slots=True)
class Lost:
    """A write was refused by the lease's fence: another node runs the match now."""


#: Every effect the core returns, for the driver to perform.
Effect = (Write | Publish | Send | ShowView | Ack | Resolve | Reject | Attach | AttachDelayed
          | ViewDelayed | Detach | Arm | Think | Later | Rebuild | DeleteKeys | Ended | Lost)


def refusal(event: Input, error: BaseException) -> list:
    """How the sender of `event` is told that it was refused with `error`: the one place
    that decides it."""
    if isinstance(event, (Act, Resign, Claim)):
        answer: errors.WireError
        if isinstance(error, Fenced):
            answer = NotHere(message="this node no longer runs the match; nothing was recorded")
        elif isinstance(error, StoreUnavailable):
            answer = errors.Unavailable("match storage is unreachable; nothing was recorded, try again")
        else:  # an engine error as its code, a bug as `internal`
            answer = errors.of(error)
        return [Send(event.conn, errors.ws_message(answer.answering(event.id)))]
    if isinstance(event, (Join, Abort, Judge, Abandon, Delete, Release)):
        return [Reject(event.reply, error)]
    if isinstance(event, View) and isinstance(error, StoreUnavailable) and not isinstance(error, Fenced):
        return [Send(event.conn, errors.ws_message(
            errors.Unavailable("match storage is unreachable; ask for the view again later")))]
    if isinstance(event, (Expire, AutoPass, HoldOver, BotMove, AwayDue)) and isinstance(error, StoreUnavailable) \
            and not isinstance(error, Fenced):
        return [Later(RETRY_MS, event)]  # still due: applied when Redis is back (if still open then)
    return []
