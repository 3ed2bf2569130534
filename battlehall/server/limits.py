"""What one client may hold: connections per address, bytes per request, time to send one.

A server listening on a public address must not let a client hold memory or sockets for
nothing: a huge body, endless headers, a request or WebSocket upgrade that never ends
(slowloris), thousands of sockets from one address. `http_protocol.py` and
`websocket.py` enforce these limits at the socket, before anything is parsed into the
app; each refusal is one of the prebuilt answers here (an HTTP error in the
`{"error": ...}` form, `connection: close`), and the connection is closed after it.

The bookkeeping is per connection and O(1): a count per address, taken when a
connection is accepted and given back when it is lost, and one timer while a request
or an upgrade is arriving. Nothing is done per WebSocket message.
"""

from __future__ import annotations

import asyncio
import http

import orjson

from .config import Settings


def error_response(status: int, code: str, message: str) -> bytes:
    """A whole HTTP/1.1 error response in the documented JSON form, closing the connection."""
    body = orjson.dumps({"error": {"code": code, "message": message}})
    return (b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\n"
            b"connection: close\r\n\r\n%s" % (status, http.HTTPStatus(status).phrase.encode(), len(body), body))


class Refused(Exception):
    """Raised from a parser callback: answer `response` and close (http_protocol.py)."""

    def __init__(self, response: bytes):
        super().__init__()
        self.response = response


# How long a connection over the cap may take to send its request, which is read before
# it is closed: closing with the request unread would reset the connection, and the
# client would most likely lose the answer.
TURN_AWAY_S = 1.0


class TurnedAway(asyncio.Protocol):
    """A connection over the per-address cap: answered 429 at once, closed once its first
    bytes are read (or after TURN_AWAY_S). It is not counted."""

    def __init__(self, transport: asyncio.Transport, response: bytes):
        self.transport = transport
        transport.write(response)
        self.timer = asyncio.get_running_loop().call_later(TURN_AWAY_S, transport.abort)

    def data_received(self, data: bytes) -> None:
        self.transport.close()

    def connection_lost(self, exc) -> None:
        self.timer.cancel()


class Limits:
    """The limits of `settings`, their answers, and the open connections per address."""

    def __init__(self, settings: Settings):
        self.max_body_bytes = settings.max_body_bytes
        self.max_header_bytes = settings.max_header_bytes
        self.request_timeout_s = settings.request_timeout_s
        self.max_per_address = settings.max_connections_per_ip
        self.open: dict[str, int] = {}  # address -> connections open from it; no entry at 0

        self.too_large = error_response(
            413, "too_large", f"the request body is larger than {self.max_body_bytes} bytes")
        self.header_too_large = error_response(
            431, "header_too_large", f"the request line and headers are larger than {self.max_header_bytes} bytes")
        self.timeout = error_response(
            408, "timeout", f"the request did not arrive in full within {self.request_timeout_s:g} s")
        self.too_many = error_response(
            429, "too_many_connections",
            f"this address already has {self.max_per_address} connections open: close some first")

    def address_of(self, transport) -> str | None:
        """The address a new connection is counted under; None when it is not counted
        (no cap, or not an IP connection)."""
        if not self.max_per_address:
            return None
        peer = transport.get_extra_info("peername")
        return peer[0] if isinstance(peer, tuple) else None  # a Unix socket's is a str

    def admit(self, address: str) -> bool:
        """Count a connection from `address` in; False, counting nothing, at the cap."""
        count = self.open.get(address, 0)
        if count >= self.max_per_address:
            return False
        self.open[address] = count + 1
        return True

    def release(self, address: str) -> None:
        """Count a connection admitted under `address` out (it is closed)."""
        count = self.open[address] - 1
        if count:
            self.open[address] = count
        else:
            del self.open[address]
