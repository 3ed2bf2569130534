"""Opening and closing sockets leaves no reference cycles for the garbage collector.

With hundreds of new WebSockets a second, each cycle left behind made the collector run
often, for tens of milliseconds at a time, stalling every match. This runs the real
server in this process (uvicorn with Battlehall's protocols, a real Redis) so that the
test can look at what the collector would have to free.
"""

from __future__ import annotations

import asyncio
import collections
import gc

import httpx
import msgpack
import pytest
import uvicorn
import websockets

from battlehall.server.app import create_app
from battlehall.server.batched_ws import BatchedWebSocketProtocol
from battlehall.server.config import Settings
from battlehall.server.embedded_redis import EmbeddedRedis
from battlehall.server.http_protocol import HttpProtocol

from conftest import free_port


@pytest.fixture
def redis_url(tmp_path):
    redis = EmbeddedRedis(tmp_path / "redis").start()
    yield redis.url
    redis.stop()


async def test_sockets_leave_no_reference_cycles(redis_url):
    port = free_port()
    settings = Settings.from_env(host="127.0.0.1", port=port, redis_url=redis_url)
    config = uvicorn.Config(create_app(settings), host="127.0.0.1", port=port, http=HttpProtocol,
                            ws=BatchedWebSocketProtocol, ws_per_message_deflate=False, lifespan="on",
                            log_level="warning")
    server = uvicorn.Server(config)
    serving = asyncio.get_running_loop().create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.02)
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            created = (await http.post("/matches", json={"ruleset": "duel", "seats": ["alice", "bob"]})).json()
        url = f"ws://127.0.0.1:{port}{created['ws']}"

        async def visit(token: str) -> None:
            async with websockets.connect(url, subprotocols=["battlehall.v1.msgpack"], compression=None) as ws:
                await ws.send(msgpack.packb({"t": "hello", "token": token}))
                assert msgpack.unpackb(await ws.recv())["t"] == "welcome"

        await visit(created["spectator_token"])  # warm up: first-use caches are not garbage
        await asyncio.sleep(0.2)
        gc.collect()
        gc.set_debug(gc.DEBUG_SAVEALL)
        try:
            for _ in range(20):
                await visit(created["spectator_token"])
                await visit(created["tokens"]["alice"])
            await asyncio.sleep(0.3)  # let the server finish closing them
            gc.collect()
            left = collections.Counter(type(o).__name__ for o in gc.garbage)
        finally:
            gc.set_debug(0)
            gc.garbage.clear()
        # Whatever the client library leaves is not ours to judge; the server's side must be clean.
        ours = {name: n for name, n in left.items()
                if name in ("HttpProtocol", "HttpToolsProtocol", "BatchedWebSocketProtocol", "Connection",
                            "Session", "HttpRequestParser", "FlowControl")}
        assert not ours, ours
    finally:
        server.should_exit = True
        await asyncio.wait_for(serving, 10)
