#!/usr/bin/env python
"""What asking for a long match's replay steps, and for views, costs the server.

A real server (private Redis) gets the heaviest Spellfire match a default server takes:
6 seats, 200 inline cards of ~3,900 characters each (an 0.8 MB body, under the 1 MiB
limit), every seat's draw pile its deck (but for its 6th realm and after: nobody can win on realms) plus 33
of those cards, `turn_limit` 3000 and `exhaustion: continue`, played to the turn limit
by 6 bots over real sockets.

- **steps**: `--concurrent` clients at once each GET one range of its steps
  (`?from=&count=`: all the same range, then each a different one, spread over the
  match), reading every byte. Meanwhile /healthz is asked every 20 ms on a connection
  of its own (its latency p50 / p99 / max) and the server's RSS read from /proc every
  10 ms (growth over the RSS before: its peak). Each scenario runs twice: the first on a
  cold cache, the second on what the first left.
- **views**: one socket of a seat sends `{"t": "view"}` `--views` times, 40 a second
  (under the message rate limit), and counts the bytes of the answers it gets and the
  `rate_limited` refusals.

`--code DIR` runs the server from another source tree (e.g. an older revision,
extracted with `git archive <rev> battlehall | tar -x -C DIR`). A server before ranges
answered a steps GET with every step of the match, gigabytes for this one: measure it
with `--whole N` (N GETs with no range at once) on a shorter match (`--turn-limit`), or
skip the steps with `--only views`.

    python bench/replay_steps.py [--turn-limit 3000] [--concurrent 20] [--views 200] [--code DIR]
                                 [--only steps|views] [--whole N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import sys
import time

import httpx
import websockets

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import cpu_seconds, start_server, stop_server, wait_ready

from battlehall.client import Client
from battlehall.engine.spellfire.cards import shipped

DECKS = ["embers", "shadows", "tides", "sands", "crowns", "barrows"]


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] if values else float("nan")


def rss_bytes(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmRSS")


def heaviest_body(turn_limit: int) -> dict:
    catalog = shipped()
    seats = [f"seat{i}" for i in range(6)]
    cards = [{"id": f"inline-{i}", "name": f"Inline champion {i}", "type": "champion", "class": "hero",
              "level": 1 + i % 9, "world": "greyhawk", "text": f"card {i} " + "x" * 3890} for i in range(200)]
    players = {}
    for i, seat in enumerate(seats):
        deck, realms = [], 0
        for cid in catalog.decks[DECKS[i]]["cards"]:
            realms += catalog.cards[cid]["type"] == "realm"
            if catalog.cards[cid]["type"] != "realm" or realms <= 5:  # 6 realms win: this match goes the distance
                deck.append(cid)
        players[seat] = {"draw": (deck + [c["id"] for c in cards[i * 33:(i + 1) * 33]])[:200]}
    return {"ruleset": "spellfire", "seats": seats, "seed": 3,
            "options": {"turn_limit": turn_limit, "exhaustion": "continue"},
            "setup": {"cards": cards, "players": players}}


async def play(url: str, created: dict) -> float:
    started = time.perf_counter()
    bots = [Client(url, created["match"], token, seed=i, on_status=lambda *_: None)
            for i, token in enumerate(created["tokens"].values())]
    await asyncio.wait_for(asyncio.gather(*(bot.run() for bot in bots)), 1800)
    return time.perf_counter() - started


def _watch(url: str, pid: int, started, stop, out) -> None:
    """In a process of its own (the clients' parsing must not delay it): the server's RSS
    every 10 ms and /healthz every 20 ms on a kept-alive connection, until `stop`."""
    os.nice(-10)  # back to the server's priority (the clients run at +10): see main
    base = peak = rss_bytes(pid)
    health: list[float] = []
    with httpx.Client(base_url=url, timeout=30) as http:
        http.get("/healthz")  # connected before the window
        started.set()
        next_health = time.perf_counter()
        while not stop.is_set():
            peak = max(peak, rss_bytes(pid))
            if time.perf_counter() >= next_health:
                t0 = time.perf_counter()
                assert http.get("/healthz").status_code == 200
                health.append(time.perf_counter() - t0)
                peak = max(peak, rss_bytes(pid))
                next_health = time.perf_counter() + 0.02
            time.sleep(0.01)
    out.put((base, peak, health))


class Watch:
    def __init__(self, url: str, pid: int):
        ctx = multiprocessing.get_context("spawn")
        self.started, self.stop, self.out = ctx.Event(), ctx.Event(), ctx.Queue()
        self.proc = ctx.Process(target=_watch, args=(url, pid, self.started, self.stop, self.out))

    async def __aenter__(self):
        self.proc.start()
        await asyncio.to_thread(self.started.wait)
        await asyncio.sleep(0.2)  # a few readings before the window
        return self

    async def __aexit__(self, *exc):
        await asyncio.sleep(0.2)
        self.stop.set()
        self.base, self.peak, self.health = await asyncio.to_thread(self.out.get)
        self.proc.join()


async def get_all(url: str, path: str, ranges: list[tuple[int, int]]) -> tuple[list[int], list[int], float]:
    """One GET per range, all at once, each on its own connection; statuses, bytes, seconds."""
    async def one(start: int, count: int):
        async with httpx.AsyncClient(base_url=url, timeout=600) as http:
            size = 0
            async with http.stream("GET", path, params={"from": start, "count": count}) as r:
                async for chunk in r.aiter_raw():
                    size += len(chunk)
            return r.status_code, size
    t0 = time.perf_counter()
    got = await asyncio.gather(*(one(s, c) for s, c in ranges))
    return [g[0] for g in got], [g[1] for g in got], time.perf_counter() - t0


async def steps_scenarios(url: str, pid: int, match: str, concurrent: int) -> list[dict]:
    path, count, total = f"/matches/{match}/replay/steps", 32, None
    out = []
    async with Watch(url, pid) as watch:  # the machine's own noise, for comparison
        await asyncio.sleep(2)
    out.append({"scenario": "no request", "healthz_p50_ms": round(pct(watch.health, 50) * 1000, 1),
                "healthz_p99_ms": round(pct(watch.health, 99) * 1000, 1),
                "healthz_max_ms": round(max(watch.health) * 1000, 1), "healthz_n": len(watch.health)})
    print(json.dumps(out[-1]), flush=True)
    for name in ("same range", "different ranges"):
        if name == "same range":  # the first: its cold run also re-runs the match (the index)
            ranges = [(0, count)] * concurrent
        else:
            ranges = [(i * (total - count) // max(1, concurrent - 1), count) for i in range(concurrent)]
        for cache in ("cold", "warm"):
            cpu0 = cpu_seconds(pid)
            async with Watch(url, pid) as watch:
                statuses, sizes, seconds = await get_all(url, path, ranges)
            if total is None:
                total = httpx.get(url + path, params={"from": 0, "count": 1}, timeout=600).json()["total"]
            out.append({"scenario": name, "cache": cache, "total_steps": total, "gets": len(ranges),
                        "statuses": sorted(set(statuses)), "answer_mb": round(sum(sizes) / len(sizes) / 1e6, 2),
                        "seconds": round(seconds, 2), "server_cpu_s": round(cpu_seconds(pid) - cpu0, 2),
                        "rss_before_mb": round(watch.base / 1e6, 1),
                        "rss_growth_mb": round((watch.peak - watch.base) / 1e6, 1),
                        "healthz_p50_ms": round(pct(watch.health, 50) * 1000, 1),
                        "healthz_p99_ms": round(pct(watch.health, 99) * 1000, 1),
                        "healthz_max_ms": round(max(watch.health) * 1000, 1), "healthz_n": len(watch.health)})
            print(json.dumps(out[-1]), flush=True)
    return out


async def whole(url: str, pid: int, match: str, concurrent: int) -> None:
    """`concurrent` GETs of the steps with no range at once: what a server that answered
    every step of the match to each of them (before ranges) spent."""
    path = f"/matches/{match}/replay/steps"
    cpu0 = cpu_seconds(pid)
    async with Watch(url, pid) as watch:
        async def one():
            async with httpx.AsyncClient(base_url=url, timeout=600) as http:
                size = 0
                async with http.stream("GET", path) as r:
                    async for chunk in r.aiter_raw():
                        size += len(chunk)
                return r.status_code, size
        t0 = time.perf_counter()
        got = await asyncio.gather(*(one() for _ in range(concurrent)))
        seconds = time.perf_counter() - t0
    print(json.dumps({"scenario": "no range", "gets": concurrent, "statuses": sorted({g[0] for g in got}),
                      "answer_mb": round(sum(g[1] for g in got) / len(got) / 1e6, 2), "seconds": round(seconds, 2),
                      "server_cpu_s": round(cpu_seconds(pid) - cpu0, 2), "rss_before_mb": round(watch.base / 1e6, 1),
                      "rss_growth_mb": round((watch.peak - watch.base) / 1e6, 1),
                      "healthz_p50_ms": round(pct(watch.health, 50) * 1000, 1),
                      "healthz_p99_ms": round(pct(watch.health, 99) * 1000, 1),
                      "healthz_max_ms": round(max(watch.health) * 1000, 1), "healthz_n": len(watch.health)}),
          flush=True)


async def views(url: str, match: str, token: str, n: int) -> dict:
    ws_url = f"{url.replace('http', 'ws')}/ws/{match}"
    async with websockets.connect(ws_url, subprotocols=["battlehall.v1.json"], max_size=2**28,
                                  ping_interval=None, compression=None) as ws:
        await ws.send(json.dumps({"t": "hello", "token": token}))
        welcome = await ws.recv()
        answered = refused = size = 0
        t0 = time.perf_counter()
        for i in range(n):
            await ws.send(json.dumps({"t": "view"}))
            frame = await ws.recv()
            message = json.loads(frame)
            if message["t"] == "view":
                answered += 1
                size += len(frame)
            elif message.get("code") == "rate_limited":
                refused += 1
            await asyncio.sleep(max(0.0, t0 + (i + 1) / 40 - time.perf_counter()))
        return {"views_asked": n, "answered": answered, "rate_limited": refused,
                "view_bytes_mb": round(size / 1e6, 2), "welcome_mb": round(len(welcome) / 1e6, 3),
                "mean_view_kb": round(size / max(1, answered) / 1e3, 1), "seconds": round(time.perf_counter() - t0, 1)}


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turn-limit", type=int, default=3000)
    ap.add_argument("--concurrent", type=int, default=20)
    ap.add_argument("--views", type=int, default=200)
    ap.add_argument("--code", default=None, help="serve from this source tree")
    ap.add_argument("--only", choices=["steps", "views"], default=None)
    ap.add_argument("--whole", type=int, default=0,
                    help="instead of ranges: this many GETs with no range at once (for servers before ranges)")
    args = ap.parse_args()
    proc, url = start_server(cwd=args.code)
    try:
        wait_ready(url)
        body = heaviest_body(args.turn_limit)
        created = httpx.post(f"{url}/matches", json=body, timeout=60)
        assert created.status_code == 201, created.text
        created = created.json()
        played_s = await play(url, created)
        summary = httpx.get(f"{url}/matches/{created['match']}").json()
        print(json.dumps({"machine": f"{os.cpu_count()} CPUs, {platform.python_version()}",
                          "load_average": os.getloadavg(),
                          "body_mb": round(len(json.dumps(body)) / 1e6, 2), "played_s": round(played_s, 1),
                          "events": summary["seq"], "status": summary["status"], "result": summary["result"]}),
              flush=True)
        if args.only != "views":
            # The clients read 70 MB as fast as they can on the server's own two cores: at
            # a lower priority, as if they were elsewhere, so /healthz measures the server.
            os.nice(10)
            if args.whole:
                await whole(url, proc.pid, created["match"], args.whole)
            else:
                await steps_scenarios(url, proc.pid, created["match"], args.concurrent)
        if args.only != "steps":
            print(json.dumps(await views(url, created["match"], created["tokens"]["seat0"], args.views)), flush=True)
    finally:
        stop_server(proc)


if __name__ == "__main__":
    asyncio.run(main())
