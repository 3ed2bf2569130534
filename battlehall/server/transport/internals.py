"""What the server uses of uvicorn and websockets beyond their documented APIs.

uvicorn's documented hook for a protocol of one's own is `Config(http=...)` (app.py):
it takes any asyncio.Protocol. http_protocol.py plugs in there, but as a subclass of
uvicorn's httptools protocol, to keep uvicorn's HTTP handling and add the limits at
the socket, so it leans on that class's undocumented members. websocket.py runs
websockets' documented sans-I/O `ServerProtocol`, and reads a few of its attributes
besides, for its fast path and to let go of a closed socket at once.

This is the one list of them. pyproject.toml bounds both libraries to the releases they
were tested with; tests/server/test_internals.py checks every entry against the
installed releases and fails naming the one that is gone or changed, and
`make test-newest` runs that test against the newest releases pyproject.toml allows.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Internal:
    """One member used: `owner` (module:qualname) has `name`, of `kind`."""

    owner: str
    name: str
    #: "method" (callable, taking at least `params`), "attribute" (set on a live
    #: instance), "class", "function" or "value" (a member of a collection at `owner`).
    kind: str
    why: str
    params: tuple[str, ...] = ()


HTTPTOOLS = "uvicorn.protocols.http.httptools_impl:HttpToolsProtocol"
CYCLE = "uvicorn.protocols.http.httptools_impl:RequestResponseCycle"
WS_PROTOCOL = "websockets.server:ServerProtocol"

UVICORN = (
    Internal("uvicorn.protocols.http.httptools_impl", "HttpToolsProtocol", "class",
             "http_protocol.HttpProtocol subclasses it"),
    Internal(HTTPTOOLS, "__init__", "method", "HttpProtocol passes uvicorn's arguments through",
             ("config", "server_state", "app_state")),
    # Overridden, each calling uvicorn's own.
    Internal(HTTPTOOLS, "connection_made", "method", "deferred to the first bytes", ("transport",)),
    Internal(HTTPTOOLS, "connection_lost", "method", "the count of the address is given back", ("exc",)),
    Internal(HTTPTOOLS, "on_message_begin", "method", "the request timeout starts"),
    Internal(HTTPTOOLS, "on_headers_complete", "method", "head size, body size and Host are checked"),
    Internal(HTTPTOOLS, "on_body", "method", "the body is counted", ("body",)),
    Internal(HTTPTOOLS, "on_message_complete", "method", "a held request's app is started"),
    Internal(HTTPTOOLS, "_start_asgi_task", "method", "the app waits for the whole body", ("cycle", "app")),
    Internal(HTTPTOOLS, "handle_websocket_upgrade", "method", "/ws/ upgrades are handed to websocket.py"),
    # Called: parts of uvicorn's data_received, which HttpProtocol.data_received replaces.
    Internal(HTTPTOOLS, "_unset_keepalive_if_required", "method", "data_received, _refuse"),
    Internal(HTTPTOOLS, "_should_upgrade", "method", "data_received"),
    Internal(HTTPTOOLS, "_unsupported_upgrade_warning", "method", "data_received"),
    Internal(HTTPTOOLS, "send_400_response", "method", "data_received", ("msg",)),
    # Per-connection and per-request state.
    Internal(HTTPTOOLS, "flow", "attribute", "None until uvicorn's connection_made ran"),
    Internal(HTTPTOOLS, "transport", "attribute", "set by HttpProtocol.connection_made itself"),
    Internal(HTTPTOOLS, "loop", "attribute", "the request timer"),
    Internal(HTTPTOOLS, "parser", "attribute", "fed in data_received; dropped when handed over"),
    Internal(HTTPTOOLS, "logger", "attribute", "data_received's warning"),
    Internal(HTTPTOOLS, "url", "attribute", "head size; the upgrade request rebuilt"),
    Internal(HTTPTOOLS, "headers", "attribute", "head size, Content-Length, Host"),
    Internal(HTTPTOOLS, "scope", "attribute", "the upgrade request rebuilt from scope['headers']"),
    Internal(HTTPTOOLS, "cycle", "attribute", "the request being read"),
    Internal(HTTPTOOLS, "connections", "attribute", "uvicorn's set of open connections: a handed-over "
             "socket takes the protocol's place, and uvicorn calls its shutdown() when it stops"),
    Internal(HTTPTOOLS, "app_state", "attribute", "the lifespan's state: the `websockets` to hand sockets to"),
    Internal(CYCLE, "body", "attribute", "a held request's body, added to"),
    Internal(CYCLE, "more_body", "attribute", "whether the body is all in"),
    Internal(CYCLE, "waiting_for_100_continue", "attribute", "100 Continue sent for a held request"),
    Internal(CYCLE, "response_complete", "attribute", "whether the app is still answering"),
    Internal("uvicorn.server:Server", "shutdown", "method", "app.Server drains first", ("sockets",)),
    Internal("uvicorn.server:Server", "force_exit", "attribute", "no drain on a forced exit"),
    Internal("uvicorn.config:WS_PROTOCOLS", "websockets-sansio", "value", "app.uvicorn_config's ws="),
)

WEBSOCKETS = (
    Internal("websockets.frames", "apply_mask", "function", "websocket._common_frames unmasks payloads "
             "(the C speedup when built)", ("data", "mask")),
    Internal(WS_PROTOCOL, "parser", "attribute", "a generator: let go between frames while the fast path "
             "reads (None), made again before websockets reads, looked into for where it waits, closed with "
             "the socket to free it at once"),
    Internal("websockets.protocol:Protocol", "parse", "method", "the frames-only parser (parser_for_frames)"),
    Internal(WS_PROTOCOL, "id", "attribute", "set to one shared id after the handshake (read by nothing here)"),
    Internal(WS_PROTOCOL, "extensions", "attribute", "an empty one shared after the handshake (none negotiated)"),
    Internal(WS_PROTOCOL, "parser_exc", "attribute", "cleared with the socket (a reference cycle)"),
    Internal(WS_PROTOCOL, "reader", "attribute", "between_frames: the fast path may read the next frame; "
             "a shared empty one while the parser is let go, a new one with the parser"),
    Internal("websockets.streams:StreamReader", "buffer", "attribute", "as above: nothing buffered"),
    Internal("websockets.streams:StreamReader", "at_eof", "method", "as above: the parser waits there "
             "between frames"),
    Internal(WS_PROTOCOL, "debug", "attribute", "the fast path stays off while websockets logs frames"),
)

#: uvicorn methods that http_protocol.py repeats part of rather than calls, with the
#: SHA-256 of their source (dedented) as tested, and where the copy is. A change upstream
#: fails the test: compare the copy with the new source, then update the digest.
COPIED = {
    f"{HTTPTOOLS}.data_received": (
        "02c2572f1df559070eba7f206a3f7e251782f5af4aaae194fc1ffb67f24c3873",
        "http_protocol.HttpProtocol.data_received"),
    f"{HTTPTOOLS}.handle_websocket_upgrade": (
        "f5384e926c8c43c601d0131c64360e2b067b789e2772f7f344414c6a44bf772f",
        "http_protocol.HttpProtocol.handle_websocket_upgrade (the request rebuilt as uvicorn does)"),
}
