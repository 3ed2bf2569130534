"""Elimination brackets (single and double, 5..16 players), round robin and the top cut."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest
from event_kit import Event, seated

from battlehall.tournaments.elimination import slot_seeds
from battlehall.tournaments.round_robin import pairs


def test_seeds_are_laid_out_one_against_n_and_the_top_two_only_meet_in_the_final():
    assert slot_seeds(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    for size in (2, 4, 8, 16, 32):
        order = slot_seeds(size)
        assert all(a + b == size + 1 for a, b in zip(order[::2], order[1::2]))
        assert order.index(2) >= size // 2 > order.index(1)


@pytest.mark.parametrize("n", range(5, 17))
def test_single_elimination_byes_go_to_the_top_seeds_and_one_champion_is_left(n):
    event = Event({"name": "x", "ruleset": "duel", "format": "single_elimination", "best_of": 3})
    ids = event.register(n)  # ratings fall with the index: ids[0] is seed 1
    event.apply({"k": "started", "at": 1})
    rng = random.Random(n)
    first = event.play_round(rng)
    size = 1 << (n - 1).bit_length()
    assert sorted(first["byes"]) == sorted(ids[: size - n])
    assert first["seeds"] == ids
    rounds = [first, *event.play_out(rng)]
    assert len(rounds) == (n - 1).bit_length()
    assert rounds[-1]["tables"] and len(rounds[-1]["tables"]) == 1
    bracket = event.t.bracket()
    champion = bracket[-1].matches[0].winner
    assert champion is not None and event.t.standings()[0].player == champion
    # every player but the champion lost exactly one table, and nobody played after losing
    losers = Counter(p for r in bracket for m in r.matches if m.winner and m.table
                     for p in m.players if p != m.winner)
    assert set(losers) == set(ids) - {champion} and set(losers.values()) == {1}
    assert event.t.standings()[1].player == next(p for p in bracket[-1].matches[0].players if p != champion)


@pytest.mark.parametrize("n", range(5, 17))
def test_double_elimination_puts_a_player_out_after_two_lost_tables(n):
    event = Event({"name": "x", "ruleset": "duel", "format": "double_elimination"})
    ids = event.register(n)
    event.apply({"k": "started", "at": 1})
    rounds = event.play_out(random.Random(n))
    assert rounds[-1]["stage"] == "final" and len(rounds[-1]["tables"]) == 1
    lost: Counter = Counter()
    for paired in rounds:
        for p in seated(paired):
            assert lost[p] < 2  # out players are never paired again
        rnd = event.t.rounds[paired["round"] - 1]
        for table in rnd.tables:
            lost[table.games[0].places[1][0]] += 1
    champion = event.t.standings()[0].player
    assert lost[champion] <= 1
    # the grand final has no reset: if the winners' bracket winner loses it, both finalists lost once
    assert sum(lost[p] >= 2 for p in ids) == (n - 1 if lost[champion] == 0 else n - 2)


@pytest.mark.parametrize("n", [2, 3, 6, 7, 10])
def test_round_robin_meets_everyone_once(n):
    seeds = [f"p{i}" for i in range(n)]
    met = [frozenset(p) for r in range(1, (n - 1 if n % 2 == 0 else n) + 1) for p in pairs(seeds, r) if None not in p]
    assert sorted(met, key=sorted) == sorted((frozenset(c) for c in itertools.combinations(seeds, 2)), key=sorted)


def test_a_round_robin_event_gives_each_player_of_an_odd_field_one_bye():
    event = Event({"name": "x", "ruleset": "duel", "format": "round_robin"})
    event.register(5)
    event.apply({"k": "started", "at": 1})
    rounds = event.play_out(random.Random(5))
    assert len(rounds) == 5
    assert sorted(p for r in rounds for p in r["byes"]) == sorted(event.t.players)


def test_a_swiss_with_a_top_8_cut_seeds_the_cut_by_the_swiss_standings():
    event = Event({"name": "x", "ruleset": "duel", "rounds": 4, "cut": 8})
    event.register(20)
    event.apply({"k": "started", "at": 1})
    rng = random.Random(8)
    for _ in range(4):
        event.play_round(rng)
    top8 = [s.player for s in event.t.standings()[:8]]
    cut = event.play_round(rng)
    assert cut["stage"] == "elimination" and cut["seeds"] == top8
    assert {frozenset(t["players"]) for t in cut["tables"]} == {frozenset((top8[i], top8[7 - i])) for i in range(4)}
    rest = event.play_out(rng)
    assert [r["stage"] for r in rest] == ["elimination", "elimination"]
    assert event.t.standings()[0].player == event.t.bracket()[-1].matches[0].winner


def test_a_dropped_player_in_a_bracket_gives_a_walkover():
    event = Event({"name": "x", "ruleset": "duel", "format": "single_elimination"})
    ids = event.register(8)
    event.apply({"k": "started", "at": 1})
    rng = random.Random(1)
    first = event.play_round(rng)
    winners = [m.winner for m in event.t.bracket()[0].matches]
    event.apply({"k": "dropped", "player": winners[0], "at": 5})
    second = event.play_round(rng)
    assert winners[1] in second["byes"] and winners[0] not in seated(second)
    assert len(first["tables"]) == 4 and set(ids) == set(first["seeds"])


@pytest.mark.parametrize("salt", range(12))
def test_double_elimination_with_drops_never_pairs_a_player_out_twice_beaten(salt):
    rng = random.Random(salt)
    event = Event({"name": "x", "ruleset": "duel", "format": "double_elimination"})
    event.register(rng.randint(5, 16))
    event.apply({"k": "started", "at": 1})
    lost: Counter = Counter()
    while (paired := event.play_round(rng)) is not None:
        for p in seated(paired):
            assert lost[p] < 2
        for table in event.t.rounds[-1].tables:
            lost[table.games[0].places[1][0]] += 1
        for p in sorted(event.t.active()):
            if rng.random() < 0.1 and len(event.t.active()) > 2:
                event.apply({"k": "dropped", "player": p, "at": 3})
    event.apply({"k": "finished", "at": 4})
    champion = event.t.standings()[0].player
    assert lost[champion] <= 1 and event.t.bracket()[-1].stage == "final"
