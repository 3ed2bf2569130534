"""The starting position: the default start (a map, each seat's Demigod and Minions, shuffled
decks) or an explicit `setup` (docs/setup.md, "demigod"). A bad field is a SetupError naming
its path."""

from __future__ import annotations

import re

from ..errors import SetupError
from ..rng import shuffle
from . import grid
from .data import cards, check_card, maps, units

UNIT_INTS = {"hp": (1, 999), "ap": (0, 999), "barrier": (0, 999), "dr": (0, 99), "move": (0, 20),
             "poison": (0, 19), "disease": (0, 19)}
# Every field a unit of a setup may have.
UNIT_FIELDS = ("id", "side", "kind", "name", "pos", "max_hp", "equipment", "effects", "moved", "attacked", *UNIT_INTS)
SLOTS = ("weapon", "trinket", "shield", "armour")
MAX_INLINE_CARDS = 100
CARD_ID = re.compile(r"c[0-9]+")


def _int(value, path: str, lo: int, hi: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise SetupError(path, f"an integer from {lo} to {hi}")
    return value


def make_unit(uid: str, side: str, kind: str, spec: dict, pos: list) -> dict:
    return {"id": uid, "side": side, "kind": kind, "name": spec["name"], "pos": list(pos),
            "hp": spec["hp"], "max_hp": spec.get("max_hp", spec["hp"]), "ap": spec.get("ap", 0),
            "barrier": spec.get("barrier", 0), "dr": spec.get("dr", 0), "move": spec.get("move", 3),
            "poison": spec.get("poison", 0), "disease": spec.get("disease", 0),
            "equipment": [dict(e) for e in spec.get("equipment", [])],
            "effects": [dict(e) for e in spec.get("effects", [])],
            "moved": spec.get("moved", False), "attacked": spec.get("attacked", False)}


def deal(state: dict, seat: str, names: list[str]) -> list[str]:
    """New card instances (ids c1, c2, ... across the match) for `names`."""
    out = []
    for name in names:
        cid = f"c{len(state['cards']) + 1}"
        state["cards"][cid] = name
        out.append(cid)
    return out


def default_start(state: dict, seats: list[str]) -> None:
    m = maps()[state["opts"]["map"]]
    state["map"] = {"name": m["name"], "width": m["width"], "height": m["height"], "terrain": [list(t) for t in m["terrain"]]}
    minions = {u["name"]: u for u in units()["minions"]}
    for i, seat in enumerate(seats):
        god = units()["demigods"][i % len(units()["demigods"])]
        starts = m["starts"][i]
        uid = f"{seat}.{god['name'].lower()}"
        state["units"][uid] = make_unit(uid, seat, "demigod", god, starts[0])
        state["order"].append(uid)
        for j, name in enumerate(god["minions"]):
            mid = f"{seat}.{name.lower()}{j + 1}"
            state["units"][mid] = make_unit(mid, seat, "minion", minions[name], starts[j + 1])
            state["order"].append(mid)
        deck = deal(state, seat, [n for n, count in god["deck"].items() for _ in range(count)])
        shuffle(state, deck)
        state["decks"][seat] = deck
        state["hands"][seat] = []


def _square(value, path: str, state: dict) -> list:
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value) or not grid.on_board(state, value)):
        raise SetupError(path, "a square [x, y] on the map")
    return list(value)


def _effects(value, path: str) -> list:
    if not isinstance(value, list):
        raise SetupError(path, "a list of effects")
    for i, e in enumerate(value):
        if not isinstance(e, dict) or sorted(e) != ["source", "stat", "title", "turns", "value"]:
            raise SetupError(f"{path}[{i}]", "an effect {title, source, stat, value, turns}")
        if not isinstance(e["title"], str) or not isinstance(e["source"], str) or e["stat"] not in ("av", "dv", "dr"):
            raise SetupError(f"{path}[{i}]", "title and source are text; stat is av, dv or dr")
        _int(e["value"], f"{path}[{i}].value", -99, 99)
        _int(e["turns"], f"{path}[{i}].turns", 1, 99)
    return value


def _equipment(value, path: str) -> list:
    if not isinstance(value, list):
        raise SetupError(path, "a list of items")
    for i, e in enumerate(value):
        if not isinstance(e, dict) or not isinstance(e.get("name"), str) or e.get("slot") not in SLOTS:
            raise SetupError(f"{path}[{i}]", f"an item {{name, slot ({', '.join(SLOTS)}), av or dv}}")
        for k in sorted(e):
            if k not in ("name", "slot", "av", "dv"):
                raise SetupError(f"{path}[{i}].{k}", "unknown field")
            if k in ("av", "dv"):
                _int(e[k], f"{path}[{i}].{k}", -99, 99)
    return value


def inline_cards(state: dict, given) -> None:
    """`setup.cards`: more cards for this match, in the format of cards.json and checked by
    the same function; a name may not repeat a shipped card's or an earlier inline card's."""
    if not isinstance(given, list) or len(given) > MAX_INLINE_CARDS:
        raise SetupError("setup.cards", f"a list of at most {MAX_INLINE_CARDS} cards")
    for i, raw in enumerate(given):
        card = check_card(raw, f"setup.cards[{i}]")
        if card["name"] in cards() or card["name"] in state["defs"]:
            raise SetupError(f"setup.cards[{i}].name", f"duplicate name {card['name']!r}")
        state["defs"][card["name"]] = card


def explicit_start(state: dict, seats: list[str], setup: dict) -> None:
    if not isinstance(setup, dict):
        raise SetupError("setup", "must be an object")
    for key in sorted(setup):
        if key not in ("map", "cards", "units", "hands", "decks", "turn"):
            raise SetupError(f"setup.{key}", "unknown field")
    inline_cards(state, setup.get("cards", []))
    m = setup.get("map", state["opts"]["map"])
    if isinstance(m, str):
        if m not in maps():
            raise SetupError("setup.map", f"one of {', '.join(sorted(maps()))}, or {{width, height, terrain}}")
        m = maps()[m]
    if not isinstance(m, dict):
        raise SetupError("setup.map", "a map name or {width, height, terrain}")
    state["map"] = {"name": m.get("name", "custom"), "width": _int(m.get("width"), "setup.map.width", 2, 30),
                    "height": _int(m.get("height"), "setup.map.height", 2, 30), "terrain": []}
    if not isinstance(m.get("terrain", []), list):
        raise SetupError("setup.map.terrain", "a list of squares")
    for i, sq in enumerate(m.get("terrain", [])):
        sq = _square(sq, f"setup.map.terrain[{i}]", state)
        if sq not in state["map"]["terrain"]:
            state["map"]["terrain"].append(sq)
    specs = setup.get("units")
    if not isinstance(specs, list) or not specs:
        raise SetupError("setup.units", "a list of characters")
    for i, spec in enumerate(specs):
        path = f"setup.units[{i}]"
        if not isinstance(spec, dict):
            raise SetupError(path, "a character")
        for key in sorted(spec):
            if key not in UNIT_FIELDS:
                raise SetupError(f"{path}.{key}", "unknown field")
        if spec.get("side") not in seats:
            raise SetupError(f"{path}.side", f"one of the seats {', '.join(seats)}")
        if spec.get("kind") not in ("demigod", "minion"):
            raise SetupError(f"{path}.kind", "demigod or minion")
        uid = spec.get("id")
        if not isinstance(uid, str) or not uid or uid in state["units"] or len(uid) > 40:
            raise SetupError(f"{path}.id", "a unique name of at most 40 characters")
        if "," in uid or CARD_ID.fullmatch(uid):  # an option's `about` keys ids, cards and squares ("x,y") alike
            raise SetupError(f"{path}.id", "no comma, and not of a card instance's form (c and digits)")
        if not isinstance(spec.get("name", uid), str):
            raise SetupError(f"{path}.name", "text")
        pos = _square(spec.get("pos"), f"{path}.pos", state)
        if not grid.is_empty(state, pos):
            raise SetupError(f"{path}.pos", "taken by terrain or another character")
        clean = {"name": spec.get("name", uid), "hp": 10}
        for key, (lo, hi) in UNIT_INTS.items():
            if key in spec:
                clean[key] = _int(spec[key], f"{path}.{key}", lo, hi)
        if "max_hp" in spec:
            clean["max_hp"] = _int(spec["max_hp"], f"{path}.max_hp", 1, 999)
        for key in ("moved", "attacked"):
            if key in spec:
                if not isinstance(spec[key], bool):
                    raise SetupError(f"{path}.{key}", "true or false")
                clean[key] = spec[key]
        clean["equipment"] = _equipment(spec.get("equipment", []), f"{path}.equipment")
        clean["effects"] = _effects(spec.get("effects", []), f"{path}.effects")
        state["units"][uid] = make_unit(uid, spec["side"], spec["kind"], clean, pos)
        state["order"].append(uid)
    for seat in seats:
        gods = [u for u in state["order"] if state["units"][u]["side"] == seat and state["units"][u]["kind"] == "demigod"]
        if len(gods) != 1:
            raise SetupError("setup.units", f"{seat} needs exactly one demigod")
    for zone in ("hands", "decks"):
        given = setup.get(zone, {})
        if not isinstance(given, dict):
            raise SetupError(f"setup.{zone}", "an object: seat -> list of card names")
        for seat in sorted(given):
            if seat not in seats:
                raise SetupError(f"setup.{zone}.{seat}", "not a seat")
        for seat in seats:
            names = given.get(seat, [])
            if not isinstance(names, list) or len(names) > 60:
                raise SetupError(f"setup.{zone}.{seat}", "a list of at most 60 card names")
            for i, name in enumerate(names):
                if not isinstance(name, str) or (name not in cards() and name not in state["defs"]):
                    raise SetupError(f"setup.{zone}.{seat}[{i}]", f"no card {name!r} (shipped or in setup.cards)")
            state[zone][seat] = deal(state, seat, names)  # decks: top first, not shuffled
    turn = setup.get("turn", {})
    if not isinstance(turn, dict):
        raise SetupError("setup.turn", "{seat, round}")
    seat = turn.get("seat", seats[0])
    if seat not in seats:
        raise SetupError("setup.turn.seat", "one of the seats")
    state["turn"] = {"seat": seat, "round": _int(turn.get("round", 1), "setup.turn.round", 1, state["opts"]["turn_limit"])}
