"""Events played out in memory: registrations, a start, then every round with random results."""

from __future__ import annotations

import random

from battlehall.tournaments import Spec, Tournament

DUEL = range(2, 3)
SPELLFIRE = range(2, 7)


def game_entry(call, places: list[list[str]], at: int = 0) -> dict:
    return {"k": "game", "round": call.round, "table": call.table, "game": call.game,
            "match": f"m{call.round}-{call.table}-{call.game}", "seats": list(call.seats), "places": places, "at": at}


def random_places(rng: random.Random, seats: tuple[str, ...], draws: float = 0.0) -> list[list[str]]:
    if rng.random() < draws:
        return [list(seats)]
    order = list(seats)
    rng.shuffle(order)
    return [[p] for p in order]


class Event:
    """A Tournament and the log it was folded from."""

    def __init__(self, body: dict, seats: range = DUEL, seed: str = "seed-1") -> None:
        self.body = body
        self.t = Tournament(Spec.parse(body, seats), seed)
        self.log: list[dict] = []

    def apply(self, entry: dict) -> None:
        self.t.apply(entry)
        self.log.append(entry)

    def register(self, n: int, ratings: bool = True) -> list[str]:
        ids = [f"p{i:04d}" for i in range(n)]
        for i, p in enumerate(ids):
            self.apply({"k": "registered", "player": p, "name": p.upper(), "rating": 1500.0 - i * ratings, "at": i})
        return ids

    def play_round(self, rng: random.Random, draws: float = 0.0) -> dict | None:
        """Pair the next round and play it to its end; the paired entry (None once complete)."""
        paired = self.t.pair_next(at=1000)
        if paired is None:
            return None
        self.apply(paired)
        while calls := self.t.games_to_create():
            for call in calls:
                self.apply(game_entry(call, random_places(rng, call.seats, draws)))
        self.apply({"k": "round_ended", "round": paired["round"], "at": 2000})
        return paired

    def play_out(self, rng: random.Random, draws: float = 0.0, drop_rate: float = 0.0) -> list[dict]:
        """Every round to the end, dropping players now and then; the paired entries."""
        rounds = []
        while (paired := self.play_round(rng, draws)) is not None:
            rounds.append(paired)
            for p in sorted(self.t.active()):
                if rng.random() < drop_rate and len(self.t.active()) > 2:
                    self.apply({"k": "dropped", "player": p, "at": 3000})
        self.apply({"k": "finished", "at": 9000})
        return rounds


def seated(paired: dict) -> list[str]:
    """Everyone a paired entry places: at its tables, then its byes."""
    return [p for table in paired["tables"] for p in table["players"]] + list(paired["byes"])
