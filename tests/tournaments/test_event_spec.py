"""Spec.parse: defaults, and a SpecError naming the field for each bad value."""

from __future__ import annotations

import pytest
from event_kit import DUEL, SPELLFIRE

from battlehall.tournaments import Spec, SpecError

BASE = {"name": "Friday", "ruleset": "duel"}


def test_defaults_and_a_round_trip_through_the_body():
    spec = Spec.parse(BASE, DUEL)
    assert (spec.format, spec.best_of, spec.table_size, spec.tiebreaks, spec.max_players) == \
        ("swiss", 1, 2, ("omw", "gw", "ogw"), 1024)
    pods = Spec.parse({**BASE, "ruleset": "spellfire", "table_size": 4}, SPELLFIRE)
    assert pods.place_points == (3, 1, 0, 0, 0, 0) and (pods.min_table, pods.max_table) == (3, 6)
    assert Spec.parse(pods.body(), SPELLFIRE) == pods


@pytest.mark.parametrize(("body", "seats", "path"), [
    ([], DUEL, ""),
    ({"ruleset": "duel"}, DUEL, "name"),
    ({**BASE, "colour": 1}, DUEL, "colour"),
    ({**BASE, "format": "ladder"}, DUEL, "format"),
    ({**BASE, "best_of": 4}, DUEL, "best_of"),
    ({**BASE, "best_of": True}, DUEL, "best_of"),
    ({**BASE, "table_size": 4}, DUEL, "table_size"),  # duel seats 2
    ({**BASE, "table_size": 4, "format": "round_robin"}, SPELLFIRE, "table_size"),
    ({**BASE, "cut": 6}, DUEL, "cut"),
    ({**BASE, "cut": 8, "format": "round_robin"}, DUEL, "cut"),
    ({**BASE, "max_players": 2000}, DUEL, "max_players"),
    ({**BASE, "max_players": 1}, DUEL, "max_players"),
    ({**BASE, "rounds": 0}, DUEL, "rounds"),
    ({**BASE, "rounds": 3, "format": "single_elimination"}, DUEL, "rounds"),
    ({**BASE, "points": {"win": 1, "draw": 2, "loss": 0}}, DUEL, "points"),
    ({**BASE, "points": {"win": "3"}}, DUEL, "points.win"),
    ({**BASE, "tiebreaks": ["omw", "elo"]}, DUEL, "tiebreaks[1]"),
    ({**BASE, "tiebreaks": ["gw", "gw"]}, DUEL, "tiebreaks"),
    ({**BASE, "ruleset": "spellfire", "table_size": 4, "place_points": [3, 1]}, SPELLFIRE, "place_points"),
    ({**BASE, "ruleset": "spellfire", "table_size": 3, "place_points": [1, 2, 0, 0, 0, 0]}, SPELLFIRE, "place_points"),
    ({**BASE, "unfinished": "coin"}, DUEL, "unfinished"),
    ({**BASE, "late_entry_rounds": 1, "format": "round_robin"}, DUEL, "late_entry_rounds"),
    ({**BASE, "check_in_ms": -1}, DUEL, "check_in_ms"),
    ({**BASE, "clock": 5}, DUEL, "clock"),
    ({**BASE, "public": "yes"}, DUEL, "public"),
])
def test_each_bad_field_is_named(body, seats, path):
    with pytest.raises(SpecError) as caught:
        Spec.parse(body, seats)
    assert caught.value.path == path


def test_the_operator_cap_and_a_start_in_the_past():
    with pytest.raises(SpecError) as caught:
        Spec.parse({**BASE, "max_players": 65}, DUEL, cap=64)
    assert caught.value.path == "max_players"
    assert Spec.parse(BASE, DUEL, cap=64).max_players == 64
    with pytest.raises(SpecError) as caught:
        Spec.parse({**BASE, "start_at": 1000}, DUEL, now=1000)
    assert caught.value.path == "start_at"
    assert Spec.parse({**BASE, "start_at": 1001}, DUEL, now=1000).start_at == 1001


def test_pods_stay_within_the_rulesets_seats():
    hourglass = Spec.parse({**BASE, "ruleset": "hourglass", "table_size": 3}, range(2, 5))
    assert (hourglass.min_table, hourglass.max_table) == (3, 4)
