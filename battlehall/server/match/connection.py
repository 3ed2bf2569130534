"""One client's WebSocket, seen by the match actor as something to queue frames on.

The actor never awaits a socket: it appends encoded frames to the connection's outbox.
At the end of the event loop's turn one callback writes every outbox that has frames,
each in a single write (websocket.py), with no task per socket. While a socket cannot
take more (the client reads too slowly), its frames wait for the transport to drain;
one that falls too far behind is closed, so one slow client cannot stall a match.

A resuming socket first gets its missed events from Redis, page by page at the pace it
reads them (history.py); meanwhile whatever else it is sent (live events, acks) is held
in order behind that history, counted against the same limit.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

from battlehall.server import codec
from battlehall.server.empty import EMPTY_LIST
from battlehall.server.metrics import counters
from battlehall.server.token_bucket import TokenBucket

if TYPE_CHECKING:  # the transport measures; a connection only carries its meter
    from battlehall.server.transport.lag import LagMeter

_dirty: list["Connection"] = []  # connections with frames to write at the end of this loop turn


def _flush_dirty() -> None:
    global _dirty
    batch, _dirty = _dirty, []
    for conn in batch:
        conn._flush()


class Socket(Protocol):
    """What a connection writes to: the transport's WebSocket (transport/websocket.py)."""

    @property
    def paused(self) -> bool: ...  # its buffer is full: `writable` is called when it drains

    def write_frames(self, frames: list[bytes], binary: bool) -> None: ...

    def close(self, code: int) -> None: ...


class Connection:
    # Slots, not an instance dict: one of these per open socket (so for RateLimiter and
    # ByteBudget), tens of thousands of them idle on a busy node.
    __slots__ = ("socket", "codec", "binary", "seat", "role", "batch", "outbox", "queued", "queue_limit", "closed",
                 "close_code", "held", "drain", "view_rate", "views", "viewer", "lag")

    def __init__(self, socket: Socket, wire: str, queue_limit: int, view_bytes_per_s: float = 0):
        self.socket = socket
        self.codec = wire
        self.binary = wire == codec.MSGPACK
        self.seat: str | None = None
        self.role: str | None = None
        self.batch = False  # the client asked for `batch` messages (docs/protocol.md, Batches)
        self.outbox: list[bytes] = EMPTY_LIST  # idle (empty.py): its own list from the first frame (`_enqueue`)
        self.queued = False  # on the dirty list for this loop turn
        self.queue_limit = queue_limit
        self.closed = False
        self.close_code: int | None = None
        self.held: list[bytes] | None = None  # while the history is sent: what must come after it
        self.drain: asyncio.Future | None = None  # `drained`'s, until the socket can take more
        self.view_rate = view_bytes_per_s
        # What this socket's `view` requests may have encoded: made by the first (`view_budget`),
        # as most sockets never send one. Made later it is the same: a bucket starts full.
        self.views: ByteBudget | None = None
        self.viewer: str | None = None  # who a spectator socket counts as (audience.viewer_of): set by its socket
        self.lag: LagMeter | None = None  # a player socket's measured round trip (lag.py): set when it joins

    def view_budget(self) -> ByteBudget:
        if self.views is None:
            self.views = ByteBudget(self.view_rate)
        return self.views

    @property
    def audience(self) -> str | None:
        """Whose copy of each event this socket receives: its seat, or None (the public copy)."""
        return self.seat

    def send(self, message: dict) -> int:
        """Queue `message`; the bytes it was encoded to."""
        if message["t"] == "error":  # every error a client gets passes here: count it by code
            errors = counters.errors
            errors[message["code"]] = errors.get(message["code"], 0) + 1
        frame = codec.encode(self.codec, message)
        self.send_frame(frame)
        return len(frame)

    def send_frame(self, frame: bytes) -> None:
        self.send_frames((frame,))

    def send_frames(self, frames: Sequence[bytes]) -> None:
        if self.closed:
            return
        held = self.held
        if held is not None:  # catching up: after the history
            if len(held) + len(frames) > self.queue_limit:
                self.discard()
                self.close(1008)
                return
            held += frames
            return
        if len(self.outbox) + len(frames) > self.queue_limit:  # too slow to keep up; it can reconnect and resume
            self.outbox = EMPTY_LIST
            self.close(1008)
            return
        self._enqueue(frames)

    # -- catching up: the history first, then everything held meanwhile ---------------

    def hold(self) -> None:
        """From now on, hold what is sent until `caught_up`: the history goes first."""
        self.held = []

    def send_history(self, frames: list[bytes]) -> None:
        """One page of the history, ahead of what is held (a page is bounded: no limit)."""
        if not self.closed:
            self._enqueue(frames)

    def caught_up(self) -> None:
        """The history is sent: what was held follows it."""
        held, self.held = self.held, None
        if held and not self.closed:
            self._enqueue(held)

    def drained(self) -> asyncio.Future:
        """Done once everything queued is handed to the socket and it can take more
        (its transport's buffer is under the low-water mark), or once it is closed."""
        future = asyncio.get_running_loop().create_future()
        if self.closed or (not self.outbox and not self.socket.paused):
            future.set_result(None)
        else:
            self._wake()
            self.drain = future
        return future

    def _wake(self) -> None:
        drain, self.drain = self.drain, None
        if drain is not None and not drain.done():
            drain.set_result(None)

    # -----------------------------------------------------------------------------------

    def close(self, code: int = 1000) -> None:
        """Close after what is already queued has been sent."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            self._schedule()
            self._wake()

    def discard(self) -> None:
        """Drop what is queued or held for the socket (refused, too slow or gone)."""
        self.held = None
        self.outbox = EMPTY_LIST

    def gone(self) -> None:
        """The socket is closed: drop what is queued, there is nobody to send it to."""
        self.closed = True
        self.close_code = None
        self.discard()
        self._wake()

    def writable(self) -> None:
        """The socket can take frames again."""
        if self.outbox or self.close_code is not None:
            self._schedule()
        elif self.drain is not None:
            self._wake()

    def _enqueue(self, frames: Sequence[bytes]) -> None:
        if self.outbox:
            self.outbox += frames
        else:  # the shared empty outbox is never added to: the socket gets its own
            self.outbox = list(frames)
        self._schedule()

    def _schedule(self) -> None:
        if not self.queued:
            self.queued = True
            if not _dirty:
                asyncio.get_running_loop().call_soon(_flush_dirty)
            _dirty.append(self)

    def _flush(self) -> None:
        self.queued = False
        socket = self.socket
        if socket.paused:  # its buffer is full: `writable` brings us back when it drains
            return
        if self.outbox:
            frames, self.outbox = self._batched(self.outbox), EMPTY_LIST
            counters.frames_sent += len(frames)
            counters.writes += 1
            socket.write_frames(frames, self.binary)
            if self.drain is not None and not socket.paused:
                self._wake()
        if self.close_code is not None:
            code, self.close_code = self.close_code, None
            socket.close(code)

    def _batched(self, frames: list[bytes]) -> list[bytes]:
        """The frames as they go out: one `batch` message if the client asked for it."""
        return [codec.batch(self.codec, frames)] if self.batch and len(frames) > 1 else frames


#: rate -> its burst, made once: every socket's bucket shares one float, not one each.
_BURSTS: dict[float, float] = {}


class RateLimiter(TokenBucket):
    """`rate` messages per second, bursts of twice that."""

    __slots__ = ("strikes",)

    def __init__(self, rate: float):
        burst = _BURSTS.get(rate)
        if burst is None:
            burst = _BURSTS[rate] = rate * 2
        super().__init__(rate, burst)
        self.strikes = 0  # consecutive refusals; a client that keeps flooding is closed

    def allow(self) -> bool:
        if self.take():
            self.strikes = 0
            return True
        self.strikes += 1
        return False


class ByteBudget(TokenBucket):
    """A token bucket in bytes: what a socket's `view` requests may make the server
    encode, `rate` bytes per second, bursts of four times that; rate 0: no cap.

    A request costs the size of its answer, known only once it is encoded: it is taken
    while the bucket holds anything and charged in full after, so the bucket may go
    below zero and stays shut until the rate has filled it again.
    """

    __slots__ = ()

    def __init__(self, rate: float):
        super().__init__(rate, rate * 4)

    def allow(self) -> bool:
        return not self.rate or self.refill() > 0

    def spend(self, size: int) -> None:
        self.tokens -= size
