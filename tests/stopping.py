"""Child processes a test stops with Ctrl-C (SIGINT): started as a terminal starts them,
and when one does not stop, every Python process's stacks and the logs in the failure.

Processes started with `ENV` in their environment print their threads' stacks on SIGABRT
(faulthandler), into their stderr or log file.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

ENV = {"PYTHONFAULTHANDLER": "1"}


def foreground() -> None:
    """A `preexec_fn`: SIGINT and SIGQUIT back to their defaults in the child. A suite run in
    the background (`make test &`, nohup) has them ignored, and a child inherits an ignored
    signal: it would never see the test's Ctrl-C."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def sig_lines(pid) -> str:
    try:
        with open(f"/proc/{pid}/status") as f:
            return " ".join(line.strip() for line in f if line.startswith(("SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")))
    except OSError as exc:
        return str(exc)


def wait_or_report(proc: subprocess.Popen, timeout: float, pids: Sequence[int] = (), logs: Sequence[Path] = ()) -> int:
    """`proc.wait(timeout)`; past it, an AssertionError with the stacks of `proc` and of
    `pids`, its stderr (if piped) and the `logs`."""
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        pass
    signals = [f"{pid}: {sig_lines(pid)}" for pid in ["self", proc.pid, *pids]]
    for pid in [proc.pid, *pids]:
        try:
            os.kill(pid, signal.SIGABRT)
        except ProcessLookupError:
            pass
    time.sleep(2)  # the stacks are written
    proc.kill()
    _, err = proc.communicate()
    report = [f"{proc.args} did not stop in {timeout} s", "==== signals (pending, blocked, ignored, caught)",
              *signals, f"==== its stderr\n{err or ''}"]
    report += [f"==== {log}\n{log.read_text(errors='replace')[-20000:]}" for log in logs if log.exists()]
    raise AssertionError("\n".join(report))
