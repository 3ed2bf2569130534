"""One table's games: who sits where in each, when the table is decided, and its result.

Seats rotate by one place each game, so with best of 3 or 5 nobody keeps the first seat.
A two-player table is a match: more game wins wins it, equal game wins is a drawn match.
A pod (3..6 players) ranks its players by game wins, then by the points of their places
over its games; players who share a place share the points of the places they span.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from battlehall.tournaments.records import Game, Table
from battlehall.tournaments.spec import Spec


@dataclass(frozen=True, slots=True)
class GameTally:
    wins: int = 0
    losses: int = 0
    draws: int = 0
    score: float = 0.0  # sum over its games of a game's share of the best result (0..1 each)
    played: int = 0


@dataclass(frozen=True, slots=True)
class TableResult:
    places: dict[str, int]  # final place at the table (1 best; ties share)
    points: dict[str, float]  # event points each player earns from this table
    score: dict[str, float]  # the points as a share of the best result (match-win % uses it)
    games: dict[str, GameTally]


def wins_needed(best_of: int) -> int:
    return best_of // 2 + 1


def seats_for(table: Table, game: int) -> tuple[str, ...]:
    """Seat order of game `game` (1-based): the table's order rotated by one per game."""
    players = table.players
    shift = (game - 1) % len(players)
    return players[shift:] + players[:shift]


def place_shares(places: list[list[str]] | tuple[tuple[str, ...], ...], values: tuple[float, ...]) -> dict[str, float]:
    """Each player's value of its place, the players of a shared place averaging the places they span."""
    out: dict[str, float] = {}
    at = 0
    for group in places:
        span = values[at:at + len(group)]
        share = sum(span) / len(group) if span else 0.0
        for player in group:
            out[player] = share
        at += len(group)
    return out


def _game_shares(spec: Spec, game: Game) -> dict[str, float]:
    if len(game.seats) == 2:
        p = spec.points
        if game.winner is None:
            return dict.fromkeys(game.seats, (p.draw - p.loss) / (p.win - p.loss))
        return {s: 1.0 if s == game.winner else 0.0 for s in game.seats}
    top = spec.place_points[0]
    return {s: v / top for s, v in place_shares(game.places, spec.place_points).items()}


def tallies(spec: Spec, table: Table) -> dict[str, GameTally]:
    players = table.players
    wins, losses, draws = dict.fromkeys(players, 0), dict.fromkeys(players, 0), dict.fromkeys(players, 0)
    score = dict.fromkeys(players, 0.0)
    for game in table.games:
        shares = _game_shares(spec, game)
        winner, first = game.winner, game.places[0]
        for p in players:
            if p == winner:
                wins[p] += 1
            elif winner is None and p in first:
                draws[p] += 1
            else:
                losses[p] += 1
            score[p] += shares.get(p, 0.0)
    played = len(table.games)
    return {p: GameTally(wins[p], losses[p], draws[p], score[p], played) for p in players}


def decided(spec: Spec, table: Table) -> bool:
    """A player has the game wins it takes, or every game is played."""
    if len(table.games) >= spec.best_of:
        return True
    wins = Counter(g.winner for g in table.games if g.winner is not None)
    return any(n >= wins_needed(spec.best_of) for n in wins.values())


def result(spec: Spec, table: Table) -> TableResult:
    """The table's result from the games played so far (a round clock may end it undecided)."""
    games = tallies(spec, table)
    if len(table.players) == 2:
        a, b = table.players
        p = spec.points
        if games[a].wins == games[b].wins:
            return TableResult({a: 1, b: 1}, {a: p.draw, b: p.draw}, dict.fromkeys((a, b), _share(spec, p.draw)), games)
        win, loss = (a, b) if games[a].wins > games[b].wins else (b, a)
        return TableResult({win: 1, loss: 2}, {win: p.win, loss: p.loss}, {win: 1.0, loss: _share(spec, p.loss)}, games)
    if len(table.games) == 1:
        ranked = [list(group) for group in table.games[0].places]
    else:
        ranked = _rank_pod(table, games)
    points = place_shares(ranked, spec.place_points)
    places = {p: 1 + sum(len(g) for g in ranked[:i]) for i, group in enumerate(ranked) for p in group}
    top = spec.place_points[0]
    return TableResult(places, points, {p: v / top for p, v in points.items()}, games)


def _share(spec: Spec, points: float) -> float:
    p = spec.points
    return (points - p.loss) / (p.win - p.loss)


def _rank_pod(table: Table, games: dict[str, GameTally]) -> list[list[str]]:
    key = {p: (games[p].wins, games[p].score) for p in table.players}
    ranked: list[list[str]] = []
    for p in sorted(table.players, key=lambda p: (-key[p][0], -key[p][1], table.players.index(p))):
        if ranked and key[ranked[-1][0]] == key[p]:
            ranked[-1].append(p)
        else:
            ranked.append([p])
    return ranked
