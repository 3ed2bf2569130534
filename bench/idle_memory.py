"""Idle memory per live match, with its two players connected, at 10,000 matches.

A real server (private Redis) gets N `duel` matches (untimed, so nothing happens in
them), then two client processes connect both seats of (nearly) every match and hold
the sockets open. The server's resident memory (VmRSS) is read before the matches,
after creating them, and with the sockets connected; the differences, divided by the
match count, are the memory a live match costs, without and with its sockets.

This machine allows 20,000 open files per process, so the server can hold at most
~19,900 sockets: `--connected` (default 9,900) says how many matches get both sockets.

    python bench/idle_memory.py [--matches 10000] [--connected 9900]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import time

import httpx

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import start_server, stop_server, wait_ready


def rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


async def create(base: str, n: int) -> list[dict]:
    out: list[dict] = []
    async with httpx.AsyncClient(base_url=base, timeout=60, limits=httpx.Limits(max_connections=16)) as http:
        sem = asyncio.Semaphore(16)

        async def one(i):
            async with sem:
                r = await http.post("/matches", json={"ruleset": "duel", "seats": ["a", "b"], "seed": i,
                                                      "clock": {"prompt_ms": None}})
                out.append(r.json())

        await asyncio.gather(*(one(i) for i in range(n)))
    return out


def hold(base: str, jobs: list[tuple[str, str]], ready, release) -> None:
    """A client process: connect every (match, token), say hello, keep the socket open."""
    import msgpack
    import websockets

    async def main():
        sem = asyncio.Semaphore(64)
        sockets = []

        async def one(match, token):
            async with sem:
                ws = await websockets.connect(f"{base.replace('http', 'ws')}/ws/{match}",
                                              subprotocols=["battlehall.v1.msgpack"], ping_interval=None)
                await ws.send(msgpack.packb({"t": "hello", "token": token}))
                await ws.recv()
                sockets.append(ws)

        await asyncio.gather(*(one(m, t) for m, t in jobs))
        ready.set()
        while not release.is_set():
            await asyncio.sleep(0.2)
        for ws in sockets:
            await ws.close()

    asyncio.run(main())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--connected", type=int, default=9_900)
    args = parser.parse_args()
    server, base = start_server()
    try:
        wait_ready(base)
        time.sleep(0.5)
        rss_empty = rss_mib(server.pid)
        created = asyncio.run(create(base, args.matches))
        time.sleep(1)
        rss_matches = rss_mib(server.pid)
        jobs = [(m["match"], m["tokens"][seat]) for m in created[:args.connected] for seat in ("a", "b")]
        ready = [multiprocessing.Event() for _ in range(2)]
        release = multiprocessing.Event()
        halves = [jobs[0::2], jobs[1::2]]
        procs = [multiprocessing.Process(target=hold, args=(base, half, r, release)) for half, r in zip(halves, ready)]
        t0 = time.perf_counter()
        for p in procs:
            p.start()
        for r in ready:
            r.wait(600)
        connect_s = time.perf_counter() - t0
        time.sleep(2)
        rss_connected = rss_mib(server.pid)
        connections = int(float([line for line in httpx.get(base + "/metrics").text.splitlines()
                                 if line.startswith("battlehall_connections ")][0].split()[1]))
        release.set()
        for p in procs:
            p.join(60)
    finally:
        stop_server(server)
    result = {
        "matches": args.matches, "connected_matches": args.connected, "sockets": connections,
        "rss_mib": {"empty": round(rss_empty, 1), "with_matches": round(rss_matches, 1),
                    "with_sockets": round(rss_connected, 1)},
        "kib_per_match": round((rss_matches - rss_empty) * 1024 / args.matches, 1),
        "kib_per_connected_match": round((rss_connected - rss_empty) * 1024 / args.matches, 1),
        "kib_per_socket": round((rss_connected - rss_matches) * 1024 / max(1, connections), 1),
        "connect_s": round(connect_s, 1),
    }
    print(f"{args.matches} live matches: {result['kib_per_match']} KiB each idle; with both sockets "
          f"({connections} sockets): {result['kib_per_connected_match']} KiB per match, "
          f"{result['kib_per_socket']} KiB per socket")
    print(json.dumps({"bench": "idle_memory", **result}))


if __name__ == "__main__":
    main()
