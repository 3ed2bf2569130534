"""The `Host:` check against DNS rebinding (hosts.py): a server bound to a loopback
address answers only loopback names, IP addresses and its allow-list, on HTTP routes and
WebSocket upgrades alike; against real servers on real sockets."""

from __future__ import annotations

import socket

import orjson
import pytest

from battlehall.server.config import Settings
from battlehall.server.transport.hosts import HostCheck
from servers import ServerProcess


@pytest.fixture(scope="module")
def local(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("hosts"), args=("--allowed-hosts", "play.example.org, *.games.test")).start()
    yield srv
    srv.stop()


def exchange(srv: ServerProcess, *requests: bytes) -> list[bytes]:
    """Send each request on one connection, reading each one's answer head (and body)."""
    answers = []
    with socket.create_connection(("127.0.0.1", srv.port), timeout=10) as sock:
        for request in requests:
            sock.sendall(request)
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
            head, _, body = data.partition(b"\r\n\r\n")
            length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            while len(body) < length and (chunk := sock.recv(65536)):
                body += chunk
            answers.append(head + b"\r\n\r\n" + body)
    return answers


def get(path: str, host: str | None) -> bytes:
    lines = [f"GET {path} HTTP/1.1", *([] if host is None else [f"Host: {host}"])]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def upgrade(host: str) -> bytes:
    return (f"GET /ws/m_0000000000000000 HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").encode()


def status(answer: bytes) -> int:
    return int(answer.split(b" ", 2)[1])


def refused(answer: bytes) -> bool:
    head, _, body = answer.partition(b"\r\n\r\n")
    return status(answer) == 421 and orjson.loads(body)["error"]["code"] == "host_not_allowed"


@pytest.mark.parametrize("host", ["rebind.attacker.example", "localhost.attacker.example", "example.org",
                                  "games.test", "play.example.org.evil", ""])
def test_a_foreign_name_is_refused_on_http_and_websocket(local, host):
    assert refused(exchange(local, get("/healthz", host))[0])
    assert refused(exchange(local, get("/matches", host))[0])
    assert refused(exchange(local, upgrade(host))[0])  # a socket handed over on its first bytes
    # ... and an upgrade on a kept-alive connection, after a request with a good name
    first, second = exchange(local, get("/healthz", "localhost"), upgrade(host))
    assert status(first) == 200 and refused(second)


@pytest.mark.parametrize("host", ["localhost", "LOCALHOST:{port}", "127.0.0.1:{port}", "[::1]:{port}",
                                  "app.localhost", "play.example.org", "Play.Example.Org:443", "eu.games.test",
                                  "10.1.2.3", None])
def test_loopback_names_addresses_and_the_allow_list_are_answered(local, host):
    host = None if host is None else host.format(port=local.port)
    assert status(exchange(local, get("/healthz", host))[0]) == 200
    if host is not None:  # a WebSocket for no such match: upgraded, then told so
        assert status(exchange(local, upgrade(host))[0]) == 101


def test_without_an_allow_list_a_loopback_server_answers_only_loopback_names(tmp_path):
    srv = ServerProcess(tmp_path).start()
    try:
        assert refused(exchange(srv, get("/healthz", "play.example.org"))[0])
        assert status(exchange(srv, get("/healthz", f"localhost:{srv.port}"))[0]) == 200
    finally:
        srv.stop()


def test_which_names_each_binding_accepts():
    public = HostCheck.of(Settings(host="0.0.0.0"))
    assert public.allows("anything.example") and public.allows(None)  # nothing to guard: no allow-list
    listed = HostCheck.of(Settings(host="0.0.0.0", allowed_hosts=("game.example",)))
    assert listed.allows("game.example:8000") and listed.allows("localhost") and not listed.allows("evil.example")
    assert HostCheck.of(Settings(host="::", allowed_hosts=("*",))).allows("evil.example")
    own = HostCheck.of(Settings(host="127.0.0.1", node_url="wss://node-3.internal:8443/node/3"))
    assert own.allows("node-3.internal") and not own.allows("node-4.internal")
    assert not HostCheck.of(Settings(host="::1")).allows("evil.example")
