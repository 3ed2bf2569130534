"""deploy/local-cluster as a user runs it: N nodes, one Redis with its append-only file,
HAProxy in front, all on loopback; Ctrl-C stops them all."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
import redis
import websockets
from test_manifests import haproxy_check

from battlehall.client import Client
from battlehall.server.storage.lease import holder
from battlehall.server.storage.store import key
from stopping import ENV as HANG_ENV
from stopping import foreground, wait_or_report
from wsutil import Raw

ROOT = Path(__file__).resolve().parents[2]


def metric(url: str, name: str) -> float:
    for line in httpx.get(f"{url}/metrics", timeout=5).text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    raise AssertionError(f"no metric {name} at {url}")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is gone too
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    data = tmp_path_factory.mktemp("cluster")
    proc = subprocess.Popen([sys.executable, str(ROOT / "deploy/local-cluster"), "--nodes", "2", "--json",
                             "--port", "0", "--node-port", "0", "--redis-port", "0", "--data-dir", str(data)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**os.environ, **HANG_ENV}, preexec_fn=foreground)
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"local-cluster did not start: {proc.stderr.read()}")
    info = json.loads(line)
    yield proc, info
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        wait_or_report(proc, 30, list(info["pids"].values()), sorted(Path(info["data_dir"]).glob("*.log")))


def test_the_balancer_routes_the_api_and_pins_node_paths(cluster):
    _, info = cluster
    haproxy_check(Path(info["haproxy_config"]))
    lb = info["lb"]
    assert httpx.get(f"{lb}/readyz", timeout=5).json() == {"ready": True}
    created = httpx.post(f"{lb}/matches", json={"ruleset": "duel", "seats": ["a", "b"]}, timeout=10)
    assert created.status_code == 201
    # /node/<id>/... reaches that node (the prefix cut): its metrics are that node's own.
    held = {}
    for node, url in info["nodes"].items():
        held[node] = metric(url, "battlehall_matches_in_memory")
        for _ in range(5):  # not by luck: the API alone would go to either node
            assert metric(f"{lb}/node/{node}", "battlehall_matches_in_memory") == held[node]
    assert sorted(held.values()) == [0, 1]
    # Every node writes to the one Redis.
    summary = httpx.get(f"{lb}/matches/{created.json()['match']}", timeout=5).json()
    assert summary["status"] == "live"


async def test_a_socket_to_the_wrong_node_through_the_balancer_is_redirected_and_plays_on(cluster):
    _, info = cluster
    lb = info["lb"]
    created = httpx.post(f"{lb}/matches", json={"ruleset": "duel", "seats": ["alice", "bob"]}, timeout=10).json()
    match_id = created["match"]
    owner = holder(redis.Redis.from_url(info["redis"]).get(key(match_id, "owner")))
    other = next(n for n in info["nodes"] if n != owner)
    answers_before = {n: metric(url, "battlehall_answers_total") for n, url in info["nodes"].items()}
    # The node that does not run the match sends the player to the one that does, by its
    # path through the same balancer.
    wrong = await Raw.open(f"{lb}/node/{other}", match_id)
    refused = await wrong.hello(created["tokens"]["alice"])
    assert refused["code"] == "not_here"
    assert refused["redirect"] == f"ws://{lb.removeprefix('http://')}/node/{owner}/ws/{match_id}"
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await wrong.recv()
    assert closed.value.rcvd.code == 4009
    # Clients follow it and play on: one starts at the wrong node, one at the hashed one.
    alice = Client(f"{lb}/node/{other}", match_id, created["tokens"]["alice"], seed=1)
    bob = Client(lb, match_id, created["tokens"]["bob"], seed=2)
    results = await asyncio.wait_for(asyncio.gather(alice.run(), bob.run()), 60)
    assert results[0] == results[1] and results[0]["reason"]
    assert alice.redirects == 1 and [e["code"] for e in alice.errors] == ["not_here"]
    answers = {n: metric(url, "battlehall_answers_total") - answers_before[n] for n, url in info["nodes"].items()}
    assert answers[other] == 0 and answers[owner] >= len(alice.acked) + len(bob.acked) > 0  # (and any timeout)


def test_ctrl_c_stops_every_process_and_redis_keeps_its_file(cluster):
    proc, info = cluster
    pids = info["pids"]
    assert set(pids) == {"redis", "node-1", "node-2", "haproxy"}
    assert all(alive(pid) for pid in pids.values())
    proc.send_signal(signal.SIGINT)
    assert wait_or_report(proc, 30, list(pids.values()), sorted(Path(info["data_dir"]).glob("*.log"))) == 0
    assert not [name for name, pid in pids.items() if alive(pid)]
    # Redis 7 (Debian's redis-server, found first on the PATH) keeps it in appendonlydir/, 6.2 beside it
    assert list(Path(info["data_dir"]).rglob("appendonly.aof*"))
