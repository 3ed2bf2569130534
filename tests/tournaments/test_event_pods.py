"""Pods: balanced tables within the seats, byes only when no split seats everyone, by standing."""

from __future__ import annotations

import random

from event_kit import SPELLFIRE, Event, seated
from hypothesis import given
from hypothesis import strategies as st

from battlehall.tournaments.best_of import place_shares
from battlehall.tournaments.pods import pair_pods, sizes


@given(st.integers(1, 80), st.sampled_from([(3, 6, 4), (3, 4, 4), (3, 4, 3), (3, 6, 6), (4, 6, 5)]))
def test_tables_are_balanced_within_the_seats_and_byes_as_few_as_can_be(n, seats):
    lo, hi, target = seats
    ranked = [f"p{i}" for i in range(n)]
    pods = pair_pods(ranked, set(), target, lo, hi)
    table_sizes = [len(t) for t in pods.tables]
    assert all(lo <= s <= hi for s in table_sizes)
    assert not table_sizes or max(table_sizes) - min(table_sizes) <= 1
    assert sorted([p for t in pods.tables for p in t] + list(pods.byes)) == sorted(ranked)
    # no smaller number of byes would seat the rest
    assert all(sizes(n - b, target, lo, hi) is None for b in range(len(pods.byes)) if n - b > 0)
    # the byes are the lowest-ranked; the tables follow the standings
    assert list(pods.byes) == ranked[n - len(pods.byes):]
    assert [p for t in pods.tables for p in t] == ranked[:n - len(pods.byes)]


def test_byes_go_to_the_lowest_ranked_without_one():
    ranked = [f"p{i}" for i in range(5)]  # 5 cannot sit at tables of 3 or 4
    pods = pair_pods(ranked, {"p4"}, 4, 3, 4)
    assert pods.byes == ("p3",) and pods.tables == (("p0", "p1", "p2", "p4"),)


def test_shared_places_share_the_points_of_the_places_they_span():
    assert place_shares([["a", "b"], ["c"], ["d"]], (3, 1, 0, 0)) == {"a": 2, "b": 2, "c": 0, "d": 0}
    assert place_shares([["a", "b", "c", "d"]], (3, 1, 0, 0)) == dict.fromkeys("abcd", 1)


def test_a_12_player_spellfire_pod_event_seats_everyone_each_round_and_has_a_winner():
    event = Event({"name": "x", "ruleset": "spellfire", "table_size": 4, "best_of": 3}, seats=SPELLFIRE)
    event.register(12)
    event.apply({"k": "started", "at": 1})
    rounds = event.play_out(random.Random(12), draws=0.1)
    assert len(rounds) == 2  # 4^2 >= 12
    for paired in rounds:
        assert sorted(seated(paired)) == sorted(event.t.players)
        assert [len(t["players"]) for t in paired["tables"]] == [4, 4, 4]
    top = event.t.standings()[0]
    assert top.points == max(s.points for s in event.t.standings()) and top.rank == 1
    # round 2's tables follow round 1's standings: the top table holds the best four after round 1
    after_one = Event(event.body, seats=SPELLFIRE)
    for entry in event.log[: event.log.index(rounds[1])]:
        after_one.apply(entry)
    points = {s.player: s.points for s in after_one.t.standings()}
    best_four = sorted(s.points for s in after_one.t.standings()[:4])
    assert sorted(points[p] for p in rounds[1]["tables"][0]["players"]) == best_four


def test_thirteen_players_at_tables_of_four_sit_five_four_four():
    event = Event({"name": "x", "ruleset": "spellfire", "table_size": 4}, seats=SPELLFIRE)
    event.register(13)
    event.apply({"k": "started", "at": 1})
    paired = event.t.pair_next()
    assert [len(t["players"]) for t in paired["tables"]] == [5, 4, 4] and paired["byes"] == []


@given(st.integers(6, 40), st.integers(0, 2**32))
def test_equal_points_players_swap_tables_to_meet_fewer_players_again(n, salt):
    rng = random.Random(salt)
    ranked = [f"p{i}" for i in range(n)]
    points = {p: float(3 * (i * 3 // n)) for i, p in enumerate(reversed(ranked))}
    ranked.sort(key=lambda p: -points[p])
    met: dict[str, set[str]] = {p: set() for p in ranked}
    for _ in range(n):
        a, b = rng.sample(ranked, 2)
        met[a].add(b)
        met[b].add(a)
    plain = pair_pods(ranked, set(), 4, 3, 6)
    mixed = pair_pods(ranked, set(), 4, 3, 6, points, met)

    def repeats(tables):
        return sum(1 for t in tables for i, a in enumerate(t) for b in t[i + 1:] if b in met[a])

    assert repeats(mixed.tables) <= repeats(plain.tables)
    assert [len(t) for t in mixed.tables] == [len(t) for t in plain.tables] and mixed.byes == plain.byes
    # a swap never moves a player to a table of other points than the standings gave it
    assert [sorted(points[p] for p in t) for t in mixed.tables] == [sorted(points[p] for p in t) for t in plain.tables]
