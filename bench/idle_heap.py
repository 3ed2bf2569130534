"""Where an idle live match's memory goes: tracemalloc snapshots of the server, by line.

The same steps as `idle_memory.py`, smaller (default 2,000 matches, both seats of each
connected): the server runs under tracemalloc, and a snapshot is taken with the empty
server, with the matches, and with the sockets. Printed: the lines that grew the most
between two steps, in bytes per match (or per socket), so a change's effect can be read
off line by line. Python's heap only: RSS adds the allocators' overhead on top.

    python bench/idle_heap.py [--matches 2000] [--top 40] [--frames 1]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import BENCH_ENV, free_port, stop_server, wait_ready
from idle_memory import create, hold

# Runs in the server's process: tracemalloc from the start, and a thread that writes a
# snapshot whenever the bench asks (a file named `<dir>/want-<name>` appears).
_SERVER = """
import gc, os, runpy, sys, threading, time, tracemalloc
tracemalloc.start(int(os.environ["BH_FRAMES"]))
where = os.environ["BH_SNAPSHOTS"]
def watch():
    while True:
        for name in os.listdir(where):
            if name.startswith("want-"):
                os.remove(os.path.join(where, name))
                path = os.path.join(where, name[5:] + ".snap")
                if name.startswith("want-collected-"):  # what is left once the cycles are collected
                    gc.collect()
                tracemalloc.take_snapshot().dump(path + ".part")
                os.rename(path + ".part", path)  # whole when it appears
        time.sleep(0.2)
threading.Thread(target=watch, daemon=True).start()
sys.argv = ["battlehall"] + sys.argv[1:]
runpy.run_module("battlehall", run_name="__main__")
"""


def snapshot(where: str, name: str) -> tracemalloc.Snapshot:
    open(os.path.join(where, "want-" + name), "w").close()
    path = os.path.join(where, name + ".snap")
    while not os.path.exists(path):
        time.sleep(0.2)
    return tracemalloc.Snapshot.load(path)


def report(title: str, before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, per: int, top: int,
           key: str) -> None:
    stats = after.compare_to(before, key)
    grown = sum(s.size_diff for s in stats)
    print(f"\n## {title}: {grown / per:.0f} B each ({per} of them)")
    for s in stats[:top]:
        where = s.traceback.format()[-1].strip() if key == "lineno" else " <- ".join(
            line.strip() for line in s.traceback.format() if line.startswith("  File"))
        print(f"{s.size_diff / per:8.1f} B {s.count_diff / per:6.2f} blocks  {where}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=2_000)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--frames", type=int, default=1)
    args = parser.parse_args()
    where = tempfile.mkdtemp(prefix="bh-heap-")
    port = free_port()
    env = {**os.environ, **BENCH_ENV, "BH_FRAMES": str(args.frames), "BH_SNAPSHOTS": where}
    server = subprocess.Popen([sys.executable, "-c", _SERVER, "serve", "--port", str(port), "--data-dir",
                               tempfile.mkdtemp(prefix="bh-bench-"), "--log-level", "warning"],
                              env=env, start_new_session=True, stdout=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_ready(base)
        time.sleep(0.5)
        empty = snapshot(where, "empty")
        created = asyncio.run(create(base, args.matches))
        time.sleep(1)
        matches = snapshot(where, "matches")
        jobs = [(m["match"], m["tokens"][seat]) for m in created for seat in ("a", "b")]
        ready = [multiprocessing.Event() for _ in range(2)]
        release = multiprocessing.Event()
        procs = [multiprocessing.Process(target=hold, args=(base, half, r, release))
                 for half, r in zip([jobs[0::2], jobs[1::2]], ready)]
        for p in procs:
            p.start()
        for r in ready:
            r.wait(600)
        time.sleep(2)
        sockets = snapshot(where, "sockets")
        collected = snapshot(where, "collected-sockets")
        release.set()
        for p in procs:
            p.join(60)
    finally:
        stop_server(server)
    key = "lineno" if args.frames == 1 else "traceback"
    report("per match, no sockets", empty, matches, args.matches, args.top, key)
    report("per socket", matches, sockets, len(jobs), args.top, key)
    report("per match with its sockets", empty, sockets, args.matches, args.top, key)
    report("per match with its sockets, cycles collected", empty, collected, args.matches, args.top, key)


if __name__ == "__main__":
    main()
