"""Abuse soak: quick play, rematch chains and bot matches hammered from a few addresses
while one honest player plays a bot. Are Redis' memory and the honest bot's latency bounded?

It starts `battlehall serve` as the README does (its private Redis, every limit at its
default: no BATTLEHALL_* setting is passed on), then:

1. **quiet** (`--quiet-s`): the honest player alone, from 127.0.0.1: a bot match
   (`POST /bot-matches`, duel), played to its end, then the next. Its bot's latency is the
   time from the bot's prompt opening to its answer closing it, both as the player's socket
   saw them (the think time, 700 ms, included).
2. **abuse** (`--seconds`): from each of `--addresses` source addresses (127.0.0.2, .3, ...;
   every socket bound to its address), three clients at once, each retrying as soon as it
   may (a 429 is counted, then tried again after at most `--retry-s`):
   - quick play: two tickets joined (`POST /queue`), waited on (`GET /queue/{ticket}`) until
     matched, the match never opened, again;
   - a rematch chain: `POST /matches`, one seat resigns over its socket, both seats offer
     the rematch (`POST /matches/{id}/rematch`), the same with the new match, ...;
   - bot matches never joined: `POST /bot-matches` and all-bot `POST /matches` in turn.
   The honest player goes on playing.
3. **after** (`--after-s`): the honest player alone again, while the abuse's matches (their
   players away after the 60 s grace, so played by bots alone) still play.

Every `--interval` s it samples Redis (`INFO memory` used_memory, `DBSIZE`) and the
server's metrics (bot turns waiting, bot answers). At the end it prints the samples, the
matches made and the 429s per address and route, Redis' memory and keys at the start, the
end and their maximum, and the honest bot's latency per phase (p50, p99, max).

    .venv/bin/python bench/abuse_soak.py                         # 4 addresses, 120 s of abuse
    .venv/bin/python bench/abuse_soak.py --addresses 2 --seconds 30 --quiet-s 10 --after-s 10
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib
import httpx
import orjson
import redis.asyncio as aioredis
import websockets

from battlehall.client import Client, ws_url

RULESETS = ("duel", "spellfire")  # what the bot-match client asks for, in turn


class Tally:
    """Per address and route: answers by status."""

    def __init__(self):
        self.counts: dict[tuple[str, str], collections.Counter] = collections.defaultdict(collections.Counter)

    def note(self, address: str, route: str, status: int) -> None:
        self.counts[address, route][status] += 1

    def table(self) -> list[dict]:
        return [{"address": a, "route": r, "ok": c.get(201, 0) + c.get(200, 0), "429": c.get(429, 0),
                 "other": {s: n for s, n in c.items() if s not in (200, 201, 429)}}
                for (a, r), c in sorted(self.counts.items())]


def http_from(address: str, url: str) -> httpx.AsyncClient:
    return httpx.AsyncClient(base_url=url, timeout=30,
                             transport=httpx.AsyncHTTPTransport(local_address=address))


async def refused_wait(answer: httpx.Response, retry_s: float) -> None:
    """After a 429: wait what it says, at most `retry_s` (the clients hammer on)."""
    await asyncio.sleep(min(retry_s, float(answer.headers.get("retry-after", retry_s))))


# -- the abusers ----------------------------------------------------------------------------

async def quick_play(http: httpx.AsyncClient, address: str, tally: Tally, retry_s: float) -> None:
    """Two tickets joined and matched, the match never opened; again."""
    while True:
        tickets = []
        for name in ("qa", "qb"):
            while True:
                r = await http.post("/queue", json={"ruleset": "duel", "name": name})
                tally.note(address, "POST /queue", r.status_code)
                if r.status_code == 201:
                    tickets.append(r.json()["ticket"])
                    break
                await refused_wait(r, retry_s)
        for ticket in tickets:
            state = "waiting"
            while state in ("waiting", "forming"):
                r = await http.get(f"/queue/{ticket}", params={"wait_ms": 2000})
                tally.note(address, "GET /queue", r.status_code)
                if r.status_code != 200:
                    await refused_wait(r, retry_s)
                    continue
                state = r.json()["state"]


async def resign(url: str, address: str, match: str, token: str) -> None:
    """One seat resigns over its socket, bound to `address`; back once the match has ended."""
    async with websockets.connect(ws_url(url, match), subprotocols=["json"], max_queue=None,
                                  local_addr=(address, 0)) as ws:
        await ws.send(orjson.dumps({"t": "hello", "token": token}).decode())
        await ws.send(orjson.dumps({"t": "resign", "id": "r1"}).decode())
        async with asyncio.timeout(30):
            while True:
                message = orjson.loads(await ws.recv())
                if message.get("t") == "event" and message.get("kind") == "match_ended":
                    return
                if message.get("t") == "error" and message.get("code") == "match_over":
                    return


async def offer(http: httpx.AsyncClient, address: str, tally: Tally, retry_s: float, match: str,
                token: str) -> dict:
    """One seat's rematch offer, again after a 429 (the acceptance spends the creation budget)."""
    while True:
        r = await http.post(f"/matches/{match}/rematch", headers={"authorization": f"Bearer {token}"})
        tally.note(address, "rematch", r.status_code)
        if r.status_code == 200:
            return r.json()
        await refused_wait(r, retry_s)


async def rematch_chain(http: httpx.AsyncClient, url: str, address: str, tally: Tally, retry_s: float) -> None:
    """POST /matches, resign, both seats offer the rematch; the same with each new match."""
    tokens: dict[str, str] = {}
    match = None
    while match is None:
        r = await http.post("/matches", json={"ruleset": "duel", "seats": ["a", "b"]})
        tally.note(address, "POST /matches", r.status_code)
        if r.status_code == 201:
            match, tokens = r.json()["match"], r.json()["tokens"]
        else:
            await refused_wait(r, retry_s)
    while True:
        await resign(url, address, match, tokens["a"])
        answers = {seat: await offer(http, address, tally, retry_s, match, token) for seat, token in tokens.items()}
        while any(a["rematch"] is None for a in answers.values()):  # made by the other's offer
            for seat, token in tokens.items():
                r = await http.get(f"/matches/{match}/rematch", headers={"authorization": f"Bearer {token}"})
                answers[seat] = r.json()
            await asyncio.sleep(0.05)
        match = answers["a"]["rematch"]["match"]
        tally.note(address, "rematches made", 201)
        tokens = {seat: answer["rematch"]["token"] for seat, answer in answers.items()}


async def bot_matches(http: httpx.AsyncClient, address: str, tally: Tally, retry_s: float) -> None:
    """Bot matches never joined, and all-bot matches, in turn, as fast as they are made."""
    n = 0
    while True:
        n += 1
        ruleset = RULESETS[n % len(RULESETS)]
        if n % 2:
            route, body = "POST /bot-matches", {"ruleset": ruleset}
        else:
            route, body = "POST /matches (all bots)", {"ruleset": ruleset, "seats": ["a", "b"],
                                                       "bots": {"a": "greedy", "b": "greedy"}}
        r = await http.post(route.split()[1], json=body)
        tally.note(address, route, r.status_code)
        if r.status_code != 201:
            await refused_wait(r, retry_s)


async def abuse(url: str, address: str, tally: Tally, retry_s: float) -> None:
    async with http_from(address, url) as http:
        await asyncio.gather(quick_play(http, address, tally, retry_s),
                             rematch_chain(http, url, address, tally, retry_s),
                             bot_matches(http, address, tally, retry_s))


# -- the honest player ----------------------------------------------------------------------

class Honest:
    """Plays bot matches one after another; every bot answer's latency, with its phase."""

    def __init__(self, url: str):
        self.url = url
        self.phase = "quiet"
        self.delays: list[tuple[str, float]] = []
        self.matches = 0

    async def run(self) -> None:
        async with httpx.AsyncClient(base_url=self.url, timeout=30) as http:
            while True:
                r = await http.post("/bot-matches", json={"ruleset": "duel", "name": "honest"})
                if r.status_code != 201:
                    await asyncio.sleep(1)
                    continue
                self.matches += 1
                await self.play(r.json())

    async def play(self, made: dict) -> None:
        opened: dict[str, float] = {}

        def seen(message: dict) -> None:
            if message.get("t") != "event":
                return
            data = message["data"]
            if message["kind"] == "prompt" and data.get("seat") != "honest":
                opened[data["id"]] = time.monotonic()
            elif message["kind"] == "prompt_closed" and data.get("id") in opened:
                self.delays.append((self.phase, time.monotonic() - opened.pop(data["id"])))

        await Client(self.url, made["match"], made["token"], seed=self.matches, think_s=0.2,
                     on_message=seen).run()

    def summary(self) -> dict:
        out = {}
        for phase in ("quiet", "abuse", "after"):
            ms = sorted(d * 1000 for p, d in self.delays if p == phase)
            if ms:
                out[phase] = {"answers": len(ms), "p50_ms": round(statistics.median(ms)),
                              "p99_ms": round(ms[min(len(ms) - 1, int(len(ms) * 0.99))]), "max_ms": round(ms[-1])}
        return out


# -- sampling -------------------------------------------------------------------------------

async def sample(r: aioredis.Redis, http: httpx.AsyncClient, server_pid: int, phase: str, t0: float,
                 answers_before: float, cpu_before: float, dt: float) -> dict:
    """One row: Redis' memory and keys, the node's bot queue and rate, the server's CPU."""
    memory = await r.info("memory")
    metrics = benchlib_metrics((await http.get("/metrics")).text)
    answers = metrics.get("battlehall_bot_answers_total", 0.0)
    cpu = benchlib.cpu_seconds(server_pid)
    return {"t_s": round(time.monotonic() - t0), "phase": phase, "used_memory_mib": memory["used_memory"] / 2 ** 20,
            "keys": await r.dbsize(), "bot_turns_waiting": metrics.get("battlehall_bot_turns_waiting", 0.0),
            "bot_answers_per_s": (answers - answers_before) / dt, "server_cpu": (cpu - cpu_before) / dt,
            "_answers": answers, "_cpu": cpu}


def benchlib_metrics(text: str) -> dict[str, float]:
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, _, value = line.partition(" ")
            with contextlib.suppress(ValueError):
                out[name] = float(value)
    return out


async def sampler(url: str, redis_url: str, server_pid: int, honest: Honest, interval: float, t0: float,
                  rows: list[dict]) -> None:
    r = aioredis.Redis.from_url(redis_url)
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        answers, cpu, at = 0.0, benchlib.cpu_seconds(server_pid), time.monotonic()
        seen = 0  # the honest bot's answers measured before this sample
        while True:
            now = time.monotonic()
            row = await sample(r, http, server_pid, honest.phase, t0, answers, cpu, max(0.001, now - at))
            answers, cpu, at = row.pop("_answers"), row.pop("_cpu"), now
            latest = [d for _, d in honest.delays[seen:]]
            seen = len(honest.delays)
            row["honest_max_ms"] = round(max(latest) * 1000) if latest else None
            rows.append(row)
            await asyncio.sleep(interval)


# -- the run --------------------------------------------------------------------------------

def start_server(data_dir: str, tree: str | None) -> tuple[subprocess.Popen, str]:
    """`battlehall serve` with its defaults: nothing of this environment's BATTLEHALL_* settings.
    `python -m` imports from its working directory first: `tree` picks the source tree."""
    port = benchlib.free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BATTLEHALL_")}
    proc = subprocess.Popen([sys.executable, "-m", "battlehall", "serve", "--port", str(port), "--data-dir", data_dir,
                             "--log-level", "warning"], env=env, start_new_session=True, cwd=tree,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return proc, f"http://127.0.0.1:{port}"


def redis_socket(data_dir: str) -> str:
    found = next(Path(data_dir).rglob("redis.sock"), None)
    if found is None:
        raise RuntimeError(f"no redis.sock under {data_dir}")
    return f"unix://{found}"


async def run(args, url: str, redis_url: str, server_pid: int) -> dict:
    honest, rows, tally = Honest(url), [], Tally()
    t0 = time.monotonic()
    tasks = [asyncio.create_task(honest.run()),
             asyncio.create_task(sampler(url, redis_url, server_pid, honest, args.interval, t0, rows))]
    await asyncio.sleep(args.quiet_s)
    honest.phase = "abuse"
    addresses = [f"127.0.0.{2 + n}" for n in range(args.addresses)]
    abusers = [asyncio.create_task(abuse(url, a, tally, args.retry_s)) for a in addresses]
    await asyncio.sleep(args.seconds)
    for task in abusers:
        task.cancel()
    failed = [t.exception() for t in abusers if t.done() and not t.cancelled() and t.exception()]
    honest.phase = "after"
    await asyncio.sleep(args.after_s)
    for task in tasks + abusers:
        task.cancel()
    await asyncio.gather(*tasks, *abusers, return_exceptions=True)
    return {"samples": rows, "tally": tally.table(), "honest": honest.summary(), "honest_matches": honest.matches,
            "abuser_errors": [repr(e) for e in failed]}


def figures(rows: list[dict]) -> dict:
    memory = [r["used_memory_mib"] for r in rows]
    keys = [r["keys"] for r in rows]
    return {"used_memory_mib": {"start": round(memory[0], 1), "end": round(memory[-1], 1), "max": round(max(memory), 1)},
            "keys": {"start": keys[0], "end": keys[-1], "max": max(keys)},
            "bot_turns_waiting_max": max(r["bot_turns_waiting"] for r in rows),
            "bot_answers_per_s_max": round(max(r["bot_answers_per_s"] for r in rows), 1),
            "server_cpu_max": round(max(r["server_cpu"] for r in rows), 2)}


def report(result: dict) -> None:
    print(f"{'t_s':>5} {'phase':>6} {'redis MiB':>10} {'keys':>7} {'bot waiting':>12} {'bot ans/s':>10} {'cpu':>5} "
          f"{'honest max ms':>14}")
    for r in result["samples"]:
        print(f"{r['t_s']:>5} {r['phase']:>6} {r['used_memory_mib']:>10.1f} {r['keys']:>7} "
              f"{r['bot_turns_waiting']:>12.0f} {r['bot_answers_per_s']:>10.1f} {r['server_cpu']:>5.2f} "
              f"{r['honest_max_ms'] if r['honest_max_ms'] is not None else '-':>14}")
    print("\nper address and route: answered 200/201, 429, other answers")
    for t in result["tally"]:
        print(f"  {t['address']:>10} {t['route']:<26} {t['ok']:>6} {t['429']:>7} {t['other'] or ''}")
    print("\nhonest bot latency (prompt opened -> bot's answer closed it, think time included):")
    for phase, s in result["honest"].items():
        print(f"  {phase:>6}: {s['answers']:>4} answers, p50 {s['p50_ms']} ms, p99 {s['p99_ms']} ms, max {s['max_ms']} ms")
    print("\n" + json.dumps(result["figures"]))
    if result["abuser_errors"]:
        print("abuser errors:", result["abuser_errors"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--addresses", type=int, default=4, help="abusing source addresses, from 127.0.0.2 (at most 8)")
    p.add_argument("--seconds", type=float, default=120, help="how long they abuse")
    p.add_argument("--quiet-s", type=float, default=30, help="the honest player alone first: the baseline")
    p.add_argument("--after-s", type=float, default=30, help="the honest player alone after the abuse")
    p.add_argument("--interval", type=float, default=5, help="seconds between two samples")
    p.add_argument("--retry-s", type=float, default=0.5, help="the longest an abuser waits after a 429")
    p.add_argument("--tree", default=None, help="the source tree the server runs from (a git worktree of another "
                                                "revision, to compare; default this one)")
    p.add_argument("--json-out", default=None, help="append the result as one JSON line to this file")
    args = p.parse_args(argv)
    if not 1 <= args.addresses <= 8:
        p.error("--addresses: 1 to 8 (127.0.0.2 to 127.0.0.9)")
    data_dir = tempfile.mkdtemp(prefix="bh-abuse-")
    proc, url = start_server(data_dir, args.tree)
    try:
        benchlib.wait_ready(url)
        result = asyncio.run(run(args, url, redis_socket(data_dir), proc.pid))
    finally:
        benchlib.stop_server(proc)
    result["figures"] = figures(result["samples"])
    result["revision"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                        cwd=args.tree).stdout.strip()
    print(f"battlehall abuse soak: {args.addresses} addresses for {args.seconds:g} s, "
          f"{args.quiet_s:g} s quiet before and {args.after_s:g} s after (revision {result['revision']})")
    report(result)
    if args.json_out:
        with open(args.json_out, "a") as f:
            f.write(json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
