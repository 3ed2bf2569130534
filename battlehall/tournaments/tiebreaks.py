"""Tie-breaks, as card game store events and chess events compute them.

- omw: opponents' match-win %: the average over the opponents met of each one's match-win %
  (match points earned / the most it could have earned in its rounds), each floored at 1/3.
  A bye is no opponent (it counts for the player's own record only).
- gw: the player's own game-win % (game points / the most it could have), floored at 1/3.
- ogw: opponents' game-win %: the average of the opponents' game-win %, each floored at 1/3.
- buchholz: the sum of the opponents' points.
- sonneborn_berger: the sum of the points of the opponents beaten, plus half the points of
  those drawn with (a pod: each other player's points times the share of the best place's
  points the player earned at that table).
- random: a number drawn from the event's seed for each player (the same all event long).
A pod counts every other player at the table as an opponent.
"""

from __future__ import annotations

from battlehall.tournaments import draws
from battlehall.tournaments.ledger import Record

FLOOR = 1 / 3


def match_win(r: Record) -> float:
    return max(FLOOR, sum(r.match_scores) / len(r.match_scores)) if r.match_scores else FLOOR


def game_win(r: Record) -> float:
    return max(FLOOR, r.game_score / r.games) if r.games else FLOOR


def _mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


def compute(names: tuple[str, ...], records: dict[str, Record], seed: str) -> dict[str, dict[str, float]]:
    """Each player's value of each tie-break in `names` (higher is better)."""
    mw = {p: match_win(r) for p, r in records.items()}
    gw = {p: game_win(r) for p, r in records.items()}
    out: dict[str, dict[str, float]] = {}
    for p, r in records.items():
        values: dict[str, float] = {}
        for name in names:
            if name == "omw":
                values[name] = _mean([mw[o] for o in r.opponents])
            elif name == "gw":
                values[name] = gw[p]
            elif name == "ogw":
                values[name] = _mean([gw[o] for o in r.opponents])
            elif name == "buchholz":
                values[name] = sum(records[o].points for o in r.opponents)
            elif name == "sonneborn_berger":
                values[name] = sum(records[o].points * share for o, share in r.scored)
            elif name == "random":
                values[name] = draws.unit(seed, "tiebreak", p)
        out[p] = values
    return out
