"""The ranking of an event's players: points, then the spec's tie-breaks, then rating.

An elimination stage ranks its players first (the champion, the finalist, then by the round
each went out in); everyone else follows. The last fallbacks are the rating and the order of
registration, so the ranking never depends on anything but the log.
"""

from __future__ import annotations

from dataclasses import dataclass

from battlehall.tournaments import ledger, tiebreaks
from battlehall.tournaments.records import Player, Round
from battlehall.tournaments.spec import Spec


@dataclass(frozen=True, slots=True)
class Standing:
    rank: int
    player: str
    name: str
    points: float
    match: tuple[int, int, int]  # wins, losses, draws
    games: tuple[int, int, int]
    tiebreaks: dict[str, float]
    dropped: bool

    def public(self) -> dict:
        return {"rank": self.rank, "player": self.player, "name": self.name, "points": _num(self.points),
                "match": list(self.match), "game": list(self.games),
                "tiebreaks": {k: round(v, 4) for k, v in self.tiebreaks.items()}, "dropped": self.dropped}


def _num(x: float) -> float:
    return int(x) if float(x).is_integer() else round(x, 4)


def standings(spec: Spec, players: dict[str, Player], rounds: list[Round], seed: str,
              finish: dict[str, int] | None = None, recs: dict[str, ledger.Record] | None = None) -> list[Standing]:
    """`finish`: how far each player got in an elimination stage (higher is further); `recs`: the
    players' records, when the caller has them already."""
    recs = recs if recs is not None else ledger.records(spec, list(players), rounds)
    tbs = tiebreaks.compute(spec.tiebreaks, recs, seed)
    finish = finish or {}

    def key(p: str) -> tuple:
        pl = players[p]
        return (p not in finish, -finish.get(p, 0), -recs[p].points,
                *(-tbs[p][name] for name in spec.tiebreaks), -pl.rating, pl.order)

    out = []
    for rank, p in enumerate(sorted(players, key=key), start=1):
        r = recs[p]
        out.append(Standing(rank, p, players[p].name, r.points, (r.match_wins, r.match_losses, r.match_draws),
                            (r.game_wins, r.game_losses, r.game_draws), tbs[p], players[p].dropped))
    return out
