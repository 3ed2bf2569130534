"""A node's parts run in the test's own event loop, on a real Redis, with no socket: a
`Hub` (or several, as nodes sharing that Redis), and connections whose frames are kept
in a list instead of written to a socket.

A plain module (not conftest.py), like servers.py, so that test modules in any folder can
import it (`redis_url`, a fixture, by name too).
"""

from __future__ import annotations

import contextlib

import msgpack
import pytest
import redis

from battlehall.server import codec
from battlehall.server.config import Settings
from battlehall.server.match import validate
from battlehall.server.match.connection import Connection
from battlehall.server.node.hub import Hub
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.store import Store


@pytest.fixture(scope="module")
def redis_server(tmp_path_factory):
    server = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture
def redis_url(redis_server):
    """The module's Redis, emptied for each test: a takeover scan takes whatever is live in it."""
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    return redis_server.url


class Frames:
    """Where a connection's frames go instead of a socket: kept, decoded, in order."""

    paused = False

    def __init__(self):
        self.messages: list[dict] = []
        self.closed: int | None = None

    def write_frames(self, frames: list[bytes], binary: bool) -> None:
        self.messages += [msgpack.unpackb(frame) for frame in frames]

    def close(self, code: int) -> None:
        self.closed = code


def connection(seat: str | None = None, role: str = "player") -> Connection:
    conn = Connection(Frames(), codec.MSGPACK, 10_000)
    conn.seat, conn.role = seat, role
    return conn


def received(conn: Connection) -> list[dict]:
    return conn.socket.messages


def settings(redis_url: str, node: str = "n0", **options) -> Settings:
    return Settings.load(environ={}, redis_url=redis_url, node_id=node, node_url=f"ws://{node}.test",
                         **options)


@contextlib.asynccontextmanager
async def hub_on(redis_url: str, node: str = "n0", **options):
    """A node's hub on `redis_url`, closed (its matches let go, its connections closed) after."""
    store = Store(redis_url)
    hub = Hub(settings(redis_url, node, **options), store)
    try:
        yield hub
    finally:
        await hub.close()
        await store.close()


def duel(**body) -> dict:
    """A validated create request for a duel."""
    return validate.create_request({"ruleset": "duel", "seats": ["alice", "bob"], **body})
