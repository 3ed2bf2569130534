"""What persisting every answer costs: the same load with Redis writes on and off.

Starts a server normally and one with BATTLEHALL_BENCH_NO_PERSIST=1 (a benchmark-only
switch that skips every Redis write), alternately, and drives each with
`battlehall loadtest` (duel, N concurrent matches). Reports, per mode, the median over
the rounds of server CPU per answer (server process, and with its Redis) and of ack
latency p50/p99; and the difference: the cost of persistence.

    python bench/persistence_cost.py [--matches 1000] [--rounds 3] [--seconds 15]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from benchlib import start_server, stop_server, wait_ready


def run(persist: bool, args) -> dict:
    server, url = start_server(env={"BATTLEHALL_BENCH_NO_PERSIST": "0" if persist else "1"})
    try:
        wait_ready(url)
        out = tempfile.mktemp(suffix=".jsonl")
        subprocess.run([sys.executable, "-m", "battlehall", "loadtest", "--url", url,
                        "--matches", str(args.matches), "--seconds", str(args.seconds), "--warmup", str(args.warmup),
                        "--quiet", "--server-pid", str(server.pid), "--json-out", out],
                       check=True, stdout=subprocess.DEVNULL, timeout=args.seconds + args.warmup + 300)
        with open(out) as f:
            return json.loads(f.readline())
    finally:
        stop_server(server)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--warmup", type=float, default=4)
    args = parser.parse_args()
    results: dict[str, list[dict]] = {"on": [], "off": []}
    for _ in range(args.rounds):
        for mode in ("on", "off"):
            results[mode].append(run(mode == "on", args))
    summary = {}
    for mode, runs in results.items():
        summary[mode] = {
            "answers_per_s": round(statistics.median(r["answers_per_s"] for r in runs)),
            "cpu_us_per_answer": round(statistics.median(r["server_cpu"]["us_per_answer"] for r in runs), 1),
            "cpu_us_per_answer_with_redis": round(statistics.median(
                r["server_cpu"]["us_per_answer_with_redis"] for r in runs), 1),
            "ack_p50_ms": round(statistics.median(r["ack_ms"]["p50"] for r in runs), 2),
            "ack_p99_ms": round(statistics.median(r["ack_ms"]["p99"] for r in runs), 2),
        }
    cost = {k: round(summary["on"][k] - summary["off"][k], 2) for k in
            ("cpu_us_per_answer", "cpu_us_per_answer_with_redis", "ack_p50_ms", "ack_p99_ms")}
    print(f"{'':28}{'persist on':>12}{'persist off':>12}{'cost':>10}")
    for k in ("answers_per_s", "cpu_us_per_answer", "cpu_us_per_answer_with_redis", "ack_p50_ms", "ack_p99_ms"):
        print(f"{k:28}{summary['on'][k]:>12}{summary['off'][k]:>12}{cost.get(k, ''):>10}")
    print(json.dumps({"bench": "persistence_cost", "matches": args.matches, "rounds": args.rounds,
                      "summary": summary, "cost": cost}))


if __name__ == "__main__":
    main()
