"""Tie-breaks against examples computed by hand."""

from __future__ import annotations

import pytest
from event_kit import Event

A, B, C, D = "p0000", "p0001", "p0002", "p0003"


def _table_of(event: Event, pair: tuple[str, str]) -> int:
    return next(t.table for t in event.t.rounds[-1].tables if set(t.players) == set(pair))


def _result(event: Event, pair: tuple[str, str], winners: list[str]) -> None:
    table = event.t.rounds[-1].tables[_table_of(event, pair) - 1]
    for won in winners:
        call = next(c for c in event.t.games_to_create() if c.table == table.table)
        entry = {"k": "game", "round": call.round, "table": call.table, "game": call.game, "seats": list(call.seats)}
        if won == "=":
            entry["draw"] = True
        else:
            entry["places"] = [[won], [s for s in call.seats if s != won]]
        event.apply(entry)


def _round(event: Event, results: dict[tuple[str, str], list[str]]) -> None:
    paired = event.t.pair_next(at=1)
    assert {frozenset(t["players"]) for t in paired["tables"]} == {frozenset(p) for p in results}
    event.apply(paired)
    for pair, winners in results.items():
        _result(event, pair, winners)
    assert event.t.round_over()


def _four(body: dict) -> Event:
    event = Event({"name": "x", "ruleset": "duel", "rounds": 2, **body})
    event.register(4)  # ratings 1500, 1499, 1498, 1497: A B C D; round 1 is A-C, B-D
    event.apply({"k": "started", "at": 1})
    return event


def test_match_and_game_win_percentages_with_their_floors():
    # Round 1: A beats C 2-0, B beats D 2-1. Round 2: A beats B 2-1, C beats D 2-0.
    event = _four({"best_of": 3})
    _round(event, {(A, C): [A, A], (B, D): [B, D, B]})
    _round(event, {(A, B): [A, B, A], (C, D): [C, C]})
    rows = {s.player: s for s in event.t.standings()}
    assert [s.player for s in event.t.standings()] == [A, B, C, D]
    assert rows[A].points == 6 and rows[B].points == 3 and rows[C].points == 3 and rows[D].points == 0
    # match-win %: A 1, B 1/2, C 1/2, D 0 -> floored to 1/3
    assert rows[A].tiebreaks["omw"] == pytest.approx((0.5 + 0.5) / 2)
    assert rows[B].tiebreaks["omw"] == pytest.approx((1 / 3 + 1) / 2)
    assert rows[D].tiebreaks["omw"] == pytest.approx((0.5 + 0.5) / 2)
    # game-win %: A 4 of 5 games, B 3 of 6, C 2 of 4, D 1 of 5 -> floored to 1/3
    assert rows[A].tiebreaks["gw"] == pytest.approx(4 / 5)
    assert rows[B].tiebreaks["gw"] == pytest.approx(3 / 6)
    assert rows[C].tiebreaks["gw"] == pytest.approx(2 / 4)
    assert rows[D].tiebreaks["gw"] == pytest.approx(1 / 3)
    assert rows[B].tiebreaks["ogw"] == pytest.approx((1 / 3 + 4 / 5) / 2)
    assert rows[C].tiebreaks["ogw"] == pytest.approx((4 / 5 + 1 / 3) / 2)
    assert rows[A].games == (4, 1, 0) and rows[D].match == (0, 2, 0)


def test_buchholz_and_sonneborn_berger_with_chess_points():
    # Round 1: A beats C, B draws D. Round 2: A draws B, C beats D.
    event = _four({"points": {"win": 1, "draw": 0.5, "loss": 0}, "tiebreaks": ["sonneborn_berger", "buchholz"]})
    _round(event, {(A, C): [A], (B, D): ["="]})
    _round(event, {(A, B): ["="], (C, D): [C]})
    rows = {s.player: s for s in event.t.standings()}
    points = {A: 1.5, B: 1.0, C: 1.0, D: 0.5}
    assert {p: r.points for p, r in rows.items()} == points
    assert rows[A].tiebreaks["sonneborn_berger"] == pytest.approx(points[C] + points[B] / 2)
    assert rows[B].tiebreaks["sonneborn_berger"] == pytest.approx(points[D] / 2 + points[A] / 2)
    assert rows[C].tiebreaks["sonneborn_berger"] == pytest.approx(points[D])
    assert rows[D].tiebreaks["sonneborn_berger"] == pytest.approx(points[B] / 2)
    assert rows[B].tiebreaks["buchholz"] == pytest.approx(points[D] + points[A])
    # B and C have 1 point each: B's Sonneborn-Berger (1.0) beats C's (0.5)
    assert [s.player for s in event.t.standings()] == [A, B, C, D]


def test_a_bye_counts_for_its_player_but_is_no_opponent():
    event = Event({"name": "x", "ruleset": "duel", "rounds": 1})
    event.register(3)
    event.apply({"k": "started", "at": 1})
    paired = event.t.pair_next()
    assert paired["byes"] == ["p0002"]
    event.apply(paired)
    _result(event, ("p0000", "p0001"), ["p0000"])
    rows = {s.player: s for s in event.t.standings()}
    assert rows["p0002"].points == 3 and rows["p0002"].match == (1, 0, 0) and rows["p0002"].games == (1, 0, 0)
    assert rows["p0002"].tiebreaks["omw"] == 0 and rows["p0002"].tiebreaks["gw"] == 1
    assert rows["p0000"].tiebreaks["omw"] == pytest.approx(1 / 3)  # B's 0 % floored


def test_the_random_tie_break_is_drawn_from_the_seed():
    def order(seed: str) -> list[str]:
        event = Event({"name": "x", "ruleset": "duel", "tiebreaks": ["random"]}, seed=seed)
        event.register(16, ratings=False)
        return [s.player for s in event.t.standings()]

    assert order("a") == order("a") and order("a") != order("b")
