"""uvicorn's sans-I/O WebSocket protocol, plus one ASGI extension: a batch of frames.

ASGI sends one WebSocket message per `send` call, and uvicorn writes each to the socket
with its own system call. An answer makes several frames for the same socket at once
(its events and its ack), and those system calls were the largest single cost of the
server under load. With the `battlehall.send_batch` extension the connection's writer
hands over all its queued frames together, and they go out in one write.

The extension is advertised in the scope's `extensions`; with another uvicorn WebSocket
implementation it is absent and the writer sends frame by frame, as plain ASGI.
"""

from __future__ import annotations

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.protocol import State

SEND_BATCH = "battlehall.send_batch"


class BatchedWebSocketProtocol(WebSocketsSansIOProtocol):
    def handle_connect(self, event) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:  # the app task has not run yet: it will see the extension
            scope["extensions"][SEND_BATCH] = {"write_now": self.write_now}

    def write_now(self, frames: list[bytes], binary: bool) -> bool:
        """Write the frames at once, without awaiting; False (nothing sent) if the socket
        cannot take them now: the caller then sends a `battlehall.send_batch` message,
        which waits for uvicorn's flow control like any send."""
        if (not self.writable.is_set() or self.disconnected or not self.handshake_complete
                or self.close_sent or self.initial_response is not None or self.conn.state is not State.OPEN):
            return False
        for frame in frames:
            if binary:
                self.conn.send_binary(frame)
            else:
                self.conn.send_text(frame)
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True

    async def send(self, message) -> None:
        if message["type"] != SEND_BATCH:
            return await super().send(message)
        await self.writable.wait()  # uvicorn's flow control, as for any send
        if self.disconnected:
            raise ClientDisconnected()
        if not self.handshake_complete or self.close_sent or self.initial_response is not None:
            raise RuntimeError(f"{SEND_BATCH} is only valid on an open, accepted WebSocket")
        try:
            for frame in message["frames"]:
                if message["binary"]:
                    self.conn.send_binary(frame)
                else:
                    self.conn.send_text(frame)
        except InvalidState:
            raise ClientDisconnected() from None
        self.transport.write(b"".join(self.conn.data_to_send()))
