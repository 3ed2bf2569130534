"""The private Redis of `battlehall serve` under faults: killed, it is started again;
stopped, readiness says so at once."""

from __future__ import annotations

import asyncio
import os
import signal
import time
from pathlib import Path

import httpx
import pytest
from test_kill import check_match, start_bots

from servers import ServerProcess


def private_redis_pid(server: ServerProcess) -> int | None:
    """The server's redis-server child, from /proc (Redis rewrites its command line)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            comm = Path(f"/proc/{entry}/comm").read_text().strip()
            ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):  # gone meanwhile
            continue
        if comm == "redis-server" and ppid == server.proc.pid:
            return int(entry)
    return None


def readyz(server, timeout: float = 10) -> tuple[int, float]:
    """The status of /readyz and how long it took to answer."""
    started = time.monotonic()
    status = httpx.get(server.url + "/readyz", timeout=timeout).status_code
    return status, time.monotonic() - started


async def test_a_killed_private_redis_is_restarted_and_play_goes_on(tmp_path):
    server = ServerProcess(tmp_path).start()
    try:
        first = private_redis_pid(server)
        assert first is not None
        games, tasks = await start_bots(server, 3, think_s=0.01)
        await asyncio.sleep(0.6)
        acked_before = sum(len(c.acked) for g in games for c in g)
        assert acked_before > 10
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 20
        while (private_redis_pid(server) in (None, first) or readyz(server)[0] != 200):
            assert time.monotonic() < deadline, "the private Redis did not come back"
            await asyncio.sleep(0.05)
        results = await asyncio.wait_for(asyncio.gather(*tasks), 90)
        assert all(r[0] == r[1] for r in results)
        for g in games:
            check_match(server, g)  # every answer acked before, during and after: none lost
        log = next(tmp_path.glob("server-*.log")).read_text()
        assert "exited with signal SIGKILL; restarting it" in log and "is back" in log
    finally:
        server.stop()


async def test_readyz_answers_at_once_while_redis_is_stopped(tmp_path):
    server = ServerProcess(tmp_path).start()
    pid = private_redis_pid(server)
    try:
        assert readyz(server)[0] == 200
        os.kill(pid, signal.SIGSTOP)
        status, took = await asyncio.to_thread(readyz, server)
        assert status == 503
        assert took < 3, f"/readyz took {took:.1f} s"
        # A stopped Redis is not a dead one: it is left alone, and is ready when it resumes.
        os.kill(pid, signal.SIGCONT)
        deadline = time.monotonic() + 10
        while readyz(server)[0] != 200:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        assert private_redis_pid(server) == pid
    finally:
        os.kill(pid, signal.SIGCONT)
        server.stop()


@pytest.mark.parametrize("placement", ["least-loaded", "local"])
async def test_create_answers_unavailable_in_bounded_time_while_redis_is_stopped(tmp_path, placement):
    """POST /matches while Redis is stopped took 10 s (placement's read of the nodes, then
    the write, each waiting out 5 s): a client's own timeout ran out first. It answers
    503 `unavailable` within the store's 5 s, and creates matches again when Redis resumes."""
    server = ServerProcess(tmp_path, env={"BATTLEHALL_PLACEMENT": placement}).start()
    pid = private_redis_pid(server)
    body = {"ruleset": "duel", "seats": ["alice", "bob"]}
    try:
        assert httpx.post(server.url + "/matches", json=body, timeout=10).status_code == 201
        os.kill(pid, signal.SIGSTOP)
        for _ in range(2):  # the second after the first has given up on the connection
            started = time.monotonic()
            answer = await asyncio.to_thread(httpx.post, server.url + "/matches", json=body, timeout=30)
            took = time.monotonic() - started
            assert answer.status_code == 503 and answer.json()["error"]["code"] == "unavailable", answer.text
            assert took < 7, f"POST /matches took {took:.1f} s"
        os.kill(pid, signal.SIGCONT)
        deadline = time.monotonic() + 15
        while (answer := httpx.post(server.url + "/matches", json=body, timeout=10)).status_code != 201:
            assert time.monotonic() < deadline, answer.text
            await asyncio.sleep(0.1)
        assert private_redis_pid(server) == pid
    finally:
        os.kill(pid, signal.SIGCONT)
        server.stop()
