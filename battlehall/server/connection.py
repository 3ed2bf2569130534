"""One client's WebSocket, seen by the match actor as something to queue frames on.

The actor never awaits a socket: it appends encoded frames to the connection's outbox.
At the end of the event loop's turn one callback writes every outbox that has frames,
each in a single write (websocket.py), with no task per socket. While a socket cannot
take more (the client reads too slowly), its frames wait for the transport to drain;
one that falls too far behind is closed, so one slow client cannot stall a match.
"""

from __future__ import annotations

import asyncio
import time

from . import codec

_dirty: list["Connection"] = []  # connections with frames to write at the end of this loop turn


def _flush_dirty() -> None:
    global _dirty
    batch, _dirty = _dirty, []
    for conn in batch:
        conn._flush()


class Counters:
    """Process-wide counters for /metrics: frames sent, and the socket writes they took.

    On an instance, not the class: assigning a class attribute invalidates the type's
    attribute caches, which made every `Connection` attribute read 2.5 times slower.
    """

    def __init__(self):
        self.frames_sent = 0
        self.writes = 0
        self.errors: dict[str, int] = {}  # error messages sent, by code


counters = Counters()


class Connection:

    def __init__(self, socket, wire: str, queue_limit: int):
        self.socket = socket  # websocket.WebSocket: write_frames, close, paused
        self.codec = wire
        self.binary = wire == codec.MSGPACK
        self.seat: str | None = None
        self.role: str | None = None
        self.batch = False  # the client asked for `batch` messages (docs/protocol-extensions.md)
        self.outbox: list[bytes] = []
        self.queued = False  # on the dirty list for this loop turn
        self.queue_limit = queue_limit
        self.closed = False
        self.close_code: int | None = None

    @property
    def audience(self) -> str | None:
        """Whose copy of each event this socket receives: its seat, or None (the public copy)."""
        return self.seat

    def send(self, message: dict) -> None:
        if message["t"] == "error":  # every error a client gets passes here: count it by code
            errors = counters.errors
            errors[message["code"]] = errors.get(message["code"], 0) + 1
        self.send_frame(codec.encode(self.codec, message))

    def send_frame(self, frame: bytes) -> None:
        self.send_frames((frame,))

    def send_frames(self, frames) -> None:
        if self.closed:
            return
        if len(self.outbox) + len(frames) > self.queue_limit:  # too slow to keep up; it can reconnect and resume
            self.outbox = []
            self.close(1008)
            return
        self.outbox += frames
        self._schedule()

    def close(self, code: int = 1000) -> None:
        """Close after what is already queued has been sent."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            self._schedule()

    def gone(self) -> None:
        """The socket is closed: drop what is queued, there is nobody to send it to."""
        self.closed = True
        self.close_code = None
        self.outbox = []

    def writable(self) -> None:
        """The socket can take frames again."""
        if self.outbox or self.close_code is not None:
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
            frames, self.outbox = self._batched(self.outbox), []
            counters.frames_sent += len(frames)
            counters.writes += 1
            socket.write_frames(frames, self.binary)
        if self.close_code is not None:
            code, self.close_code = self.close_code, None
            socket.close(code)

    def _batched(self, frames: list[bytes]) -> list[bytes]:
        """The frames as they go out: one `batch` message if the client asked for it."""
        return [codec.batch(self.codec, frames)] if self.batch and len(frames) > 1 else frames


class RateLimiter:
    """A token bucket: `rate` messages per second, bursts of twice that."""

    def __init__(self, rate: float):
        self.rate = rate
        self.capacity = rate * 2
        self.tokens = self.capacity
        self.stamp = time.monotonic()
        self.strikes = 0  # consecutive refusals; a client that keeps flooding is closed

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            self.strikes = 0
            return True
        self.strikes += 1
        return False
