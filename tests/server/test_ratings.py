"""The rating update of ratings.py (OpenSkill's Plackett-Luce): places from a result's
ranking, ties, and allies who won together as one team."""

from __future__ import annotations

from battlehall.engine.ruleset import make_result
from battlehall.server.players.ratings import Rating, rate, rated, teams_of

FRESH = Rating.of(None)


def fresh(*seats):
    return {s: FRESH for s in seats}


def test_a_duel_moves_the_winner_up_and_the_loser_down_by_the_same_amount():
    after = rate(make_result("fell", [["alice"], ["bob"]]), fresh("alice", "bob"))
    assert after["alice"].mu > 25 > after["bob"].mu
    assert abs((after["alice"].mu - 25) - (25 - after["bob"].mu)) < 1e-9
    assert after["alice"].sigma < FRESH.sigma and after["alice"].matches == 1
    assert after["alice"].shown > 0 > after["bob"].shown or after["alice"].shown > after["bob"].shown


def test_four_seats_free_for_all_are_ordered_by_place():
    after = rate(make_result("realms", [["a"], ["b"], ["c"], ["d"]]), fresh("a", "b", "c", "d"))
    mus = [after[s].mu for s in "abcd"]
    assert mus == sorted(mus, reverse=True) and len(set(mus)) == 4


def test_seats_tied_in_one_place_move_alike():
    after = rate(make_result("realms", [["a"], ["b", "c"], ["d"]]), fresh("a", "b", "c", "d"))
    assert after["b"] == after["c"]
    assert after["a"].mu > after["b"].mu > after["d"].mu


def test_a_drawn_duel_leaves_equal_players_equal():
    result = make_result("draw", [["alice", "bob"]])
    assert result["draw"] and teams_of(result) == ([["alice"], ["bob"]], [1, 1])
    after = rate(result, fresh("alice", "bob"))
    assert after["alice"] == after["bob"] and abs(after["alice"].mu - 25) < 1e-9


def test_allies_who_won_together_are_one_team():
    result = make_result("alliance", [["a", "b"], ["c", "d"]], winners=["a", "b"])
    assert teams_of(result) == ([["a", "b"], ["c"], ["d"]], [1, 2, 2])
    after = rate(result, fresh("a", "b", "c", "d"))
    assert after["a"] == after["b"] and after["c"] == after["d"]
    assert after["a"].mu > 25 > after["c"].mu
    # A team is stronger than one seat: its win was expected, so it gains less than a lone winner.
    lone = rate(make_result("realms", [["a"], ["c", "d"]]), fresh("a", "c", "d"))
    assert after["a"].mu - 25 < lone["a"].mu - 25


def test_a_stronger_player_gains_less_for_beating_a_weaker_one():
    strong, weak = Rating(35.0, 4.0, 20), Rating(20.0, 4.0, 20)
    expected = rate(make_result("fell", [["s"], ["w"]]), {"s": strong, "w": weak})
    upset = rate(make_result("fell", [["w"], ["s"]]), {"s": strong, "w": weak})
    assert 0 < expected["s"].mu - strong.mu < upset["w"].mu - weak.mu


def test_aborted_abandoned_and_unrated_matches_are_not_rated():
    meta = {"rated": True, "seats": ["a", "b"]}
    assert rated(meta, make_result("fell", [["a"], ["b"]]))
    for reason in ("aborted", "abandoned"):
        assert not rated(meta, make_result(reason, [["a", "b"]], winners=[]))
    assert not rated({"seats": ["a", "b"]}, make_result("fell", [["a"], ["b"]]))
