#!/usr/bin/env python
"""Players' ack latency while many clients resume whole histories of long matches.

A real server (private Redis) is given `--long` duel matches of `--events` events each
(both seats guard until the history is that long). Then, for `--seconds`, a player pair
keeps answering in each long match and in `--other` other matches, as fast as acks come
back (act -> ack is timed at the player), while `--resumers` clients each say hello with
`"resume": 0` to a long match, read its whole history, close, and start again.

Reported: the players' ack latency p50 / p99 / max and answers per second during the
storm, the histories completed and their events per second, and the same latency with
no storm (a first window of the same length) for comparison.

`--code DIR` runs the server from another source tree (e.g. an older revision, extracted
with `git archive <rev> battlehall | tar -x -C DIR`), to measure before and after on the
same machine minutes apart. `paged` in the output says which design served (whether
/metrics has `battlehall_history_streams`). Code that sends a whole history at once
closes a socket whose history is longer than its send queue (10,000 messages): its
resumes then fail (`resume_failures`) and retry, which is what this measures for it.

    python bench/resume_storm.py [--long 4] [--events 9000] [--resumers 20] [--seconds 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import platform
import subprocess
import sys
import time

import httpx
import msgpack
import websockets

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import start_server, stop_server, wait_ready

WIRE = "battlehall.v1.msgpack"


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p / 100 * len(values)))] if values else float("nan")


async def hello(base: str, match_id: str, token: str, **extra):
    ws = await websockets.connect(f"{base.replace('http', 'ws')}/ws/{match_id}", subprotocols=[WIRE],
                                  max_size=2**26, max_queue=None, ping_interval=None, compression=None)
    await ws.send(msgpack.packb({"t": "hello", "token": token, **extra}))
    return ws, msgpack.unpackb(await ws.recv())


async def pair(base: str, created: dict, stop: asyncio.Event, latencies: list | None, until_seq: int = 0) -> int:
    """Both seats guard in turn until `stop` (or until the match reaches `until_seq`);
    each act -> ack time is appended to `latencies`. Returns the last seq."""
    socks, prompt = {}, None
    for seat, token in created["tokens"].items():
        socks[seat], welcome = await hello(base, created["match"], token)
        prompt = prompt or (welcome["prompts"] or [None])[0]
    n, seq = 0, 0
    while not stop.is_set() and (not until_seq or seq < until_seq):
        ws = socks[prompt["seat"]]
        n += 1
        sent = time.perf_counter()
        await ws.send(msgpack.packb({"t": "act", "id": f"{os.getpid()}-{n}-{sent}", "prompt": prompt["id"],
                                     "option": "guard"}))
        while True:
            message = msgpack.unpackb(await ws.recv())
            if message["t"] == "event" and message["kind"] == "prompt":
                prompt = message["data"]
            elif message["t"] == "ack":
                if latencies is not None:
                    latencies.append((time.perf_counter() - sent) * 1000)
                seq = message["seq"]
                break
            elif message["t"] == "error":
                raise RuntimeError(message)
    for ws in socks.values():
        await ws.close()
    return seq


async def resumer(base: str, created: dict, stop: asyncio.Event, done: list, events: list, failures: list) -> None:
    while not stop.is_set():
        try:
            ws, welcome = await hello(base, created["match"], created["spectator_token"], resume=0)
            got = 0
            while got < welcome["seq"]:
                message = msgpack.unpackb(await ws.recv())
                if message["t"] == "event":
                    got += 1
                    events[0] += 1
            done.append(got)
            await ws.close()
        except (websockets.ConnectionClosed, OSError) as exc:
            failures.append(repr(exc))
            await asyncio.sleep(0.1)


def storm(base: str, long: list, resumers: int, seconds: float, out) -> None:
    """The resumers, in a process of their own: reading histories costs the client CPU
    that, in the players' process, would show as ack latency."""
    async def go():
        stop, done, events, failures = asyncio.Event(), [], [0], []
        tasks = [asyncio.create_task(resumer(base, long[i % len(long)], stop, done, events, failures))
                 for i in range(resumers)]
        await asyncio.sleep(seconds)
        stop.set()
        await asyncio.wait(tasks, timeout=60)
        for task in tasks:
            task.cancel()
        out.put({"histories_done": len(done), "history_events_per_s": round(events[0] / seconds),
                 "resume_failures": len(failures)})
    asyncio.run(go())


async def window(base: str, long: list, others: list, resumers: int, seconds: float) -> dict:
    stop, latencies = asyncio.Event(), []
    tasks = [asyncio.create_task(pair(base, m, stop, latencies)) for m in long + others]
    out = multiprocessing.Queue()
    process = multiprocessing.Process(target=storm, args=(base, long, resumers, seconds, out))
    if resumers:
        process.start()
    await asyncio.sleep(seconds)
    stop.set()
    await asyncio.wait(tasks, timeout=60)
    for task in tasks:
        task.cancel()
    stormed = {"histories_done": 0, "history_events_per_s": 0, "resume_failures": 0}
    if resumers:
        stormed = await asyncio.get_running_loop().run_in_executor(None, out.get)
        process.join()
    return {"resumers": resumers, "answers_per_s": round(len(latencies) / seconds),
            "ack_p50_ms": round(pct(latencies, 50), 1), "ack_p99_ms": round(pct(latencies, 99), 1),
            "ack_max_ms": round(max(latencies, default=float("nan")), 1), **stormed}


async def run(base: str, args) -> list[dict]:
    async with httpx.AsyncClient(base_url=base) as http:
        async def create():
            r = await http.post("/matches", json={"ruleset": "duel", "seats": ["alice", "bob"],
                                                  "clock": {"prompt_ms": None}})
            return r.json()
        long = [await create() for _ in range(args.long)]
        others = [await create() for _ in range(args.other)]
    never = asyncio.Event()
    await asyncio.gather(*(pair(base, m, never, None, until_seq=args.events) for m in long))
    results = []
    for resumers in (0, args.resumers):
        results.append(await window(base, long, others, resumers, args.seconds))
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--long", type=int, default=4, help="long matches (resumed, and played)")
    parser.add_argument("--events", type=int, default=9000, help="events of each long match")
    parser.add_argument("--other", type=int, default=8, help="other matches played meanwhile")
    parser.add_argument("--resumers", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--code", help="run the server from this source tree (default: this one)")
    parser.add_argument("--json-out")
    args = parser.parse_args()
    env = {"BATTLEHALL_RATE_PER_S": "100000"}
    code = os.path.abspath(args.code or os.path.join(os.path.dirname(__file__), ".."))
    env["PYTHONPATH"] = code
    proc, base = start_server(env=env, cwd=code)
    try:
        wait_ready(base)
        # Which design served: the paged one counts its history streams in /metrics.
        paged = "battlehall_history_streams" in httpx.get(base + "/metrics").text
        results = asyncio.run(run(base, args))
    finally:
        stop_server(proc)
    revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              cwd=code).stdout.strip() or None  # None: not a git checkout
    for r in results:
        r.update(code=code, paged=paged, revision=revision, long=args.long, events=args.events,
                 other=args.other, seconds=args.seconds, python=platform.python_version())
        print(json.dumps(r))
        if args.json_out:
            with open(args.json_out, "a") as f:
                f.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
