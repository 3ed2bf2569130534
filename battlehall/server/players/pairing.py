"""Who plays whom: groups of a pool's waiting tickets, by rating, widening with waiting time.

Pure: the same waiting list and time give the same groups.

A ticket that has waited `w` seconds accepts players within `window(w)` rating points of
its own rating: `BASE_WINDOW` at once, `WIDEN_PER_S` more each second. The oldest ticket
is served first: its group is the `seats - 1` tickets closest to its rating (earlier
joiners first among equals), and it is formed as soon as every member's rating lies
within the widest window of the group's members around the oldest's. So a group is
formed the moment the players needed are there within a window: nobody is held back for
a better pairing that may come later, and among those there the closest are chosen.
"""

from __future__ import annotations

from battlehall.server.players.player_rating import BASE_WINDOW, WIDEN_PER_S
from battlehall.server.players.queue import Entry


def window(entry: Entry, now: int) -> float:
    return BASE_WINDOW + WIDEN_PER_S * max(0, now - entry.joined) / 1000.0


def _closest(ordered: list[Entry], at: int, count: int) -> list[Entry]:
    """The `count` entries nearest in rating to `ordered[at]` (sorted by rating), nearest
    first, the earlier joiner first among equals."""
    anchor = ordered[at].rating
    lo, hi = at - 1, at + 1
    out: list[Entry] = []
    while len(out) < count and (lo >= 0 or hi < len(ordered)):
        # Nothing above: there is something below (the loop's condition).
        if hi >= len(ordered) or (lo >= 0 and (anchor - ordered[lo].rating, ordered[lo].joined)
                                  <= (ordered[hi].rating - anchor, ordered[hi].joined)):
            out.append(ordered[lo])
            lo -= 1
        else:
            out.append(ordered[hi])
            hi += 1
    return out


def groups(waiting: list[Entry], seats: int, now: int) -> list[list[Entry]]:
    """Disjoint groups of `seats` tickets to make into matches now, oldest anchor first."""
    by_age = sorted(waiting, key=lambda e: (e.joined, e.ticket))
    by_rating = sorted(waiting, key=lambda e: (e.rating, e.joined, e.ticket))
    taken: set[str] = set()
    out = []
    for anchor in by_age:
        if anchor.ticket in taken:
            continue
        if len(by_rating) < seats:
            break
        at = next(i for i, e in enumerate(by_rating) if e.ticket == anchor.ticket)
        closest = _closest(by_rating, at, seats - 1)
        reach = max(window(e, now) for e in (anchor, *closest))
        if len(closest) < seats - 1 or any(abs(e.rating - anchor.rating) > reach for e in closest):
            continue
        group = [anchor, *closest]
        out.append(group)
        taken.update(e.ticket for e in group)
        by_rating = [e for e in by_rating if e.ticket not in taken]
    return out
