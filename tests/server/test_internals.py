"""Every undocumented member of uvicorn and websockets the server uses
(battlehall/server/transport/internals.py) is still there, with the shape it is used with.

A failure names the member that is gone and what uses it: a newer release changed what
http_protocol.py or websocket.py rely on (`make test-newest` runs this test against the
newest releases pyproject.toml allows)."""

from __future__ import annotations

import asyncio
import functools
import hashlib
import importlib
import inspect
import textwrap

import pytest
import uvicorn
from uvicorn.server import ServerState
from websockets.client import ClientProtocol
from websockets.frames import Frame, Opcode
from websockets.http11 import Request
from websockets.protocol import Protocol
from websockets.server import ServerProtocol
from websockets.uri import parse_uri

from battlehall.server.config import Settings
from battlehall.server.transport.frames import between_frames, read_frames_only
from battlehall.server.transport.hosts import HostCheck
from battlehall.server.transport.http_protocol import HttpProtocol
from battlehall.server.transport.internals import COPIED, UVICORN, WEBSOCKETS, Internal
from battlehall.server.transport.limits import Limits


def resolve(owner: str):
    module, _, qualname = owner.partition(":")
    found = importlib.import_module(module)
    for part in filter(None, qualname.split(".")):
        found = getattr(found, part)
    return found


def label(entry: Internal) -> str:
    return f"{entry.owner}.{entry.name} ({entry.kind}; used for: {entry.why})"


async def app(scope, receive, send):
    """An ASGI app that reads the whole body and answers 200."""
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
async def live():
    """Live instances of each owner of attributes: an HttpProtocol reading a request
    over a real socket (its body half sent), and a ServerProtocol."""
    settings = Settings()
    config = uvicorn.Config(app, lifespan="off",
                            http=functools.partial(HttpProtocol, limits=Limits(settings), hosts=HostCheck.of(settings)))
    config.load()
    state = ServerState()
    server = await asyncio.get_running_loop().create_server(
        lambda: config.http_protocol_class(config=config, server_state=state, app_state={}), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(b"POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 10\r\n\r\nabc")
    await writer.drain()
    for _ in range(200):
        protocol = next(iter(state.connections), None)
        if protocol is not None and getattr(protocol, "cycle", None) is not None:
            break
        await asyncio.sleep(0.01)
    assert protocol is not None and protocol.cycle is not None, "no request reached the protocol"
    ws = ServerProtocol()
    instances = {"uvicorn.protocols.http.httptools_impl:HttpToolsProtocol": protocol,
                 "uvicorn.protocols.http.httptools_impl:RequestResponseCycle": protocol.cycle,
                 "uvicorn.server:Server": uvicorn.Server(config),
                 "websockets.server:ServerProtocol": ws, "websockets.streams:StreamReader": ws.reader}
    try:
        yield instances
    finally:
        writer.close()
        server.close()


@pytest.mark.parametrize("entry", UVICORN + WEBSOCKETS, ids=lambda e: f"{e.owner}.{e.name}")
async def test_each_internal_used_is_there(entry: Internal, live):
    try:
        owner = resolve(entry.owner)
    except (ImportError, AttributeError) as exc:
        pytest.fail(f"gone: {entry.owner}, which has {label(entry)}: {exc}")
    if entry.kind == "value":
        assert entry.name in owner, f"gone: {label(entry)}"
        return
    if entry.kind == "attribute":
        instance = live[entry.owner]
        assert hasattr(instance, entry.name), f"gone: {label(entry)}"
        return
    member = getattr(owner, entry.name, None)
    assert member is not None, f"gone: {label(entry)}"
    if entry.kind == "class":
        assert inspect.isclass(member), f"no longer a class: {label(entry)}"
        return
    assert callable(member), f"no longer callable: {label(entry)}"
    try:
        params = list(inspect.signature(member).parameters)
    except ValueError:  # a C function (websockets' speedups) without a signature
        return
    assert set(entry.params) <= set(params), f"changed: {label(entry)} takes {params}, not {entry.params}"


def test_the_attribute_shapes_the_fast_paths_read():
    """websocket.py's fast path reads `reader.buffer`, the parser generator and the flags
    below: their types are checked here."""
    protocol = ServerProtocol()
    assert isinstance(protocol.reader.buffer, bytearray)
    assert inspect.isgenerator(protocol.parser)
    assert protocol.parser_exc is None and isinstance(protocol.debug, bool)
    assert resolve("websockets.frames").apply_mask(b"\x01\x02", b"\x01\x01\x01\x01") == b"\x00\x03"


def test_where_the_parser_waits_is_seen_and_it_reads_frames_only_after_the_handshake():
    """websocket.py tells from the generators websockets' parser waits in whether it is
    between frames, and swaps it for a frames-only parser after the handshake: if either
    stopped working, the fast path would misread a frame or stay off, and each socket
    would hold its upgrade request. Checked here on websockets' own protocols."""
    client, server = ClientProtocol(parse_uri("ws://example/ws/m")), ServerProtocol()
    client.send_request(client.connect())
    server.receive_data(b"".join(client.data_to_send()))
    (request,) = server.events_received()
    assert isinstance(request, Request)
    server.send_response(server.accept(request))
    assert between_frames(server)
    read_frames_only(server)
    assert server.parser.gi_code is Protocol.parse.__code__ and between_frames(server)
    data = Frame(Opcode.BINARY, b"hello").serialize(mask=True, extensions=[])
    server.receive_data(data[:2])  # the header taken, the frame not whole: inside it
    assert not server.reader.buffer and not between_frames(server)
    server.receive_data(data[2:])
    assert [frame.data for frame in server.events_received()] == [b"hello"] and between_frames(server)


@pytest.mark.parametrize("name", sorted(COPIED))
def test_the_uvicorn_code_repeated_here_is_unchanged(name):
    digest, copy = COPIED[name]
    owner, _, method = name.rpartition(".")
    source = textwrap.dedent(inspect.getsource(getattr(resolve(owner), method)))
    assert hashlib.sha256(source.encode()).hexdigest() == digest, \
        f"changed upstream: {name}, which {copy} repeats; compare the two, then update its digest in internals.py"
