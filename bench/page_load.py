"""The player page: how heavy it is and how soon a player sees their first decision.

One real server (`battlehall serve`, its private Redis), Debian's Chromium driven by
Playwright, headless, on the same 2 cores. For each ruleset at its largest seat count,
N times: `POST /bot-matches` (the player's seat first, bots at the others), open the
seat's /play page in a fresh browser context (nothing cached), and time from the start of
the navigation to the moment the page has drawn the player's first decision (a prompt in
the region "Your decisions") and the table (the region "Board" holding it). The weight is
what the page itself loads: its HTML, scripts and styles (decoded bytes, from the
Resource Timing entries of its own origin's /static/ files), the card catalogue
(`GET /rulesets`, which a drawing fetches once), and the table it drew (the board's HTML).

    python bench/page_load.py [--runs 10] [--rulesets duel,spellfire,hourglass,demigod]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time

import httpx
from playwright.async_api import async_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LARGEST = {"duel": 2, "spellfire": 6, "hourglass": 4, "demigod": 4}
DECISION = "[aria-label='Your decisions'] [data-prompt-box]"
# The first decision drawn, and the table with it (the ruleset's drawing, not the page's placeholder).
DRAWN = f"() => !!document.querySelector(\"{DECISION}\") && !!document.querySelector('[aria-label=Board] .table')"

# What the page loaded and drew, in bytes (the same measure as tests/browser/test_page_weight.py).
WEIGHT = """() => {
  const own = performance.getEntriesByType("resource").filter(e => new URL(e.name).origin === location.origin);
  const sum = f => own.filter(f).reduce((n, e) => n + (e.decodedBodySize || 0), 0);
  const nav = performance.getEntriesByType("navigation")[0];
  return {html: nav ? nav.decodedBodySize : 0,
          scripts: sum(e => e.name.endsWith(".js")), styles: sum(e => e.name.endsWith(".css")),
          catalogue: sum(e => new URL(e.name).pathname === "/rulesets"),
          board: (document.querySelector("[aria-label=Board]") || {outerHTML: ""}).outerHTML.length};
}"""


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


async def one(browser, url: str, ruleset: str) -> tuple[float, dict]:
    r = httpx.post(f"{url}/bot-matches", json={"ruleset": ruleset, "seats": LARGEST[ruleset], "name": "ana"}, timeout=10)
    r.raise_for_status()
    made = r.json()
    context = await browser.new_context(viewport={"width": 1280, "height": 800})
    page = await context.new_page()
    t0 = time.perf_counter()
    await page.goto(f"{url}/play/{made['match']}#token={made['token']}", wait_until="commit")
    await page.wait_for_function(DRAWN, timeout=30_000, polling="raf")
    elapsed = time.perf_counter() - t0
    weight = await page.evaluate(WEIGHT)
    await context.close()
    return elapsed * 1000, weight


async def main(args) -> None:
    # Here, not at the top: tests/browser/test_page_weight.py loads this file for its
    # measures, and bench/ on its sys.path would shadow the tests' packages.
    sys.path.insert(0, os.path.dirname(__file__))
    from benchlib import start_server, stop_server, wait_ready

    proc, url = start_server(env={"BATTLEHALL_BOT_THINK_MS": "300"})
    try:
        wait_ready(url)
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            await one(browser, url, "duel")  # the server's first page: its files read once
            print("| ruleset | seats | first decision p50 / p95 (ms) | HTML + scripts + styles | card catalogue | table drawn |")
            print("|---|---:|---:|---:|---:|---:|")
            for ruleset in args.rulesets.split(","):
                times, weights = [], []
                for _ in range(args.runs):
                    ms, weight = await one(browser, url, ruleset)
                    times.append(ms)
                    weights.append(weight)
                w = weights[-1]
                own = w["html"] + w["scripts"] + w["styles"]
                print(f"| {ruleset} | {LARGEST[ruleset]} | {statistics.median(times):,.0f} / {pct(times, 95):,.0f} "
                      f"| {own / 1024:,.1f} KiB | {w['catalogue'] / 1024:,.1f} KiB | {w['board'] / 1024:,.1f} KiB |")
            await browser.close()
    finally:
        stop_server(proc)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--rulesets", default="duel,spellfire,hourglass,demigod")
    asyncio.run(main(parser.parse_args()))
