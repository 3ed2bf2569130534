"""Each player's record over the rounds so far: points, match and game results, opponents.

A table counts once it is decided (or its round was ended by the clock); a bye counts when
its round is paired, as a won match with the games a won match takes (2-0 in a best of 3).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from battlehall.tournaments import best_of
from battlehall.tournaments.records import Round
from battlehall.tournaments.spec import Spec


@dataclass(slots=True)
class Record:
    points: float = 0
    match_wins: int = 0
    match_losses: int = 0
    match_draws: int = 0
    game_wins: int = 0
    game_losses: int = 0
    game_draws: int = 0
    game_score: float = 0.0  # games' shares of the best result, summed (game-win % = / games)
    games: int = 0
    match_scores: list[float] = field(default_factory=list)  # one per round played, byes included
    opponents: list[str] = field(default_factory=list)  # once per round met (a pod: every other player)
    scored: list[tuple[str, float]] = field(default_factory=list)  # (opponent, win 1, draw 1/2, loss 0)
    byes: int = 0

    def copy(self) -> Record:
        return replace(self, match_scores=list(self.match_scores), opponents=list(self.opponents),
                       scored=list(self.scored))


def records(spec: Spec, players: list[str], rounds: list[Round], base: dict[str, Record] | None = None) -> dict[str, Record]:
    """Each player's record over `rounds`, added to `base` (the records of the rounds before them)."""
    base = base or {}
    out = {p: base[p].copy() if p in base else Record() for p in players}
    bye_points = spec.points.win if not spec.pods else spec.place_points[0]
    bye_games = best_of.wins_needed(spec.best_of)
    for rnd in rounds:
        for p in rnd.byes:
            r = out.setdefault(p, Record())
            r.points += bye_points
            r.match_wins += 1
            r.game_wins += bye_games
            r.game_score += bye_games
            r.games += bye_games
            r.match_scores.append(1.0)
            r.byes += 1
        for table in rnd.tables:
            if not (rnd.ended or best_of.decided(spec, table)):
                continue
            res = best_of.result(spec, table)
            for p in table.players:
                r = out.setdefault(p, Record())
                g = res.games[p]
                r.points += res.points[p]
                place = res.places[p]
                shared = sum(1 for q in table.players if res.places[q] == place) > 1
                if place == 1 and not shared:
                    r.match_wins += 1
                elif place == 1:
                    r.match_draws += 1
                else:
                    r.match_losses += 1
                r.game_wins += g.wins
                r.game_losses += g.losses
                r.game_draws += g.draws
                r.game_score += g.score
                r.games += g.played
                r.match_scores.append(res.score[p])
                # Sonneborn-Berger's share: a won match 1, a drawn one 1/2 (a pod: the place's share)
                share = res.score[p] if spec.pods else 1.0 if place == 1 and not shared else 0.5 if shared else 0.0
                for q in table.players:
                    if q != p:
                        r.opponents.append(q)
                        r.scored.append((q, share))
    return out


def met(rounds: list[Round]) -> dict[str, set[str]]:
    """Who sat at a table with whom, in any round paired so far (decided or not)."""
    out: dict[str, set[str]] = {}
    for rnd in rounds:
        for table in rnd.tables:
            for p in table.players:
                out.setdefault(p, set()).update(q for q in table.players if q != p)
    return out


def had_bye(rounds: list[Round]) -> set[str]:
    return {p for rnd in rounds for p in rnd.byes}
