"""uvicorn's httptools HTTP protocol, handing game sockets to websocket.py, within limits.

Every connection to the port starts here. One whose first bytes ask for `/ws/...` is a
client's game socket: it goes to `WebSocket` (websocket.py) before uvicorn parses or
sets anything up for it. Everything else is uvicorn's, for the Starlette app. An
upgrade that arrives later on a kept-alive HTTP connection is handed over the same way,
with the request as httptools parsed it.

The limits of limits.py are kept here, at the socket, before the app sees anything:
connections per address (counted from `connection_made` to `connection_lost`, or
handed over with the socket), the size of a request's head and body, and the time a
request may take to arrive in full; and the `Host:` names answered (hosts.py). The
app starts on a request only once its body is all in (at most `max_body_bytes`, which
the app would read whole anyway), so a refused or unfinished request never reaches it.

This class leans on undocumented members of uvicorn's: internals.py lists each one, and
tests/server/test_internals.py checks them against the uvicorn installed.
"""

from __future__ import annotations

import asyncio

import httptools
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from battlehall.server import errors
from battlehall.server.transport.hosts import HostCheck
from battlehall.server.transport.limits import Closing, Limits
from battlehall.server.transport.websocket import WebSocket

WS_PREFIX = b"GET /ws/"


class HttpProtocol(HttpToolsProtocol):
    # Per-connection state added to uvicorn's, as class defaults: nothing to set up for
    # the game sockets that leave on their first bytes.
    address: str | None = None  # counted under this address in `limits` until released
    timer: asyncio.TimerHandle | None = None  # the request arriving must be in by then
    in_head = True  # between requests, or reading a request line and headers
    head_bytes = 0  # read since the head being read began
    body_bytes = 0  # of the body being read
    held = None  # (cycle, app): a request whose body is still arriving; the app waits for it
    answering = None  # the cycle whose app was started last

    def __init__(self, *args, limits: Limits, hosts: HostCheck, **kwargs):
        super().__init__(*args, **kwargs)
        self.limits = limits
        self.hosts = hosts

    def connection_made(self, transport) -> None:
        # uvicorn's own setup (addresses, flow control, the connection set) waits for the
        # first bytes: a game socket never needs it.
        self.transport = transport
        limits = self.limits
        address = limits.address_of(transport)
        if address is not None:
            already = limits.admit(address)
            if already >= limits.max_per_address:
                if already >= 2 * limits.max_per_address:
                    transport.abort()  # not even worth an answer
                else:
                    transport.set_protocol(Closing(transport, limits.too_many(), limits, address))
                return
            self.address = address
        self.timer = self.loop.call_later(limits.request_timeout_s, self._timed_out)

    def connection_lost(self, exc) -> None:
        self._release()
        self.held = None
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.flow is None:  # the first bytes of this connection
            if data.startswith(WS_PREFIX) and self._hand_over(data):
                return
            super().connection_made(self.transport)
        # uvicorn's data_received, with the refusals of parser callbacks and the size of
        # a head that comes in several reads
        self._unset_keepalive_if_required()
        if self.in_head:
            self.head_bytes += len(data)
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
            return
        except httptools.HttpParserError as exc:
            if isinstance(exc.__context__, errors.WireError):  # a limit, raised by a parser callback
                self._refuse(exc.__context__)
            else:
                msg = "Invalid HTTP request received."
                self.logger.warning(msg)
                self.send_400_response(msg)
            return
        if self.in_head and self.head_bytes > self.limits.max_header_bytes:
            self._refuse(self.limits.header_too_large())

    # -- parser callbacks ----------------------------------------------------------------

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self.timer is None:  # a request begins on a kept-alive connection
            self.timer = self.loop.call_later(self.limits.request_timeout_s, self._timed_out)

    def on_headers_complete(self) -> None:
        limits = self.limits
        size, length, host = len(self.url), 0, None
        for name, value in self.headers:
            size += len(name) + len(value)
            if name == b"content-length":
                length = int(value)  # llhttp has checked it is a number
            elif name == b"host":
                host = value
        if size > limits.max_header_bytes:
            raise limits.header_too_large()
        if length > limits.max_body_bytes:  # refused before a byte of the body is read
            raise limits.too_large()
        if not self.hosts.allows(host):  # DNS rebinding (hosts.py); WebSocket upgrades included
            raise errors.HostNotAllowed()
        self.in_head = False
        self.body_bytes = 0
        super().on_headers_complete()

    def on_body(self, body: bytes) -> None:
        self.body_bytes += len(body)
        if self.body_bytes > self.limits.max_body_bytes:  # a chunked body, counted as it comes
            raise self.limits.too_large()
        held = self.held
        if held is not None and held[0] is self.cycle:
            self.cycle.body += body  # no app reads it yet: uvicorn's flow control has nothing to wait for
        else:
            super().on_body(body)

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self.in_head, self.head_bytes = True, 0
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        held = self.held
        if held is not None and held[0] is self.cycle:
            self.held = None
            self._start_asgi_task(*held)

    def _start_asgi_task(self, cycle, app) -> None:
        if cycle.more_body:  # the body is still arriving: on_message_complete starts the app
            if cycle.waiting_for_100_continue:  # uvicorn sends it when the app first reads
                self.transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                cycle.waiting_for_100_continue = False
            self.held = (cycle, app)
            return
        self.answering = cycle
        super()._start_asgi_task(cycle, app)

    # -- limits --------------------------------------------------------------------------

    def _timed_out(self) -> None:
        self.timer = None
        if self.transport.is_closing():
            return
        answering = self.answering
        if answering is not None and not answering.response_complete:
            # the server is still answering the request before: not the client's delay
            self.timer = self.loop.call_later(self.limits.request_timeout_s, self._timed_out)
            return
        self._refuse(self.limits.timeout())

    def _refuse(self, error: errors.WireError) -> None:
        """Answer a limit's error and close (limits.Closing); only close if a response
        is being written."""
        answering = self.answering
        if answering is not None and not answering.response_complete:
            self.transport.close()  # connection_lost tells the app
            return
        # No app is running on this connection (the one that answered last is done, the
        # request being read has not started one): nothing to tell it leaves.
        address, self.address = self.address, None
        self._release()
        self._unset_keepalive_if_required()
        self.connections.discard(self)
        self.held = None
        self._drop_parser()
        self.transport.set_protocol(Closing(self.transport, error, self.limits, address))

    def _drop_parser(self) -> None:
        """Break the parser <-> protocol cycle, as uvicorn's connection_lost does (and as it
        does, past its own annotation: the connection is done with its parser)."""
        self.parser = None  # type: ignore[assignment]  # uvicorn declares it never None

    def _release(self) -> None:
        """This protocol no longer owns the connection: stop its timer, give back its count."""
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        if self.address is not None:
            self.limits.release(self.address)
            self.address = None

    # -- handing WebSockets over ---------------------------------------------------------

    def handle_websocket_upgrade(self) -> None:
        if self.url.startswith(WS_PREFIX[4:]):
            request = [b"GET ", self.url, b" HTTP/1.1\r\n"]  # as uvicorn rebuilds it for its own
            for name, value in self.scope["headers"]:
                request += [name, b": ", value, b"\r\n"]
            request.append(b"\r\n")
            if self._hand_over(request=b"".join(request)):
                return
        # uvicorn's own WebSocket protocol (the app answers 403: it has no WebSocket
        # route) never tells this one it closed: it is not counted.
        self._release()
        super().handle_websocket_upgrade()
        self._drop_parser()

    def _hand_over(self, request: bytes) -> bool:
        """Give the socket to websocket.py with the bytes read so far; False if the app's
        lifespan has not made the `WebSockets` (another app, or not started)."""
        sockets = self.app_state.get("websockets")
        if sockets is None:
            return False
        self.connections.discard(self)  # the WebSocket takes this one's place in uvicorn's set
        self._drop_parser()
        address, self.address = self.address, None  # the socket gives it back when it closes
        self._release()
        socket = WebSocket(sockets, self.connections, self.limits, address)
        self.transport.set_protocol(socket)
        socket.connection_made(self.transport)
        socket.data_received(request)
        socket.await_upgrade()
        return True
