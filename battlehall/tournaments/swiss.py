"""Swiss pairing of two-player tables: who plays whom in the next round.

The rules, most important first (each is given up only to keep every rule above it):
1. nobody meets an opponent twice, and nobody gets a second bye;
2. the bye (an odd field) goes to the lowest-ranked player;
3. players meet players of their own score: score gaps as small as can be (the sum of their
   squares, counted in score groups: one player floated two groups down costs more than
   two floated one group each), then the fewest pair-downs;
4. within a score group the top half meets the bottom half (1st against the middle).
The rules are weights of one additive cost, so a pairing is a minimum-cost perfect matching.
Fields of up to EXACT players are solved exactly (a dynamic programme). Larger fields
are paired window by window in standings order (WINDOW players each, exactly); the
players a window can only pair as rematches float down into the next window, and a last
pass swaps pairs anywhere in the field to undo any rematch left. So the cost stays linear
in the field, with no backtracking over all of it.
"""

from __future__ import annotations

from dataclasses import dataclass

EXACT = 12
WINDOW = 10
_REPAIRS = 64  # rematch repairs tried in the last pass before giving up on the rest


@dataclass(frozen=True, slots=True)
class Entrant:
    id: str
    points: float
    opponents: frozenset[str]
    had_bye: bool


@dataclass(frozen=True, slots=True)
class SwissPairing:
    pairs: tuple[tuple[str, str], ...]  # best-ranked pair first, each pair best-ranked first
    bye: str | None


class _Costs:
    """The cost of each possible pair (and of each player's bye) for a ranked field."""

    def __init__(self, ranked: list[Entrant]) -> None:
        n = len(ranked)
        self.ranked = ranked
        levels = sorted({e.points for e in ranked}, reverse=True)
        level_of = {p: i for i, p in enumerate(levels)}
        self.level = [level_of[e.points] for e in ranked]
        self.pos, self.size = [0] * n, [0] * n
        start = 0
        for i in range(1, n + 1):
            if i == n or self.level[i] != self.level[start]:
                for j in range(start, i):
                    self.pos[j], self.size[j] = j - start, i - start
                start = i
        # each weight outweighs the most that everything below it can add up to
        self.w_down = n * n + 1
        self.w_gap = self.w_down * (n + 1)
        self.w_bye = self.w_gap * (n ** 3 + 1)
        self.w_meet = self.w_bye * (n + 1)

    def pair(self, i: int, j: int) -> int:
        if i > j:
            i, j = j, i
        cost = self.w_meet if self.ranked[j].id in self.ranked[i].opponents else 0
        gap = abs(self.level[j] - self.level[i])
        if gap:
            return cost + self.w_down + gap * gap * self.w_gap
        return cost + abs(self.pos[j] - self.pos[i] - self.size[i] // 2)

    def bye(self, i: int) -> int:
        return (self.w_meet if self.ranked[i].had_bye else 0) + (len(self.ranked) - 1 - i) * self.w_bye

    def of(self, i: int, j: int) -> int:
        """Either a pair's cost, or a bye's (BYE is -1)."""
        if i == BYE:
            return self.bye(j)
        if j == BYE:
            return self.bye(i)
        return self.pair(i, j)

    def bad(self, i: int, j: int) -> bool:
        """A rematch, or a second bye."""
        return self.of(i, j) >= self.w_meet


BYE = -1


def _search(nodes: list[int], costs: _Costs) -> list[tuple[int, int]]:
    """The minimum-cost perfect matching of `nodes` (BYE among them for an odd field), exactly: a
    dynamic programme over the sets of nodes left, the lowest of which is always paired next."""
    m = len(nodes)
    c = [[costs.of(a, b) if a != b else 0 for b in nodes] for a in nodes]
    memo: dict[int, tuple[int, int]] = {0: (0, -1)}  # nodes left -> (least cost, partner of the lowest)

    def solve(left: int) -> int:
        known = memo.get(left)
        if known is not None:
            return known[0]
        u = (left & -left).bit_length() - 1
        rest = left ^ (1 << u)
        row, best, partner, r = c[u], -1, -1, rest
        while r:
            low = r & -r
            r ^= low
            v = low.bit_length() - 1
            total = row[v] + solve(rest ^ low)
            if partner < 0 or total < best:
                best, partner = total, v
        memo[left] = (best, partner)
        return best

    left = (1 << m) - 1
    solve(left)
    pairs = []
    while left:
        u = (left & -left).bit_length() - 1
        v = memo[left][1]
        pairs.append((nodes[u], nodes[v]))
        left ^= (1 << u) | (1 << v)
    return pairs


def _windows(n: int, costs: _Costs) -> list[tuple[int, int]]:
    pairs: list[tuple[int, int]] = []
    carry: list[int] = []
    nxt = 0
    while True:
        if len(carry) + n - nxt <= EXACT:
            nodes = carry + list(range(nxt, n)) + ([BYE] if (len(carry) + n - nxt) % 2 else [])
            return pairs + (_search(nodes, costs) if len(nodes) > 1 else [])
        take = WINDOW - len(carry)
        found = _search(carry + list(range(nxt, nxt + take)), costs)
        nxt += take
        floats = [p for p in found if costs.bad(*p)][: WINDOW // 4]
        pairs += [p for p in found if p not in floats]
        carry = sorted(i for p in floats for i in p)


def _repair(pairs: list[tuple[int, int]], costs: _Costs) -> list[tuple[int, int]]:
    """Swap partners between a rematch (or second bye) and another pair where that removes it."""
    for _ in range(_REPAIRS):
        bad = next((k for k, p in enumerate(pairs) if costs.bad(*p)), None)
        if bad is None:
            break
        a, b = pairs[bad]
        best: tuple[int, int, tuple[int, int], tuple[int, int]] | None = None
        for k, (x, y) in enumerate(pairs):
            if k == bad:
                continue
            for p, q in (((a, x), (b, y)), ((a, y), (b, x))):
                if BYE in p and BYE in q or costs.bad(*p) or costs.bad(*q):
                    continue
                delta = costs.of(*p) + costs.of(*q) - costs.of(a, b) - costs.of(x, y)
                if best is None or delta < best[0]:
                    best = (delta, k, p, q)
        if best is None:
            break
        _, k, p, q = best
        pairs[bad], pairs[k] = p, q
    return pairs


def pair_swiss(ranked: list[Entrant]) -> SwissPairing:
    """The next round's pairs of `ranked` (best first: points, then tie-breaks), and its bye."""
    n = len(ranked)
    if n < 2:
        return SwissPairing((), ranked[0].id if ranked else None)
    costs = _Costs(ranked)
    if n <= EXACT:
        found = _search(list(range(n)) + ([BYE] if n % 2 else []), costs)
    else:
        found = _repair(_windows(n, costs), costs)
    bye = next((a if b == BYE else b for a, b in found if BYE in (a, b)), None)
    pairs = sorted(tuple(sorted(p)) for p in found if BYE not in p)
    return SwissPairing(tuple((ranked[a].id, ranked[b].id) for a, b in pairs),
                        ranked[bye].id if bye is not None else None)
