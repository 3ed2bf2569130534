#!/usr/bin/env python
"""What pairing a round of a 1,024-player Swiss costs (the pure core, one core, no I/O).

An event of `--players` duel players (best of 1, 3-1-0 points, OMW/GW/OGW tie-breaks) is
registered and started, and `--played` rounds are paired and played with random results
(a seeded generator: the same run every time). Then the next round is paired `--runs`
times from that state, and each time is measured:

- **pair_next**: `Tournament.pair_next()`, what the server runs: the standings with their
  tie-breaks, then the pairing and its seat draws;
- **pairing alone**: `swiss.pair_swiss` on the same ranked field (the matching only).

Each must give the same pairing every run (checked), with no rematch (checked). Figures
are the median and p99 of the runs, in milliseconds: wall time, and the process's CPU
time (which a busy machine disturbs less).

    python bench/tournament_pairing.py [--players 1024] [--played 5] [--runs 50]
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import time

from battlehall.tournaments import Spec, Tournament, ledger
from battlehall.tournaments.swiss import Entrant, pair_swiss


def event(players: int, played: int, rng: random.Random) -> Tournament:
    t = Tournament(Spec.parse({"name": "bench", "ruleset": "duel", "rounds": played + 1}, range(2, 3)), "bench-seed")
    for i in range(players):
        t.apply({"k": "registered", "player": f"p{i:04d}", "name": f"P{i}", "rating": rng.gauss(25, 8), "at": i})
    t.apply({"k": "started", "at": players})
    for _ in range(played):
        t.apply(t.pair_next())
        for call in t.games_to_create():
            seats = list(call.seats)
            rng.shuffle(seats)
            places = [seats] if rng.random() < 0.05 else [[s] for s in seats]
            t.apply({"k": "game", "round": call.round, "table": call.table, "game": call.game,
                     "seats": list(call.seats), "places": places})
    return t


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def measure(label: str, fn, runs: int) -> None:
    wall, cpu, first = [], [], None
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        out = fn()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
        first = out if first is None else first
        assert out == first, "the pairing changed between runs"
    print(f"{label:>14}: wall median {statistics.median(wall):6.1f} ms, p99 {percentile(wall, 0.99):6.1f} ms;   "
          f"CPU median {statistics.median(cpu):6.1f} ms, p99 {percentile(cpu, 0.99):6.1f} ms   ({runs} runs)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1024)
    parser.add_argument("--played", type=int, default=5)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    t = event(args.players, args.played, random.Random(7))
    met = ledger.met(t.rounds)
    recs = ledger.records(t.spec, list(t.players), t.rounds)
    byes = ledger.had_bye(t.rounds)
    ranked = [Entrant(s.player, recs[s.player].points, frozenset(met.get(s.player, ())), s.player in byes)
              for s in t.standings()]
    groups = len({e.points for e in ranked})
    print(f"{args.players} players after {args.played} rounds ({groups} score groups); "
          f"Python {platform.python_version()}, {os.cpu_count()} CPUs")
    paired = t.pair_next()
    assert paired is not None
    rematches = sum(b in met.get(a, ()) for a, b in (tb["players"] for tb in paired["tables"]))
    assert rematches == 0, f"{rematches} rematches"
    measure("pair_next", t.pair_next, args.runs)
    measure("pairing alone", lambda: pair_swiss(ranked), args.runs)


if __name__ == "__main__":
    main()
