"""uvicorn's httptools HTTP protocol, without a reference cycle per WebSocket.

The protocol's parser calls back into the protocol, so each keeps the other alive.
uvicorn breaks that cycle when an HTTP connection is lost, but not when the connection
is upgraded to a WebSocket: then the HTTP protocol object, its parser, transport
wrapper and flow control (some 25 objects) wait for the garbage collector. With
hundreds of new WebSockets a second, that was most of what each collection (tens of
milliseconds, stalling every match) had to free.
"""

from __future__ import annotations

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol


class HttpProtocol(HttpToolsProtocol):
    def handle_websocket_upgrade(self) -> None:
        super().handle_websocket_upgrade()
        self.parser = None  # as uvicorn's connection_lost does; the WebSocket protocol has the socket now
