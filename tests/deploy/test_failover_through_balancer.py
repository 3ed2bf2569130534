"""A node killed (SIGKILL) under load, with clients that know only the load balancer.

deploy/local-cluster runs three nodes, one Redis and HAProxy; bots play a hundred duels
through the balancer's address alone. The node running the most matches is killed:
every match still ends, every acknowledged answer is in its match's log exactly once,
and the time until the other nodes hold and play all of its matches is printed.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest
import redis

from battlehall.client import JSON, MSGPACK, Client
from battlehall.server.storage.lease import holder
from battlehall.server.storage.store import key
from nodes.test_nodes import check_match
from stopping import ENV as HANG_ENV
from stopping import foreground, wait_or_report

ROOT = Path(__file__).resolve().parents[2]
# Leases long enough that a loaded machine renews them in time: matches move only at the kill.
LEASE_MS = 2000
SCAN_MS = 250
MATCHES = 100


class TimedAcks(dict):
    """A client's `acked`, also noting when each ack arrived."""

    def __init__(self):
        super().__init__()
        self.times: list[float] = []

    def __setitem__(self, act_id, seq):
        self.times.append(time.monotonic())
        super().__setitem__(act_id, seq)


@pytest.fixture
def cluster(tmp_path):
    env = {**os.environ, "BATTLEHALL_LEASE_MS": str(LEASE_MS), "BATTLEHALL_TAKEOVER_SCAN_MS": str(SCAN_MS)}
    proc = subprocess.Popen([sys.executable, str(ROOT / "deploy/local-cluster"), "--nodes", "3", "--json",
                             "--port", "0", "--node-port", "0", "--redis-port", "0", "--client-cap", "0",
                             "--data-dir", str(tmp_path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                            env={**env, **HANG_ENV}, preexec_fn=foreground)
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError(f"local-cluster did not start: {proc.stderr.read()}")
    info = json.loads(line)
    yield info
    proc.send_signal(signal.SIGINT)
    wait_or_report(proc, 30, list(info["pids"].values()), sorted(Path(info["data_dir"]).glob("*.log")))


def owner(r: redis.Redis, match_id: str) -> str | None:
    value = r.get(key(match_id, "owner"))
    return holder(value) if value else None


async def test_kill_9_of_the_busiest_node_behind_the_balancer_loses_no_acked_answer(cluster):
    lb = cluster["lb"]
    r = redis.Redis.from_url(cluster["redis"])
    games = []
    async with httpx.AsyncClient(timeout=10) as http:
        for i in range(MATCHES):
            created = (await http.post(f"{lb}/matches", json={"ruleset": "duel", "seed": i, "seats": ["a", "b"],
                                                               "options": {"hp": 8}})).json()
            clients = [Client(lb, created["match"], token, wire=(JSON, MSGPACK)[j], seed=i * 2 + j, think_s=0.1,
                              give_up_s=60, max_backoff_s=0.5)
                       for j, token in enumerate(created["tokens"].values())]
            for c in clients:
                c.acked = TimedAcks()
            games.append((created, clients))
    tasks = [asyncio.ensure_future(asyncio.gather(*(c.run() for c in g))) for _, g in games]
    all_clients = [c for _, g in games for c in g]
    deadline = time.monotonic() + 30
    while sum(len(c.acked) for c in all_clients) < 2 * MATCHES:  # play is under way everywhere
        assert time.monotonic() < deadline, "play did not get under way"
        await asyncio.sleep(0.05)

    owners = {created["match"]: owner(r, created["match"]) for created, _ in games}
    held = Counter(owners.values())
    victim = held.most_common(1)[0][0]
    doomed = {m for m, o in owners.items() if o == victim}
    assert len(held) > 1 and len(doomed) >= MATCHES // 5, f"the matches were spread over the nodes: {held}"
    os.kill(cluster["pids"][victim], signal.SIGKILL)
    killed_at = time.monotonic()

    # Taken over: every live match of the dead node has a new owner in Redis...
    while True:
        live = {m for m in doomed if r.zscore("bh:live", m) is not None}
        moved = {m: owner(r, m) for m in live}
        if all(o not in (None, victim) for o in moved.values()):
            break
        assert time.monotonic() - killed_at < LEASE_MS / 1000 + 10, f"not taken over: {moved}"
        await asyncio.sleep(0.02)
    owned_s = time.monotonic() - killed_at
    # ...and played again: each of them has an ack after the kill, or has ended.
    doomed_clients = {created["match"]: g for created, g in games if created["match"] in doomed}
    while True:
        waiting = [m for m, g in doomed_clients.items()
                   if not any(c.result for c in g) and not any(t > killed_at for c in g for t in c.acked.times)]
        if not waiting:
            break
        assert time.monotonic() - killed_at < 30, f"{len(waiting)} matches not played on after the takeover"
        await asyncio.sleep(0.02)
    playing_s = time.monotonic() - killed_at
    print(f"\nkill -9 {victim} holding {len(doomed)} of {MATCHES} matches ({len(live)} live): "
          f"new owners in {owned_s:.2f} s, all playing again in {playing_s:.2f} s "
          f"(lease {LEASE_MS} ms, scan {SCAN_MS} ms)")

    results = await asyncio.wait_for(asyncio.gather(*tasks), 60)
    assert all(a == b and a["reason"] for a, b in results)
    # The logs are read through the balancer: any live node serves a replay.
    through_lb = SimpleNamespace(nodes=[SimpleNamespace(url=lb, proc=SimpleNamespace(poll=lambda: None))], redis=r)
    played_on = 0
    for created, clients in games:
        leases = check_match(through_lb, created, clients)
        writers = [lease.split(" ")[1] for lease in leases]
        if created["match"] in doomed:
            played_on += writers[-1] != victim
        elif owners[created["match"]] is not None:  # None: a short match that had already ended
            assert victim not in writers
    assert played_on >= 1, "no match of the dead node was written by another"
    assert owned_s < LEASE_MS / 1000 + 3  # the lease, a few scans, and a loaded machine
