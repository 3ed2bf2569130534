"""A real Battlehall server process on a free port, with its own real Redis, for tests.

A plain module (not conftest.py) so that test modules in any folder can import it: every
folder's conftest.py is a module named `conftest`, and the first one imported wins.
"""

from __future__ import annotations

import itertools
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

# Servers listen below the kernel's ephemeral range (32768-60999 on Linux), so that no
# outgoing connection's local port takes theirs between the check and the bind, or
# between a kill and the restart on the same port; each xdist worker has its own block.
PORT_BLOCK = 3000
_worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
_next_port = itertools.count(random.Random().randrange(PORT_BLOCK))


def free_port() -> int:
    """A port no socket holds, from this worker's block (20000 on), taken in turn."""
    for _ in range(PORT_BLOCK):
        port = 20000 + (_worker % 4) * PORT_BLOCK + next(_next_port) % PORT_BLOCK
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError("no free port in this worker's block")


class ServerProcess:
    """`battlehall serve` as a user runs it, in a subprocess; can be killed and restarted."""

    def __init__(self, data_dir: Path, redis_url: str | None = None, env: dict | None = None,
                 args: tuple[str, ...] = ()):
        self.data_dir = data_dir
        self.redis_url = redis_url
        self.env = env or {}
        self.args = list(args)
        self.port = free_port()
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 20) -> "ServerProcess":
        cmd = [sys.executable, "-m", "battlehall", "serve", "--port", str(self.port),
               "--data-dir", str(self.data_dir), "--log-level", "warning"]
        if self.redis_url:
            cmd += ["--redis", self.redis_url]
        cmd += self.args
        # Every test creates its matches (and the lobby its guest profiles) from 127.0.0.1: no
        # creation limit unless a test sets one.
        env = {**os.environ, "BATTLEHALL_HELLO_TIMEOUT_S": "1", "BATTLEHALL_CREATE_PER_MIN": "0",
               "BATTLEHALL_PROFILE_PER_MIN": "0", **self.env}
        self.log = open(self.data_dir / f"server-{self.port}.log", "ab")
        self.proc = subprocess.Popen(cmd, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {(self.data_dir / f'server-{self.port}.log').read_text()}")
            try:
                if httpx.get(self.url + "/readyz", timeout=0.5).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.05)
        raise RuntimeError("server did not become ready")

    def kill(self) -> None:
        """SIGKILL the whole process group: the server and its private Redis."""
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def create(self, **body) -> dict:
        body.setdefault("seats", ["alice", "bob"])
        r = httpx.post(self.url + "/matches", json=body, timeout=10)
        assert r.status_code == 201, r.text
        return r.json()


def bearer(created: dict) -> dict:
    """The header that opens the replay of a private match (any match created without
    `spectators.public`): one of its tokens, here the spectator token."""
    return {"Authorization": f"Bearer {created['spectator_token']}"}
