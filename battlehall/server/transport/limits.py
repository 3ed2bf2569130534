"""What one client may hold: connections per address, bytes per request, time to send one.

A server listening on a public address must not let a client hold memory or sockets for
nothing: a huge body, endless headers, a request or WebSocket upgrade that never ends
(slowloris), thousands of sockets from one address. `http_protocol.py` and
`websocket.py` enforce these limits at the socket, before anything is parsed into the
app; each refusal is a wire error (errors.py) answered in the `{"error": ...}` form with
`connection: close`, and the connection is closed after it.

The bookkeeping is per connection and O(1): a count per address, taken when a
connection is accepted and given back when it is lost, and one timer while a request
or an upgrade is arriving. Nothing is done per WebSocket message.
"""

from __future__ import annotations

import asyncio

from battlehall.server import errors
from battlehall.server.config import Settings

# How long a refused connection is read (and what it sends dropped) after its answer.
LINGER_S = 2.0


def peer_address(transport) -> str | None:
    """A connection's client address as the server sees it: the peer's IP address, never a
    forwarded header (which a client can forge); None when it is not an IP connection (a
    Unix socket's peer is a str). The connection cap and the spectators' viewers
    (audience.viewer_of) both count by it."""
    peer = transport.get_extra_info("peername")
    return peer[0] if isinstance(peer, tuple) else None


class Closing(asyncio.Protocol):
    """A connection refused by a limit, once its error answer is written (with an end of
    file after it): what the client still sends is read and dropped until it closes, or
    for LINGER_S. Closing at once, with its bytes unread, would reset the connection,
    and a client still sending (a large body, or its request after a 429 at accept) would
    most likely lose the answer. It stays counted under its address until it closes."""

    def __init__(self, transport: asyncio.Transport, error: errors.WireError, limits: "Limits", address: str | None):
        self.limits = limits
        self.address = address
        transport.write(errors.raw_response(error))
        if transport.can_write_eof():
            transport.write_eof()
        self.timer = asyncio.get_running_loop().call_later(LINGER_S, transport.abort)

    def data_received(self, data: bytes) -> None:
        pass

    def connection_lost(self, exc) -> None:
        self.timer.cancel()
        if self.address is not None:
            self.limits.release(self.address)
            self.address = None


class Limits:
    """The limits of `settings`, their answers, and the open connections per address."""

    def __init__(self, settings: Settings):
        self.max_body_bytes = settings.max_body_bytes
        self.max_header_bytes = settings.max_header_bytes
        self.request_timeout_s = settings.request_timeout_s
        self.max_per_address = settings.max_connections_per_ip
        self.open: dict[str, int] = {}  # address -> connections open from it; no entry at 0

    # Each refusal, new each time (raised from parser callbacks).
    def too_large(self) -> errors.TooLarge:
        return errors.TooLarge(f"the request body is larger than {self.max_body_bytes} bytes")

    def header_too_large(self) -> errors.HeaderTooLarge:
        return errors.HeaderTooLarge(f"the request line and headers are larger than {self.max_header_bytes} bytes")

    def timeout(self) -> errors.RequestTimeout:
        return errors.RequestTimeout(f"the request did not arrive in full within {self.request_timeout_s:g} s")

    def too_many(self) -> errors.TooManyConnections:
        return errors.TooManyConnections(
            f"this address already has {self.max_per_address} connections open: close some first")

    def address_of(self, transport) -> str | None:
        """The address a new connection is counted under; None when it is not counted
        (no cap, or not an IP connection)."""
        if not self.max_per_address:
            return None
        return peer_address(transport)

    def admit(self, address: str) -> int:
        """Count a new connection from `address` in; returns how many were open from it.
        From `max_per_address` on, it is to be turned away with a 429 (counted while it
        lingers); from twice that, dropped at once, and not counted."""
        count = self.open.get(address, 0)
        if count < 2 * self.max_per_address:
            self.open[address] = count + 1
        return count

    def release(self, address: str) -> None:
        """Count a connection admitted under `address` out (it is closed)."""
        count = self.open[address] - 1
        if count:
            self.open[address] = count
        else:
            del self.open[address]
