"""Explicit demigod positions for the rule tests, and short ways to play them."""

from __future__ import annotations

from battlehall.engine import get_ruleset

RS = get_ruleset("demigod")
SEATS = ["alice", "bob"]


def unit(uid, side, pos, kind="minion", **stats):
    return {"id": uid, "side": side, "kind": kind, "pos": list(pos), "hp": stats.pop("hp", 20), **stats}


def start(units, hands=None, decks=None, terrain=(), size=(8, 8), turn="alice", options=None, seats=SEATS, cards=None):
    """A match from an explicit setup. Each seat gets a far-away Demigod unless `units` has one."""
    units = list(units)
    # Out of the way of the tests' lines: no row, column or diagonal through the usual squares.
    places = {"alice": [0, size[1] - 1], "bob": [size[0] - 1, 1], "carol": [size[0] - 1, size[1] - 1]}
    for seat in seats:
        if not any(u["side"] == seat and u["kind"] == "demigod" for u in units):
            units.append(unit(f"{seat}.god", seat, places[seat], kind="demigod"))
    setup = {"map": {"width": size[0], "height": size[1], "terrain": [list(t) for t in terrain]}, "units": units,
             "hands": hands or {}, "decks": decks or {}, "turn": {"seat": turn, "round": 1}}
    if cards is not None:
        setup["cards"] = cards
    state, events = RS.start(seats, 1, options, setup)
    return state, events


def prompt(state, kind=None):
    assert len(state["prompts"]) == 1, state["prompts"]
    p = state["prompts"][0]
    assert kind is None or p["kind"] == kind, p
    return p


def card_id(state, seat, name):
    for cid in state["hands"][seat]:
        if state["cards"][cid] == name:
            return cid
    raise AssertionError(f"{seat} holds no {name}")


def option(p, option_id):
    for o in p["options"]:
        if o["id"] == option_id:
            return o
    return None


def targets(state, uid, name):
    """The squares the turn prompt lets `uid` aim `name` at ([] if none)."""
    p = prompt(state, "turn")
    o = option(p, "attack")
    if o is None:
        return []
    cid = card_id(state, state["turn"]["seat"], name)
    for combo in o["combos"]:
        if combo["unit"] == [uid] and combo["card"] == [cid]:
            return combo["target"]
    return []


def attack(state, uid, name, square):
    p = prompt(state, "turn")
    cid = card_id(state, state["turn"]["seat"], name)
    return RS.answer(state, p["seat"], p["id"], "attack", {"unit": uid, "card": cid, "target": list(square)})


def defend(state, choice="none", name=None, to=None):
    p = prompt(state, "defend")
    args = {}
    if name is not None:
        args["card"] = card_id(state, p["seat"], name)
    if to is not None:
        args["to"] = list(to)
    return RS.answer(state, p["seat"], p["id"], choice, args)


def end_turn(state):
    p = prompt(state, "turn")
    return RS.answer(state, p["seat"], p["id"], "end", {})


def kinds(events, kind):
    return [e["data"] for e in events if e["kind"] == kind]
