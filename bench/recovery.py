"""Recovery time after SIGKILL, for 1,000 and 10,000 live matches.

For each size: start a real server (private Redis), create N live `duel` matches and
answer a few prompts in some of them, SIGKILL the server (its Redis shuts down with
it), start it again on the same data folder, and time it, `--rounds` times from the same
killed folder (copied each time):

- `ready s`: from exec to `/readyz` answering 200 (Redis loading its file included). The
  server serves from then on; the live matches are loaded meanwhile, and one asked for
  before its turn is loaded next (docs/operations.md, "Restarts").
- `first s`: a socket's `hello` for the match created last (the last to load, in order),
  sent the moment the server is ready, to its `welcome`.
- `loaded s`: from exec to every live match loaded (`/readyz` without `recovering`).
- `recovery s`: the server's own measure of loading them (battlehall_recovery_seconds).
- `redis s`: Redis alone loading the same file (a copy), from exec to its first PONG,
  the way the server starts it; `empty s`: a restart with no matches (the server's import
  and startup, and its Redis).

    python bench/recovery.py [--sizes 1000,10000] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import msgpack
import websockets

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import BENCH_ENV, free_port, metric, play_some, wait_ready

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class Server:
    def __init__(self, data: Path, port: int, tree: Path = ROOT):
        self.data, self.port, self.tree, self.proc = data, port, tree, None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def spawn(self) -> float:
        """Start the server; return its exec time (perf_counter)."""
        t0 = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-m", "battlehall", "serve", "--port", str(self.port),
                                      "--data-dir", str(self.data), "--log-level", "warning"], cwd=self.tree,
                                     env={**os.environ, **BENCH_ENV}, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        return t0

    def start(self) -> float:
        """Start; return seconds until /readyz answers 200."""
        t0 = self.spawn()
        wait_ready(self.url)
        return time.perf_counter() - t0

    def kill(self) -> None:
        """SIGKILL the server alone, as an operator or the OOM killer would; its Redis
        gets SIGTERM from the kernel and shuts down cleanly."""
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        sock = self.data / "redis" / "redis.sock"
        for _ in range(600):
            if not sock.exists():
                break
            time.sleep(0.05)


async def populate(url: str, n: int) -> dict:
    """N live duels; the answer of the one created last (its id and seat tokens)."""
    limits = httpx.Limits(max_connections=32)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as http:
        sem = asyncio.Semaphore(32)

        async def one(i):
            async with sem:
                r = await http.post("/matches", json={"ruleset": "duel", "seats": ["a", "b"], "seed": i})
                r.raise_for_status()
                return r.json()

        created = await asyncio.gather(*(one(i) for i in range(n)))
    return created[-1]  # created last: among the last the recovery loads, in order


async def first_welcome(url: str, match_id: str, token: str) -> float:
    """Seconds from opening a socket and saying hello to the match's `welcome`."""
    from battlehall.client import MSGPACK, ws_url

    t0 = time.perf_counter()
    async with websockets.connect(ws_url(url, match_id), subprotocols=[MSGPACK]) as ws:
        await ws.send(msgpack.packb({"t": "hello", "token": token}))
        while True:
            message = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 60))
            if message["t"] == "welcome":
                return time.perf_counter() - t0
            if message["t"] == "error":
                raise RuntimeError(f"hello refused: {message}")


def redis_load(data: Path) -> float:
    """Seconds for the private Redis, started as the server starts it, to load `data`'s file."""
    from battlehall.server.storage.embedded_redis import EmbeddedRedis

    copy = Path(tempfile.mkdtemp(prefix="bh-recovery-redis-")) / "redis"
    shutil.copytree(data / "redis", copy)
    (copy / "redis.sock").unlink(missing_ok=True)
    redis = EmbeddedRedis(copy)
    try:
        t0 = time.perf_counter()
        redis.start()
        return time.perf_counter() - t0
    finally:
        redis.stop()
        shutil.rmtree(copy.parent, ignore_errors=True)


def restart(killed: Path, last: dict, tree: Path) -> dict:
    """One restart on a copy of the killed folder: ready, first welcome, all loaded."""
    data = Path(tempfile.mkdtemp(prefix="bh-recovery-run-"))
    shutil.rmtree(data)
    shutil.copytree(killed, data)
    (data / "redis" / "redis.sock").unlink(missing_ok=True)
    server = Server(data, free_port(), tree)
    try:
        t0 = server.spawn()
        wait_ready(server.url)
        ready = time.perf_counter() - t0
        first = asyncio.run(first_welcome(server.url, last["match"], next(iter(last["tokens"].values()))))
        while httpx.get(server.url + "/readyz", timeout=10).json().get("recovering"):
            time.sleep(0.01)
        loaded = time.perf_counter() - t0
        return {"ready_s": round(ready, 3), "first_s": round(first, 3), "loaded_s": round(loaded, 3),
                "recovery_s": round(metric(server.url, "battlehall_recovery_seconds"), 3),
                "recovered": int(metric(server.url, "battlehall_matches_recovered_total")),
                "load_average": round(os.getloadavg()[0], 2)}
    finally:
        if server.proc and server.proc.poll() is None:
            server.kill()
        shutil.rmtree(data, ignore_errors=True)


def populated(size: int, rounds: int, tree: Path) -> dict:
    """A killed folder of `tree`'s server with `size` live matches, and its empty restarts."""
    data = Path(tempfile.mkdtemp(prefix="bh-recovery-"))
    server = Server(data, free_port(), tree)
    try:
        server.start()
        empty = []  # restarts with no matches, for comparison
        for _ in range(rounds):
            server.kill()
            empty.append(server.start())
        t0 = time.perf_counter()
        last = asyncio.run(populate(server.url, size))
        asyncio.run(play_some(server.url, 50, 40))
        created_s = time.perf_counter() - t0
        server.kill()
        aof = data / "redis" / "appendonly.aof"
        with open(aof, "rb") as f:
            preamble = f.read(5) == b"REDIS"
        return {"data": data, "last": last, "empty": empty, "populate_s": round(created_s, 1),
                "aof_mb": round(aof.stat().st_size / 2**20, 1), "aof_rdb_preamble": preamble}
    except BaseException:
        shutil.rmtree(data, ignore_errors=True)
        raise
    finally:
        if server.proc and server.proc.poll() is None:
            server.kill()


def run(size: int, rounds: int, trees: list[Path]) -> list[dict]:
    """Each tree's folder restarted `rounds` times, the trees alternated round by round."""
    folders = [populated(size, rounds, tree) for tree in trees]
    try:
        redis = [[redis_load(f["data"]) for f in folders] for _ in range(rounds)]
        runs = [[restart(f["data"], f["last"], tree) for f, tree in zip(folders, trees)] for _ in range(rounds)]
        results = []
        for i, (f, tree) in enumerate(zip(folders, trees)):
            mine = [r[i] for r in runs]
            median = {k: round(statistics.median(r[k] for r in mine), 3)
                      for k in ("ready_s", "first_s", "loaded_s", "recovery_s")}
            results.append({"tree": str(tree), "matches": size + 50, "recovered": [r["recovered"] for r in mine],
                            "empty_s": round(statistics.median(f["empty"]), 3),
                            "redis_s": round(statistics.median(r[i] for r in redis), 3), **median, "runs": mine,
                            **{k: f[k] for k in ("aof_mb", "aof_rdb_preamble", "populate_s")}})
        return results
    finally:
        for f in folders:
            shutil.rmtree(f["data"], ignore_errors=True)


def revision() -> str:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout
    dirty = subprocess.run(["git", "status", "--porcelain", "battlehall"], cwd=ROOT, capture_output=True, text=True)
    return head.strip() + ("+uncommitted" if dirty.stdout.strip() else "")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--rounds", type=int, default=3, help="restarts from the same killed folder; medians")
    parser.add_argument("--trees", default=str(ROOT),
                        help="source trees whose servers to compare, alternated (e.g. a `git archive` of a revision)")
    args = parser.parse_args()
    trees = [Path(t).resolve() for t in args.trees.split(",")]
    results = [r for n in args.sizes.split(",") for r in run(int(n), args.rounds, trees)]
    print(f"{'tree':<24} {'live matches':>13} {'recovered':>10} {'empty s':>8} {'redis s':>8} {'ready s':>8} {'first s':>8} "
          f"{'loaded s':>9} {'recovery s':>11} {'AOF MB':>7} {'preamble':>9}")
    for r in results:
        print(f"{Path(r['tree']).name:<24} {r['matches']:>13} {min(r['recovered']):>10} {r['empty_s']:>8} {r['redis_s']:>8} {r['ready_s']:>8} "
              f"{r['first_s']:>8} {r['loaded_s']:>9} {r['recovery_s']:>11} {r['aof_mb']:>7} {r['aof_rdb_preamble']!s:>9}")
    print(json.dumps({"bench": "recovery", "revision": revision(), "python": platform.python_version(),
                      "load_average": os.getloadavg()[0], "results": results}))


if __name__ == "__main__":
    main()
