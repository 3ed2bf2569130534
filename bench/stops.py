#!/usr/bin/env python
"""How many answers the players of a six-seat Spellfire match send, with stops and without.

Whole 6-seat Spellfire matches (seeds 1..N) are played through the server's match core
(match_core.py: the same code that applies answers and stops in the server), with no
Redis and no sockets: each write is taken as landed at once. At each step a random open
prompt that the seat's stops leave to it gets a random legal answer (what `battlehall
loadtest` sends), except that a window prompt is passed 80 % of the time even with a card
to play (a random answer would almost always play one, and players do not); window
prompts a seat's stops pass are passed by the core. Each row gives
every seat a setting:

- `ask`: every seat answers everything (today's figure);
- `pass_unless_playable`: every seat;
- `pass_until_my_turn`, set again (one `stops` message) the next time the seat is asked
  in a window after it ended (a player who never answers a window);
- `typical`: two seats of each mode, the third pair setting pass_until_my_turn once.

Counted per match: the answers the clients sent (acts), the passes the server made for
them, and the `stops` messages the clients sent. The matches differ between rows (a seat
that never plays in a window makes fewer windows), hence medians over many seeds.

    python bench/stops.py [--matches 60]
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import subprocess

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer
from battlehall.server.clock import Clock
from battlehall.server.match.effects import Write
from battlehall.server.match.inputs import Act, SetStops, WriteDone
from battlehall.server.match.match_core import MatchCore
from battlehall.server.match.match_state import MatchState
from battlehall.server.match.stops import ASK, PASS_UNLESS_PLAYABLE, PASS_UNTIL_MY_TURN

PASS_ODDS = 0.8  # a window with a card to play is passed this often (random answers play one almost always)
SEATS = ["alice", "bob", "carol", "dave", "erin", "frank"]
ROWS = {
    "ask": [ASK] * 6,
    "pass_unless_playable": [PASS_UNLESS_PLAYABLE] * 6,
    "pass_until_my_turn (set again)": [PASS_UNTIL_MY_TURN] * 6,
    "typical (2 ask, 2 unless playable, 2 until my turn once)": [ASK, ASK, PASS_UNLESS_PLAYABLE,
                                                                 PASS_UNLESS_PLAYABLE, PASS_UNTIL_MY_TURN,
                                                                 PASS_UNTIL_MY_TURN],
}


class Seat:
    def __init__(self, seat: str):
        self.seat, self.role, self.audience = seat, "player", seat


def play(seed: int, modes: list[str], again: bool) -> dict:
    clock = {"prompt_ms": None, "bank_ms": 0, "window_min_ms": 0}  # the hold changes when, not how many
    state, events = get_ruleset("spellfire").start(SEATS, seed, {})
    meta = {"ruleset": "spellfire", "seats": SEATS, "options": {}, "clock": clock,
            "spectators": {"delay_ms": 0, "allowed": True}}
    match = MatchState(meta, state, Clock.new(clock, SEATS), 0)
    match.stamp(events, 0)
    core = MatchCore("bench", match, 10**9)
    rng = random.Random(seed)
    counts = {"acts": 0, "window_acts": 0, "passed": 0, "stops": 0}
    now = 0

    def feed(event) -> None:
        effects = core.receive(event, now)
        while effects:
            later = []
            for effect in effects:
                if isinstance(effect, Write):
                    counts["passed"] += sum(1 for entry, _ in effect.entries if "seat" in entry and "act" not in entry)
                    later += core.receive(WriteDone(), now)
            effects = later

    peers = {s: Seat(s) for s in SEATS}
    for seat, mode in zip(SEATS, modes):
        if mode != ASK:
            counts["stops"] += 1
            feed(SetStops(peers[seat], seat, mode))
    while not core.over:
        open_now = core.ruleset.prompts(core.state)
        if again:  # whoever's pass_until_my_turn ended sets it again when next asked in a window
            for seat, mode in zip(SEATS, modes):
                if mode == PASS_UNTIL_MY_TURN and core.stops.mode(seat) != mode and not core.over and any(
                        p["seat"] == seat and "window" in p for p in open_now) and not any(
                        p["seat"] == seat and "window" not in p for p in open_now):
                    counts["stops"] += 1
                    feed(SetStops(peers[seat], seat, mode))
            open_now = core.ruleset.prompts(core.state)
        if core.over:
            break
        mine = [p for p in open_now if not core.stops.passes(p)]
        if not mine:
            raise RuntimeError(f"seed {seed}: nothing to answer and the match is not over")
        prompt = mine[rng.randrange(len(mine))]
        if "window" in prompt and rng.random() < PASS_ODDS:
            option, args = prompt["default"], {}
        else:
            option, args = random_answer(rng, prompt)
        now += 1
        counts["acts"] += 1
        counts["window_acts"] += "window" in prompt
        feed(Act(peers[prompt["seat"]], prompt["seat"], counts["acts"], prompt["id"], option, args))
        if counts["acts"] > 100_000:
            raise RuntimeError(f"seed {seed}: no end")
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=60)
    args = parser.parse_args()
    revision = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    print(f"revision {revision}, {platform.python_implementation()} {platform.python_version()}, "
          f"{args.matches} six-seat Spellfire matches per row (seeds 1..{args.matches})\n")
    print("| seats' stops | answers sent by clients per match, median (mean) | of them to windows | "
          "passed by the server | stops messages | all answers | clients' share of them |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, modes in ROWS.items():
        runs = [play(seed, modes, "set again" in name) for seed in range(1, args.matches + 1)]
        acts = [r["acts"] for r in runs]
        passed = [r["passed"] for r in runs]
        total = sum(acts) + sum(passed)
        print(f"| {name} | {statistics.median(acts):,.0f} ({statistics.mean(acts):,.1f}) | "
              f"{statistics.median([r['window_acts'] for r in runs]):,.0f} | "
              f"{statistics.median(passed):,.0f} | {statistics.mean([r['stops'] for r in runs]):,.1f} | "
              f"{statistics.median([a + p for a, p in zip(acts, passed)]):,.0f} | {sum(acts) / total:.0%} |")


if __name__ == "__main__":
    main()
