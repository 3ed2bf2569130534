"""A client's WebSocket: websockets' sans-I/O protocol under a thin asyncio layer.

uvicorn's WebSocket protocols speak ASGI: a scope built from the headers, a task per
socket for the app, a queue between them, a ping timer per socket. Opening a socket
that way cost about twice what the WebSocket handshake itself does, and matches open
four sockets each (bench/RESULTS.md). So `/ws/{match_id}` sockets are served here:
websockets' `ServerProtocol` parses and frames, this protocol moves bytes between it
and the transport, and messages go straight to the socket's `Session`. HTTP on the same
port stays with uvicorn and the Starlette app; `http_protocol.py` hands the sockets over.

The session sees the socket through `Connection` (connection.py), which calls
`write_frames` and `close` here. The few undocumented attributes of websockets' it reads
are listed in internals.py, and checked by tests/server/test_internals.py.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import re
import time
from typing import cast

from websockets.frames import CloseCode, Frame, Opcode, apply_mask
from websockets.http11 import Request
from websockets.protocol import State
from websockets.server import ServerProtocol

from battlehall.server import codec, errors
from battlehall.server.match.connection import Connection, RateLimiter
from battlehall.server.node.audience import viewer_of
from battlehall.server.transport.frames import (
    DATA_OPCODES,
    NO_HEADERS,
    OP_BINARY,
    OP_TEXT,
    between_frames,
    frame_header,
    parser_for_frames,
    read_frames_only,
    release_parser,
)
from battlehall.server.transport.hosts import HostCheck
from battlehall.server.transport.lag import kernel_round_trip_ms
from battlehall.server.transport.limits import Closing, Limits, peer_address
from battlehall.server.transport.session import Session

WS_PATH = re.compile(r"/ws/([^/?]+)(?:\?.*)?")
CLOSE_TIMEOUT_S = 5.0  # how long a closing handshake may take before the socket is dropped
PING_INTERVAL_S = 20.0
# The sweep pings one slice of the sockets per tick, not all of them at once: pinging
# 4,000 sockets in one go stalled the loop for ~50-100 ms, which every answer waiting
# behind it paid (the ack p99 at 1,000 matches, bench/RESULTS.md).
PING_SLICES = 20

# Every socket opened and closed is logged at debug only: at hundreds a second, INFO
# lines were 3% of the server's CPU. `battlehall serve --log-level debug` shows them.
connection_log = logging.getLogger("battlehall.connections")

# The first byte of a final text or binary frame, or a pong, with no RSV bit set: what
# `_common_frames` reads itself.
FIN_TEXT, FIN_BINARY, FIN_PONG = 0x81, 0x82, 0x8A


class WebSockets:
    """The open sockets of this server, the hub they play on, and the keep-alive pings."""

    def __init__(self, hub, settings):
        self.hub = hub
        self.settings = settings
        self.hosts = HostCheck.of(settings)  # the upgrade's Host: hosts.py
        # the open sockets, dealt round-robin into the keep-alive's slices
        self.slices: list[set[WebSocket]] = [set() for _ in range(PING_SLICES)]
        self.opened = 0
        self.pinger: asyncio.Task | None = None
        # Where a socket comes from a proxy: its kernel round trip is the proxy's (lag.py).
        self.lag_proxies = [ipaddress.ip_network(name, strict=False) for name in settings.lag_proxies]

    def start(self) -> None:
        self.pinger = asyncio.get_running_loop().create_task(self._keep_alive())

    def add(self, socket: WebSocket) -> set[WebSocket]:
        """Count `socket` in; returns the slice it is pinged with."""
        ping_slice = self.slices[self.opened % PING_SLICES]
        self.opened += 1
        ping_slice.add(socket)
        self.hub.metrics.connections += 1
        return ping_slice

    def remove(self, socket: WebSocket) -> None:
        """Count `socket` out (it is closed)."""
        socket.ping_slice.discard(socket)
        self.hub.metrics.connections -= 1

    def kernel_bound(self, transport: asyncio.Transport) -> int | None:
        """The kernel's bound on a socket's round trip (lag.py), None from a proxy."""
        address = peer_address(transport)
        if address is None:
            return None  # not TCP (a Unix socket's peer is a local proxy)
        try:
            peer = ipaddress.ip_address(address)
        except ValueError:
            return None
        if any(peer in network for network in self.lag_proxies):
            return None
        return kernel_round_trip_ms(transport.get_extra_info("socket"))

    def __iter__(self):
        return (socket for ping_slice in self.slices for socket in list(ping_slice))

    async def _keep_alive(self, interval: float = PING_INTERVAL_S) -> None:
        """Ping every socket each interval; drop one that sent nothing since its last ping
        (docs/protocol.md, Keep-alive). One sweep for all sockets, not a timer each, spread
        over the interval one slice at a time."""
        tick = 0
        while True:
            await asyncio.sleep(interval / PING_SLICES)
            self.ping(self.slices[tick % PING_SLICES])
            tick += 1

    @staticmethod
    def ping(ping_slice: set[WebSocket]) -> None:
        for socket in list(ping_slice):
            socket.keep_alive()

    def close(self) -> None:
        if self.pinger is not None:
            self.pinger.cancel()
        for socket in list(self):
            socket.shutdown()


class WebSocket(asyncio.Protocol):
    # Slots, not an instance dict: one of these per open socket, tens of thousands idle.
    __slots__ = ("sockets", "server_connections", "limits", "address", "upgrade_timer", "upgrade_bytes", "max_size",
                 "protocol", "transport", "session", "conn", "paused", "heard", "fragments", "text", "close_timer",
                 "ping_slice", "at_frame")

    def __init__(self, sockets: WebSockets, server_connections: set, limits: Limits, address: str | None):
        self.sockets = sockets
        # uvicorn's set of open connections: it calls `shutdown` on each when it stops.
        self.server_connections = server_connections
        self.limits = limits
        self.address = address  # counted under it in `limits` (http_protocol.py) until closed
        self.upgrade_timer: asyncio.TimerHandle | None = None  # while the upgrade request arrives
        self.upgrade_bytes = 0  # received before the upgrade was answered
        self.max_size = sockets.settings.max_frame_bytes  # of a message
        self.protocol = ServerProtocol(max_size=self.max_size, logger=connection_log)
        self.transport: asyncio.Transport  # connection_made's, before anything else reads it
        self.session: Session | None = None
        self.conn: Connection | None = None
        self.paused = False  # the transport's buffer is full: hold frames until it drains
        self.heard = True  # anything received since the last keep-alive ping
        self.fragments: list[bytes] | tuple[()] = ()  # of a message sent in several frames
        self.text = False  # ... and whether it is a text message
        self.close_timer: asyncio.TimerHandle | None = None
        self.ping_slice: set[WebSocket] = set()  # WebSockets.add's, once connected
        # Whether the next bytes start a frame that `_common_frames` may read: open, no
        # fragmented message under way, websockets' parser between frames.
        self.at_frame = False

    # -- asyncio.Protocol ----------------------------------------------------------------

    def connection_made(self, transport) -> None:
        self.transport = transport
        self.ping_slice = self.sockets.add(self)
        self.server_connections.add(self)

    def data_received(self, data: bytes) -> None:
        self.heard = True
        if self.at_frame:
            data = self._common_frames(data)
            if not data:
                return
        protocol = self.protocol
        if self.conn is None and protocol.state is State.CONNECTING:
            self.upgrade_bytes += len(data)
            if self.upgrade_bytes > self.limits.max_header_bytes:
                self._refuse(self.limits.header_too_large())
                return
        parser_for_frames(protocol)  # let go while idle (frames.release_parser)
        protocol.receive_data(data)
        quiet = protocol.state is State.OPEN  # nothing for websockets to answer, as a rule
        for event in protocol.events_received():
            if type(event) is Frame:
                if event.opcode in DATA_OPCODES:
                    self._data(event)
                else:  # PING, PONG, CLOSE: websockets has queued what answers them
                    if event.opcode is Opcode.PONG:
                        self._pong(cast(bytes, event.data))
                    quiet = False
            elif isinstance(event, Request):  # the upgrade request (a server protocol gets no Response)
                answered = self._handshake(event)
                event.headers = NO_HEADERS  # read: let them go (NO_HEADERS says why)
                if not answered:
                    return  # refused: the socket is another protocol's now
        if not quiet or protocol.parser_exc is not None:
            self._send_data()  # pongs, the answer to a close, a close for a protocol error
            if protocol.close_expected():
                self._expect_close()
        self.at_frame = (protocol.state is State.OPEN and not self.fragments and not protocol.debug
                         and between_frames(protocol))
        if self.at_frame:  # the fast path reads the next frames: websockets' parser is made again if it must
            release_parser(protocol)

    def _common_frames(self, data: bytes) -> bytes:
        """Read the common frames at the start of `data` without websockets' parser; return
        the rest, from the first frame that needs it, for websockets to read.

        The common frames: a whole message in one final text or binary frame, masked, no
        RSV bit, within the size limit, and pongs. websockets would read them the same
        way (and keep no state for them), through a generator per frame and per read,
        which made it a tenth of the server's work per answer (bench/RESULTS.md).
        Anything else, an incomplete frame included, goes to websockets, which answers
        pings and closes, and rejects what is malformed.
        """
        end, size, limit = 0, len(data), self.max_size
        while end + 6 <= size and self.protocol.state is State.OPEN:
            first, second = data[end], data[end + 1]
            length = second & 0x7F
            if first not in (FIN_TEXT, FIN_BINARY, FIN_PONG) or not second & 0x80 or length == 127:
                break
            start = end + 2
            if length == 126:
                length = int.from_bytes(data[start:start + 2], "big")
                start += 2
            if start + 4 + length > size or (limit is not None and length > limit) \
                    or (first == FIN_PONG and length > 125):
                break
            payload = apply_mask(data[start + 4:start + 4 + length], data[start:start + 4])
            end = start + 4 + length
            if first != FIN_PONG:
                self._message(payload, first == FIN_TEXT)
            else:
                self._pong(payload)
        return data[end:] if end else data

    def eof_received(self) -> None:
        parser_for_frames(self.protocol)
        self.protocol.receive_eof()
        self._send_data()
        # returning None closes the transport: after EOF there is nothing left to say

    def connection_lost(self, exc) -> None:
        parser_for_frames(self.protocol)
        self.protocol.receive_eof()  # idempotent: the protocol is CLOSED now
        # websockets' parser is a generator holding its protocol, and after an abrupt close
        # the protocol holds the parser's exception, whose traceback holds the parser: a
        # cycle the collector had to find, for every such socket. There is nothing more to
        # parse; closing the generator lets the lot go now.
        parser = getattr(self.protocol, "parser", None)
        if parser is not None:
            parser.close()
        self.protocol.parser_exc = None
        self.sockets.remove(self)
        self.server_connections.discard(self)
        if self.close_timer is not None:
            self.close_timer.cancel()
            self.close_timer = None
        if self.upgrade_timer is not None:
            self.upgrade_timer.cancel()
            self.upgrade_timer = None
        if self.address is not None:
            self.limits.release(self.address)
            self.address = None
        session, self.session = self.session, None
        if session is not None:
            session.leave()
        self.conn = None  # no cycle left between this protocol, its connection and session

    def pause_writing(self) -> None:
        self.paused = True

    def resume_writing(self) -> None:
        self.paused = False
        if self.conn is not None:
            self.conn.writable()

    # -- what Connection calls -------------------------------------------------------------

    def write_frames(self, frames: list[bytes], binary: bool) -> None:
        """Write messages as one data frame each, in a single write."""
        if self.protocol.state is not State.OPEN:
            return  # closing: nothing more goes out after our close frame
        opcode = OP_BINARY if binary else OP_TEXT
        parts = []
        for frame in frames:
            parts.append(frame_header(opcode, len(frame)))
            parts.append(frame)
        self.transport.write(b"".join(parts))
        lag = self.conn.lag if self.conn is not None else None
        if lag is not None and lag.wanted:  # a prompt went out: time the line behind it (lag.py)
            self.protocol.send_ping(lag.ping(time.monotonic()))
            self._send_data()

    def close(self, code: int = 1000) -> None:
        """Start the closing handshake; the socket is dropped if the client does not answer."""
        if self.protocol.state is State.OPEN:
            self.protocol.send_close(code)
            self._send_data()
            self._expect_close()

    # -- server-wide ---------------------------------------------------------------------

    def keep_alive(self) -> None:
        if self.protocol.state is not State.OPEN:
            return
        if not self.heard:  # not even the pong of the last ping
            connection_log.info("dropping a WebSocket that stopped answering pings")
            self.transport.abort()
            return
        self.heard = False
        lag = self.conn.lag if self.conn is not None else None
        self.protocol.send_ping(b"" if lag is None else lag.ping(time.monotonic()))
        self._send_data()

    def shutdown(self) -> None:
        """The server is stopping: 1012, service restart (uvicorn calls this)."""
        if self.protocol.state is State.OPEN:
            self.close(1012)
        elif self.protocol.state is State.CONNECTING:
            self.transport.close()

    # -- inside ----------------------------------------------------------------------------

    def await_upgrade(self) -> None:
        """After the first bytes: an upgrade request not all in yet has the request
        timeout to arrive (answered 408 otherwise)."""
        if self.protocol.state is State.CONNECTING and self.upgrade_timer is None:
            self.upgrade_timer = asyncio.get_running_loop().call_later(
                self.limits.request_timeout_s, self._upgrade_timed_out)

    def _upgrade_timed_out(self) -> None:
        self.upgrade_timer = None
        if self.protocol.state is State.CONNECTING:
            self._refuse(self.limits.timeout())

    def _refuse(self, error: errors.WireError) -> None:
        """Answer the upgrade request with a limit's error and close (limits.Closing)."""
        address, self.address = self.address, None  # counted on while it closes
        self.connection_lost(None)  # let go of all this socket holds, as when it is closed
        self.transport.set_protocol(Closing(self.transport, error, self.limits, address))

    def _handshake(self, request: Request) -> bool:
        """Answer the upgrade request; False when refused by a limit (`_refuse`)."""
        if self.upgrade_timer is not None:
            self.upgrade_timer.cancel()
            self.upgrade_timer = None
        protocol = self.protocol
        if not self.sockets.hosts.allows(request.headers.get("Host")):  # DNS rebinding (hosts.py)
            self._refuse(errors.HostNotAllowed())
            return False
        found = WS_PATH.fullmatch(request.path)
        if found is None:
            response = protocol.reject(403, "no WebSocket here: connect to /ws/{match_id}\n")
        else:
            response = protocol.accept(request)
        if found is None or response.status_code != 101:
            protocol.send_response(response)
            self._send_data()
            self._expect_close()
            return True
        offered = [name.strip() for header in request.headers.get_all("Sec-WebSocket-Protocol")
                   for name in header.split(",")]
        chosen = codec.choose_subprotocol(offered)
        if chosen is not None:
            response.headers["Sec-WebSocket-Protocol"] = chosen
        protocol.send_response(response)
        self._send_data()
        read_frames_only(protocol)
        self.upgrade_bytes = 0  # counted no more: an int of its own per socket otherwise
        settings = self.sockets.settings
        self.conn = Connection(self, chosen or codec.JSON, settings.send_queue_limit, settings.view_bytes_per_s)
        self.conn.viewer = viewer_of(peer_address(self.transport))  # the TV ranks by distinct viewers
        self.session = Session(self.sockets.hub.sessions, self.conn, found[1], RateLimiter(settings.rate_per_s))
        connection_log.info("WebSocket %s accepted", request.path)
        return True

    def _data(self, frame: Frame) -> None:
        opcode = frame.opcode
        # Frame.data is any bytes-like; websockets' parser makes bytes (of the frames it
        # reads, no extension being negotiated).
        payload = cast(bytes, frame.data)
        if opcode is Opcode.CONT:
            fragments = self.fragments
            if not isinstance(fragments, list):  # no message under way: websockets' parser refuses that first
                return
            fragments.append(payload)
            if frame.fin:
                data, self.fragments = b"".join(fragments), ()
                self._message(data, self.text)
        elif frame.fin:
            self._message(payload, opcode is Opcode.TEXT)
        else:  # the first of a fragmented message
            self.fragments = [payload]
            self.text = opcode is Opcode.TEXT

    def _message(self, data: bytes, text: bool) -> None:
        session = self.session
        if session is not None and self.protocol.state is State.OPEN:
            message: bytes | str = data
            if text:
                # websockets' sans-I/O parser leaves text payloads as bytes; RFC 6455
                # (8.1) fails a text message that is not UTF-8 with 1007, whichever path
                # read it and however it was fragmented.
                try:
                    message = data.decode()
                except UnicodeDecodeError as exc:
                    self.protocol.fail(CloseCode.INVALID_DATA, f"text message is not UTF-8 ({exc.reason})")
                    self._send_data()
                    self._expect_close()
                    return
            if session.waiting is None:  # joined: straight to it (Session.receive says the same)
                session.on_frame(message, text)
            else:
                session.receive(message, text)

    def _pong(self, payload: bytes) -> None:
        """A pong: if it echoes a player socket's latest ping, its seat's lag is measured again."""
        conn, session = self.conn, self.session
        lag = conn.lag if conn is not None else None
        if lag is not None and session is not None and lag.pending == payload:
            if lag.pong(payload, time.monotonic(), self.sockets.kernel_bound(self.transport)):
                session.lagged(lag.rtt_ms)

    def _send_data(self) -> None:
        for data in self.protocol.data_to_send():
            if data:
                self.transport.write(data)
            elif self.transport.can_write_eof():  # the end of our side (after a close)
                self.transport.write_eof()
            else:
                self.transport.close()

    def _expect_close(self) -> None:
        """The client should close the TCP connection now; if it does not, drop it."""
        if self.close_timer is None and not self.transport.is_closing():
            self.close_timer = asyncio.get_running_loop().call_later(CLOSE_TIMEOUT_S, self.transport.abort)
