"""Where the champions of a round go when it ends (spellfire-1 H, spellfire-3).

A side's *fate* is ``"pool"`` (it won, or card play sent both champions home),
``"discard"`` (defeated), or one of ``cards.BEYOND`` (``"limbo"``, ``"abyss"``,
``"void"``: the card that defeated it has a ``to_*`` power). A champion whose side holds a
``return_to_pool`` card goes back to its pool instead of anywhere else: its fate becomes
``"returned"``, and a returned attacker gives the defender no spoils.

After the round, each ``after_combat_discard`` card of either side discards the opposing
champion if it came out of the round alive. That happens outside the battle: it changes
neither the round's result nor the spoils (spellfire-3).

Allies called in from the pool (``brings_ally``) stay there if their side's champion
does, and are discarded otherwise; a realm that defended itself (``defends_as``) stays
in its slot whatever its fate, and only the cards it used are discarded.
"""

from __future__ import annotations

from . import battle_state, powers, zones
from .battle_state import SIDES, Side
from .cards import DESTINATIONS

LOST = ("discard",) + tuple(DESTINATIONS.values())  # fates that take a champion out of play


def side_cards(s: Side) -> list[str]:
    return [s["champion"]] + s["attached"] + s["played"]


def has_power(state: dict, iids: list[str], power: str) -> bool:
    return any(power in zones.card(state, i)["powers"] for i in iids)


def destination(state: dict, iids: list[str]) -> str:
    """Where a champion defeated by these cards goes: the first ``to_*`` power among
    them (in the order given), else the discard pile."""
    for iid in iids:
        for power in zones.card(state, iid)["powers"]:
            if power in DESTINATIONS:
                return DESTINATIONS[power]
    return "discard"


def close_round(state: dict, fates: dict, events: list) -> dict:
    """H: every champion of the round goes where its fate says, with its attachments; the
    cards played for it are discarded (those of a lost champion with it). Returns what
    the after-combat step needs: the final fates, the champions and the after-combat
    cards, by side."""
    battle = battle_state.current(state)
    out: dict = {"fates": {}, "champions": {}, "after": []}
    for side in SIDES:
        s = battle["sides"][side]
        if s is None:
            continue
        battle["sides"][side] = None
        seat, cards = s["seat"], side_cards(s)
        fate = fates[side]
        if fate != "pool" and has_power(state, cards, "return_to_pool"):
            fate = "returned"
        out["fates"][side] = fate
        out["champions"][side] = (seat, s["champion"])
        out["after"] += [(side, seat, iid) for iid in cards if "after_combat_discard" in zones.card(state, iid)["powers"]]
        powers.release_brought(state, s, fate in ("pool", "returned"), events)
        if s["from"] == "realm":  # a realm that defended itself stays in its slot; what it used goes
            discard_owned(state, seat, s["attached"] + s["played"], "round_over", events)
        elif fate in ("pool", "returned"):
            state["players"][seat]["pool"].append({"champion": s["champion"], "attached": s["attached"]})
            events.append({"kind": "champion_returned", "data": {
                "seat": seat, **zones.about(state, s["champion"], seat, "pool"), "attached": zones.refs(state, s["attached"]),
                "from": "battle", "by_power": fate == "returned"}})
            discard_owned(state, seat, s["played"], "round_over", events)
        elif fate == "discard":
            discard_owned(state, seat, cards, "defeated", events)
        else:
            zones.banish(state, seat, s["champion"], s["attached"], fate, "defeated", events)
            discard_owned(state, seat, s["played"], "round_over", events)
    return out


def discard_owned(state: dict, seat: str, iids: list[str], reason: str, events: list) -> None:
    """Discard a side's cards, each to its owner's pile: the side's seat, or the seat
    outside the battle that played it for that side."""
    owners = battle_state.current(state)["owners"]
    piles: dict[str, list[str]] = {seat: []}
    for iid in iids:
        piles.setdefault(owners.pop(iid, seat), []).append(iid)
    for owner, cards in piles.items():  # insertion order: the side's seat first
        zones.discard(state, owner, cards, reason, events)


def after_combat(state: dict, closed: dict, events: list) -> None:
    """Each after-combat card discards the opposing champion if it is back in its pool
    (a ``return_to_pool`` champion stays there). Only events; nothing else changes."""
    for side, seat, iid in closed["after"]:
        other = "defender" if side == "attacker" else "attacker"
        if other not in closed["champions"]:
            continue
        target_seat, target = closed["champions"][other]
        entry = zones.pool_entry(state, target_seat, target)
        data = {"seat": seat, **zones.about(state, iid, seat, *zones.locate(state, iid)), "target": zones.ref(state, target),
                "to": None}
        events.append({"kind": "after_combat", "data": data})
        if entry is None or has_power(state, [target] + entry["attached"], "return_to_pool"):
            continue  # already gone, or it returns to its pool all the same
        state["players"][target_seat]["pool"].remove(entry)
        to = destination(state, [iid])
        data["to"] = to
        if to == "discard":
            zones.discard(state, target_seat, [target] + entry["attached"], "after_combat", events)
        else:
            zones.banish(state, target_seat, target, entry["attached"], to, "after_combat", events)
