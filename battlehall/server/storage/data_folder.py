"""One server per data folder: an OS lock on `<data-dir>/battlehall.lock`, held for life.

A second `battlehall serve` on the same folder used to start its own private Redis on
the same socket: it shut the first one's Redis down as a stray, the first's supervisor
started it again, and the two took turns killing each other's Redis and taking over
each other's matches. The lock is taken before anything else touches the folder, so the
second server stops at once and the first never notices.

`flock` is released by the kernel when the holder dies, however it dies (SIGKILL
included): a stale lock file never blocks the next start. The holder's pid is written in
the file only to say who holds it.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_NAME = "battlehall.lock"


class FolderInUse(RuntimeError):
    """Another process holds the data folder's lock."""

    def __init__(self, folder: str, pid: int | None):
        self.folder, self.pid = folder, pid
        holder = f"process {pid}" if pid else "another process"
        super().__init__(f"the data folder {shown(folder)} is in use by {holder} (another battlehall serve): "
                         f"stop it, or give this one another --data-dir")


def shown(folder: str) -> str:
    """The folder as the user would type it: `./data` for the default `data`."""
    return folder if os.path.isabs(folder) or folder.startswith(".") else f"./{folder}"


class FolderLock:
    """The lock on one data folder; `release()` (or the process' end) lets it go."""

    def __init__(self, folder: str):
        self.folder = folder
        self.path = Path(folder) / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> "FolderLock":
        """Take the lock, or raise FolderInUse at once (never waits)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Not O_TRUNC: the holder's pid must stay readable to the one refused.
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = _read_pid(fd)
            os.close(fd)
            raise FolderInUse(self.folder, pid) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the last descriptor releases the flock
            self._fd = None


def _read_pid(fd: int) -> int | None:
    """The holder's pid; None while it has not written it yet (it has just taken the lock)."""
    text = os.pread(fd, 32, 0).decode(errors="replace").strip()
    return int(text) if text.isdigit() else None
