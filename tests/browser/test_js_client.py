"""The JavaScript client library's own tests (tests/js/*.test.mjs), run by Node's test
runner against a real server: one from the suite's fixture, one with a low rate limit, and
a stand-in node that sends every socket on to the real server with `not_here`."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import threading
from pathlib import Path

import pytest
from websockets.asyncio.server import serve

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def slow_server(start_server):
    return start_server("slow", env={"BATTLEHALL_RATE_PER_S": "2"})


@pytest.fixture(scope="module")
def redirecting_node(server):
    """A stand-in for another node of a cluster (docs/protocol.md, several nodes): every
    hello gets `not_here` with a redirect to the match on the real server, then close
    4009; a match id ending in "loop" is redirected back here, for ever."""
    loop = asyncio.new_event_loop()
    started = threading.Event()
    state = {}

    async def handler(ws):
        path = ws.request.path
        await ws.recv()
        base = state["url"] if path.endswith("loop") else server.url.replace("http://", "ws://")
        await ws.send(json.dumps({"t": "error", "code": "not_here", "message": "run elsewhere",
                                  "redirect": base + path}))
        await ws.close(4009)

    async def main():
        async with serve(handler, "127.0.0.1", 0, subprotocols=["battlehall.v1.json"]) as srv:
            state["url"] = f"ws://127.0.0.1:{srv.sockets[0].getsockname()[1]}"
            state["stop"] = loop.create_future()
            started.set()
            await state["stop"]

    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    started.wait(10)
    yield state["url"].replace("ws://", "http://")
    loop.call_soon_threadsafe(state["stop"].set_result, None)
    thread.join(10)


def test_js_client_library(server, slow_server, redirecting_node):
    node = shutil.which("node")
    assert node, "Node.js 20+ is needed for the client library's tests"
    tests = sorted(str(p) for p in (ROOT / "tests" / "js").glob("*.test.mjs"))
    env = {**os.environ, "BATTLEHALL_URL": server.url, "BATTLEHALL_SLOW_URL": slow_server.url,
           "BATTLEHALL_REDIRECTING_URL": redirecting_node}
    try:
        run = subprocess.run([node, "--experimental-websocket", "--test", "--test-reporter=spec", *tests],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"node --test did not finish: {exc.stdout}{exc.stderr}")
    print(run.stdout[-6000:], run.stderr[-3000:])
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert "# fail 0" in run.stdout or "ℹ fail 0" in run.stdout
