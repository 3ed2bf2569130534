"""uvicorn's sans-I/O WebSocket protocol, plus two ASGI extensions for a game server.

ASGI sends one WebSocket message per `send` call, and uvicorn writes each to the socket
with its own system call. An answer makes several frames for the same socket at once
(its events and its ack), and those system calls were the largest single cost of the
server under load. With the `battlehall.send_batch` extension the connection's writer
hands over all its queued frames together, and they go out in one write.

On the way in, ASGI puts each message on a queue for the app's task, and uvicorn stops
reading the socket until the app takes it: a task switch and two system calls per
message. With `battlehall.deliver_to`, the app names a function that is called with
each message as soon as it is parsed; `receive` then only brings the disconnect.

The extensions are advertised in the scope's `extensions`; with another uvicorn
WebSocket implementation they are absent, and the app uses plain ASGI.
"""

from __future__ import annotations

import logging
import struct

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.protocol import State

SEND_BATCH = "battlehall.send_batch"
DELIVER_TO = "battlehall.deliver_to"

# uvicorn and websockets log every WebSocket opened and closed at INFO; at hundreds of
# connections a second that was 3% of the server's CPU. They go to this child of
# uvicorn's logger, which `battlehall serve` shows only with --log-level debug.
connection_log = logging.getLogger("uvicorn.error.connections")


OP_TEXT, OP_BINARY = 0x1, 0x2


def frame_header(opcode: int, length: int) -> bytes:
    """The header of a final, unmasked frame (RFC 6455, 5.2): a server's frame when no
    extension is in use. websockets builds the same bytes through a general Frame object,
    at several times the cost; an answer sends a dozen frames."""
    if length < 126:
        return bytes((0x80 | opcode, length))
    if length < 65536:
        return struct.pack("!BBH", 0x80 | opcode, 126, length)
    return struct.pack("!BBQ", 0x80 | opcode, 127, length)


class BatchedWebSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.logger = connection_log
        self.conn.logger = connection_log
        self.receiver = None  # set by `deliver_to`

    def handle_connect(self, event) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the app task has not run yet: it will see the extensions
            scope["extensions"][SEND_BATCH] = {"write_now": self.write_now}
            scope["extensions"][DELIVER_TO] = {"deliver_to": self.deliver_to}

    def connection_lost(self, exc) -> None:
        super().connection_lost(exc)
        # The scope's extensions and the receiver hold bound methods of this protocol, and
        # the session holding them is reachable from it: a reference cycle per socket that
        # only the garbage collector would free (tens of milliseconds per collection).
        self.receiver = None
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"].pop(SEND_BATCH, None)
            scope["extensions"].pop(DELIVER_TO, None)

    def deliver_to(self, receiver) -> None:
        """From now on, call `receiver(data, is_text)` with each message, instead of queueing it."""
        self.receiver = receiver
        if self.read_paused:  # uvicorn paused reading until the app took a message; it need not wait now
            self.read_paused = False
            self.transport.resume_reading()

    def send_receive_event_to_app(self) -> None:
        if self.receiver is None:
            return super().send_receive_event_to_app()
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:
            return
        self.receiver(data, self.curr_msg_data_type == "text")

    def write_now(self, frames: list[bytes], binary: bool) -> bool:
        """Write the frames at once, without awaiting; False (nothing sent) if the socket
        cannot take them now: the caller then sends a `battlehall.send_batch` message,
        which waits for uvicorn's flow control like any send."""
        if (not self.writable.is_set() or self.disconnected or not self.handshake_complete
                or self.close_sent or self.initial_response is not None or self.conn.state is not State.OPEN):
            return False
        self.transport.write(self._wire(frames, binary))
        return True

    def _wire(self, frames: list[bytes], binary: bool) -> bytes:
        """The bytes of `frames` as WebSocket frames, on an open connection."""
        if self.conn.extensions:  # compression and the like: websockets frames them
            for frame in frames:
                if binary:
                    self.conn.send_binary(frame)
                else:
                    self.conn.send_text(frame)
            return b"".join(self.conn.data_to_send())
        opcode = OP_BINARY if binary else OP_TEXT
        parts = []
        for frame in frames:
            parts.append(frame_header(opcode, len(frame)))
            parts.append(frame)
        return b"".join(parts)

    async def send(self, message) -> None:
        if message["type"] != SEND_BATCH:
            return await super().send(message)
        await self.writable.wait()  # uvicorn's flow control, as for any send
        if self.disconnected:
            raise ClientDisconnected()
        if not self.handshake_complete or self.close_sent or self.initial_response is not None:
            raise RuntimeError(f"{SEND_BATCH} is only valid on an open, accepted WebSocket")
        if self.conn.state is not State.OPEN:  # closing: as websockets' own send would say
            raise ClientDisconnected()
        self.transport.write(self._wire(message["frames"], message["binary"]))
