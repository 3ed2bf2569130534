"""docs/operations.md's several-nodes example, run as written (but for its ports and the
Redis data folder, so that it runs beside other tests): it named a `redis-server` that a
newcomer does not have, when the one that came with Battlehall is in the virtual
environment."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import time
from pathlib import Path

import httpx

from servers import free_port

ROOT = Path(__file__).resolve().parents[2]


def example() -> str:
    """The shell block that follows "three nodes on one machine" in docs/operations.md."""
    text = (ROOT / "docs" / "operations.md").read_text()
    found = re.search(r"three nodes on one machine.*?```sh\n(.*?)```", text, re.S)
    assert found, "docs/operations.md has no several-nodes example"
    return found.group(1)


def free_node_ports() -> int:
    """A prefix P with ports P1, P2 and P3 free (the example's 810$i)."""
    for _ in range(200):
        prefix = random.randrange(2000, 6500)
        ports = [int(f"{prefix}{i}") for i in (1, 2, 3)]
        if all(_free(port) for port in ports):
            return prefix
    raise AssertionError("no free ports")


def _free(port: int) -> bool:
    import socket

    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def newcomers_env(tmp_path: Path) -> dict:
    """This environment as a newcomer's: no `redis-server` installed. A stand-in that
    says so comes first on the PATH (this machine may have one of its own)."""
    stubs = tmp_path / "bin"
    stubs.mkdir()
    stub = stubs / "redis-server"
    stub.write_text('#!/bin/sh\necho "redis-server: command not found" >&2\nexit 127\n')
    stub.chmod(0o755)
    return {**os.environ, "PATH": f"{stubs}{os.pathsep}{os.environ.get('PATH', '')}"}


def test_the_several_nodes_example_runs_as_written(tmp_path):
    script = example()
    redis_port, prefix = free_port(), free_node_ports()
    lines = script.replace("6379", str(redis_port)).replace("810", str(prefix)) \
        .replace("data/shared-redis", str(tmp_path / "redis")).splitlines()
    bot = next(line for line in lines if "battlehall bot" in line)
    setup = "\n".join(line for line in lines if line is not bot)
    log = open(tmp_path / "example.log", "wb")
    shell = subprocess.Popen(["bash", "-euo", "pipefail", "-c", setup], cwd=ROOT, env=newcomers_env(tmp_path), stdout=log,
                             stderr=subprocess.STDOUT, start_new_session=True)
    try:
        assert shell.wait(30) == 0, (tmp_path / "example.log").read_text()
        assert "command not found" not in (tmp_path / "example.log").read_text()
        nodes = [f"http://127.0.0.1:{prefix}{i}" for i in (1, 2, 3)]
        deadline = time.monotonic() + 60
        for node in nodes:
            while True:
                try:
                    if httpx.get(node + "/readyz", timeout=1).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                assert time.monotonic() < deadline, (tmp_path / "example.log").read_text()
                time.sleep(0.1)
        created = httpx.post(nodes[0] + "/matches", json={"ruleset": "duel", "seats": ["alice", "bob"]},
                             timeout=10).json()
        # The example's bot line, its "..." the match and a seat's token.
        bots = [subprocess.Popen(["bash", "-c", bot.replace("...", f"--match {created['match']} --token {token}")],
                                 cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for token in created["tokens"].values()]
        for process in bots:
            out, err = process.communicate(timeout=120)
            assert process.returncode == 0, err
            assert '"result": {' in out, out
        summary = httpx.get(f"{nodes[0]}/matches/{created['match']}", timeout=10).json()
        assert summary["status"] == "finished"
        # The example's Redis, with its append-only file (appendonly.aof, or appendonlydir from Redis 7).
        assert any(p.name.startswith("appendonly") for p in (tmp_path / "redis").iterdir())
    finally:
        os.killpg(shell.pid, signal.SIGTERM)
        time.sleep(1)
        try:
            os.killpg(shell.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        log.close()
