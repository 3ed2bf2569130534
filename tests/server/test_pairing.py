"""Who quick play pairs with whom (pairing.py): pure, so checked without a server."""

from __future__ import annotations

from battlehall.server.players.pairing import BASE_WINDOW, WIDEN_PER_S, groups
from battlehall.server.players.player_rating import DEFAULT_RATING
from battlehall.server.players.queue import Entry

# The cases below are written in points of a window of 100 around 1500; `entry` puts them
# on the ratings' own scale (pairing's BASE_WINDOW around a new player's DEFAULT_RATING).
SCALE = BASE_WINDOW / 100


def on_scale(points: float) -> float:
    return DEFAULT_RATING + (points - 1500) * SCALE


def entry(ticket: str, points: float, joined: int = 0) -> Entry:
    return Entry(ticket, joined, on_scale(points), "p")


def tickets(formed) -> list[set[str]]:
    return [{e.ticket for e in g} for g in formed]


def test_players_of_similar_rating_are_paired_first():
    waiting = [entry("a", 1000, 0), entry("b", 1500, 1), entry("c", 1010, 2), entry("d", 1490, 3)]
    assert tickets(groups(waiting, 2, 10)) == [{"a", "c"}, {"b", "d"}]


def test_the_closest_of_those_within_the_window_is_chosen_not_the_first_to_join():
    waiting = [entry("a", 1500, 0), entry("b", 1580, 1), entry("c", 1505, 2)]
    assert tickets(groups(waiting, 2, 10)) == [{"a", "c"}]


def test_far_apart_players_wait_until_the_window_has_widened_enough():
    waiting = [entry("a", 1000, 0), entry("b", 1400, 0)]
    gap_s = (400 * SCALE - BASE_WINDOW) / WIDEN_PER_S
    assert groups(waiting, 2, int(gap_s * 1000) - 100) == []
    assert tickets(groups(waiting, 2, int(gap_s * 1000) + 100)) == [{"a", "b"}]


def test_nobody_waits_for_a_better_pairing_when_enough_players_are_within_the_window():
    waiting = [entry("a", 1500, 0), entry("b", 1590, 5)]
    assert tickets(groups(waiting, 2, 5)) == [{"a", "b"}]


def test_groups_of_more_seats_and_a_ticket_never_in_two():
    waiting = [entry(str(i), 1500 + (i % 7), i) for i in range(20)]
    formed = groups(waiting, 3, 100)
    assert len(formed) == 6 and all(len(g) == 3 for g in formed)
    seen = [e.ticket for g in formed for e in g]
    assert len(seen) == len(set(seen))


def test_a_thousand_waiting_players_are_all_grouped_once():
    waiting = [entry(f"t{i}", 1500 + (i * 37) % 400, i) for i in range(1000)]
    formed = groups(waiting, 2, 60_000)
    assert len(formed) == 500 and len({e.ticket for g in formed for e in g}) == 1000
