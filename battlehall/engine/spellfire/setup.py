"""Starting positions: the default one (shuffled decks) and an explicit `setup` (docs/setup.md).

Card instances are numbered ``c1, c2, ...`` in the order they are created: seat by seat,
and for an explicit setup within a seat: formation (A-F, realm then holding), pool
(champion then attachments), hand, draw pile, discard pile, dungeon; the rule card in
play last. Every problem of a setup is
a SetupError naming the exact field, e.g. ``setup.players.bob.hand[2]``.
"""

from __future__ import annotations

from ..errors import SetupError
from ..rng import shuffle
from . import formation as fm
from . import turn as tn
from . import zones as z
from .cards import FieldError, UNIQUE, parse_card, shipped

#: Entries of any one list of a setup (inline cards, a pool, a zone, attachments): far
#: more than a deck holds, and few enough that no check of a setup is ever slow.
MAX_ENTRIES = 200


def instance(state: dict, cid: str) -> str:
    iid = f"c{len(state['cards']) + 1}"
    state["cards"][iid] = cid
    return iid


def empty_player() -> dict:
    return {"draw": [], "hand": [], "pool": [], "formation": fm.empty(), "discard": [],
            "limbo": [], "abyss": [], "void": []}


def default_start(state: dict, decks: list[str], events: list) -> None:
    """Each seat shuffles its deck; hands are dealt; the first seat's turn begins."""
    catalog = shipped()
    for seat, deck in zip(state["seats"], decks):
        player = state["players"][seat] = empty_player()
        player["draw"] = [instance(state, cid) for cid in catalog.decks[deck]["cards"]]
        shuffle(state, player["draw"])
    events.append({"kind": "match_started", "data": {"seats": state["seats"], "decks": dict(zip(state["seats"], decks)),
                                                     "options": state["options"], "setup": False}})
    for seat in state["seats"]:
        z.draw(state, seat, state["options"]["starting_hand"], "start", events)
    tn.begin(state, state["seats"][0], 1, events)


def explicit_start(state: dict, setup: object, events: list) -> None:
    setup = _dict(setup, "setup", ("cards", "players", "turn", "rule"))
    cards = _list(setup.get("cards", []), "setup.cards")
    shipped_cards = shipped().cards
    for i, table in enumerate(cards):
        try:
            card = parse_card(table)
        except FieldError as e:
            raise SetupError(f"setup.cards[{i}]" + (f".{e.field}" if e.field else ""), e.message) from None
        if card["id"] in shipped_cards or card["id"] in state["custom_cards"]:
            raise SetupError(f"setup.cards[{i}].id", f"duplicate id {card['id']!r}")
        state["custom_cards"][card["id"]] = card
    players = _dict(setup.get("players"), "setup.players", tuple(state["seats"]))
    in_play: dict[str, str] = {}
    for seat in state["seats"]:
        path = f"setup.players.{seat}"
        state["players"][seat] = _player(state, _dict(players.get(seat, {}), path,
                                                      ("formation", "pool", "hand", "draw", "discard", "dungeon")),
                                               path, in_play)
        dungeon = players.get(seat, {}).get("dungeon")
        if dungeon is not None:
            state["dungeons"][seat] = _in_play(state, dungeon, f"{path}.dungeon", "dungeon")
    if setup.get("rule") is not None:
        rule = _dict(setup["rule"], "setup.rule", ("seat", "card"))
        if rule.get("seat") not in state["seats"]:
            raise SetupError("setup.rule.seat", f"the rule card's owner must be a seat, not {rule.get('seat')!r}")
        state["rule"] = {"seat": rule["seat"], "card": _in_play(state, rule.get("card"), "setup.rule.card", "rule")}
    t = _dict(setup.get("turn", {}), "setup.turn",
              ("seat", "phase", "number", "realm_played", "holding_played", "attacks"))
    seat = t.get("seat", state["seats"][0])
    if seat not in state["seats"]:
        raise SetupError("setup.turn.seat", f"unknown seat {seat!r}")
    phase = t.get("phase", "rule")
    if phase not in tn.PHASES:
        raise SetupError("setup.turn.phase", f"phase must be one of {', '.join(tn.PHASES)}")
    number = t.get("number", 1)
    if not _is_int(number) or not 1 <= number <= state["options"]["turn_limit"]:
        raise SetupError("setup.turn.number", "number must be an integer from 1 to the turn limit")
    flags = {}
    for key in ("realm_played", "holding_played"):
        if not isinstance(t.get(key, False), bool):
            raise SetupError(f"setup.turn.{key}", f"{key} must be true or false")
        flags[key] = t.get(key, False)
    attacks = t.get("attacks", 0)
    if not _is_int(attacks) or attacks < 0:
        raise SetupError("setup.turn.attacks", "attacks must be a non-negative integer")
    events.append({"kind": "match_started", "data": {"seats": state["seats"], "decks": None,
                                                     "options": state["options"], "setup": True}})
    tn.begin(state, seat, number, events, phase, attacks=attacks, **flags)


def _player(state: dict, p: dict, path: str, in_play: dict) -> dict:
    player = empty_player()

    def place(cid: object, where: str, kinds: tuple[str, ...]) -> str:
        c = _card(state, cid, where)
        if c["type"] not in kinds:
            raise SetupError(where, f"{cid!r} is a {c['type']}, expected {' or '.join(kinds)}")
        if c["type"] in UNIQUE:
            if cid in in_play:
                raise SetupError(where, f"Rule of the Cosmos: {cid!r} is already in play at {in_play[cid]}")
            in_play[cid] = where
        return instance(state, cid)

    formation = _dict(p.get("formation", {}), f"{path}.formation", fm.SLOTS)
    for s in fm.SLOTS:
        if formation.get(s) is None:
            continue
        where = f"{path}.formation.{s}"
        slot = _dict(formation[s], where, ("realm", "razed", "holding"))
        if "realm" not in slot:
            raise SetupError(f"{where}.realm", "a formation slot needs a realm")
        realm = place(slot["realm"], f"{where}.realm", ("realm",))
        razed = slot.get("razed", False)
        if not isinstance(razed, bool):
            raise SetupError(f"{where}.razed", "razed must be true or false")
        holding = None
        if slot.get("holding") is not None:
            if razed:
                raise SetupError(f"{where}.holding", "a razed realm has no holding")
            holding = place(slot["holding"], f"{where}.holding", ("holding",))
            if not fm.worlds_match(z.card(state, holding)["world"], z.card(state, realm)["world"]):
                raise SetupError(f"{where}.holding", "the holding's world does not match the realm's")
        player["formation"][s] = {"realm": realm, "razed": razed, "holding": holding}
    for i, entry in enumerate(_list(p.get("pool", []), f"{path}.pool")):
        where = f"{path}.pool[{i}]"
        entry = _dict(entry, where, ("champion", "attached"))
        if "champion" not in entry:
            raise SetupError(f"{where}.champion", "a pool entry needs a champion")
        champion = place(entry["champion"], f"{where}.champion", ("champion",))
        attached: list[str] = []
        for j, cid in enumerate(_list(entry.get("attached", []), f"{where}.attached")):
            at = f"{where}.attached[{j}]"
            iid = place(cid, at, ("magical_item", "artifact"))
            if z.card(state, iid)["type"] == "artifact" and not z.artifact_fits(state, iid, champion, attached):
                raise SetupError(at, "one artifact per champion, of the champion's world")
            attached.append(iid)
        player["pool"].append({"champion": champion, "attached": attached})
    for zone in ("hand", "draw", "discard"):
        for i, cid in enumerate(_list(p.get(zone, []), f"{path}.{zone}")):
            where = f"{path}.{zone}[{i}]"
            _card(state, cid, where)
            player[zone].append(instance(state, cid))
    return player


def _in_play(state: dict, cid: object, where: str, kind: str) -> str:
    """A rule card or dungeon put in play by the setup."""
    if _card(state, cid, where)["type"] != kind:
        raise SetupError(where, f"{cid!r} is not a {kind}")
    return instance(state, cid)


def _card(state: dict, cid: object, where: str) -> dict:
    if isinstance(cid, str):
        c = shipped().cards.get(cid) or state["custom_cards"].get(cid)
        if c is not None:
            return c
    raise SetupError(where, f"unknown card {cid!r}")


def _dict(value: object, path: str, keys: tuple[str, ...]) -> dict:
    if not isinstance(value, dict):
        raise SetupError(path, "must be an object")
    for key in value:
        if key not in keys:
            raise SetupError(f"{path}.{key}", f"unknown field {key!r} (expected {', '.join(keys)})")
    return value


def _list(value: object, path: str) -> list:
    if not isinstance(value, list):
        raise SetupError(path, "must be a list")
    if len(value) > MAX_ENTRIES:
        raise SetupError(path, f"at most {MAX_ENTRIES} entries")
    return value


def _is_int(v: object) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)
