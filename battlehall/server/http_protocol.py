"""uvicorn's httptools HTTP protocol, handing game sockets to websocket.py.

Every connection to the port starts here. One whose first bytes ask for `/ws/...` is a
client's game socket: it goes to `WebSocket` (websocket.py) before uvicorn parses or
sets anything up for it. Everything else is uvicorn's, for the Starlette app. An
upgrade that arrives later on a kept-alive HTTP connection is handed over the same way,
with the request as httptools parsed it.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from .websocket import WebSocket

WS_PREFIX = b"GET /ws/"


class HttpProtocol(HttpToolsProtocol):
    def connection_made(self, transport) -> None:
        # uvicorn's own setup (addresses, flow control, the connection set) waits for the
        # first bytes: a game socket never needs it.
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.flow is None:  # the first bytes of this connection
            if data.startswith(WS_PREFIX) and self._hand_over(data):
                return
            super().connection_made(self.transport)
        super().data_received(data)

    def handle_websocket_upgrade(self) -> None:
        if self.url.startswith(WS_PREFIX[4:]):
            request = [b"GET ", self.url, b" HTTP/1.1\r\n"]  # as uvicorn rebuilds it for its own
            for name, value in self.scope["headers"]:
                request += [name, b": ", value, b"\r\n"]
            request.append(b"\r\n")
            if self._hand_over(b"".join(request)):
                return
        super().handle_websocket_upgrade()
        self.parser = None  # as uvicorn's connection_lost does: breaks the parser <-> protocol cycle

    def _hand_over(self, request: bytes) -> bool:
        """Give the socket to websocket.py with the bytes read so far; False if the app's
        lifespan has not made the `WebSockets` (another app, or not started)."""
        sockets = self.app_state.get("websockets")
        if sockets is None:
            return False
        self.connections.discard(self)  # the WebSocket takes this one's place in uvicorn's set
        self.parser = None  # breaks the parser <-> protocol cycle, as uvicorn's connection_lost does
        socket = WebSocket(sockets, self.connections)
        self.transport.set_protocol(socket)
        socket.connection_made(self.transport)
        socket.data_received(request)
        return True
