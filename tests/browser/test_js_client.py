"""The JavaScript client library's own tests (tests/js/*.test.mjs), run by Node's test
runner against a real server: one from the suite's fixture and one with a low rate limit."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def slow_server(start_server):
    return start_server("slow", env={"BATTLEHALL_RATE_PER_S": "2"})


def test_js_client_library(server, slow_server):
    node = shutil.which("node")
    assert node, "Node.js 20+ is needed for the client library's tests"
    tests = sorted(str(p) for p in (ROOT / "tests" / "js").glob("*.test.mjs"))
    env = {**os.environ, "BATTLEHALL_URL": server.url, "BATTLEHALL_SLOW_URL": slow_server.url}
    try:
        run = subprocess.run([node, "--experimental-websocket", "--test", "--test-reporter=spec", *tests],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"node --test did not finish: {exc.stdout}{exc.stderr}")
    print(run.stdout[-6000:], run.stderr[-3000:])
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    assert "# fail 0" in run.stdout or "ℹ fail 0" in run.stdout
