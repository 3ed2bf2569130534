"""A judge's ruling as a log entry (battlehall/engine/rulings.py): the match ends at once
with the ruling's result, for every ruleset; a bad ruling changes nothing."""

from __future__ import annotations

import copy

import pytest

from battlehall.engine import get_ruleset, ruleset_names
from battlehall.engine.errors import BadSeat, MatchOver
from battlehall.engine.ruleset import apply_entry

SEATS = ["ann", "bo", "cy"]


def started(name: str) -> tuple:
    rules = get_ruleset(name)
    seats = SEATS[:max(rules.min_seats, min(3, rules.max_seats))]
    state, _ = rules.start(seats, 7, {})
    return rules, state, seats


def ruling(kind: str, seat: str | None = None) -> dict:
    entry = {"at": 1, "abort": True, "reason": "judge_void" if kind == "void" else "judge_ruling", "ruling": kind,
             "by": "jo", "note": "why"}
    return {**entry, "seat": seat} if seat else entry


@pytest.mark.parametrize("name", ruleset_names())
def test_a_game_loss_a_win_and_a_void_end_the_match_with_the_ruling_s_result(name):
    rules, state, seats = started(name)
    loss = copy.deepcopy(state)
    events = apply_entry(rules, loss, ruling("game_loss", seats[0]))
    assert events[-1]["kind"] == "match_ended" and not rules.prompts(loss)
    assert loss["result"]["ranking"] == [seats[1:], [seats[0]]] and loss["result"]["winners"] == seats[1:]
    assert loss["result"]["ruling"] == {"ruling": "game_loss", "seat": seats[0], "by": "jo", "note": "why"}
    win = copy.deepcopy(state)
    apply_entry(rules, win, ruling("game_win", seats[1]))
    assert win["result"]["ranking"][0] == [seats[1]] and win["result"]["winner"] == seats[1]
    void = copy.deepcopy(state)
    apply_entry(rules, void, ruling("void"))
    assert void["result"]["reason"] == "judge_void" and void["result"]["winners"] == [] and not void["result"]["draw"]
    with pytest.raises(MatchOver):
        apply_entry(rules, void, ruling("game_win", seats[0]))


def test_a_ruling_for_no_seat_of_the_match_changes_nothing():
    rules, state, seats = started("duel")
    before = copy.deepcopy(state)
    for entry in (ruling("game_loss", "zed"), ruling("game_loss"), {**ruling("void"), "seat": seats[0]},
                  {**ruling("game_loss", seats[0]), "ruling": "forfeit"}):
        with pytest.raises(BadSeat):
            apply_entry(rules, state, entry)
        assert state == before
