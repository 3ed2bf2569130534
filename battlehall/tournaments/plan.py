"""What the next round of an event is: its stage, and its tables and byes (deterministic).

A swiss plays its rounds (the spec's number, or the fewest that can separate the field:
ceil(log2 n) for two-player tables, ceil(log_k n) for pods of k), then the top cut if
there is one. Round robin and single elimination are seeded by rating (a draw from the
seed breaks equal ratings); a top cut by the swiss standings. Seat order at each table
is drawn from the seed (game 1; later games rotate it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from battlehall.tournaments import draws, elimination, ledger, round_robin
from battlehall.tournaments.pods import pair_pods
from battlehall.tournaments.swiss import Entrant, pair_swiss

if TYPE_CHECKING:
    from battlehall.tournaments.tournament import Tournament


def default_rounds(n: int, table_size: int) -> int:
    rounds, reach = 1, table_size
    while reach < n:
        rounds, reach = rounds + 1, reach * table_size
    return rounds


def by_rating(t: Tournament, players: list[str]) -> list[str]:
    return sorted(players, key=lambda p: (-t.players[p].rating, draws.unit(t.seed, "seeding", p)))


def stage_rounds(t: Tournament, stage: str) -> list:
    return [r for r in t.rounds if r.stage == stage]


def stage_seeds(t: Tournament, stage: str) -> list[str]:
    first = next((r for r in t.rounds if r.stage == stage), None)
    return list(first.extra.get("seeds", [])) if first else []


def entry(t: Tournament, stage: str, tables: list[tuple[str, ...]], byes: list[str], extra: dict | None = None) -> dict:
    number = len(t.rounds) + 1
    seated = [draws.shuffled(t.seed, list(players), "seats", number, i) for i, players in enumerate(tables, start=1)]
    entry = {"k": "paired", "round": number, "stage": stage,
             "tables": [{"table": i, "players": players} for i, players in enumerate(seated, start=1)],
             "byes": list(byes)}
    entry.update(extra or {})
    return entry


def _swiss(t: Tournament) -> dict:
    recs = t.records()
    ranked = [s.player for s in t.standings(recs) if not s.dropped]
    byes = ledger.had_bye(t.rounds)
    if t.spec.pods:
        pods = pair_pods(ranked, byes, t.spec.table_size, t.spec.min_table, t.spec.max_table,
                         {p: recs[p].points for p in ranked}, ledger.met(t.rounds))
        return entry(t, "swiss", list(pods.tables), list(pods.byes))
    met = ledger.met(t.rounds)
    pairing = pair_swiss([Entrant(p, recs[p].points, frozenset(met.get(p, ())), p in byes) for p in ranked])
    return entry(t, "swiss", list(pairing.pairs), [pairing.bye] if pairing.bye else [])


def _bracket(t: Tournament, stage: str, seeds: list[str]) -> dict | None:
    """The next round of a single-elimination bracket, or None once it has its champion."""
    played = stage_rounds(t, stage)
    rank = {p: i for i, p in enumerate(seeds)}
    slots = elimination.first_slots(seeds)
    for rnd in played:
        slots = elimination.advance(t.spec, slots, rnd, rank)
    if len(slots) < 2:
        return None
    tables, byes = elimination.pairs(slots, t.active())
    if not tables and len(byes) <= 1 and not played:
        return None
    return entry(t, stage, list(tables), byes, None if played else {"seeds": seeds})


def _cut_seeds(t: Tournament) -> list[str]:
    ranked = [s.player for s in t.standings() if not s.dropped]
    size = t.spec.cut
    while size > len(ranked):
        size //= 2
    return ranked[:size] if size >= 2 else []


def next_round(t: Tournament) -> dict | None:
    """The "paired" entry of the next round (without "at"), or None when the event is complete."""
    spec = t.spec
    if spec.format == "swiss":
        swiss_played = len(stage_rounds(t, "swiss"))
        if swiss_played < t.planned_rounds and len(t.active()) >= 2:
            return _swiss(t)
        if not spec.cut:
            return None
        seeds = stage_seeds(t, "elimination") or _cut_seeds(t)
        return _bracket(t, "elimination", seeds) if seeds else None
    if spec.format == "round_robin":
        seeds = stage_seeds(t, "round_robin") or by_rating(t, t.starters())
        number = len(t.rounds) + 1
        if number > round_robin.rounds_for(len(seeds)):
            return None
        tables, byes = round_robin.tables_and_byes(seeds, number, t.active())
        return entry(t, "round_robin", list(tables), byes, {"seeds": seeds} if number == 1 else None)
    if spec.format == "single_elimination":
        return _bracket(t, "elimination", stage_seeds(t, "elimination") or by_rating(t, t.starters()))
    from battlehall.tournaments.double_elimination import next_double

    return next_double(t)


def has_next(t: Tournament) -> bool:
    """Whether a round is left to pair, without pairing it (a swiss round's matching is the dear part)."""
    if t.spec.format == "swiss" and len(stage_rounds(t, "swiss")) < t.planned_rounds and len(t.active()) >= 2:
        return True
    return next_round(t) is not None
