"""The formation pyramid: exposure, placement, movement powers, and the Cosmos in battle."""

from __future__ import annotations

import pytest
from spellfire_kit import S, match  # noqa: F401  (pytest fixtures)

from battlehall.engine.spellfire import formation


def pyramid(razed="", present="ABCDEF"):
    f = formation.empty()
    for s in present:
        f[s] = {"realm": f"r{s}", "razed": s in razed, "holding": None}
    return f


@pytest.mark.parametrize("razed,exposed", [
    ("", "A"),
    ("A", "BC"),          # A razed (and still shown razed) exposes B and C
    ("AB", "CD"),         # D once B is razed
    ("AC", "BF"),         # F once C is razed
    ("ABC", "DEF"),       # E needs both B and C razed
    ("B", "AD"),          # a flyer razed B behind A: D is exposed, per NOTES.md
])
def test_exposure(razed, exposed):
    f = pyramid(razed)
    got = "".join(s for s in formation.SLOTS if not f[s]["razed"] and formation.exposed(f, s))
    assert got == exposed


def test_missing_realms_do_not_shield():
    f = pyramid(present="BCE")
    assert formation.exposed(f, "B") and formation.exposed(f, "C") and not formation.exposed(f, "E")


def test_placement_slots():
    assert formation.placement_slots(formation.empty()) == ["A"]
    assert formation.placement_slots(pyramid(present="AB")) == ["C"]
    assert formation.placement_slots(pyramid(razed="B", present="AB")) == ["B", "C"]
    assert formation.placement_slots(pyramid()) == []
    assert formation.placement_slots(pyramid(razed="AF")) == ["A", "F"]


def test_worlds_match():
    assert formation.worlds_match("greyhawk", "greyhawk") and formation.worlds_match("add", "dark_sun")
    assert formation.worlds_match("ravenloft", "add") and not formation.worlds_match("greyhawk", "ravenloft")


def test_cosmos_keeps_a_hand_champion_out_of_battle(match, S):
    m = match(alice=S(hand=["oskar-the-sly", "torvald-ironhand"]),
              bob=S(formation={"A": "ironbridge"}, pool=["oskar-the-sly"]),
              turn={"seat": "alice", "phase": "attack"})
    m.answer("ironbridge")
    assert m.option_ids() == ["torvald-ironhand", "back", "end"]  # bob's Oskar is in play


def test_cosmos_defender_from_hand(match, S):
    m = match(alice=S(pool=["torvald-ironhand"]),
              bob=S(formation={"A": "ironbridge"}, hand=["torvald-ironhand", "oskar-the-sly"]),
              turn={"seat": "alice", "phase": "attack"})
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    assert m.option_ids() == ["oskar-the-sly", "decline"]
