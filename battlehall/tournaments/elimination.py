"""Single elimination: a bracket seeded 1 against N, byes for the top seeds of a short field.

The bracket has the next power of two of slots; seed s meets seed size+1-s in the first
round, and the slots are laid out so that seeds 1 and 2 can only meet in the final. A
missing seed is a bye for its opponent. A drawn match (equal game wins, or a round clock)
sends the better seed through, as does an opponent who dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

from battlehall.tournaments import best_of
from battlehall.tournaments.records import Round
from battlehall.tournaments.spec import Spec

Slots = list[str | None]


def slot_seeds(size: int) -> list[int]:
    """The seeds (1-based) of a bracket of `size` slots, in slot order: [1, 8, 4, 5, 2, 7, 3, 6] for 8."""
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [s for seed in order for s in (seed, n + 1 - seed)]
    return order


def first_slots(seeds: list[str]) -> Slots:
    size = 1
    while size < len(seeds):
        size *= 2
    return [seeds[s - 1] if s <= len(seeds) else None for s in slot_seeds(max(size, 2))]


def winner(spec: Spec, rnd: Round, a: str | None, b: str | None, rank: dict[str, int]) -> str | None:
    """Who goes through from the slots (a, b) after `rnd`: a table's winner, or a bye's player."""
    if a is None or b is None:
        return a if b is None else b
    for table in rnd.tables:
        if set(table.players) == {a, b}:
            res = best_of.result(spec, table)
            first = [p for p in (a, b) if res.places[p] == 1]
            return first[0] if len(first) == 1 else min((a, b), key=lambda p: rank[p])
    return a if a in rnd.byes else b if b in rnd.byes else None


def advance(spec: Spec, slots: Slots, rnd: Round, rank: dict[str, int]) -> Slots:
    return [winner(spec, rnd, slots[i], slots[i + 1], rank) for i in range(0, len(slots), 2)]


def pairs(slots: Slots, active: set[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """The tables and byes a round of these slots gets (a dropped player is an empty slot)."""
    tables, byes = [], []
    for i in range(0, len(slots), 2):
        a, b = (p if p in active else None for p in (slots[i], slots[i + 1]))
        if a is not None and b is not None:
            tables.append((a, b))
        elif a is not None or b is not None:
            byes.append(a if a is not None else b)
    return tables, byes  # type: ignore[return-value]


@dataclass(frozen=True, slots=True)
class BracketMatch:
    slot: int  # 1-based, top to bottom
    depth: int
    players: tuple[str | None, str | None]
    winner: str | None
    table: int | None  # the table number in its round, when it was played

    def public(self) -> dict:
        return {"slot": self.slot, "players": list(self.players), "winner": self.winner, "table": self.table,
                "feeds_from": [2 * self.slot - 1, 2 * self.slot] if self.depth > 1 else None}


@dataclass(frozen=True, slots=True)
class BracketRound:
    stage: str
    depth: int  # 1 = the first round of the bracket
    round: int | None  # the event's round number, once paired
    matches: tuple[BracketMatch, ...]

    def public(self) -> dict:
        return {"stage": self.stage, "depth": self.depth, "round": self.round,
                "matches": [m.public() for m in self.matches]}


def bracket(spec: Spec, seeds: list[str], rounds: list[Round], stage: str = "elimination") -> list[BracketRound]:
    """The whole bracket: the rounds played (with winners once decided) and the ones to come."""
    rank = {p: i for i, p in enumerate(seeds)}
    slots: Slots = first_slots(seeds)
    out: list[BracketRound] = []
    depth = 0
    while len(slots) >= 2:
        depth += 1
        rnd = rounds[depth - 1] if depth <= len(rounds) else None
        matches, nxt = [], []
        for i in range(0, len(slots), 2):
            a, b = slots[i], slots[i + 1]
            won, table = None, None
            if rnd is not None:
                table = next((t.table for t in rnd.tables if set(t.players) == {a, b}), None)
                done = table is None or rnd.ended or best_of.decided(spec, rnd.tables[table - 1])
                won = winner(spec, rnd, a, b, rank) if done else None
            elif depth == 1 and (a is None) != (b is None):
                won = a if b is None else b  # a missing seed: a bye, known before the round
            matches.append(BracketMatch(i // 2 + 1, depth, (a, b), won, table))
            nxt.append(won)
        out.append(BracketRound(stage, depth, rnd.round if rnd else None, tuple(matches)))
        slots = nxt
    return out


def finish(spec: Spec, seeds: list[str], rounds: list[Round]) -> dict[str, int]:
    """How far each seeded player got: the depth it went out at (the champion: one more)."""
    rank = {p: i for i, p in enumerate(seeds)}
    out = dict.fromkeys(seeds, 0)
    slots: Slots = first_slots(seeds)
    for depth, rnd in enumerate(rounds, start=1):
        for p in slots:
            if p is not None:
                out[p] = depth
        slots = advance(spec, slots, rnd, rank)
    if len(slots) == 1 and slots[0] is not None:
        out[slots[0]] = len(rounds) + 1
    return out
