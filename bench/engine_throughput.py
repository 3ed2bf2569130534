#!/usr/bin/env python
"""Engine throughput on one core: whole matches of random legal play, no server, no I/O.

For each ruleset and seat count, N matches with seeds 1..N are played to the end: at each step a random
open prompt gets a random option and a random listed value of each argument (the same
answers the load tester sends). A repeat times all N matches with time.perf_counter;
the figure is the median of the repeats. Matches/s and answers/s are what one core
does with the rules alone: the ceiling the server's own overhead is measured against.

Every repeat must play exactly the same answers (same seeds, same random choices): the
script checks it, as a cheap determinism test of each ruleset.

    python bench/engine_throughput.py                     # duel, spellfire with 2 and 6 seats, hourglass and demigod with 2 and 4
    python bench/engine_throughput.py --matches 500 --repeats 7 --rulesets duel
    python bench/engine_throughput.py --rulesets spellfire:2,spellfire:4,spellfire:6
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer

DEFAULT_MATCHES = {"duel": 2000, "spellfire": 200, "hourglass": 400, "demigod": 200}  # each repeat takes about a second or less
SEAT_NAMES = ["alice", "bob", "carol", "dave", "erin", "frank"]


def play(ruleset, seed: int, max_answers: int, n: int) -> int:
    """One whole match of `n` seats with random legal answers; returns how many answers it took."""
    seats = SEAT_NAMES[:n] if n <= len(SEAT_NAMES) else [f"seat{i + 1}" for i in range(n)]
    state, _ = ruleset.start(seats, seed)
    rng = random.Random(seed)
    answers = 0
    while state["result"] is None:
        if answers >= max_answers:
            raise RuntimeError(f"{ruleset.name} seed {seed}: no result after {max_answers} answers")
        prompts = state["prompts"]
        prompt = prompts[rng.randrange(len(prompts))]
        option, args = random_answer(rng, prompt)
        ruleset.answer(state, prompt["seat"], prompt["id"], option, args)
        answers += 1
    return answers


def bench(name: str, n: int, matches: int, repeats: int, max_answers: int) -> dict:
    ruleset = get_ruleset(name)
    play(ruleset, 1, max_answers, n)  # warm up imports and caches outside the timing
    times, counts = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        answers = sum(play(ruleset, seed, max_answers, n) for seed in range(1, matches + 1))
        times.append(time.perf_counter() - t0)
        counts.append(answers)
    if len(set(counts)) != 1:
        raise RuntimeError(f"{name}: repeats played different numbers of answers {counts}: not deterministic")
    median = statistics.median(times)
    return {
        "ruleset": name, "seats": n, "matches": matches, "repeats": repeats, "answers": counts[0],
        "answers_per_match": round(counts[0] / matches, 1),
        "median_s": round(median, 4), "min_s": round(min(times), 4), "max_s": round(max(times), 4),
        "matches_per_s": round(matches / median, 1), "answers_per_s": round(counts[0] / median),
        "us_per_answer": round(median * 1e6 / counts[0], 2),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rulesets", default="duel,spellfire:2,spellfire:6,hourglass:2,hourglass:4,demigod:2,demigod:4",
                   help="ruleset[:seats], comma-separated (seats default: the ruleset's minimum)")
    p.add_argument("--matches", type=int, default=None, help="matches per repeat (default: per ruleset)")
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--max-answers", type=int, default=100_000, help="a match longer than this is an error")
    p.add_argument("--cpu", type=int, default=None, help="pin to this CPU (default: the last one)")
    p.add_argument("--json-out", default=None, help="append the JSON line to this file")
    args = p.parse_args(argv)

    # One core, and always the same one: the figure is per core, and migrations add noise.
    if hasattr(os, "sched_setaffinity"):
        cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
        os.sched_setaffinity(0, {cpu})
    else:
        cpu = None

    from battlehall.loadtest import machine_busy

    machine0, t0 = machine_busy(), time.perf_counter()
    results, skipped = [], {}
    for spec in args.rulesets.split(","):
        name, _, seats = spec.partition(":")
        try:
            ruleset = get_ruleset(name)
            n = int(seats) if seats else ruleset.min_seats
        except Exception as exc:  # a ruleset still being written: say so, bench the others
            skipped[name] = f"{type(exc).__name__}: {exc}"
            print(f"{name}: skipped, it does not import yet ({skipped[name]})", file=sys.stderr)
            continue
        matches = args.matches or max(20, DEFAULT_MATCHES.get(name, 100) * 2 // n)  # more seats, longer matches
        results.append(bench(name, n, matches, args.repeats, args.max_answers))

    machine1 = machine_busy()
    # how many cores the whole machine kept busy meanwhile (this bench is one of them)
    busy = round((machine1[0] - machine0[0]) / (time.perf_counter() - t0), 2) if machine0 and machine1 else None
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None  # the last minute's, at the end
    print(f"engine random-play throughput, one core (cpu {cpu}), median of {args.repeats} repeats; "
          f"machine busy {busy} of {os.cpu_count()} cores, load average {load}")
    print(f"{'ruleset':<10} {'seats':>5} {'matches':>8} {'answers/match':>14} {'matches/s':>10} {'answers/s':>10} {'µs/answer':>10}")
    for r in results:
        print(f"{r['ruleset']:<10} {r['seats']:>5} {r['matches']:>8} {r['answers_per_match']:>14} {r['matches_per_s']:>10} "
              f"{r['answers_per_s']:>10} {r['us_per_answer']:>10}")
    line = json.dumps({"bench": "engine_throughput", "python": platform.python_version(), "cpu": cpu,
                       "machine_cpu": busy, "load_average": load, "results": results, "skipped": skipped})
    print(line)
    if args.json_out:
        with open(args.json_out, "a") as f:
            f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
