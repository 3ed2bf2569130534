"""What the benchmark scripts share: a real server in a subprocess, and /proc readings."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """utime + stime of a process, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_ready(url: str, timeout_s: float = 600) -> float:
    """Seconds until the server's /readyz answers 200."""
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < timeout_s:
        try:
            if httpx.get(url + "/readyz", timeout=1).status_code == 200:
                return time.perf_counter() - t0
        except httpx.HTTPError:
            pass
        time.sleep(0.02)
    raise RuntimeError(f"{url} did not become ready")


# The benchmarks open thousands of sockets from 127.0.0.1: no per-address connection cap.
BENCH_ENV = {"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0", "BATTLEHALL_CREATE_PER_MIN": "0"}


def start_server(port: int | None = None, data_dir: str | None = None, env: dict | None = None,
                 cwd: str | None = None) -> tuple[subprocess.Popen, str]:
    """`battlehall serve` with its private Redis, in its own process group; returns (process, url).
    `python -m` imports from its working directory first: `cwd` picks the source tree."""
    port = port or free_port()
    data_dir = data_dir or tempfile.mkdtemp(prefix="bh-bench-")
    proc = subprocess.Popen([sys.executable, "-m", "battlehall", "serve", "--port", str(port), "--data-dir", data_dir,
                             "--log-level", "warning"], env={**os.environ, **BENCH_ENV, **(env or {})}, start_new_session=True, cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, f"http://127.0.0.1:{port}"


def stop_server(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(15)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


async def play_some(url: str, matches: int, answers: int) -> None:
    """Create `matches` duels and answer `answers` prompts in each, so that recovering
    or taking them over also replays logs."""
    from battlehall.client import Client

    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        for i in range(matches):
            created = (await http.post("/matches", json={"ruleset": "duel", "seats": ["a", "b"], "seed": i,
                                                         "options": {"hp": 1000}})).json()
            left = {"n": answers}

            def choose(prompt, left=left):
                left["n"] -= 1
                return "guard", {}

            clients = [Client(url, created["match"], t, choose=choose) for t in created["tokens"].values()]
            tasks = [asyncio.ensure_future(c.run()) for c in clients]
            while left["n"] > 0:
                await asyncio.sleep(0.005)
            await asyncio.sleep(0.05)
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)


def metric(url: str, name: str, key: str | None = None) -> float:
    """One of the server's metrics; `key`: the server's API key, when it has one."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    text = httpx.get(url + "/metrics", timeout=30, headers=headers).text
    return float(re.search(rf"^{name} (\S+)", text, re.M).group(1))  # prometheus_client may write 1.2e+06
