"""The order of activation (spellfire-2), as an explicit table, and step D that follows it.

When both champions of a round are in place (battle step D), every card whose power is
in the round activates in the order of ORDER. Within one row the card that came into the
battle first activates first (spellfire-2: "the first card played gets to use the power
first"): the cards in play before the battle (the rule card, dungeons, realms and
holdings), then the attacking champion with what it brings from its pool ("the attacker
is given first use since he is pushed forward first"), then the defending champion with
its own, then each card played before the battle or in step F, in the order played
(``entered``). Cards that came in together: the attacker's before the defender's, then
highest bonus first, then by name (rules/NOTES.md), then by instance id, so that the
order is total. A bonus or a name never puts one side's card before the other's. Each
activation is an ``activated`` event, so a client can show it.

Which cards are in the round (``participants``): the rule card in play (its power is
everyone's), the dungeons of the two seats, the realm under attack and its holding,
realms and holdings of the two seats marked ``always_active``, the cards played
``before_battle`` (row 5), cards whose power acts ``before_combat`` (row 6), then each
champion with its attachments and the cards played for it, kind by kind.

A direct conflict of powers (``negates``) goes to the card that activates first: a
negation cancels the powers of cards that have not activated yet, and of cards played
later in the round, never of a card that already used its power.
"""

from __future__ import annotations

from . import battle_state, zones
from .battle_state import OTHER, SIDES, Battle, Effects

SUPPORT_ROWS = (("a", "artifact"), ("b", "ally"), ("c", "magical_item"), ("d", "blood_ability"),
                ("e", "thief_skill"), ("f", "unarmed_combat"), ("g", "psionic_power"), ("h", "spell"))

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
    for letter, kind in (("", "champion"),) + SUPPORT_ROWS
)
ROW = {(side, kind): i for i, (_, side, kind) in enumerate(ORDER)}
LABEL = {(side, kind): ORDER[i][0] for (side, kind), i in ROW.items()}


def row_of(state: dict, battle: Battle, side: str | None, iid: str) -> int:
    """The row a card activates in when it is in the round from step D on."""
    c = zones.card(state, iid)
    if iid in battle.get("before_battle", ()):
        return ROW[(None, "yellow_before_battle")]
    if "before_combat" in c["powers"]:
        return ROW[(None, "before_combat")]
    kind = kind_of(battle, side, iid, c) if side is not None else c["type"]
    if kind in ("rule", "dungeon", "realm", "holding"):
        return ROW[(None, kind)]
    return ROW[(side, kind)]


def participants(state: dict, battle: Battle) -> list[tuple[str | None, str]]:
    """(side the card acts for, or None for both; instance) of every card in the round,
    events with a bonus included (they count until the round ends, but have no row)."""
    out: list[tuple[str | None, str]] = []
    rule = state.get("rule")
    if rule is not None:
        out.append((None, rule["card"]))
    dungeons = state.get("dungeons", {})
    for side in SIDES:
        seat = battle_state.seat_of(battle, side)
        if seat in dungeons:
            out.append((side, dungeons[seat]))
    slot = battle_state.realm_slot(state, battle)
    defender_side = battle["sides"]["defender"]
    if defender_side is None or defender_side["champion"] != slot["realm"]:
        out.append(("defender", slot["realm"]))  # a realm defending itself is its side's champion
    if slot["holding"] is not None:
        out.append(("defender", slot["holding"]))
    for side in SIDES:  # "unless the card specifies otherwise": powers that work in every battle
        formation = state["players"][battle_state.seat_of(battle, side)]["formation"]
        for s in sorted(formation):
            other = formation[s]
            if other is None or other["razed"] or (side == "defender" and s == battle["slot"]):
                continue
            for iid in (other["realm"], other["holding"]):
                if iid is not None and "always_active" in zones.card(state, iid)["powers"]:
                    out.append((side, iid))
    for side in SIDES:
        s = battle["sides"][side]
        if s is None:
            continue
        out += [(side, iid) for iid in [s["champion"]] + s["attached"] + s["played"]]
    return out


def sequence(state: dict, battle: Battle) -> list[tuple[str, str | None, str]]:
    """(label, side, instance) for every card of the round, in activation order."""
    keyed = []
    for side, iid in participants(state, battle):
        c = zones.card(state, iid)
        if c["type"] == "event":  # events resolve when played; they have no row
            continue
        keyed.append((row_of(state, battle, side, iid), entered_at(battle, iid),
                      SIDES.index(side) if side else -1, -c["bonus"], c["name"], _num(iid), side, iid))
    keyed.sort()
    return [(ORDER[k[0]][0], k[6], k[7]) for k in keyed]


# -- the order in which cards came into the round ----------------------------------------

def enter(battle: Battle, iids: list[str]) -> None:
    """Cards that come into the round together (a champion with its attachments, or one
    card played): one moment, after every earlier one."""
    entered = battle.setdefault("entered", {})
    moment = max(entered.values(), default=0) + 1
    for iid in iids:
        entered[iid] = moment


def entered_at(battle: Battle, iid: str) -> int:
    """The moment a card came into the round; 0 for the cards in play before the battle."""
    return battle.get("entered", {}).get(iid, 0)


def owner(state: dict, battle: Battle, side: str | None, iid: str) -> str:
    """The seat a card in the round belongs to."""
    rule = state.get("rule")
    if rule is not None and rule["card"] == iid:
        return rule["seat"]
    for seat, d in state.get("dungeons", {}).items():
        if d == iid:
            return seat
    kind = zones.card(state, iid)["type"]
    if kind in ("realm", "holding"):
        for seat in (battle["defender"], battle["attacker"]):
            for slot in state["players"][seat]["formation"].values():
                if slot is not None and iid in (slot["realm"], slot["holding"]):
                    return seat
    assert side is not None  # a card of both sides is the rule card, found above
    return battle["owners"].get(iid, battle_state.seat_of(battle, side))


def where(state: dict, battle: Battle, side: str | None, iid: str) -> dict:
    """The fields naming a card of the round (zones.about): the rule card and the dungeons
    are in their own zones, realms and holdings in a formation slot, the other cards in
    the battle."""
    seat = owner(state, battle, side, iid)
    rule = state.get("rule")
    if rule is not None and rule["card"] == iid:
        return zones.about(state, iid, seat, "rule")
    if state.get("dungeons", {}).get(seat) == iid:
        return zones.about(state, iid, seat, "dungeon")
    for s, slot in state["players"][seat]["formation"].items():
        if slot is not None and iid in (slot["realm"], slot["holding"]):
            return zones.about(state, iid, seat, "formation", s)
    return zones.about(state, iid, seat, "battle")


# -- what a negation has done this round ---------------------------------------------------

def effects(battle: Battle) -> Effects:
    """The round's negations: {"round", "negated": [[side, kind], ...], "cancelled": [card, ...]},
    started afresh for each round."""
    negations = battle.get("effects")
    if negations is None or negations["round"] != battle["round"]:
        negations = battle["effects"] = {"round": battle["round"], "negated": [], "cancelled": [], "activated": []}
    return negations


def cancelled(battle: Battle, iid: str) -> bool:
    negations = battle.get("effects")
    return negations is not None and negations["round"] == battle["round"] and iid in negations["cancelled"]


def negation_targets(side: str | None, c: dict) -> tuple[str, ...]:
    """Whose cards a card's `negates` reaches: a rule card's, everyone's; any other card's,
    the opposing side's."""
    if c["type"] == "rule" or side is None:
        return SIDES
    return (OTHER[side],)


def kind_of(battle: Battle, side: str, iid: str, c: dict) -> str:
    s = battle["sides"][side]
    return "champion" if s is not None and s["champion"] == iid else c["type"]


def _num(iid: str) -> int:
    return int(iid[1:]) if iid[1:].isdigit() else 0
