"""Round robin by the circle method: everyone meets everyone once.

The seeds sit in a circle; the first stays, the others turn one place each round, and
round r pairs the i-th from the top with the i-th from the bottom. An odd field adds an
empty place, whose partner has the bye. A dropped player's opponent has the bye too.
"""

from __future__ import annotations


def rounds_for(n: int) -> int:
    return n - 1 if n % 2 == 0 else n


def pairs(seeds: list[str], round_number: int) -> list[tuple[str | None, str | None]]:
    """Round `round_number`'s (1-based) pairs of the circle; None is the empty place."""
    circle: list[str | None] = list(seeds) + ([None] if len(seeds) % 2 else [])
    n = len(circle)
    turn = (round_number - 1) % (n - 1)
    rest = circle[1:]
    rest = rest[-turn:] + rest[:-turn] if turn else rest
    ring = [circle[0], *rest]
    return [(ring[i], ring[n - 1 - i]) for i in range(n // 2)]


def tables_and_byes(seeds: list[str], round_number: int, active: set[str]) -> tuple[list[tuple[str, str]], list[str]]:
    tables, byes = [], []
    for a, b in pairs(seeds, round_number):
        a, b = (p if p in active else None for p in (a, b))
        if a is not None and b is not None:
            tables.append((a, b))
        elif a is not None or b is not None:
            byes.append(a if a is not None else b)
    return tables, byes  # type: ignore[return-value]
