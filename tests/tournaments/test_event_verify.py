"""verify_log: a clean log checks out; a tampered pairing or a double result does not."""

from __future__ import annotations

import copy
import random

from event_kit import Event

from battlehall.tournaments import verify_log


def played(body: dict, n: int) -> Event:
    event = Event(body)
    event.register(n)
    event.apply({"k": "started", "at": 1})
    event.play_out(random.Random(n), draws=0.1)
    return event


def test_a_clean_log_checks_out_with_its_standings():
    for body in ({"name": "x", "ruleset": "duel", "cut": 4, "tiebreaks": ["random", "omw"]},
                 {"name": "x", "ruleset": "duel", "format": "double_elimination", "best_of": 3}):
        event = played(body, 11)
        shown = event.t.public()["standings"]
        assert verify_log(body, "seed-1", event.log, shown_standings=shown) == []
        assert verify_log(body, "another seed", event.log) != []  # the seed decides the pairings


def test_a_tampered_pairing_is_found():
    body = {"name": "x", "ruleset": "duel"}
    event = played(body, 8)
    log = copy.deepcopy(event.log)
    second = [e for e in log if e["k"] == "paired"][1]
    a, b = second["tables"][0]["players"][0], second["tables"][1]["players"][0]
    second["tables"][0]["players"][0], second["tables"][1]["players"][0] = b, a
    problems = verify_log(body, "seed-1", log)
    assert any("round 2's pairing" in p for p in problems)


def test_a_result_entered_twice_is_found():
    body = {"name": "x", "ruleset": "duel", "best_of": 3}
    event = played(body, 8)
    log = list(event.log)
    game = next(i for i, e in enumerate(log) if e["k"] == "game")
    log.insert(game + 1, dict(log[game]))
    problems = verify_log(body, "seed-1", log)
    assert any("entered already" in p for p in problems) and any("refused" in p for p in problems)


def test_standings_that_are_not_the_folds_are_found():
    body = {"name": "x", "ruleset": "duel"}
    event = played(body, 6)
    shown = event.t.public()["standings"]
    shown[0], shown[1] = shown[1], shown[0]
    assert verify_log(body, "seed-1", event.log, shown_standings=shown) == ["the standings shown are not the fold's"]
