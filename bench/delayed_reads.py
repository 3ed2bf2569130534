"""A delayed match's public summary: what `GET /matches/{id}` costs as the match's log grows.

A real server (private Redis) holds public duel matches with a stream delay of one hour
(the longest allowed), played to each of --entries answers (a log entry each, all of them
inside the delay), and one with no delay, played to the longest, as the floor: the cost
of a summary that reads nothing of the log. One client reads one match's summary after
another for --round s, the matches taking turns until each has had --seconds; then
--readers clients at once read the longest delayed match for --seconds. Reports, per
match, the server's and its Redis' CPU per read and the latency p50 / p99.

    python bench/delayed_reads.py [--entries 200,5000] [--seconds 10] [--readers 20] [--code DIR]

`--code DIR` runs the server from another source tree (`git archive REV battlehall | tar
-x -C DIR`), to compare revisions on the same machine in the same hour.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import sys
import tempfile
import time

import httpx
import redis

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import cpu_seconds, start_server, stop_server, wait_ready

HOUR_MS = 3_600_000


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


def redis_pid(server_pid: int) -> int | None:
    """The server's private redis-server: a child of its process."""
    for task in os.listdir(f"/proc/{server_pid}/task"):
        with open(f"/proc/{server_pid}/task/{task}/children") as f:
            for child in f.read().split():
                with open(f"/proc/{child}/cmdline", "rb") as c:
                    if b"redis-server" in c.read():
                        return int(child)
    return None


async def play(base: str, delay_ms: int, answers: int, seed: int) -> str:
    """A public duel both seats guard in (it never ends), played to `answers` answers."""
    from battlehall.client import Client

    async with httpx.AsyncClient(base_url=base, timeout=30) as http:
        created = (await http.post("/matches", json={
            "ruleset": "duel", "seats": ["a", "b"], "seed": seed, "options": {"hp": 1000},
            "clock": {"prompt_ms": None}, "spectators": {"public": True, "delay_ms": delay_ms}})).json()
    left = {"n": answers}

    def choose(prompt):
        left["n"] -= 1
        return "guard", {}

    clients = [Client(base, created["match"], t, choose=choose) for t in created["tokens"].values()]
    tasks = [asyncio.ensure_future(c.run()) for c in clients]
    while left["n"] > 0:
        await asyncio.sleep(0.001)
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    await asyncio.sleep(0.2)  # the last answers written
    return created["match"]


class Meter:
    """Reads of one match by one client, over the slots it was given, and the CPU they took."""

    def __init__(self, name: str, match_id: str, entries: int):
        self.name, self.match_id, self.entries = name, match_id, entries
        self.latencies: list[float] = []
        self.server_cpu = self.redis_cpu = self.elapsed = 0.0

    def read_for(self, http: httpx.Client, seconds: float, pids: tuple[int, int | None]) -> None:
        server0, redis0 = cpu_seconds(pids[0]), cpu_seconds(pids[1]) if pids[1] else 0.0
        t0 = time.perf_counter()
        while time.perf_counter() - t0 < seconds:
            started = time.perf_counter()
            r = http.get(f"/matches/{self.match_id}")
            self.latencies.append(time.perf_counter() - started)
            assert r.status_code == 200, r.text
        self.elapsed += time.perf_counter() - t0
        self.server_cpu += cpu_seconds(pids[0]) - server0
        self.redis_cpu += (cpu_seconds(pids[1]) - redis0) if pids[1] else 0.0

    def result(self) -> dict:
        n = len(self.latencies)
        return {"match": self.name, "log_entries": self.entries, "reads": n, "reads_per_s": round(n / self.elapsed),
                "server_cpu_us_per_read": round(self.server_cpu * 1e6 / n), "redis_cpu_us_per_read": round(
                    self.redis_cpu * 1e6 / n), "p50_ms": round(pct(self.latencies, 50) * 1e3, 2),
                "p99_ms": round(pct(self.latencies, 99) * 1e3, 2)}


async def crowd(base: str, match_id: str, readers: int, seconds: float, pids: tuple[int, int | None]) -> dict:
    """`readers` clients reading the match's summary as fast as they can: the server's CPU share."""
    latencies: list[float] = []
    stop = time.perf_counter() + seconds

    async def reader() -> None:
        async with httpx.AsyncClient(base_url=base, timeout=30) as http:
            while time.perf_counter() < stop:
                started = time.perf_counter()
                r = await http.get(f"/matches/{match_id}")
                latencies.append(time.perf_counter() - started)
                assert r.status_code == 200, r.text

    server0, redis0, t0 = cpu_seconds(pids[0]), cpu_seconds(pids[1]) if pids[1] else 0.0, time.perf_counter()
    await asyncio.gather(*(reader() for _ in range(readers)))
    wall = time.perf_counter() - t0
    server, redis = cpu_seconds(pids[0]) - server0, (cpu_seconds(pids[1]) - redis0) if pids[1] else 0.0
    return {"readers": readers, "reads_per_s": round(len(latencies) / wall), "server_cpu_pct": round(100 * server / wall),
            "redis_cpu_pct": round(100 * redis / wall), "p50_ms": round(pct(latencies, 50) * 1e3, 1),
            "p99_ms": round(pct(latencies, 99) * 1e3, 1)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--entries", default="200,5000", help="answers of each delayed match, comma-separated")
    parser.add_argument("--seconds", type=float, default=10, help="reading time per match")
    parser.add_argument("--round", type=float, default=1, help="reading time per turn")
    parser.add_argument("--readers", type=int, default=20)
    parser.add_argument("--code", default=None, help="the source tree to run the server from")
    args = parser.parse_args()
    counts = [int(n) for n in args.entries.split(",")]
    data_dir = tempfile.mkdtemp(prefix="bh-bench-")
    server, base = start_server(data_dir=data_dir, cwd=args.code,
                                env={"BATTLEHALL_RATE_PER_S": "100000", "BATTLEHALL_AWAY_GRACE_S": "36000"})
    try:
        wait_ready(base)
        pids = (server.pid, redis_pid(server.pid))
        played = [("delay 1 h", asyncio.run(play(base, HOUR_MS, n, i))) for i, n in enumerate(counts)]
        played.append(("no delay", asyncio.run(play(base, 0, max(counts), 99))))
        with redis.Redis(unix_socket_path=os.path.join(data_dir, "redis", "redis.sock")) as r:  # the server's private Redis
            meters = [Meter(name, m, r.xlen(f"bh:{{{m}}}:log")) for name, m in played]
        with httpx.Client(base_url=base, timeout=30) as http:
            for meter in meters:
                meter.read_for(http, 0.5, pids)  # warm-up, not counted
                meter.latencies, meter.server_cpu, meter.redis_cpu, meter.elapsed = [], 0.0, 0.0, 0.0
            for _ in range(max(1, round(args.seconds / args.round))):  # turns: the machine's drift spreads over all
                for meter in meters:
                    meter.read_for(http, args.round, pids)
        rows = [m.result() for m in meters]
        longest = played[counts.index(max(counts))][1]
        crowded = asyncio.run(crowd(base, longest, args.readers, args.seconds, pids)) if args.readers else None
    finally:
        stop_server(server)
        shutil.rmtree(data_dir, ignore_errors=True)
    print("| match | log entries | server CPU per read | Redis CPU per read | p50 | p99 | reads/s (one client) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['match']} | {r['log_entries']:,} | {r['server_cpu_us_per_read']:,} µs | {r['redis_cpu_us_per_read']:,} µs "
              f"| {r['p50_ms']} ms | {r['p99_ms']} ms | {r['reads_per_s']:,} |")
    if crowded:
        print(f"{crowded['readers']} readers of the longest delayed match: {crowded['reads_per_s']:,} "
              f"reads/s, server CPU {crowded['server_cpu_pct']} %, Redis {crowded['redis_cpu_pct']} %, "
              f"p50 {crowded['p50_ms']} ms, p99 {crowded['p99_ms']} ms")
    print(json.dumps({"bench": "delayed_reads", "code": args.code or ".", "reads": rows, "crowd": crowded}))


if __name__ == "__main__":
    main()
