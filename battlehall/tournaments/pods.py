"""Pods: swiss rounds of many-seat tables, formed by standing.

The field is cut, in standings order, into the number of tables whose average size is
nearest the organiser's table size, every table within the seats pods allow, the sizes
differing by at most one (larger tables on top). A field that no such split seats gives
byes (counted as a first place) to the fewest lowest-ranked players it takes, those
without a bye first. Then players of equal points at neighbouring tables swap seats
where that makes fewer pairs of players meet again (a bounded number of passes).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PodPairing:
    tables: tuple[tuple[str, ...], ...]
    byes: tuple[str, ...]


def sizes(n: int, target: int, lo: int, hi: int) -> list[int] | None:
    """Balanced table sizes seating exactly `n`, or None when no split fits in lo..hi."""
    best: tuple[float, int] | None = None
    for k in range(1, n // lo + 1):
        small, extra = divmod(n, k)
        if small >= lo and small + (extra > 0) <= hi:
            score = (abs(n / k - target), k)
            if best is None or score < best:
                best = score
    if best is None:
        return None
    k = best[1]
    small, extra = divmod(n, k)
    return [small + 1] * extra + [small] * (k - extra)


_PASSES = 4


def _repeats(player: str, table: list[str], met: dict[str, set[str]]) -> int:
    seen = met.get(player, set())
    return sum(1 for q in table if q != player and q in seen)


def _fewer_repeats(tables: list[list[str]], points: dict[str, float], met: dict[str, set[str]]) -> None:
    """Swap equal-points players between neighbouring tables while that lowers the meetings again."""
    for _ in range(_PASSES):
        swapped = False
        for upper, lower in zip(tables, tables[1:]):
            for i, x in enumerate(upper):
                for j, y in enumerate(lower):
                    if points.get(x) != points.get(y):
                        continue
                    before = _repeats(x, upper, met) + _repeats(y, lower, met)
                    rest_up, rest_low = upper[:i] + upper[i + 1:], lower[:j] + lower[j + 1:]
                    after = _repeats(y, rest_up, met) + _repeats(x, rest_low, met)
                    if after < before:
                        upper[i], lower[j] = y, x
                        x, swapped = y, True
        if not swapped:
            return


def pair_pods(ranked: list[str], had_bye: set[str], target: int, lo: int, hi: int,
              points: dict[str, float] | None = None, met: dict[str, set[str]] | None = None) -> PodPairing:
    """Tables of the active players `ranked` (best first); with `points` and `met` (who has sat
    with whom), equal-points players swap tables to meet fewer players again."""
    n = len(ranked)
    for byes in range(n + 1):
        split = sizes(n - byes, target, lo, hi) if n - byes else []
        if split is not None:
            break
    else:  # pragma: no cover - byes == n always fits (no table)
        split = []
    # the lowest-ranked without a bye get the byes first, then the lowest-ranked of the rest
    order = sorted(range(n), key=lambda i: (ranked[i] in had_bye, -i))
    bye_set = {ranked[i] for i in order[:byes]}
    seated = [p for p in ranked if p not in bye_set]
    tables: list[list[str]] = []
    at = 0
    for size in split:
        tables.append(seated[at:at + size])
        at += size
    if points is not None and met:
        _fewer_repeats(tables, points, met)
    return PodPairing(tuple(tuple(t) for t in tables), tuple(p for p in ranked if p in bye_set))
