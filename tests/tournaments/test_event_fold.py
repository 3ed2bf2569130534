"""The fold of an event's log: each refusal has its code and changes nothing."""

from __future__ import annotations

import copy
import random

import pytest
from event_kit import Event, game_entry

from battlehall.tournaments import TournamentError, views


def refused(event: Event, entry: dict, code: str) -> None:
    before = copy.deepcopy(views.public(event.t))  # computed afresh (public() keeps its last answer)
    with pytest.raises(TournamentError) as caught:
        event.t.apply(entry)
    assert caught.value.code == code
    assert views.public(event.t) == before


def test_registration_refusals():
    event = Event({"name": "x", "ruleset": "duel", "max_players": 3})
    event.register(3)
    refused(event, {"k": "registered", "player": "p0000", "name": "again", "rating": 1, "at": 5}, "already_registered")
    refused(event, {"k": "registered", "player": "new", "name": "new", "rating": 1, "at": 5}, "tournament_full")
    refused(event, {"k": "dropped", "player": "nobody", "at": 5}, "not_registered")
    refused(event, {"k": "checked_in", "player": "p0000", "at": 5}, "check_in_closed")  # no check-in
    event.apply({"k": "dropped", "player": "p0002", "at": 6})
    refused(event, {"k": "dropped", "player": "p0002", "at": 7}, "already_dropped")
    event.apply({"k": "started", "at": 10})
    refused(event, {"k": "started", "at": 11}, "already_started")
    refused(event, {"k": "registered", "player": "late", "name": "late", "rating": 1, "at": 12}, "registration_closed")
    event.apply({"k": "cancelled", "at": 13})
    refused(event, {"k": "dropped", "player": "p0000", "at": 14}, "not_running")


def test_check_in_window_and_who_is_dropped_at_the_start():
    event = Event({"name": "x", "ruleset": "duel", "check_in_ms": 600_000, "start_at": 1_000_000})
    event.register(3)
    refused(event, {"k": "checked_in", "player": "p0000", "at": 399_999}, "check_in_closed")
    event.apply({"k": "checked_in", "player": "p0000", "at": 400_000})
    refused(event, {"k": "started", "at": 1_000_000}, "not_enough_players")
    event.apply({"k": "checked_in", "player": "p0001", "at": 999_999})
    event.apply({"k": "started", "at": 1_000_000})
    assert event.t.players["p0002"].dropped and event.t.active() == {"p0000", "p0001"}


def test_results_are_entered_once_per_game_and_rounds_only_when_over():
    event = Event({"name": "x", "ruleset": "duel", "best_of": 3})
    event.register(4)
    event.apply({"k": "started", "at": 1})
    paired = event.t.pair_next()
    event.apply(paired)
    refused(event, {**paired, "round": 3}, "bad_entry")
    refused(event, {**paired, "round": 2}, "round_not_over")
    call = event.t.games_to_create()[0]
    first = game_entry(call, [[call.seats[0]], [call.seats[1]]])
    event.apply(first)
    refused(event, first, "bad_entry")  # the same game twice
    nxt = event.t.games_to_create()[0]
    assert nxt.game == 2 and nxt.seats == call.seats[::-1]  # the seats rotate
    refused(event, {**game_entry(nxt, [[nxt.seats[0]], [nxt.seats[1]]]), "seats": list(call.seats)}, "bad_entry")
    with pytest.raises(TournamentError) as caught:
        event.t.pair_next()
    assert caught.value.code == "round_not_over"
    refused(event, {"k": "paired", "round": 2, "stage": "swiss", "tables": [], "byes": []}, "round_not_over")


def test_a_round_clock_ends_undecided_tables_as_the_spec_says():
    event = Event({"name": "x", "ruleset": "duel", "best_of": 3, "unfinished": "tiebreak"})
    event.register(2)
    event.apply({"k": "started", "at": 1})
    event.apply(event.t.pair_next())
    call = event.t.games_to_create()[0]
    event.apply(game_entry(call, [[call.seats[0]], [call.seats[1]]]))
    unfinished = event.t.unfinished_result(1, 1, match="m2", ranking=None)
    assert unfinished["draw"] is True and unfinished["game"] == 2
    ranked = event.t.unfinished_result(1, 1, match="m2", ranking=[[call.seats[1]], [call.seats[0]]])
    assert ranked["places"] == [[call.seats[1]], [call.seats[0]]]
    event.apply(unfinished)
    assert not event.t.table_done(1, 1)
    event.apply({"k": "round_ended", "round": 1, "at": 5})
    assert event.t.table_done(1, 1) and event.t.games_to_create() == []
    top = event.t.standings()[0]
    assert top.player == call.seats[0] and top.match == (1, 0, 0) and top.games == (1, 0, 1)
    assert event.t.complete and event.t.pair_next() is None


def test_late_entry_joins_the_next_round_dropped_players_are_never_paired():
    event = Event({"name": "x", "ruleset": "duel", "rounds": 3, "late_entry_rounds": 1})
    event.register(6)
    event.apply({"k": "started", "at": 1})
    rng = random.Random(2)
    event.play_round(rng)
    event.apply({"k": "registered", "player": "late", "name": "Late", "rating": 1, "at": 5})
    event.apply({"k": "dropped", "player": "p0000", "at": 6})
    second = event.play_round(rng)
    everyone = [p for t in second["tables"] for p in t["players"]] + second["byes"]
    assert "late" in everyone and "p0000" not in everyone and len(everyone) == 6
    refused(event, {"k": "registered", "player": "later", "name": "L", "rating": 1, "at": 7}, "registration_closed")
    standings = event.t.standings()
    assert {s.player for s in standings if s.dropped} == {"p0000"}
