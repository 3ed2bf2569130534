"""One client's WebSocket, seen by the match actor as something to queue frames on.

The actor never awaits a socket: it puts encoded frames on the connection's queue and
a writer task per connection sends them, so one slow client cannot stall a match.
"""

from __future__ import annotations

import asyncio
import time

from starlette.websockets import WebSocket

from . import codec
from .batched_ws import SEND_BATCH


class Connection:
    # Process-wide counters for /metrics: frames sent, and socket writes they took.
    frames_sent = 0
    writes = 0

    def __init__(self, websocket: WebSocket, wire: str, queue_limit: int, raw_send=None):
        self.websocket = websocket
        # The server's own ASGI send, when it takes whole batches of frames (batched_ws.py).
        self.batch_send = raw_send if SEND_BATCH in websocket.scope.get("extensions", {}) else None
        self.codec = wire
        self.seat: str | None = None
        self.role: str | None = None
        # A plain list and one future, not an asyncio.Queue: a Queue costs ~3 KiB per
        # socket and more CPU per frame, and the writer takes the whole backlog at once.
        self.outbox: list[bytes] = []
        self.wakeup: asyncio.Future | None = None
        self.queue_limit = queue_limit
        self.closed = False
        self.close_code: int | None = None
        self.writer = asyncio.get_running_loop().create_task(self._write())

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
        self._wake()

    def close(self, code: int = 1000) -> None:
        """Close after what is already queued has been sent."""
        if not self.closed:
            self.closed = True
            self.close_code = code
            self._wake()

    def _wake(self) -> None:
        if self.wakeup is not None and not self.wakeup.done():
            self.wakeup.set_result(None)

    async def _write(self) -> None:
        ws = self.websocket
        key = "bytes" if self.codec == codec.MSGPACK else "text"
        try:
            while True:
                if not self.outbox:
                    if self.closed:
                        await ws.close(self.close_code or 1000)
                        return
                    self.wakeup = asyncio.get_running_loop().create_future()
                    await self.wakeup
                    self.wakeup = None
                    continue
                batch, self.outbox = self.outbox, []
                Connection.frames_sent += len(batch)
                if self.batch_send is not None:
                    Connection.writes += 1
                    await self.batch_send({"type": SEND_BATCH, "frames": batch, "binary": key == "bytes"})
                    continue
                Connection.writes += len(batch)
                for frame in batch:
                    await ws.send({"type": "websocket.send", key: frame if key == "bytes" else frame.decode()})
        except Exception:  # the peer went away; the reader notices and cleans up
            self.closed = True


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
