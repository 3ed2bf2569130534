"""One client's WebSocket, seen by the match actor as something to queue frames on.

The actor never awaits a socket: it appends encoded frames to the connection's outbox.
At the end of the event loop's turn one callback writes every outbox that has frames,
each in a single write (batched_ws.py), with no task per socket. Only when a socket
cannot take more (the client reads too slowly) does a writer task wait for it; and one
that falls too far behind is closed, so one slow client cannot stall a match.
"""

from __future__ import annotations

import asyncio
import time

from . import codec
from .batched_ws import SEND_BATCH

_dirty: list["Connection"] = []  # connections with frames to write at the end of this loop turn


def _flush_dirty() -> None:
    global _dirty
    batch, _dirty = _dirty, []
    for conn in batch:
        conn._flush()


class Connection:
    # Process-wide counters for /metrics: frames sent, and socket writes they took.
    frames_sent = 0
    writes = 0

    def __init__(self, scope: dict, send, wire: str, queue_limit: int):
        self.raw_send = send  # the ASGI send of this socket
        self.codec = wire
        self.binary = wire == codec.MSGPACK
        self.seat: str | None = None
        self.role: str | None = None
        self.batch = False  # the client asked for `batch` messages (docs/protocol-extensions.md)
        # The server's batch extension (batched_ws.py): write now, or send a batch later.
        extension = scope.get("extensions", {}).get(SEND_BATCH)
        self.write_now = extension.get("write_now") if extension else None
        self.outbox: list[bytes] = []
        self.queued = False  # on the dirty list for this loop turn
        self.writer: asyncio.Task | None = None  # only while waiting for a slow socket
        self.queue_limit = queue_limit
        self.closed = False
        self.close_code: int | None = None
        self.finished = asyncio.get_running_loop().create_future()  # set once the socket is closed

    @property
    def audience(self) -> str | None:
        """Whose copy of each event this socket receives: its seat, or None (the public copy)."""
        return self.seat

    def send(self, message: dict) -> None:
        self.send_frame(codec.encode(self.codec, message))

    def send_frame(self, frame: bytes) -> None:
        if self.closed:
            return
        if len(self.outbox) >= self.queue_limit:
            self.close(1008)  # too slow to keep up; it can reconnect and resume
            return
        self.outbox.append(frame)
        self._schedule()

    def close(self, code: int = 1000) -> None:
        """Close after what is already queued has been sent."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            self._schedule()

    def gone(self) -> None:
        """The client closed the socket: drop what is queued, there is nothing to close."""
        self.closed = True
        self.outbox = []
        if self.writer is not None:
            self.writer.cancel()
        if not self.finished.done():
            self.finished.set_result(None)

    def _schedule(self) -> None:
        if not self.queued:
            self.queued = True
            if not _dirty:
                asyncio.get_running_loop().call_soon(_flush_dirty)
            _dirty.append(self)

    def _flush(self) -> None:
        self.queued = False
        if self.writer is not None:  # a writer task is waiting on this socket: it takes the outbox
            return
        self.outbox = self._batched(self.outbox)
        if self.outbox and self.write_now is not None and self.write_now(self.outbox, self.binary):
            Connection.frames_sent += len(self.outbox)
            Connection.writes += 1
            self.outbox = []
        if self.outbox or (self.closed and not self.finished.done()):
            self.writer = asyncio.get_running_loop().create_task(self._write())

    def _batched(self, frames: list[bytes]) -> list[bytes]:
        """The frames as they go out: one `batch` message if the client asked for it."""
        return [codec.batch(self.codec, frames)] if self.batch and len(frames) > 1 else frames

    async def _write(self) -> None:
        """The slow path: wait for the socket as long as it takes, then close it if asked."""
        send = self.raw_send
        key = "bytes" if self.binary else "text"
        try:
            while self.outbox:
                batch, self.outbox = self._batched(self.outbox), []
                Connection.frames_sent += len(batch)
                if self.write_now is not None:
                    Connection.writes += 1
                    await send({"type": SEND_BATCH, "frames": batch, "binary": self.binary})
                    continue
                Connection.writes += len(batch)
                for frame in batch:
                    await send({"type": "websocket.send", key: frame if self.binary else frame.decode()})
            if self.closed:
                await send({"type": "websocket.close", "code": self.close_code or 1000})
        except Exception:  # the peer went away; the reader notices and cleans up
            self.closed = True
        finally:
            self.writer = None
            if self.closed and not self.finished.done():
                self.finished.set_result(None)
            elif self.outbox:
                self._schedule()


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
