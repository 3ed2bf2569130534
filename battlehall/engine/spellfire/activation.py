"""The order of activation (spellfire-2), as an explicit table.

When both champions of a round are in place (battle step D), the cards in the battle
activate in the order of this table; within one row, highest bonus first, then by name
(rules/NOTES.md), then by instance id so that the order is total. Rows for card kinds
this ruleset has no cards of yet (rule cards, dungeons, cards played "before battle")
are kept so that adding such cards only means filling a row.
"""

from __future__ import annotations

from . import zones as z

# (label in spellfire-2, side or None, what activates)
ORDER: tuple[tuple[str, str | None, str], ...] = (
    ("1", None, "rule"),
    ("2", None, "dungeon"),
    ("3", None, "realm"),
    ("4", None, "holding"),
    ("5", None, "yellow_before_battle"),
    ("6", None, "before_combat"),
) + tuple(
    (f"{n}{letter}", side, kind)
    for n, side in (("7", "attacker"), ("8", "defender"))
    for letter, kind in (("", "champion"), ("a", "artifact"), ("b", "ally"), ("c", "magical_item"),
                         ("d", "blood_ability"), ("e", "thief_skill"), ("f", "unarmed_combat"),
                         ("g", "psionic_power"), ("h", "spell"))
)
ROW = {(side, kind): i for i, (_, side, kind) in enumerate(ORDER)}


def sequence(state: dict, battle: dict) -> list[tuple[str, str | None, str]]:
    """(label, side, instance) for every card of the battle, in activation order."""
    keyed = []
    slot = state["players"][battle["defender"]]["formation"][battle["slot"]]
    keyed.append((ROW[(None, "realm")], slot["realm"], None))
    if slot["holding"] is not None:
        keyed.append((ROW[(None, "holding")], slot["holding"], None))
    for side in ("attacker", "defender"):
        s = battle["sides"][side]
        if s is None:
            continue
        for iid in [s["champion"]] + s["attached"] + s["played"]:
            kind = z.card(state, iid)["type"]
            if (side, kind) in ROW:  # events resolve when played; they have no row
                keyed.append((ROW[(side, kind)], iid, side))
    keyed.sort(key=lambda k: (k[0], -z.card(state, k[1])["bonus"], z.card(state, k[1])["name"], _num(k[1])))
    return [(ORDER[row][0], side, iid) for row, iid, side in keyed]


def _num(iid: str) -> int:
    return int(iid[1:]) if iid[1:].isdigit() else 0
