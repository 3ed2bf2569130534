"""What a tournament page shows: the bracket of an elimination stage, and the whole public view."""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlehall.tournaments import best_of, elimination, plan
from battlehall.tournaments.records import Round, Table
from battlehall.tournaments.spec import Spec
from battlehall.tournaments.standings import _num

if TYPE_CHECKING:
    from battlehall.tournaments.tournament import Tournament


def bracket(t: Tournament) -> list[elimination.BracketRound]:
    if t.spec.format == "double_elimination":
        from battlehall.tournaments.double_elimination import double_bracket

        return double_bracket(t)
    seeds = plan.stage_seeds(t, "elimination")
    if not seeds:
        return []
    return elimination.bracket(t.spec, seeds, plan.stage_rounds(t, "elimination"))


def double_finish(t: Tournament) -> dict[str, int]:
    from battlehall.tournaments.double_elimination import double_finish_order

    return double_finish_order(t)


def _table(spec: Spec, rnd: Round, table: Table) -> dict:
    done = rnd.ended or best_of.decided(spec, table)
    out: dict = {"table": table.table, "players": list(table.players), "done": done,
                 "games": [{"game": g.game, "match": g.match, "seats": list(g.seats),
                            "places": [list(p) for p in g.places],
                            "draw": len(g.places) == 1 and len(g.seats) > 1} for g in table.games]}
    if done:
        res = best_of.result(spec, table)
        out["result"] = {"places": res.places, "points": {p: _num(v) for p, v in res.points.items()},
                         "games": {p: [g.wins, g.losses, g.draws] for p, g in res.games.items()}}
    return out


def _round(t: Tournament, r: Round) -> dict:
    """A round's view; a round before the current one can no longer change, so its view is kept."""
    kept = t.round_views.get(r.round)
    if kept is not None:
        return kept
    spec = t.spec
    view = {"round": r.round, "stage": r.stage, "ended": r.ended, "byes": list(r.byes),
            "over": r.ended or all(best_of.decided(spec, x) for x in r.tables),
            "tables": [_table(spec, r, x) for x in r.tables]}
    if r.round < len(t.rounds):
        t.round_views[r.round] = view
    return view


def public(t: Tournament) -> dict:
    """Everything the tournament page shows (JSON-able)."""
    spec = t.spec
    return {
        "spec": spec.body(),
        "phase": t.phase,
        "round": len(t.rounds),
        "planned_rounds": t.planned_rounds,
        "complete": t.phase == "running" and bool(t.rounds) and t.complete,
        "players": [{"player": p.id, "name": p.name, "rating": p.rating, "checked_in": p.checked_in,
                     "dropped": p.dropped} for p in t.players.values()],
        "rounds": [_round(t, r) for r in t.rounds],
        "standings": [s.public() for s in t.standings()],
        "bracket": [b.public() for b in t.bracket()],
    }
