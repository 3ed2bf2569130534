"""The limits on what one client may hold (limits.py), on real sockets against a real
server: body and header sizes, time for a request or an upgrade to arrive, connections
per address, and every count given back when connections close."""

from __future__ import annotations

import asyncio
import socket
import time

import httpx
import orjson
import pytest
import websockets

from servers import ServerProcess
from wsutil import Raw

CAP = 8  # connections per address
BODY_CAP = 64 * 1024
TIMEOUT_S = 1.0  # for a request or an upgrade to arrive


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("limits"), env={
        "BATTLEHALL_MAX_CONNECTIONS_PER_IP": str(CAP),
        "BATTLEHALL_MAX_BODY_BYTES": str(BODY_CAP),
        "BATTLEHALL_REQUEST_TIMEOUT_S": str(TIMEOUT_S),
    }).start()
    yield srv
    srv.stop()


def connect(srv: ServerProcess) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", srv.port))
    sock.settimeout(10)
    return sock


def send_all(sock: socket.socket, *parts: bytes) -> bool:
    """Send the parts; False if the server closed the connection first."""
    try:
        for part in parts:
            sock.sendall(part)
    except (BrokenPipeError, ConnectionResetError):
        return False
    return True


def read_to_end(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    sock.close()
    return data


def error_of(response: bytes) -> tuple[int, str]:
    """(status, error code) of an HTTP error answer in the documented form."""
    head, _, body = response.partition(b"\r\n\r\n")
    assert b"connection: close" in head.lower(), head
    return int(head.split(b" ", 2)[1]), orjson.loads(body)["error"]["code"]


def peak_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


def still_serves(srv: ServerProcess) -> None:
    assert httpx.get(srv.url + "/healthz", timeout=5).status_code == 200
    srv.create(ruleset="duel")


def test_a_body_over_the_cap_is_refused_before_it_is_read(limited):
    sock = connect(limited)
    # Nothing of the announced 400 MB is sent: the answer comes from the headers alone.
    send_all(sock, b"POST /matches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 400000000\r\n\r\n")
    assert error_of(read_to_end(sock)) == (413, "too_large")
    still_serves(limited)


def test_a_streamed_body_over_the_cap_is_refused_without_being_held(limited):
    pid = limited.proc.pid
    with open(f"/proc/{pid}/clear_refs", "w") as f:
        f.write("5")  # resets the peak resident size (VmHWM) to the current one
    before = peak_rss_kib(pid)
    sock = connect(limited)
    chunk = b"%x\r\n%s\r\n" % (1 << 20, b"x" * (1 << 20))
    send_all(sock, b"POST /matches HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n",
             *[chunk] * 32, b"0\r\n\r\n")  # 32 MiB, in 1 MiB chunks
    assert error_of(read_to_end(sock)) == (413, "too_large")
    # Held whole, the body would have taken 32 MiB at least.
    assert peak_rss_kib(pid) - before < 8 * 1024
    still_serves(limited)


def test_a_body_within_the_cap_is_served_chunked_or_not(limited):
    body = orjson.dumps({"ruleset": "duel", "seats": ["alice", "bob"]})
    body += b" " * (BODY_CAP - len(body))  # exactly at the cap
    assert httpx.post(limited.url + "/matches", content=body, timeout=5).status_code == 201
    assert httpx.post(limited.url + "/matches", content=iter([body[:1000], body[1000:]]), timeout=5).status_code == 201
    sock = connect(limited)  # a client that waits for 100 Continue before it sends its body
    send_all(sock, b"POST /matches HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nExpect: 100-continue\r\n"
                   b"Content-Length: %d\r\n\r\n" % len(body))
    assert sock.recv(100).startswith(b"HTTP/1.1 100 Continue\r\n\r\n")
    send_all(sock, body)
    assert read_to_end(sock).startswith(b"HTTP/1.1 201")


def test_headers_over_the_cap_are_refused_431(limited):
    sock = connect(limited)  # in one piece
    send_all(sock, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"y" * 20_000 + b"\r\n\r\n")
    assert error_of(read_to_end(sock)) == (431, "header_too_large")
    sock = connect(limited)  # never ending, a line at a time
    line = b"X-More: " + b"y" * 4000 + b"\r\n"
    send_all(sock, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", *[line] * 8)
    assert error_of(read_to_end(sock)) == (431, "header_too_large")
    sock = connect(limited)  # a WebSocket upgrade
    send_all(sock, b"GET /ws/m_1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n",
             *[line] * 5)
    assert error_of(read_to_end(sock)) == (431, "header_too_large")
    still_serves(limited)


@pytest.mark.parametrize("sent", [
    b"",  # connects and says nothing
    b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n",  # half the headers (slowloris)
    b"POST /matches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"ruleset\"",  # half the body
    b"POST /matches HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{\"rul\r\n",  # half a chunked body
    # a half-done WebSocket upgrade, whole prefix in the first bytes or not
    b"GET /ws/m_1 HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n",
    b"GET /w",
], ids=["silent", "half-headers", "half-body", "half-chunked-body", "half-upgrade", "half-request-line"])
def test_an_unfinished_request_or_upgrade_is_answered_408_and_closed(limited, sent):
    sock = connect(limited)  # read_to_end fails the test if the server never closes it
    send_all(sock, sent)
    assert error_of(read_to_end(sock)) == (408, "timeout")


def test_a_request_timeout_does_not_cut_an_idle_kept_alive_connection(limited):
    sock = connect(limited)
    for _ in range(2):
        send_all(sock, b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        response = b""
        while not response.endswith(b'{"ok":true}'):
            response += sock.recv(65536)
        assert response.startswith(b"HTTP/1.1 200")
        time.sleep(TIMEOUT_S * 2)  # idle, between requests: the 30 s keep-alive applies
    sock.close()


async def test_the_connections_of_one_address_are_capped_and_given_back(limited):
    async def http_connection() -> tuple[asyncio.StreamReader, asyncio.StreamWriter] | None:
        """A kept-alive HTTP connection that has been served once; None if refused."""
        reader, writer = await asyncio.open_connection("127.0.0.1", limited.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        if not head.startswith(b"HTTP/1.1 200"):
            assert head.startswith(b"HTTP/1.1 429"), head
            writer.close()
            return None
        await reader.readexactly(int(head.lower().split(b"content-length: ")[1].split(b"\r\n")[0]))
        return reader, writer

    async def refused() -> None:
        """The next connection, HTTP or WebSocket, is answered 429."""
        reader, writer = await asyncio.open_connection("127.0.0.1", limited.port)
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        assert error_of(await asyncio.wait_for(reader.read(), 5)) == (429, "too_many_connections")
        writer.close()
        with pytest.raises(websockets.InvalidStatus) as status:
            await Raw.open(limited.url, created["match"])
        assert status.value.response.status_code == 429

    async def fill(count: int) -> list:
        """`count` more connections; those closed just before may take a moment to be
        counted out (the server sees them close a little later)."""
        for _ in range(50):
            opened = []
            while len(opened) < count and (connection := await http_connection()) is not None:
                opened.append(connection)
            if len(opened) == count:
                return opened
            for _, writer in opened:
                writer.close()
            await asyncio.sleep(0.1)
        raise AssertionError("connections were not counted out")

    created = limited.create(ruleset="duel")
    sockets = []
    for token in created["tokens"].values():  # two game sockets and six HTTP connections
        ws = await Raw.open(limited.url, created["match"])
        assert (await ws.hello(token))["t"] == "welcome"
        sockets.append(ws)
    http = await fill(CAP - 2)
    await refused()
    # the connections already open still work
    writer = http[0][1]
    writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    assert (await asyncio.wait_for(http[0][0].readuntil(b"\r\n\r\n"), 5)).startswith(b"HTTP/1.1 200")
    await sockets[0].send({"t": "ping"})
    assert (await sockets[0].recv())["t"] == "pong"
    # three closed (a game socket and two HTTP connections): exactly three come back
    await sockets.pop().close()
    for _, writer in http[-2:]:
        writer.close()
    del http[-2:]
    http += await fill(3)
    await refused()
    # every kind of ending gives its count back: closed, aborted, refused, timed out
    for ws in sockets:
        ws.ws.transport.abort()
    for _, writer in http:
        writer.close()
    more = await fill(CAP)
    await refused()
    for _, writer in more:
        writer.close()
    for _, writer in await fill(CAP):  # and once the refused ones have gone too, the whole cap is free again
        writer.close()
