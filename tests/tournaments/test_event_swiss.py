"""Swiss pairing: every rule against a brute force over every pairing of small fields."""

from __future__ import annotations

import random
import time

from event_kit import Event, seated
from hypothesis import given, settings
from hypothesis import strategies as st

from battlehall.tournaments.swiss import EXACT, Entrant, pair_swiss


def all_pairings(ids: list[str | None]):
    """Every perfect matching of `ids` (None is the bye)."""
    if not ids:
        yield []
        return
    first, rest = ids[0], ids[1:]
    for i, other in enumerate(rest):
        for tail in all_pairings(rest[:i] + rest[i + 1:]):
            yield [(first, other), *tail]


def grade(ranked: list[Entrant], pairs: list[tuple]) -> tuple[int, int, int, int]:
    """(rematches and second byes, the bye's distance from the bottom, the sum of the squared score
    gaps in score groups, pair-downs) of a pairing."""
    by_id = {e.id: e for e in ranked}
    index = {e.id: i for i, e in enumerate(ranked)}
    levels = sorted({e.points for e in ranked}, reverse=True)
    bad = bye_rank = gaps = downs = 0
    for a, b in pairs:
        if a is None or b is None:
            p = a if b is None else b
            bad += by_id[p].had_bye
            bye_rank = len(ranked) - 1 - index[p]
        else:
            bad += b in by_id[a].opponents
            downs += by_id[a].points != by_id[b].points
            gaps += (levels.index(by_id[a].points) - levels.index(by_id[b].points)) ** 2
    return bad, bye_rank, gaps, downs


@st.composite
def fields(draw, low: int = 2, high: int = EXACT):
    n = draw(st.integers(low, high))
    ids = [f"p{i}" for i in range(n)]
    points = sorted((draw(st.sampled_from([0, 1, 3, 4, 6, 9])) for _ in ids), reverse=True)
    met: dict[str, set[str]] = {p: set() for p in ids}
    density = draw(st.sampled_from([0.0, 0.2, 0.5, 0.9]))
    for i, a in enumerate(ids):
        for b in ids[i + 1:]:
            if draw(st.floats(0, 1)) < density:
                met[a].add(b)
                met[b].add(a)
    byes = [draw(st.booleans()) for _ in ids]
    return [Entrant(p, pts, frozenset(met[p]), bye) for p, pts, bye in zip(ids, points, byes)]


def ours(ranked: list[Entrant]) -> list[tuple]:
    pairing = pair_swiss(ranked)
    return list(pairing.pairs) + ([(pairing.bye, None)] if pairing.bye else [])


@settings(max_examples=150, deadline=None)
@given(fields())
def test_every_rule_is_as_good_as_the_best_pairing_there_is(ranked):
    got = ours(ranked)
    assert sorted(p for pair in got for p in pair if p) == sorted(e.id for e in ranked)
    ids: list[str | None] = [e.id for e in ranked] + ([None] if len(ranked) % 2 else [])
    grades = [grade(ranked, pairs) for pairs in all_pairings(ids)]
    bad, bye_rank, gaps, downs = grade(ranked, got)
    fewest_bad = min(g[0] for g in grades)
    assert bad == fewest_bad  # no rematch (or second bye) while one can be avoided
    lowest_bye = min(g[1] for g in grades if g[0] == fewest_bad)
    assert bye_rank == lowest_bye  # the bye to the lowest-ranked it can go to
    least_gaps = min(g[2] for g in grades if g[:2] == (fewest_bad, lowest_bye))
    assert gaps == least_gaps  # score groups respected: the smallest score gaps
    assert downs == min(g[3] for g in grades if g[:3] == (fewest_bad, lowest_bye, least_gaps))  # fewest pair-downs


@settings(max_examples=40, deadline=None)
@given(fields(EXACT + 1, 40))
def test_large_fields_pair_everyone_once_and_avoid_easy_rematches(ranked):
    got = ours(ranked)
    assert sorted(p for pair in got for p in pair if p) == sorted(e.id for e in ranked)
    by_id = {e.id: e for e in ranked}
    sparse = all(len(e.opponents) <= len(ranked) // 4 for e in ranked)
    if sparse:  # few meetings so far: a rematch-free pairing is easy, and must be found
        assert not any(b in by_id[a].opponents for a, b in got if a and b)
        bye = next((a for a, b in got if b is None), None)
        if bye is not None and not all(e.had_bye for e in ranked):
            assert not by_id[bye].had_bye  # a second bye only when everyone has had one


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=12))
def test_large_fields_float_only_the_players_an_odd_score_group_forces_down(groups):
    sizes = list(groups)
    if sum(sizes) % 2:
        sizes[-1] += 1  # an even field: no bye
    ranked = [Entrant(f"g{g}p{i}", float(100 - g), frozenset(), False) for g, size in enumerate(sizes)
              for i in range(size)]
    if len(ranked) <= EXACT:
        return
    pairing = pair_swiss(ranked)
    points = {e.id: e.points for e in ranked}
    downs = sum(points[a] != points[b] for a, b in pairing.pairs)
    odd_prefixes = sum(sum(sizes[: k + 1]) % 2 for k in range(len(sizes) - 1))
    assert downs == odd_prefixes  # one player down across each group boundary that parity forces
    assert all(abs(points[a] - points[b]) <= 1 for a, b in pairing.pairs)  # to the next group only


def test_round_one_pairs_the_top_half_with_the_bottom_half_by_rating():
    event = Event({"name": "x", "ruleset": "duel"})
    ids = event.register(8)
    event.apply({"k": "started", "at": 1})
    paired = event.t.pair_next()
    assert sorted(sorted(t["players"]) for t in paired["tables"]) == [sorted((ids[i], ids[i + 4])) for i in range(4)]


def test_a_swiss_of_64_played_to_the_end_pairs_by_the_rules_every_round():
    rng = random.Random(64)
    event = Event({"name": "x", "ruleset": "duel", "rounds": 8, "best_of": 3})
    event.register(64)
    event.apply({"k": "started", "at": 1})
    met: dict[str, set[str]] = {}
    for paired in event.play_out(rng, draws=0.05, drop_rate=0.01):
        players = seated(paired)
        assert len(players) == len(set(players))
        assert set(players) == {p for p in event.t.players if not _dropped_before(event, p, paired["round"])}
        for table in paired["tables"]:
            a, b = table["players"]
            assert b not in met.get(a, set())  # no rematch all event long
            met.setdefault(a, set()).add(b)
            met.setdefault(b, set()).add(a)
    assert event.t.finished and len(event.t.rounds) == 8
    standings = event.t.standings()
    assert [s.rank for s in standings] == list(range(1, 65))
    assert all(standings[i].points >= standings[i + 1].points for i in range(63))
    # the same log folded again gives the same standings
    again = Event(event.body)
    for entry in event.log:
        again.apply(entry)
    assert again.t.public() == event.t.public()


def _dropped_before(event: Event, player: str, round_number: int) -> bool:
    p = event.t.players[player]
    return p.dropped and p.dropped_after is not None and p.dropped_after < round_number


def test_byes_rotate_in_an_odd_field():
    event = Event({"name": "x", "ruleset": "duel", "rounds": 7})
    event.register(7)
    event.apply({"k": "started", "at": 1})
    byes = [p for paired in event.play_out(random.Random(3)) for p in paired["byes"]]
    assert len(byes) == 7 and len(set(byes)) == 7


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 15), st.integers(0, 2**32))
def test_byes_rotate_nobody_gets_a_second_while_someone_has_had_none(half, salt):
    # Up to (n+1)/2 rounds, whoever takes the bye, the others can always be paired without a
    # rematch (each has met too few for Dirac's theorem to fail), so a second bye is never forced.
    n, rounds = 2 * half + 1, min(half + 1, 8)
    event = Event({"name": "x", "ruleset": "duel", "rounds": rounds}, seed=str(salt))
    event.register(n)
    event.apply({"k": "started", "at": 1})
    byes = [p for paired in event.play_out(random.Random(salt), draws=0.1) for p in paired["byes"]]
    assert len(byes) == rounds and len(set(byes)) == len(byes)


def test_the_same_log_and_seed_give_the_same_pairings_and_another_seed_others():
    def play(seed: str) -> list[dict]:
        event = Event({"name": "x", "ruleset": "duel", "rounds": 5, "tiebreaks": ["random"]}, seed=seed)
        event.register(32, ratings=False)
        event.apply({"k": "started", "at": 1})
        return event.play_out(random.Random(9))

    assert play("a") == play("a")
    assert play("a") != play("b")


def test_pairing_1024_players_takes_well_under_a_second():
    rng = random.Random(1024)
    ids = [f"p{i}" for i in range(1024)]
    points = {p: 0 for p in ids}
    met: dict[str, set[str]] = {p: set() for p in ids}
    for _ in range(6):
        ranked = sorted(ids, key=lambda p: -points[p])
        pairing = pair_swiss([Entrant(p, points[p], frozenset(met[p]), False) for p in ranked])
        for a, b in pairing.pairs:
            met[a].add(b)
            met[b].add(a)
            points[rng.choice((a, b))] += 3
    ranked = sorted(ids, key=lambda p: -points[p])
    start = time.perf_counter()
    pairing = pair_swiss([Entrant(p, points[p], frozenset(met[p]), False) for p in ranked])
    assert time.perf_counter() - start < 1.0
    assert not any(b in met[a] for a, b in pairing.pairs)
