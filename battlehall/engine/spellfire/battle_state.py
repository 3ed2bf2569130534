"""The shape of ``state["battle"]`` while a battle runs, and the small lookups into it.

The battle lives in the match state, which is snapshotted and hashed: it stays a plain
JSON-able dict, described here by TypedDicts (types for a reader and for mypy, nothing
at run time) and read through the named lookups below instead of deep paths.
"""

# No `from __future__ import annotations`: the TypedDicts' annotations are evaluated, so
# that NotRequired shows in __optional_keys__ (the tests hold real battles to the shape).
from typing import NotRequired, TypedDict

from . import zones

SIDES = ("attacker", "defender")
OTHER = {"attacker": "defender", "defender": "attacker"}

#: One side of a round (the functional form, as "from" is a Python keyword):
#: - ``from``: "hand" | "pool" | "realm" (the realm under attack defends itself);
#: - ``attached``: magical items and artifacts, which stay with a winning champion;
#: - ``played``: allies, spells and the like, discarded when the round ends;
#: - ``brought``: pool champions called in as allies, which stay in the pool.
Side = TypedDict("Side", {"seat": str, "champion": str, "from": str, "attached": list[str],
                          "played": list[str], "brought": list[str]})


class Pending(TypedDict):
    """A card's outcome (powers.py), waiting for the any-time window after the card."""

    outcome: str
    card: str
    seat: str
    held: bool  # the card stays in the battle: taking it out (counter_spell) cancels the outcome


class Effects(TypedDict):
    """A round's negations (activation.effects), started afresh for each round."""

    round: int
    negated: list[list[str]]  # [side, kind] pairs whose powers are negated
    cancelled: list[str]  # cards whose power was cancelled
    activated: list[str]  # cards that used their power already


class Battle(TypedDict):
    attacker: str
    defender: str
    realm: str  # the realm under attack
    slot: str  # its slot in the defender's formation, "A".."F"
    round: int  # rounds fought
    defeats: int  # rounds the realm lost
    step: str  # "attacker" | "defender" | "before_battle" | "play" | "play_at_once" | "respond"
    razed: bool  # what card play or combat did to the realm
    discarded: bool
    extra: bool  # a battle beyond attacks_per_turn (extra_attack)
    pending: Pending | None
    sides: dict[str, Side | None]  # "attacker" and "defender"
    owners: dict[str, str]  # card -> seat, for cards played for a side by a seat outside the battle
    entered: NotRequired[dict[str, int]]  # card -> when it came into this round (activation.enter)
    effects: NotRequired[Effects | None]
    before_battle: NotRequired[list[str]]  # cards played before this round's battle (before.py)
    before_passes: NotRequired[int]  # passes in a row of that step: two end it
    at_once: NotRequired[str]  # while its player may play another card at once (play_at_once)


def current(state: dict) -> Battle:
    """The battle in progress (only called while one runs)."""
    battle: Battle = state["battle"]
    return battle


def side(battle: Battle, name: str) -> Side:
    """A side that is in place (its champion chosen)."""
    found = battle["sides"][name]
    assert found is not None, name
    return found


def champion(battle: Battle, name: str) -> str:
    return side(battle, name)["champion"]


def seat_of(battle: Battle, name: str) -> str:
    """The seat fighting on side `name`."""
    return battle["attacker"] if name == "attacker" else battle["defender"]


def side_of(battle: Battle, seat: str) -> str:
    """The side a seat of the battle fights on."""
    return "attacker" if battle["attacker"] == seat else "defender"


def fights(battle: Battle, seat: str) -> bool:
    """Is `seat` one of the battle's two seats (not a seat outside it)?"""
    return seat in (battle["attacker"], battle["defender"])


def in_battle(state: dict, seat: str) -> bool:
    """Is a battle running with `seat` on one of its sides?"""
    return state["battle"] is not None and fights(current(state), seat)


def held(battle: Battle) -> list[str]:
    """The cards a battle holds for its sides (played and attached)."""
    return [i for s in battle["sides"].values() if s is not None for i in s["played"] + s["attached"]]


def realm_slot(state: dict, battle: Battle) -> dict:
    """The defender's formation slot of the realm under attack."""
    slot: dict = state["players"][battle["defender"]]["formation"][battle["slot"]]
    return slot


def about_realm(state: dict, battle: Battle) -> dict:
    """The fields naming the realm under attack, in its formation slot (zones.about)."""
    return zones.about(state, battle["realm"], battle["defender"], "formation", battle["slot"])
