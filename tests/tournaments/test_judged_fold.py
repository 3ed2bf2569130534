"""The judges' entries in the fold of an event's log (battlehall/tournaments/judged.py):
a ruled game must be entered as ruled, a voided game is replayed and never entered, a
rewound match is never entered, a replacement takes its player's place and record when
the round in play ends; each refusal with its code, changing nothing, and verify_log
re-running all of it."""

from __future__ import annotations

import copy

import pytest
from event_kit import Event, game_entry

from battlehall.tournaments import TournamentError, verify_log, views


def refused(event: Event, entry: dict, code: str) -> None:
    before = copy.deepcopy(views.public(event.t))
    with pytest.raises(TournamentError) as caught:
        event.t.apply(entry)
    assert caught.value.code == code
    assert views.public(event.t) == before


def judged(action: str, call=None, **more) -> dict:
    place = {"round": call.round, "table": call.table, "game": call.game} if call else {}
    return {"k": "judged", "action": action, **place, "judge": "jo", "reason": "why", "at": 5, **more}


def running(players: int = 4, **spec) -> Event:
    event = Event({"name": "x", "ruleset": "duel", "rounds": 2, **spec})
    event.register(players)
    event.apply({"k": "started", "at": 1})
    event.apply(event.t.pair_next(2))
    return event


def test_a_ruled_game_is_entered_as_ruled_and_only_for_a_seat_of_it():
    event = running()
    call = event.t.games_to_create()[0]
    loser, winner = call.seats
    refused(event, judged("game_loss", call, match="m1", player="p_nobody"), "bad_entry")
    refused(event, judged("game_loss", call, match="m1", player=loser, reason=None), "bad_entry")  # a reason, always
    refused(event, {**judged("game_loss", call, match="m1", player=loser), "game": 2}, "bad_entry")  # not in play
    event.apply(judged("game_loss", call, match="m1", player=loser))
    refused(event, judged("game_win", call, match="m1", player=winner), "bad_entry")  # ruled once
    refused(event, {**game_entry(call, [[loser], [winner]]), "match": "m1"}, "bad_entry")
    event.apply({**game_entry(call, [[winner], [loser]]), "match": "m1"})
    assert event.t.public()["judged"][0]["player"] == loser


def test_a_voided_game_is_replayed_at_its_table_and_never_entered():
    event = running()
    call = event.t.games_to_create()[0]
    event.apply(judged("void", call, match="m-void"))
    again = event.t.games_to_create()[0]
    assert (again.table, again.game, again.seats, again.replay) == (call.table, call.game, call.seats, 1)
    refused(event, {**game_entry(call, [[call.seats[0]], [call.seats[1]]]), "match": "m-void"}, "bad_entry")
    refused(event, judged("void", call, match="m-void"), "bad_entry")  # ended already
    event.apply({**game_entry(call, [[call.seats[0]], [call.seats[1]]]), "match": "m-replay"})
    assert event.t.rounds[0].tables[0].replays == 0


def test_a_rewound_match_is_never_entered_the_match_that_went_on_is():
    event = running()
    call = event.t.games_to_create()[0]
    event.apply(judged("rewind", call, match="m-old", rewound_to="m-new"))
    refused(event, {**game_entry(call, [[call.seats[0]], [call.seats[1]]]), "match": "m-old"}, "bad_entry")
    event.apply({**game_entry(call, [[call.seats[0]], [call.seats[1]]]), "match": "m-new"})


def test_a_replacement_waits_for_the_round_in_play_and_then_takes_the_place_and_record():
    event = running()
    calls = event.t.games_to_create()
    gone = calls[0].seats[0]
    refused(event, judged("replace", player="p_nobody", replacement="z"), "not_registered")
    refused(event, judged("replace", player=gone, replacement=calls[1].seats[0]), "already_registered")
    event.apply(judged("replace", player=gone, replacement="z", name="Zed"))
    refused(event, judged("replace", player=calls[1].seats[0], replacement="z"), "already_registered")
    assert gone in event.t.players and event.t.public()["replacing"][0]["replacement"] == "z"
    for call in calls:  # the first seat wins every table: the replaced player among them
        event.apply(game_entry(call, [[call.seats[0]], [call.seats[1]]]))
    event.apply({"k": "round_ended", "round": 1, "at": 9})
    assert gone not in event.t.players and event.t.players["z"].name == "Zed"
    standing = next(s for s in event.t.standings() if s.player == "z")
    assert standing.points == 3
    assert "z" in event.t.rounds[0].tables[0].players
    event.apply(event.t.pair_next(10))
    assert any("z" in t.players for t in event.t.rounds[1].tables)
    for call in event.t.games_to_create():
        event.apply(game_entry(call, [[call.seats[0]], [call.seats[1]]]))
    event.apply({"k": "round_ended", "round": 2, "at": 11})
    event.apply({"k": "finished", "at": 12})
    refused(event, judged("replace", player="z", replacement="y"), "not_running")
    assert verify_log(event.body, "seed-1", event.log) == []


def test_verify_log_finds_a_voided_game_entered():
    event = running()
    call = event.t.games_to_create()[0]
    event.apply(judged("void", call, match="m-void"))
    log = [*event.log, {**game_entry(call, [[call.seats[0]], [call.seats[1]]]), "match": "m-void"}]
    problems = verify_log(event.body, "seed-1", log)
    assert problems and "voided" in problems[0]
