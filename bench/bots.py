"""What the server's bots cost: CPU per bot answer, per ruleset and level.

Two measures, run one after the other:

1. **The bot's own work**, with the engine alone (battlehall/bots/arena.py's way of
   playing, two seats, the same level on both): for each answer, what the server does
   when a bot's turn comes (match_core.py `_bot_move`): the seat's view, the match's
   definitions, and the bot's choice. Median and p99 in µs, over whole matches.
2. **In the server**: a real server (`battlehall serve`, its private Redis) runs N matches
   in which bots play every seat (`"bots"` in `POST /matches`, no think time, untimed,
   windows not held), each replaced by a new one when it ends, for S seconds. Server CPU
   per bot answer (its Redis apart) from /proc and `battlehall_bot_answers_total`, once
   with no rate (`BATTLEHALL_BOT_ANSWERS_PER_S=0`) and once with the default rate (100
   a second), which bounds what bots take of the node.

    python bench/bots.py [--matches 20] [--engine-matches 20] [--seconds 10] [--rulesets duel,spellfire,hourglass,demigod]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import statistics
import sys
import time

import httpx

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import cpu_seconds, metric, start_server, stop_server, wait_ready

from battlehall.bots import LEVELS, bot_for
from battlehall.bots.base import Seen
from battlehall.engine import get_ruleset

SEATS = ["a", "b"]
KEY = "bench-bots-key"  # the server's API key: the runs abort the matches they leave


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def engine_costs(ruleset_name: str, level: str, matches: int, max_answers: int = 5_000) -> list[float]:
    """µs per bot answer: the view, the definitions and the choice, as the server makes them."""
    ruleset = get_ruleset(ruleset_name)
    bot = bot_for(ruleset_name, level)
    costs = []
    for seed in range(matches):
        state, _ = ruleset.start(SEATS, seed, None)
        rng = random.Random(seed)
        answers = 0
        while state["result"] is None and answers < max_answers:
            prompt = min(ruleset.prompts(state), key=lambda p: int(p["id"][1:]))
            seat = prompt["seat"]
            started = time.perf_counter()
            seen = Seen(ruleset_name, seat, ruleset.view(state, seat), ruleset.definitions(state))
            option, args = bot.choose(seen, prompt, rng)
            costs.append((time.perf_counter() - started) * 1e6)
            ruleset.answer(state, seat, prompt["id"], option, args)
            answers += 1
    return costs


async def keep_playing(url: str, ruleset: str, level: str, matches: int, seconds: float) -> None:
    """`matches` all-bot matches live at once for `seconds`, each replaced when it ends."""
    body = {"ruleset": ruleset, "seats": SEATS, "bots": {s: level for s in SEATS},
            "clock": {"prompt_ms": None, "window_min_ms": 0}}
    async with httpx.AsyncClient(base_url=url, timeout=30, headers={"Authorization": f"Bearer {KEY}"}) as http:
        live = [(await http.post("/matches", json=body)).json()["match"] for _ in range(matches)]
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            await asyncio.sleep(0.25)
            for i, match in enumerate(live):
                if (await http.get(f"/matches/{match}")).json()["status"] == "finished":
                    live[i] = (await http.post("/matches", json=body)).json()["match"]
        for match in live:  # what is left is not measured: end it
            await http.post(f"/matches/{match}/abort")


def server_run(ruleset: str, level: str, matches: int, seconds: float, per_s: float) -> dict:
    proc, url = start_server(env={"BATTLEHALL_BOT_THINK_MS": "0", "BATTLEHALL_BOT_ANSWERS_PER_S": str(per_s),
                                  "BATTLEHALL_API_KEY": KEY})
    try:
        wait_ready(url)
        warm = min(2.0, seconds / 4)
        asyncio.run(keep_playing(url, ruleset, level, matches, warm))
        cpu0, answers0, t0 = cpu_seconds(proc.pid), metric(url, "battlehall_bot_answers_total", KEY), time.monotonic()
        asyncio.run(keep_playing(url, ruleset, level, matches, seconds))
        cpu1, answers1, t1 = cpu_seconds(proc.pid), metric(url, "battlehall_bot_answers_total", KEY), time.monotonic()
    finally:
        stop_server(proc)
    answers = answers1 - answers0
    return {"answers_per_s": answers / (t1 - t0), "cpu_us": (cpu1 - cpu0) / max(answers, 1) * 1e6,
            "cores": (cpu1 - cpu0) / (t1 - t0)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rulesets", default="duel,spellfire,hourglass,demigod")
    parser.add_argument("--engine-matches", type=int, default=20)
    parser.add_argument("--matches", type=int, default=20, help="all-bot matches live at once in the server runs")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--no-server", action="store_true", help="the engine measure only")
    args = parser.parse_args()
    rulesets = args.rulesets.split(",")
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    print("| ruleset | level | answers | bot answer p50 / p99 (µs) |")
    print("|---|---|---:|---:|")
    for ruleset in rulesets:
        for level in LEVELS:
            costs = engine_costs(ruleset, level, args.engine_matches)
            print(f"| {ruleset} | {level} | {len(costs):,} | {statistics.median(costs):.0f} / {pct(costs, 99):.0f} |",
                  flush=True)
    if args.no_server:
        return
    print()
    print("| ruleset | rate limit | answers/s | server CPU per bot answer | server cores |")
    print("|---|---:|---:|---:|---:|")
    for ruleset in rulesets:
        for per_s in (0, 100):
            got = server_run(ruleset, "greedy", args.matches, args.seconds, per_s)
            print(f"| {ruleset} | {per_s or 'none'} | {got['answers_per_s']:,.0f} | {got['cpu_us']:.0f} µs | "
                  f"{got['cores']:.2f} |", flush=True)
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
