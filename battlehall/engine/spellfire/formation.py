"""The formation: six realm slots in a pyramid, and which of them can be attacked.

    row 1:     A
    row 2:   B   C
    row 3:  D  E  F

A slot is ``None`` (empty) or ``{"realm": card, "razed": bool, "holding": card | None}``.
A realm is exposed when every realm shielding it is razed or missing: A always; B and C
once A is; D once B is; F once C is; E once both B and C are (rules/NOTES.md).
"""

from __future__ import annotations

SLOTS = ("A", "B", "C", "D", "E", "F")
SHIELDS = {"A": (), "B": ("A",), "C": ("A",), "D": ("B",), "E": ("B", "C"), "F": ("C",)}


def empty() -> dict:
    return {s: None for s in SLOTS}


def exposed(formation: dict, slot: str) -> bool:
    for s in SHIELDS[slot]:
        other = formation[s]
        if other is not None and not other["razed"]:
            return False
    return True


def unrazed(formation: dict) -> int:
    return sum(1 for s in SLOTS if formation[s] is not None and not formation[s]["razed"])


def placement_slots(formation: dict) -> list[str]:
    """Where a new realm may go: the first empty slot, or over any razed realm."""
    slots, first_empty = [], True
    for s in SLOTS:
        slot = formation[s]
        if slot is None:
            if first_empty:
                slots.append(s)
                first_empty = False
        elif slot["razed"]:
            slots.append(s)
    return slots


def reaches(champion: dict, realm: dict, is_exposed: bool) -> bool:
    """Can this champion attack this (unrazed) realm? Exposed, or by a movement power:
    flyers reach any realm, swimmers coastal ones, earthwalkers any but sealed ones."""
    if is_exposed:
        return True
    powers = champion["powers"]
    if "flyer" in powers:
        return True
    if "swimmer" in powers and "coastal" in realm["powers"]:
        return True
    return "earthwalker" in powers and "sealed" not in realm["powers"]


def worlds_match(a: str | None, b: str | None) -> bool:
    """Holdings on realms and artifacts on champions: same world, or either is generic AD&D."""
    return a == b or a == "add" or b == "add"
