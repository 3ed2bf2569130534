"""An event's round on the server: from its pairing to the first prompt of each of its
matches, and of its last (the issue's "from a round's start to the first prompt of its
last match").

One real server (`battlehall serve`, its private Redis). P players (1,024 by default:
512 duel matches a round) register with their guest profiles; the event's organiser
starts it. The runner pairs round 1 (one log entry) and makes every game's match, 32 at
a time, each placed as `POST /matches` places one, with its seats bound to the players'
profiles. A duel's first prompt is in its start, so a match's first prompt is its
`created_at`; the figure per match is that minus the `paired` entry's `at` (both the
server's clock). Each event is a sample of 512 matches; the script runs E events one
after another on the same server (the earlier events' matches stay live, unplayed).

    python bench/tournament_round.py [--players 1024] [--events 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time

import httpx

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import cpu_seconds, start_server, stop_server, wait_ready

ENV = {"BATTLEHALL_TOURNAMENT_CREATE_PER_MIN": "0", "BATTLEHALL_TOURNAMENT_REGISTER_PER_MIN": "0",
       "BATTLEHALL_PROFILE_PER_MIN": "0", "BATTLEHALL_TOURNAMENT_MAX_PLAYERS": "1024"}


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def gather_limited(limit: int, calls) -> list:
    gate = asyncio.Semaphore(limit)

    async def one(call):
        async with gate:
            return await call()
    return await asyncio.gather(*(one(c) for c in calls))


async def profiles(http: httpx.AsyncClient, url: str, count: int) -> list[dict]:
    async def make(i: int) -> dict:
        r = await http.post(f"{url}/profiles", json={"name": f"Bench {i}"})
        r.raise_for_status()
        return r.json()
    return await gather_limited(50, [lambda i=i: make(i) for i in range(count)])


async def one_event(http: httpx.AsyncClient, url: str, players: list[dict]) -> dict:
    r = await http.post(f"{url}/tournaments", json={"name": "Bench Swiss", "ruleset": "duel", "rounds": 10,
                                                    "max_players": len(players)})
    r.raise_for_status()
    made = r.json()
    tid = made["tournament"]

    async def register(p: dict) -> None:
        r = await http.post(f"{url}/tournaments/{tid}/register", json={"profile": p["profile"]},
                            headers={"Authorization": f"Bearer {p['secret']}"})
        r.raise_for_status()
    t0 = time.perf_counter()
    await gather_limited(20, [lambda p=p: register(p) for p in players])
    registering_s = time.perf_counter() - t0
    r = await http.post(f"{url}/tournaments/{tid}/start", headers={"Authorization": f"Bearer {made['organiser_token']}"})
    r.raise_for_status()
    while True:  # until every player has their table
        entries = (await http.get(f"{url}/tournaments/{tid}/log")).json()["entries"]
        paired = next((e for e in entries if e["k"] == "paired"), None)
        if paired is not None:
            break
        await asyncio.sleep(0.05)
    matches: set[str] = set()

    async def table_of(p: dict) -> str:
        while True:
            r = await http.get(f"{url}/tournaments/{tid}/my", params={"profile": p["profile"]},
                               headers={"Authorization": f"Bearer {p['secret']}"})
            table = r.json()["table"]
            if table is not None:
                return table["match"]
            await asyncio.sleep(0.2)
    byes = set(paired["byes"])
    matches = set(await gather_limited(50, [lambda p=p: table_of(p) for p in players if p["profile"] not in byes]))
    created = await gather_limited(50, [lambda m=m: http.get(f"{url}/matches/{m}") for m in matches])
    latencies = [r.json()["created_at"] - paired["at"] for r in created]
    started = next(e for e in entries if e["k"] == "started")
    return {"matches": len(matches), "registering_s": registering_s, "latencies": latencies,
            "pairing_ms": paired["at"] - started["at"]}


async def main_async(args) -> None:
    proc, url = start_server(env=ENV)
    try:
        wait_ready(url)
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=100)
        async with httpx.AsyncClient(timeout=60, limits=limits) as http:
            players = await profiles(http, url, args.players)
            for i in range(args.events):
                cpu0 = cpu_seconds(proc.pid)
                found = await one_event(http, url, players)
                lat = found["latencies"]
                print(f"event {i + 1}: paired {found['pairing_ms']} ms after the start; "
                      f"{found['matches']} matches; first prompt after the pairing: "
                      f"p50 {statistics.median(lat):.0f} ms, p99 {pct(lat, 99):.0f} ms, last {max(lat):.0f} ms; "
                      f"{args.players} registrations in {found['registering_s']:.1f} s; "
                      f"server CPU for the event {cpu_seconds(proc.pid) - cpu0:.1f} s", flush=True)
    finally:
        stop_server(proc)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=1024)
    parser.add_argument("--events", type=int, default=3)
    asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    main()
