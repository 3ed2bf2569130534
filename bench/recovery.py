"""Recovery time after SIGKILL, for 1,000 and 10,000 live matches.

For each size: start a real server (private Redis), create N live `duel` matches and
answer a few prompts in some of them, SIGKILL the server (its Redis shuts down with
it), start it again on the same data folder, and time how long until it is ready: at
startup it loads and replays every live match before it answers /readyz. The time of
an empty restart is measured the same way and reported beside it; `recovery s` is the
server's own measure of loading and replaying the matches (battlehall_recovery_seconds),
`restart s` the whole time from exec to ready (Redis loading its file included).

    python bench/recovery.py [--sizes 1000,10000]
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

import httpx

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import BENCH_ENV, free_port, metric, play_some, wait_ready


class Server:
    def __init__(self, data: Path, port: int):
        self.data, self.port, self.proc = data, port, None

    def start(self) -> float:
        """Start; return seconds until /readyz answers 200."""
        t0 = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-m", "battlehall", "serve", "--port", str(self.port),
                                      "--data-dir", str(self.data), "--log-level", "warning"],
                                     env={**os.environ, **BENCH_ENV}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        wait_ready(f"http://127.0.0.1:{self.port}")
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


async def populate(url: str, n: int) -> None:
    limits = httpx.Limits(max_connections=32)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=30) as http:
        sem = asyncio.Semaphore(32)

        async def one(i):
            async with sem:
                r = await http.post("/matches", json={"ruleset": "duel", "seats": ["a", "b"], "seed": i})
                r.raise_for_status()

        await asyncio.gather(*(one(i) for i in range(n)))


def run(size: int) -> dict:
    data = Path(tempfile.mkdtemp(prefix="bh-recovery-"))
    server = Server(data, free_port())
    url = f"http://127.0.0.1:{server.port}"
    try:
        server.start()
        server.kill()
        empty = server.start()  # an empty restart, for comparison
        t0 = time.perf_counter()
        asyncio.run(populate(url, size))
        asyncio.run(play_some(url, 50, 40))
        created_s = time.perf_counter() - t0
        server.kill()
        ready = server.start()
        recovered = int(metric(url, "battlehall_matches_recovered_total"))
        recovery = metric(url, "battlehall_recovery_seconds")
        server.kill()
        return {"matches": size + 50, "recovered": recovered, "restart_empty_s": round(empty, 3),
                "restart_s": round(ready, 3), "recovery_s": round(recovery, 3),
                "populate_s": round(created_s, 1)}
    finally:
        if server.proc and server.proc.poll() is None:
            server.kill()
        shutil.rmtree(data, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000")
    args = parser.parse_args()
    results = [run(int(n)) for n in args.sizes.split(",")]
    print(f"{'live matches':>13} {'recovered':>10} {'empty restart s':>16} {'restart s':>10} {'recovery s':>11}")
    for r in results:
        print(f"{r['matches']:>13} {r['recovered']:>10} {r['restart_empty_s']:>16} {r['restart_s']:>10} {r['recovery_s']:>11}")
    print(json.dumps({"bench": "recovery", "results": results}))


if __name__ == "__main__":
    main()
