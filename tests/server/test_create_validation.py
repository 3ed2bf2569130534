"""Checks of the `POST /matches` body, in-process: every bad body is a SetupError naming
its field, never another exception, and every check is bounded."""

from __future__ import annotations

import dataclasses

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings

from battlehall.engine import get_ruleset
from battlehall.engine.errors import SetupError
from battlehall.server.match import validate
from create_bodies import BASES, any_bodies


def create(body) -> dict:
    """What POST /matches does before writing: validate, start the ruleset, pack the settings."""
    request = validate.create_request(body)
    ruleset = get_ruleset(request["ruleset"])
    ruleset.start(request["seats"], request["seed"] or 0, request["options"], request["setup"])
    msgpack.packb({**request, "options": ruleset.resolve_options(request["options"])})
    return request


@pytest.mark.parametrize("body", BASES)
def test_the_fuzzed_bodies_start_from_valid_ones(body):
    create(body)


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(any_bodies)
def test_any_body_is_created_or_refused_by_name(case):
    body, _ = case
    try:
        create(body)
    except SetupError as exc:
        assert isinstance(exc.path, str) and exc.message


@pytest.mark.parametrize("body, path", [
    # Each was a 500: a list or an object used as a dictionary key.
    ({"ruleset": "spellfire", "seats": ["a", "b"], "options": {"decks": [["embers"], "shadows"]}}, "options.decks[0]"),
    ({"ruleset": "spellfire", "seats": ["a", "b"], "options": {"decks": ["embers", {"id": "shadows"}]}}, "options.decks[1]"),
    ({"ruleset": "spellfire", "seats": ["a", "b"], "setup": {"cards": [
        {"id": "x", "name": "X", "type": "event", "hook": ["lure"]}]}}, "setup.cards[0].hook"),
    ({"ruleset": "spellfire", "seats": ["a", "b"], "setup": {"cards": [
        {"id": "x", "name": "X", "type": "event", "hook": {"lure": 1}}]}}, "setup.cards[0].hook"),
    # Each was taken for {}.
    ({"ruleset": "duel", "seats": ["a", "b"], "options": []}, "options"),
    ({"ruleset": "duel", "seats": ["a", "b"], "clock": []}, "clock"),
    ({"ruleset": "duel", "seats": ["a", "b"], "spectators": 0}, "spectators"),
    ({"ruleset": "duel", "seats": ["a", "b"], "label": ""}, "label"),
    ({"ruleset": "duel", "seats": ["a", "b"], "options": False}, "options"),
    ({"ruleset": "duel", "seats": ["a", "b"], "when_away": "robot"}, "when_away"),
    ({"ruleset": "duel", "seats": ["a", "b"], "bots": ["b"]}, "bots"),
    ({"ruleset": "duel", "seats": ["a", "b"], "bots": {"c": "greedy"}}, "bots.c"),
    ({"ruleset": "duel", "seats": ["a", "b"], "bots": {"b": "grandmaster"}}, "bots.b"),
    ({"ruleset": "duel", "seats": ["a", "b"], "bots": {"b": ["greedy"]}}, "bots.b"),
    ({"ruleset": "duel", "seats": ["a", "b"], "when_away": ["claim"]}, "when_away"),
    ({"ruleset": "duel", "seats": ["a", "b"], "when_away": {"claim": 1}}, "when_away"),
])
def test_wrong_types_are_refused_by_path(body, path):
    with pytest.raises(SetupError) as caught:
        create(body)
    assert caught.value.path == path


def test_null_sections_are_the_defaults():
    request = create({"ruleset": "duel", "seats": ["a", "b"], "options": None, "clock": None,
                      "spectators": None, "label": None, "setup": None})
    assert request["options"] == {} and request["label"] == {} and request["spectators"]["allowed"] is True
    assert request["when_away"] == "nothing"
    assert create({"ruleset": "duel", "seats": ["a", "b"], "when_away": "claim"})["when_away"] == "claim"
    assert request["bots"] == {}


def test_bots_are_kept_in_seat_order():
    request = create({"ruleset": "spellfire", "seats": ["a", "b", "c"], "bots": {"c": "random", "b": "greedy"},
                      "when_away": "bot"})
    assert list(request["bots"].items()) == [("b", "greedy"), ("c", "random")]
    assert request["when_away"] == "bot"


class CountingList(list):
    """A list that counts how many of its items were read."""

    reads = 0

    def __iter__(self):
        for item in super().__iter__():
            CountingList.reads += 1
            yield item

    def __getitem__(self, index):
        CountingList.reads += 1
        return super().__getitem__(index)


def test_too_many_seats_are_refused_without_reading_them():
    """40,000 seat names held the event loop 6.8 s in a quadratic duplicate check."""
    CountingList.reads = 0
    seats = CountingList(f"s{i}" for i in range(40_000))
    with pytest.raises(SetupError) as caught:
        validate.create_request({"ruleset": "duel", "seats": seats})
    assert caught.value.path == "seats" and "2 seats" in caught.value.message
    assert CountingList.reads == 0


def test_seats_beyond_the_ruleset_and_the_server_bound_are_refused():
    for count in (1, 3, validate.MAX_SEATS + 1):
        with pytest.raises(SetupError) as caught:
            validate.create_request({"ruleset": "duel", "seats": [f"s{i}" for i in range(count)]})
        assert caught.value.path == "seats"


def test_a_duplicate_seat_is_found_in_one_pass(monkeypatch):
    duel = get_ruleset("duel")
    # On the class: compiled (setup.py), a ruleset's declaration is a class attribute only.
    monkeypatch.setattr(type(duel), "declaration", dataclasses.replace(duel.declaration, max_seats=validate.MAX_SEATS))
    CountingList.reads = 0
    seats = CountingList([f"s{i}" for i in range(validate.MAX_SEATS - 1)] + ["s3"])
    with pytest.raises(SetupError) as caught:
        validate.create_request({"ruleset": "duel", "seats": seats})
    assert caught.value.path == f"seats[{validate.MAX_SEATS - 1}]" and "twice" in caught.value.message
    assert CountingList.reads <= len(seats)  # each read once: no seats[:i] rescans


def test_options_and_setup_are_bounded_in_size_and_depth():
    deep: object = "x"
    for _ in range(validate.MAX_DEPTH + 1):
        deep = [deep]
    cases = [
        ({"options": {"decks": deep}}, "options.decks" + "[0]" * (validate.MAX_DEPTH - 1)),
        ({"setup": {"players": {"a": {"hand": ["x"] * (validate.MAX_VALUES + 1)}}}}, None),
        ({"options": {"decks": ["y" * (validate.MAX_STRING + 1), "x"]}}, "options.decks[0]"),
    ]
    for extra, path in cases:
        with pytest.raises(SetupError) as caught:
            validate.create_request({"ruleset": "spellfire", "seats": ["a", "b"], **extra})
        if path is None:
            assert caught.value.path.startswith("setup.players.a.hand[")
        else:
            assert caught.value.path == path


def test_setup_lists_are_bounded():
    from battlehall.engine.spellfire.setup import MAX_ENTRIES
    setup = {"players": {"a": {"hand": ["flame-lance"] * (MAX_ENTRIES + 1)}}}
    with pytest.raises(SetupError) as caught:
        create({"ruleset": "spellfire", "seats": ["a", "b"], "setup": setup})
    assert caught.value.path == "setup.players.a.hand" and str(MAX_ENTRIES) in caught.value.message
