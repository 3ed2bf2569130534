"""The battlefield: squares, what stands on them, and the four kinds of range.

Squares are ``[x, y]`` from ``[0, 0]`` (top left) to ``[width - 1, height - 1]``.
A square holds at most one thing: a terrain object or a character.

Line of sight (the rule "a clear straight or diagonal line"): the line runs from the
centre of the attacker's square to the centre of the target's square. A square *blocks*
when it holds a terrain object or another character and the line passes through its
interior; a line that only touches a square's corner does not cross it ("corners do not
block LOS"). With the option ``los: "lines"`` (the default) only rows, columns and exact
diagonals are lines at all, as the text says; with ``"any"`` any angle is a line, crossing
squares by the same rule (a line along an edge between two squares crosses neither).
"""

from __future__ import annotations

from fractions import Fraction


def on_board(state: dict, sq: list) -> bool:
    return 0 <= sq[0] < state["map"]["width"] and 0 <= sq[1] < state["map"]["height"]


def unit_at(state: dict, sq: list) -> str | None:
    for uid in state["order"]:
        if state["units"][uid]["pos"] == sq:
            return uid
    return None


def is_terrain(state: dict, sq: list) -> bool:
    return sq in state["map"]["terrain"]


def is_empty(state: dict, sq: list) -> bool:
    return on_board(state, sq) and not is_terrain(state, sq) and unit_at(state, sq) is None


def distance(a: list, b: list) -> int:
    """Squares of movement between a and b, diagonals counting one (Chebyshev)."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]))


def in_melee(a: list, b: list) -> bool:
    """'Melee: Adjacent spaces (including diagonals).'"""
    return distance(a, b) == 1


def is_line(a: list, b: list) -> bool:
    """'A clear straight or diagonal line': same row, same column or an exact diagonal."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    return dx == 0 or dy == 0 or abs(dx) == abs(dy)


def _interval(a: int, d: int, lo: int) -> tuple[Fraction, Fraction] | None:
    """The open range of t in which a + t*d lies strictly between lo and lo + 2 (doubled units)."""
    if d == 0:
        return (Fraction(0), Fraction(1)) if lo < a < lo + 2 else None
    t1, t2 = Fraction(lo - a, d), Fraction(lo + 2 - a, d)
    return (min(t1, t2), max(t1, t2))


def crossed(a: list, b: list) -> list[list]:
    """The squares strictly between a and b whose interior the centre-to-centre line passes
    through, in board order. Touching a corner or running along an edge is not crossing."""
    if is_line(a, b):  # a row, a column or a diagonal: exactly the squares between (a diagonal only touches corners)
        n = distance(a, b)
        sx, sy = (b[0] > a[0]) - (b[0] < a[0]), (b[1] > a[1]) - (b[1] < a[1])
        return [[a[0] + k * sx, a[1] + k * sy] for k in range(1, n)]
    ax, ay, bx, by = 2 * a[0] + 1, 2 * a[1] + 1, 2 * b[0] + 1, 2 * b[1] + 1
    out = []
    for y in range(min(a[1], b[1]), max(a[1], b[1]) + 1):
        for x in range(min(a[0], b[0]), max(a[0], b[0]) + 1):
            if [x, y] in (a, b):
                continue
            ix, iy = _interval(ax, bx - ax, 2 * x), _interval(ay, by - ay, 2 * y)
            if ix is None or iy is None:
                continue
            lo, hi = max(ix[0], iy[0], Fraction(0)), min(ix[1], iy[1], Fraction(1))
            if lo < hi:
                out.append([x, y])
    return out


def line_of_sight(state: dict, a: list, b: list) -> bool:
    """'Line of Sight (LOS): A clear straight or diagonal line. Blocked by Terrain Objects or
    other characters.' / 'Note: Corners do not block LOS.'"""
    if state["opts"]["los"] == "lines" and not is_line(a, b):
        return False
    return all(not is_terrain(state, sq) and unit_at(state, sq) is None for sq in crossed(a, b))


def in_range(state: dict, card: dict, source: list, target: list) -> bool:
    """Step 1's check: is `target` within the card's range from `source`?"""
    kind = card["range"]
    if kind == "self":  # 'Self: Only affects the caster.'
        return target == source
    if card.get("reach") is not None and distance(source, target) > card["reach"]:
        return False
    if kind == "melee":
        return in_melee(source, target)
    if kind == "los":
        return target != source and line_of_sight(state, source, target)
    return on_board(state, target)  # 'Perception Range: Any space on the battlefield; ignores distance and obstructions.'


def area(state: dict, centre: list, radius: int) -> list[list]:
    """The squares within `radius` (Chebyshev) of `centre`, on the board, in board order."""
    return [[x, y] for y in range(centre[1] - radius, centre[1] + radius + 1)
            for x in range(centre[0] - radius, centre[0] + radius + 1) if on_board(state, [x, y])]


KING = [(dx, dy) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if (dx, dy) != (0, 0)]


def blocked_squares(state: dict) -> set:
    """Squares holding terrain or a character, for membership tests only (never iterated)."""
    return {tuple(sq) for sq in state["map"]["terrain"]} | {tuple(u["pos"]) for u in state["units"].values()}


def reachable(state: dict, start: list, steps: int, blocked: set | None = None) -> list[list]:
    """Empty squares reachable in up to `steps` king moves through empty squares (a diagonal
    step between two blocked squares is allowed: corners do not block), board order."""
    w, h = state["map"]["width"], state["map"]["height"]
    if blocked is None:
        blocked = blocked_squares(state)
    seen, frontier = {tuple(start)}, [tuple(start)]
    for _ in range(steps):
        nxt = []
        for x, y in frontier:
            for dx, dy in KING:
                to = (x + dx, y + dy)
                if to not in seen and 0 <= to[0] < w and 0 <= to[1] < h and to not in blocked:
                    seen.add(to)
                    nxt.append(to)
        frontier = nxt
    seen.discard(tuple(start))
    return [[x, y] for y, x in sorted((sq[1], sq[0]) for sq in seen)]


def push(state: dict, uid: str, source: list, squares: int) -> list:
    """Move a character up to `squares` straight away from `source`; it stops before the
    board's edge, a terrain object or another character. Returns where it ends."""
    unit = state["units"][uid]
    dx = (unit["pos"][0] > source[0]) - (unit["pos"][0] < source[0])
    dy = (unit["pos"][1] > source[1]) - (unit["pos"][1] < source[1])
    for _ in range(squares):
        to = [unit["pos"][0] + dx, unit["pos"][1] + dy]
        if (dx, dy) == (0, 0) or not is_empty(state, to):
            break
        unit["pos"] = to
    return unit["pos"]
