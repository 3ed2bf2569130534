"""Pods: swiss rounds of many-seat tables, formed by standing.

The field is cut, in standings order, into the number of tables whose average size is
nearest the organiser's table size, every table within the seats pods allow, the sizes
differing by at most one (larger tables on top). A field that no such split seats gives
byes (counted as a first place) to the fewest lowest-ranked players it takes, those
without a bye first.
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


def pair_pods(ranked: list[str], had_bye: set[str], target: int, lo: int, hi: int) -> PodPairing:
    """Tables of the active players `ranked` (best first)."""
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
    tables, at = [], 0
    for size in split:
        tables.append(tuple(seated[at:at + size]))
        at += size
    return PodPairing(tuple(tables), tuple(p for p in ranked if p in bye_set))
