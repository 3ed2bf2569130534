"""Double elimination: a winners' bracket, a losers' bracket, and a grand final.

The winners' bracket is single elimination's (seeded 1 against N). Who loses there drops
into the losers' bracket: the first round's losers meet each other, and each later
winners' round's losers meet the losers' bracket survivors (in reverse order, to keep
rematches late), between which the survivors play each other. A second lost table puts a
player out. The grand final, one table, is the winners' bracket winner against the
losers' bracket winner (no reset). Rounds run one bracket round at a time, each entry
naming its step ("W2", "L3", "GF"); a step with no table to play (byes only) is skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from battlehall.tournaments import elimination, plan
from battlehall.tournaments.elimination import BracketMatch, BracketRound, Slots
from battlehall.tournaments.records import Round

if TYPE_CHECKING:
    from battlehall.tournaments.tournament import Tournament

STAGES = {"W": "elimination", "L": "losers", "G": "final"}


def schedule(size: int) -> list[str]:
    """The steps of a bracket of `size` slots, in the order they are played."""
    k = max(1, size.bit_length() - 1)
    steps = ["W1"]
    for j in range(2, k + 1):
        steps += [f"W{j}", f"L{2 * j - 3}", f"L{2 * j - 2}"]
    return steps + ["GF"]


@dataclass(slots=True)
class _State:
    winners: Slots
    losers: Slots = field(default_factory=list)
    fresh: dict[int, Slots] = field(default_factory=dict)  # losers of each winners' round, by round
    out: dict[str, int] = field(default_factory=dict)  # the step at which each player went out
    champion: str | None = None


def _slots(state: _State, step: str) -> Slots:
    kind, n = step[0], int(step[1:]) if step[1:].isdigit() else 0
    if kind == "W":
        return state.winners
    if kind == "G":
        lb = state.losers[0] if state.losers else (state.fresh.get(1) or [None])[0]
        return [state.winners[0], lb]
    if n == 1:
        return state.fresh.get(1, [])
    if n % 2 == 0:
        drop = list(reversed(state.fresh.get(n // 2 + 1, [])))
        return [p for pair in zip(state.losers, drop) for p in pair]
    return state.losers


def _play(t: Tournament, state: _State, index: int, step: str, rnd: Round | None, rank: dict[str, int],
          active: set[str]) -> list:
    """Advance the state through one step; the step's (a, b, winner, table) rows. A step without
    a round (byes only) lets through whoever of `active` (the players in when it came) it holds."""
    slots, rows, winners, losers = _slots(state, step), [], [], []
    for i in range(0, len(slots) - 1, 2):
        a, b = slots[i], slots[i + 1]
        if rnd is not None:
            won = elimination.winner(t.spec, rnd, a, b, rank)
            table = next((x.table for x in rnd.tables if set(x.players) == {a, b}), None)
        else:  # a step without tables: everyone present goes through
            a, b = (p if p in active else None for p in (a, b))
            won, table = a if b is None else b, None
        lost = (b if won == a else a) if table is not None else None
        for p in (a, b):
            if p is not None and p != won and (step[0] != "W" or table is None):
                state.out.setdefault(p, index)  # a second loss, or a drop
        rows.append((a, b, won, table))
        winners.append(won)
        losers.append(lost)
    if step[0] == "W":
        state.winners = winners
        state.fresh[int(step[1:])] = losers
    elif step[0] == "L":
        state.losers = winners
    else:
        state.champion = winners[0]
    return rows


def _replay(t: Tournament) -> tuple[list[str], _State, list[tuple[str, Round | None, list]]]:
    seeds = plan.stage_seeds(t, "elimination") or plan.by_rating(t, t.starters())
    rank = {p: i for i, p in enumerate(seeds)}
    state = _State(elimination.first_slots(seeds))
    played = {r.extra.get("bracket"): r for r in t.rounds}
    steps = schedule(len(state.winners))
    done = []
    paired = 0  # rounds of the log before this step: who was still in then decides a skipped step
    for index, step in enumerate(steps):
        rnd = played.get(step)
        active = t.active_at(paired)
        slots = _slots(state, step)
        if rnd is None and any(a in active and b in active for a, b in zip(slots[::2], slots[1::2])):
            break  # the next step to pair
        done.append((step, rnd, _play(t, state, index, step, rnd, rank, active)))
        paired += rnd is not None
    return seeds, state, done


def next_double(t: Tournament) -> dict | None:
    seeds, state, done = _replay(t)
    steps = schedule(len(elimination.first_slots(seeds)))
    if len(done) == len(steps):
        return None
    step = steps[len(done)]
    tables, byes = elimination.pairs(_slots(state, step), t.active())
    extra: dict = {"bracket": step}
    if not any(r.stage in STAGES.values() for r in t.rounds):
        extra["seeds"] = seeds
    return plan.entry(t, STAGES[step[0]], list(tables), byes, extra)


def double_bracket(t: Tournament) -> list[BracketRound]:
    if not t.rounds:
        return []
    _, _, done = _replay(t)
    out = []
    for depth, (step, rnd, rows) in enumerate(done, start=1):
        matches = tuple(BracketMatch(i + 1, depth, (a, b), won, table) for i, (a, b, won, table) in enumerate(rows))
        out.append(BracketRound(STAGES[step[0]], depth, rnd.round if rnd else None, matches))
    return out


def double_finish_order(t: Tournament) -> dict[str, int]:
    seeds, state, done = _replay(t)
    if not any(r.stage in STAGES.values() for r in t.rounds):
        return {}
    steps = len(schedule(len(elimination.first_slots(seeds))))
    order = {p: state.out.get(p, len(done)) for p in seeds}
    if state.champion is not None:
        order[state.champion] = steps + 1
    return order
