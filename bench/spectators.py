"""Fan-out: one match watched by 1,000 spectators.

A real server (private Redis) runs one `duel` match; two players answer as fast as
they can while N spectator sockets (MessagePack) watch. For every event, the delay of
the *last* spectator to receive it is its receive time minus the event's `at` (server
and clients share this machine's clock). Reports deliveries per second (events times
spectators, over the measured window), the p50/p99 of that last-spectator delay, and
the server's CPU per delivery.

    python bench/spectators.py [--spectators 1000] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time

import httpx
import msgpack
import websockets

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import cpu_seconds, start_server, stop_server, wait_ready


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))]


async def spectator(url: str, token: str, last_seen: dict, ready: asyncio.Event, counter: list, stop: asyncio.Event):
    async with websockets.connect(url, subprotocols=["battlehall.v1.msgpack"], max_queue=None,
                                  ping_interval=None) as ws:
        await ws.send(msgpack.packb({"t": "hello", "token": token}))
        await ws.recv()
        counter[0] += 1
        if counter[0] == counter[1]:
            ready.set()
        while not stop.is_set():
            try:
                frame = await asyncio.wait_for(ws.recv(), 1)
            except asyncio.TimeoutError:
                continue
            m = msgpack.unpackb(frame)
            if m["t"] == "event":
                now = time.time() * 1000
                seq = m["seq"]
                if now > last_seen.get(seq, (0, 0))[0]:
                    last_seen[seq] = (now, m["at"])


async def player(url: str, token: str, stop: asyncio.Event, answers: list):
    async with websockets.connect(url, subprotocols=["battlehall.v1.msgpack"]) as ws:
        await ws.send(msgpack.packb({"t": "hello", "token": token}))
        n = 0
        while not stop.is_set():
            try:
                m = msgpack.unpackb(await asyncio.wait_for(ws.recv(), 1))
            except asyncio.TimeoutError:
                continue
            prompts = m.get("prompts", []) if m["t"] == "welcome" else (
                [m["data"]] if m["t"] == "event" and m["kind"] == "prompt" and "options" in m["data"] else [])
            for p in prompts:
                n += 1
                await ws.send(msgpack.packb({"t": "act", "id": n, "prompt": p["id"], "option": "guard"}))
                answers[0] += 1


async def run(base: str, spectators: int, seconds: float, server_pid: int) -> dict:
    async with httpx.AsyncClient(base_url=base) as http:
        created = (await http.post("/matches", json={"ruleset": "duel", "seats": ["a", "b"], "seed": 1,
                                                     "clock": {"prompt_ms": None},
                                                     "spectators": {"max": spectators}})).json()
    url = base.replace("http", "ws") + created["ws"]
    last_seen: dict = {}
    ready, stop = asyncio.Event(), asyncio.Event()
    counter = [0, spectators]
    watchers = [asyncio.ensure_future(spectator(url, created["spectator_token"], last_seen, ready, counter, stop))
                for _ in range(spectators)]
    await asyncio.wait_for(ready.wait(), 120)
    answers = [0]
    players = [asyncio.ensure_future(player(url, t, stop, answers)) for t in created["tokens"].values()]
    await asyncio.sleep(1)  # warm-up
    cpu0, t0, first_seq = cpu_seconds(server_pid), time.time() * 1000, max(last_seen, default=0)
    await asyncio.sleep(seconds)
    stop.set()
    t1, cpu1 = time.time() * 1000, cpu_seconds(server_pid)
    await asyncio.gather(*players, *watchers, return_exceptions=True)
    measured = {seq: v for seq, v in last_seen.items() if seq > first_seq and t0 <= v[0] <= t1}
    delays = [recv - at for recv, at in measured.values()]
    deliveries = len(measured) * spectators
    return {"spectators": spectators, "events": len(measured), "answers_per_s": round(answers[0] / (seconds + 1), 1),
            "deliveries_per_s": round(deliveries / ((t1 - t0) / 1000)),
            "last_spectator_delay_ms": {"p50": round(pct(delays, 50), 1), "p99": round(pct(delays, 99), 1),
                                        "max": round(max(delays), 1)},
            "server_cpu_us_per_delivery": round((cpu1 - cpu0) * 1e6 / max(1, deliveries), 2)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=10)
    args = parser.parse_args()
    server, base = start_server(env={"BATTLEHALL_RATE_PER_S": "100000"})
    try:
        wait_ready(base)
        result = asyncio.run(run(base, args.spectators, args.seconds, server.pid))
    finally:
        stop_server(server)
    print(f"spectators {result['spectators']}: {result['deliveries_per_s']} deliveries/s, "
          f"last-spectator delay p50 {result['last_spectator_delay_ms']['p50']} ms, "
          f"p99 {result['last_spectator_delay_ms']['p99']} ms; "
          f"{result['server_cpu_us_per_delivery']} µs server CPU per delivery")
    print(json.dumps({"bench": "spectators", **result}))


if __name__ == "__main__":
    main()
