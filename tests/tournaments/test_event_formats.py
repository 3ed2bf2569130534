"""Every format, with drops: each active player at one table or a bye per round, never a dropped one."""

from __future__ import annotations

import random

import pytest
from event_kit import DUEL, SPELLFIRE, Event, seated
from hypothesis import given, settings
from hypothesis import strategies as st

from battlehall.tournaments import ledger, verify_log

FORMATS = [
    ({"format": "swiss", "best_of": 3}, DUEL),
    ({"format": "swiss", "cut": 4}, DUEL),
    ({"format": "swiss", "table_size": 4, "ruleset": "spellfire"}, SPELLFIRE),
    ({"format": "round_robin"}, DUEL),
    ({"format": "single_elimination", "best_of": 3}, DUEL),
    ({"format": "double_elimination"}, DUEL),
]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(FORMATS), st.integers(3, 20), st.integers(0, 2**32), st.sampled_from([0.0, 0.05, 0.2]))
def test_each_round_places_every_active_player_once(fmt, n, salt, drop_rate):
    body, seats = fmt
    body = {"name": "x", "ruleset": "duel", **body}
    event = Event(body, seats=seats, seed=str(salt))
    event.register(n)
    event.apply({"k": "started", "at": 1})
    event.play_out(random.Random(salt), draws=0.1, drop_rate=drop_rate)
    dropped: set[str] = set()
    for entry in event.log:  # what each round was paired with: the drops before it
        if entry["k"] == "dropped":
            dropped.add(entry["player"])
        if entry["k"] != "paired":
            continue
        players = seated(entry)
        assert len(players) == len(set(players))
        assert not set(players) & dropped
        if entry["stage"] in ("swiss", "round_robin"):  # every active player is placed
            assert set(players) == set(event.t.players) - dropped
    assert event.t.finished
    # the records kept round by round are the ones a fold from scratch gives
    assert event.t.records() == ledger.records(event.t.spec, list(event.t.players), event.t.rounds)
    assert verify_log(body, str(salt), event.log, seats=seats, shown_standings=event.t.public()["standings"]) == []


@pytest.mark.parametrize(("body", "seats"), FORMATS)
def test_the_public_view_of_a_finished_event_has_standings_and_brackets(body, seats):
    event = Event({"name": "x", "ruleset": "duel", **body}, seats=seats)
    event.register(9)
    event.apply({"k": "started", "at": 1})
    event.play_out(random.Random(4))
    shown = event.t.public()
    assert shown["phase"] == "finished" and len(shown["standings"]) == 9
    assert [s["rank"] for s in shown["standings"]] == list(range(1, 10))
    if "elimination" in body["format"] or body.get("cut"):
        assert shown["bracket"] and shown["bracket"][-1]["matches"][0]["winner"] == shown["standings"][0]["player"]
    else:
        assert shown["bracket"] == []
