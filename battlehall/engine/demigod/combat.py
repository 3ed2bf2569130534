"""The six steps of an attack (Chapter 4, "Step-by-Step Engage"), one small function each.

Steps 1 and 2 ask players (battlehall.engine.demigod.game opens the prompts); the functions
here are the rulings: pure changes of the state that return the events they make.
"""

from __future__ import annotations

from ..ruleset import Event
from . import grid
from .effects import add_effect, bonus

TICKS_TO_DEFEAT = 20


def attack_value(card: dict, attacker: dict) -> int:
    """'Attack Value (AV): Base Card + Weapon/Trinket/Spell bonuses.' Never below 0, like DV."""
    return max(0, card["av"] + bonus(attacker, "av"))


def defence_value(defence: dict | None, defender: dict) -> int:
    """'Defense Value (DV): Base Card + Shield/Armor/Spell bonuses.' / 'The defender may ...
    do nothing (DV treated as 0).' No defence is the least defence there is: a card played
    with penalties (Blink, DV 0, under Frailty -2) counts 0, never less than doing nothing."""
    if defence is None:
        return 0
    return max(0, defence["dv"] + bonus(defender, "dv"))


def hits(av: int, dv: int) -> bool:
    """'Result: If AV > DV, the attack hits. If AV <= DV, the attack misses.'"""
    return av > dv


def take_damage(unit: dict, damage: int) -> dict:
    """'Step 4: Resolve Damage: Apply the final damage (AV - DV) in this order: Damage
    Reduction (DR), Temporary AP (Barriers), Armor Points (AP), Health Points (HP).'
    Damage Reduction takes its share of every hit and is not used up; barriers and Armor
    Points are pools that are used up. Returns what each layer took."""
    taken = {"dr": min(damage, max(0, unit["dr"] + bonus(unit, "dr")))}
    left = damage - taken["dr"]
    for layer in ("barrier", "ap", "hp"):
        taken[layer] = min(left, unit[layer])
        unit[layer] -= taken[layer]
        left -= taken[layer]
    return taken


def is_defeated(unit: dict) -> bool:
    """'Step 5: Check for Defeat: If HP reaches 0, or Poison/Disease Ticks reach 20, the
    character is removed and defeated.'"""
    return unit["hp"] <= 0 or unit["poison"] >= TICKS_TO_DEFEAT or unit["disease"] >= TICKS_TO_DEFEAT


def remove(state: dict, uid: str, cause: str) -> list[Event]:
    """A defeated character leaves the grid. A side whose Demigod falls is out of the match,
    its Minions with it."""
    unit = state["units"].pop(uid)
    state["order"].remove(uid)
    events: list[Event] = [{"kind": "defeated", "data": {"unit": uid, "cause": cause, "pos": unit["pos"]}}]
    if unit["kind"] == "demigod":
        side = unit["side"]
        for other in [u for u in state["order"] if state["units"][u]["side"] == side]:
            minion = state["units"].pop(other)
            state["order"].remove(other)
            events.append({"kind": "defeated", "data": {"unit": other, "cause": "demigod_fell", "pos": minion["pos"]}})
        state["out"].append(side)
        hand = state["hands"][side]
        state["discard"][side] += hand
        state["hands"][side] = []
        # The hand is discarded face up: public from now on, so the event names its cards.
        events.append({"kind": "side_out", "data": {"seat": side, "out": list(state["out"]),
                                                    "discarded": [{"id": c, "name": state["cards"][c]} for c in hand]}})
    return events


def check_defeat(state: dict, uid: str) -> list[Event]:
    unit = state["units"].get(uid)
    if unit is None or not is_defeated(unit):
        return []
    cause = "hp" if unit["hp"] <= 0 else ("poison" if unit["poison"] >= TICKS_TO_DEFEAT else "disease")
    return remove(state, uid, cause)


def add_ticks(state: dict, uid: str, kind: str, n: int) -> list[Event]:
    """Poison and Disease are tick counters; at 20 the character is defeated."""
    unit = state["units"][uid]
    unit[kind] += n
    return [{"kind": "ticks", "data": {"unit": uid, "kind": kind, "added": n, "total": unit[kind]}}, *check_defeat(state, uid)]


def draw(state: dict, seat: str, n: int) -> list[Event]:
    """Draw up to n cards from the top of the seat's deck, never past the hand limit."""
    drawn: list[str] = []
    while len(drawn) < n and state["decks"][seat] and len(state["hands"][seat]) < state["opts"]["hand_limit"]:
        cid = state["decks"][seat].pop(0)
        state["hands"][seat].append(cid)
        drawn.append(cid)
    return [{"kind": "drew", "data": {"seat": seat, "count": len(drawn), "hand_count": len(state["hands"][seat]),
                                      "deck_count": len(state["decks"][seat])},
             "private": {seat: {"cards": [{"id": c, "name": state["cards"][c]} for c in drawn]}}}]


def apply_effect(state: dict, uid: str, effect: dict, source: str) -> list[Event]:
    how = add_effect(state["units"][uid], effect, source)
    return [{"kind": "effect", "data": {"unit": uid, "title": effect["title"], "source": source, "stat": effect["stat"],
                                        "value": effect["value"], "turns": effect["turns"], "how": how}}]


def gain_barrier(state: dict, uid: str, n: int) -> list[Event]:
    unit = state["units"][uid]
    unit["barrier"] += n
    return [{"kind": "barrier", "data": {"unit": uid, "added": n, "total": unit["barrier"]}}]


def after_attack(state: dict, card: dict, attacker: str, source: list, hit: list[str]) -> list[Event]:
    """'Step 6: Resolve After-Attack Effects: Resolve triggers like pushing, drawing cards, or
    status application.' In the text's order: every character hit (still standing) is
    pushed; then the attacker's side draws, once, when the attack hit anyone; then the
    statuses (Poison, Disease, the card's effect) land on each character hit."""
    events: list[Event] = []
    standing = [uid for uid in hit if uid in state["units"]]
    if card.get("push"):
        for uid in standing:
            before = list(state["units"][uid]["pos"])
            to = grid.push(state, uid, source, card["push"])
            events.append({"kind": "pushed", "data": {"unit": uid, "from": before, "to": list(to)}})
    if card.get("draw") and hit and attacker in state["units"]:
        events += draw(state, state["units"][attacker]["side"], card["draw"])
    for uid in standing:
        for kind in ("poison", "disease"):
            if card.get(kind) and uid in state["units"]:
                events += add_ticks(state, uid, kind, card[kind])
        if card.get("effect") and uid in state["units"]:
            events += apply_effect(state, uid, card["effect"], card["name"])
    return events
