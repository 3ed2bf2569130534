"""Starting positions: the default one (shuffled decks) and an explicit `setup` (docs/setup.md).

Card instances are numbered ``c1, c2, ...`` in the order they are created: seat by seat,
and for an explicit setup within a seat: formation (A-F, realm then holding), pool
(champion then attachments), hand, draw pile, discard pile, dungeon; the rule card in
play last. Every problem of a setup is
a SetupError naming the exact field, e.g. ``setup.players.bob.hand[2]``.
"""

from __future__ import annotations

from typing import cast

from ..errors import SetupError
from ..rng import shuffle
from . import battle, battle_state, formation, turn, zones
from .cards import UNIQUE, FieldError, parse_card, shipped

#: Entries of any one list of a setup (inline cards, a pool, a zone, attachments): far
#: more than a deck holds, and few enough that no check of a setup is ever slow.
MAX_ENTRIES = 200


def instance(state: dict, cid: str) -> str:
    iid = f"c{len(state['cards']) + 1}"
    state["cards"][iid] = cid
    return iid


def empty_player() -> dict:
    return {"draw": [], "hand": [], "pool": [], "formation": formation.empty(), "discard": [],
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
        zones.draw(state, seat, state["options"]["starting_hand"], "start", events)
    turn.begin(state, state["seats"][0], 1, events)


def explicit_start(state: dict, setup: object, events: list) -> None:
    setup = _dict(setup, "setup", ("cards", "players", "turn", "rule", "battle"))
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
              ("seat", "phase", "number", "realm_played", "holding_played", "attacks", "used"))
    seat = t.get("seat", state["seats"][0])
    if seat not in state["seats"]:
        raise SetupError("setup.turn.seat", f"unknown seat {seat!r}")
    asked = setup.get("battle")  # a battle in progress, or None
    phase = t.get("phase", "rule" if asked is None else "attack")
    if phase not in turn.PHASES:
        raise SetupError("setup.turn.phase", f"phase must be one of {', '.join(turn.PHASES)}")
    if asked is not None and phase != "attack":
        raise SetupError("setup.turn.phase", "a battle is fought in phase attack")
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
    used = _used(state, _list(t.get("used", []), "setup.turn.used"))
    fight = None if asked is None else _battle(state, asked, seat, used, in_play)
    if fight is not None and attacks >= state["options"]["attacks_per_turn"]:
        raise SetupError("setup.turn.attacks", "a battle in progress needs an attack left this turn "
                                               "(attacks below the option attacks_per_turn)")
    events.append({"kind": "match_started", "data": {"seats": state["seats"], "decks": None,
                                                     "options": state["options"], "setup": True}})
    turn.begin(state, seat, number, events, phase, attacks=attacks, used=used, **flags)
    if fight is not None:
        _enter_battle(state, fight, events)


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
        return instance(state, cast(str, cid))  # a str: _card refuses any other cid

    slots = _dict(p.get("formation", {}), f"{path}.formation", formation.SLOTS)
    for s in formation.SLOTS:
        if slots.get(s) is None:
            continue
        where = f"{path}.formation.{s}"
        slot = _dict(slots[s], where, ("realm", "razed", "holding"))
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
            if not formation.worlds_match(zones.card(state, holding)["world"], zones.card(state, realm)["world"]):
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
            if zones.card(state, iid)["type"] == "artifact" and not zones.artifact_fits(state, iid, champion, attached):
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
    return instance(state, cast(str, cid))  # a str: _card refuses any other cid


def _used(state: dict, cids: list) -> list[str]:
    """`turn.used`: champions that already fought this turn, by card id: every instance
    of each in a pool or a hand (card ids are unique in play, not in hands)."""
    used: list[str] = []
    for i, cid in enumerate(cids):
        where = f"setup.turn.used[{i}]"
        if _card(state, cid, where)["type"] != "champion":
            raise SetupError(where, f"{cid!r} is not a champion")
        found = [iid for seat in state["seats"] for iid in _champions(state, seat) if state["cards"][iid] == cid]
        if not found:
            raise SetupError(where, f"{cid!r} is in no pool or hand of the setup")
        if found[0] in used:
            raise SetupError(where, f"{cid!r} is named twice")
        used += found
    return used


def _champions(state: dict, seat: str) -> list[str]:
    player = state["players"][seat]
    return [e["champion"] for e in player["pool"]] + [i for i in player["hand"] if zones.card(state, i)["type"] == "champion"]


def _battle(state: dict, asked: object, attacker: str, used: list[str], in_play: dict) -> dict:
    """Check `setup.battle` and create its champions (after every seat's cards): in the
    pool or hand they come from, so that the battle takes them as an answer would."""
    given = _dict(asked, "setup.battle", ("realm", "defeats", "attacker", "defender"))
    if "realm" not in given:
        raise SetupError("setup.battle.realm", "a battle needs the realm under attack")
    realm = _dict(given["realm"], "setup.battle.realm", ("seat", "slot"))
    defender = realm.get("seat")
    if defender not in state["seats"] or defender == attacker:
        raise SetupError("setup.battle.realm.seat", "the realm's owner must be a seat other than the one whose turn it is")
    defending = state["players"][defender]["formation"]
    slot = realm.get("slot")
    if slot not in formation.SLOTS or defending[slot] is None or defending[slot]["razed"]:
        raise SetupError("setup.battle.realm.slot", f"{defender} has no unrazed realm in slot {slot!r}")
    realm_card = zones.card(state, defending[slot]["realm"])
    defeats = given.get("defeats", 0)
    if defeats not in (0, 1) or isinstance(defeats, bool) or (defeats and "defeat_twice" not in realm_card["powers"]):
        raise SetupError("setup.battle.defeats", "defeats is 0, or 1 for a realm that must be defeated twice")
    fight = {"realm": defending[slot]["realm"], "defeats": defeats, "attacker": None, "defender": None}
    if "defender" in given and "attacker" not in given:
        raise SetupError("setup.battle.defender", "a defending champion needs an attacking one")
    for side, seat in (("attacker", attacker), ("defender", defender)):
        if side not in given:
            continue
        where = f"setup.battle.{side}"
        entry = _dict(given[side], where, ("champion", "from", "attached"))
        came = entry.get("from", "pool")
        if came not in ("pool", "hand"):
            raise SetupError(f"{where}.from", "from is 'pool' or 'hand'")
        if "champion" not in entry:
            raise SetupError(f"{where}.champion", "a side needs a champion")
        cid = entry["champion"]
        c = _card(state, cid, f"{where}.champion")
        if c["type"] != "champion":
            raise SetupError(f"{where}.champion", f"{cid!r} is a {c['type']}, expected champion")
        if cid in in_play:
            raise SetupError(f"{where}.champion", f"Rule of the Cosmos: {cid!r} is already in play at {in_play[cid]}")
        if cid in (state["cards"][i] for i in used):
            raise SetupError(f"{where}.champion", f"{cid!r} already fought this turn (setup.turn.used)")
        if side == "attacker" and not formation.reaches(c, realm_card, formation.exposed(defending, slot)):
            raise SetupError(f"{where}.champion", f"{cid!r} cannot reach {realm_card['id']!r}: it is not exposed "
                                                  "and no movement power of the champion reaches it")
        if came == "hand" and c["cost"] is not None:
            raise SetupError(f"{where}.from", f"{cid!r} is an avatar: it comes into play only through the pool")
        attached_ids = _list(entry.get("attached", []), f"{where}.attached")
        if attached_ids and came == "hand":
            raise SetupError(f"{where}.attached", "a champion from the hand brings no attachments")
        in_play[cid] = f"{where}.champion"
        iid = instance(state, cid)
        attached: list[str] = []
        for j, aid in enumerate(attached_ids):
            at = f"{where}.attached[{j}]"
            a = _card(state, aid, at)
            if a["type"] not in ("magical_item", "artifact"):
                raise SetupError(at, f"{aid!r} is a {a['type']}, expected magical_item or artifact")
            if a["type"] in UNIQUE:
                if aid in in_play:
                    raise SetupError(at, f"Rule of the Cosmos: {aid!r} is already in play at {in_play[aid]}")
                in_play[aid] = at
            attached.append(instance(state, aid))
            if a["type"] == "artifact" and not zones.artifact_fits(state, attached[-1], iid, attached[:-1]):
                raise SetupError(at, "one artifact per champion, of the champion's world")
        player = state["players"][seat]
        if came == "pool":
            player["pool"].append({"champion": iid, "attached": attached})
        else:
            player["hand"].append(iid)
        fight[side] = iid
    return fight


def _enter_battle(state: dict, fight: dict, events: list) -> None:
    """Start the battle as the answers that lead to it would (steps A, B, C and D), so
    that its events are those of play and are in the match's log. The prompts those
    answers close were never shown: they are dropped, and their ids are not spent."""
    def answered() -> None:
        state["prompts"] = []
        state["next_prompt"] = first

    first = state["next_prompt"] - len(state["prompts"])
    answered()  # the attack phase's choose_realm
    battle.start(state, fight["realm"], events)
    started = battle_state.current(state)
    started["round"] = started["defeats"] = fight["defeats"]  # rounds won before, against a realm defeated twice
    if fight["attacker"] is None:
        return
    answered()
    battle.answer_attacker(state, fight["attacker"], events)
    if fight["defender"] is None:
        return
    answered()
    if battle.answer_defender(state, fight["defender"], events):
        turn.after_battle(state, events)


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
