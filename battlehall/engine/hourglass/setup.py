"""The starting position: the default scenario from the options, or any position from a
`setup` (docs/setup.md#hourglass). Every bad field is a SetupError naming its path."""

from __future__ import annotations

from ..errors import SetupError
from ..rng import seed_state
from ..ruleset import State, base_state
from . import cards
from .rules import BANDITS, cubes_for, sides_in

SETUP_FIELDS = ("attributes", "cards", "hands", "discards", "bandit_deck", "battles",
                "tie_breaker", "turn_order", "resolver", "current")
BATTLE_FIELDS = ("tile", "knights", "bandits", "alliances", "top", "bottom", "turns")


def check_options(options: dict, catalog: dict) -> None:
    """The options' bounds and choices are checked by Ruleset.resolve_options (the
    declared options_doc); what is left is that a deck named is in this catalog."""
    for name in ("standard_deck", "bandit_deck"):
        if options[name] not in catalog["decks"]:
            raise SetupError(f"options.{name}", f"unknown deck; the decks are {', '.join(sorted(catalog['decks']))}")


def default_battles(seats: list[str], options: dict) -> list[dict]:
    """Every player on the crossroads with the Bandits; the first and last player also
    meet at the old mill; with three or more, the second and third at the watchtower
    (with a Bandit) and the first and second at the riverbank."""
    battles = [{"tile": "crossroads", "knights": {s: options["knights"] for s in seats}, "bandits": options["bandits"]},
               {"tile": "old-mill", "knights": {seats[0]: 1, seats[-1]: 1}, "bandits": 0}]
    if len(seats) >= 3:
        battles.append({"tile": "watchtower", "knights": {seats[1]: 1, seats[2]: 1}, "bandits": min(1, options["bandits"])})
        battles.append({"tile": "riverbank", "knights": {seats[0]: 1, seats[1]: 1}, "bandits": 0})
    return battles


def build(seats: list[str], seed: int, options: dict, setup) -> State:
    catalog = cards.shipped()
    check_options(options, catalog)
    for i, seat in enumerate(seats):
        if seat == BANDITS:
            raise SetupError(f"seats[{i}]", f"{BANDITS!r} names the Bandit player; choose another seat name")
    if setup is None:
        setup = {}
    if not isinstance(setup, dict):
        raise SetupError("setup", "must be an object")
    for key in setup:
        if key not in SETUP_FIELDS:
            raise SetupError(f"setup.{key}", f"unknown field; the fields are {', '.join(SETUP_FIELDS)}")
    sides = list(seats) + [BANDITS]
    kinds = dict(catalog["cards"])
    for i, table in enumerate(_list(setup, "cards", [])):
        kind = cards.card(table, f"setup.cards[{i}]")
        kinds[table["id"]] = kind
    attrs = {}
    given = _dict(setup, "attributes", {})
    for key in given:
        if key not in sides:
            raise SetupError(f"setup.attributes.{key}", "is not a seat of this match nor \"bandits\"")
    for side in sides:
        base = catalog["attributes"]["bandits" if side == BANDITS else "player"]
        attrs[side] = cards.attributes(given.get(side, {}), f"setup.attributes.{side}", base)

    state = base_state(seats)
    state.update(rng=seed_state(seed), kinds=kinds, attributes=attrs, limit=options["battle_turn_limit"],
                 alliances_on=options["alliances"], current=None, phase=None, turn=None, offers={},
                 hands={}, discards={}, bandit_deck=[], cards={})
    state["priority"] = _order(setup, "tie_breaker", sides,
                               sides if options["bandit_priority"] == "last" else [BANDITS] + list(seats))
    state["turn_order"] = _order(setup, "turn_order", list(seats), list(seats))

    standard = catalog["decks"][options["standard_deck"]]["cards"]
    hands, discards = _dict(setup, "hands", {}), _dict(setup, "discards", {})
    for where, table in (("hands", hands), ("discards", discards)):
        for key in table:
            if key not in seats:
                raise SetupError(f"setup.{where}.{key}", "is not a seat of this match")
    for seat in seats:
        state["hands"][seat] = _cards(state, seat, hands.get(seat, standard), f"setup.hands.{seat}")
        state["discards"][seat] = _cards(state, seat, discards.get(seat, []), f"setup.discards.{seat}")
    bandit = catalog["decks"][options["bandit_deck"]]["cards"]
    state["bandit_deck"] = _cards(state, BANDITS, setup.get("bandit_deck", bandit), "setup.bandit_deck")

    state["battles"] = _battles(state, setup.get("battles", default_battles(seats, options)), seats)
    _position(state, setup)
    return state


def _list(setup: dict, key: str, default):
    value = setup.get(key, default)
    if not isinstance(value, list):
        raise SetupError(f"setup.{key}", "must be a list")
    return value


def _dict(setup: dict, key: str, default):
    value = setup.get(key, default)
    if not isinstance(value, dict):
        raise SetupError(f"setup.{key}", "must be an object")
    return value


def _order(setup: dict, key: str, members: list[str], default: list[str]) -> list[str]:
    value = setup.get(key, default)
    if not isinstance(value, list) or sorted(value) != sorted(members) or len(set(value)) != len(value):
        raise SetupError(f"setup.{key}", f"must list each of {', '.join(members)} once")
    return list(value)


def _cards(state: State, owner: str, names, path: str) -> list[str]:
    """Card instances of `owner` for a list of card kinds: ids `owner#cN`, shown to nobody else."""
    if not isinstance(names, list) or len(names) > 60:
        raise SetupError(path, "must be a list of at most 60 card ids")
    out = []
    for i, name in enumerate(names):
        if not isinstance(name, str) or name not in state["kinds"]:
            raise SetupError(f"{path}[{i}]", f"unknown card {name!r}")
        instance = f"{owner}#c{sum(1 for c in state['cards'] if c.startswith(owner + '#')) + 1}"
        state["cards"][instance] = name
        out.append(instance)
    return out


def _count_or_wounds(value, path: str, health: int) -> list[int]:
    """A number of Knights, or the Wounds of each: fewer than the owner's Health (a Knight
    with as many is back in its owner's play area, not on the tile)."""
    if isinstance(value, list):
        if len(value) > 8:
            raise SetupError(path, "at most 8 Knights")
        return [cards.integer(w, f"{path}[{i}]", 0, health - 1) for i, w in enumerate(value)]
    return [0] * cards.integer(value, path, 0, 8)


def _battles(state: State, battles, seats: list[str]) -> list:
    if not isinstance(battles, list) or not 1 <= len(battles) <= 8:
        raise SetupError("setup.battles", "must be a list of 1 to 8 battles")
    out, tiles = [], []
    for i, raw in enumerate(battles):
        path = f"setup.battles[{i}]"
        if not isinstance(raw, dict):
            raise SetupError(path, "must be an object")
        for key in raw:
            if key not in BATTLE_FIELDS:
                raise SetupError(f"{path}.{key}", f"unknown field; the fields are {', '.join(BATTLE_FIELDS)}")
        tile = raw.get("tile")
        if not isinstance(tile, str) or not cards.ID.match(tile) or tile in tiles:
            raise SetupError(f"{path}.tile", "must be a unique name of lowercase letters, digits, - or _")
        tiles.append(tile)
        knights = []
        table = raw.get("knights", {})
        if not isinstance(table, dict):
            raise SetupError(f"{path}.knights", "must be an object: seat -> number of Knights, or their Wounds")
        for seat in table:
            if seat not in seats:
                raise SetupError(f"{path}.knights.{seat}", "is not a seat of this match")
        for seat in seats:  # seat order, whatever the order of the object
            for n, wounds in enumerate(_count_or_wounds(table.get(seat, 0), f"{path}.knights.{seat}",
                                                        state["attributes"][seat]["health"])):
                knights.append({"id": f"{seat}-{n + 1}@{tile}", "owner": seat, "wounds": wounds})
        for n, wounds in enumerate(_count_or_wounds(raw.get("bandits", 0), f"{path}.bandits",
                                                    state["attributes"][BANDITS]["health"])):
            knights.append({"id": f"bandit-{n + 1}@{tile}", "owner": BANDITS, "wounds": wounds})
        battle = {"tile": tile, "knights": knights, "alliances": [], "top": {}, "bottom": {}, "turns": 0,
                  "started": False, "done": False}
        if len(sides_in(battle)) < 2:
            raise SetupError(f"{path}.knights", "a battle needs Knights or Bandits of at least two sides")
        if BANDITS == sides_in(battle)[0] and len(sides_in(battle)) == 1:
            raise SetupError(f"{path}.knights", "a battle needs at least one player")
        out.append((battle, raw, path))
    return out  # finished by _position, which knows the battle in progress


def _position(state: State, setup: dict) -> None:
    """Whose player turn it is (`resolver`), and the battle in progress (`current`): its
    alliances, cubes and turns. Other battles have not started."""
    entries, state["battles"] = state["battles"], [b for b, _, _ in state["battles"]]
    resolver = setup.get("resolver", state["turn_order"][0])
    if resolver not in state["turn_order"]:
        raise SetupError("setup.resolver", "must be a seat of this match")
    state["resolver"] = state["turn_order"].index(resolver)
    current = setup.get("current")
    tiles = [b["tile"] for b in state["battles"]]
    if current is not None and current not in tiles:
        raise SetupError("setup.current", "must be the tile of one of the battles")
    for battle, raw, path in entries:
        if battle["tile"] != current:
            for key in ("alliances", "top", "bottom", "turns"):
                if key in raw:
                    raise SetupError(f"{path}.{key}", "only the battle in progress (setup.current) has this")
            continue
        sides = sides_in(battle)
        if resolver not in sides:
            raise SetupError("setup.current", "the resolver must have Knights in the battle in progress")
        battle["alliances"] = _alliances(raw.get("alliances", []), sides, f"{path}.alliances")
        for part in ("top", "bottom"):
            cubes = raw.get(part)
            if cubes is None:
                cubes = {s: cubes_for(state["attributes"][s]["delay2"]) if part == "top" else 0 for s in sides}
            if not isinstance(cubes, dict) or sorted(cubes) != sorted(sides):
                raise SetupError(f"{path}.{part}", f"must give the cubes of each of {', '.join(sides)}")
            battle[part] = {s: cards.integer(cubes[s], f"{path}.{part}.{s}", 0, 99) for s in sides}
        battle["turns"] = cards.integer(raw.get("turns", 0), f"{path}.turns", 0, state["limit"])
        battle["started"] = True
        state["current"] = current
        state["phase"] = "turn_start"


def _alliances(pairs, sides: list[str], path: str) -> list[list[str]]:
    if not isinstance(pairs, list):
        raise SetupError(path, "must be a list of pairs of seats")
    seen: list[str] = []
    out = []
    for i, pair in enumerate(pairs):
        if not isinstance(pair, list) or len(pair) != 2 or pair[0] == pair[1]:
            raise SetupError(f"{path}[{i}]", "an Alliance is two different players")
        for member in pair:
            if member == BANDITS:
                raise SetupError(f"{path}[{i}]", "Bandit cannot be part of any Alliances")
            if member not in sides:
                raise SetupError(f"{path}[{i}]", f"{member!r} has no Knight in this battle")
            if member in seen:
                raise SetupError(f"{path}[{i}]", f"{member!r} is already in an Alliance")
            seen.append(member)
        out.append(sorted(pair, key=sides.index))
    return out
