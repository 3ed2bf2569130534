"""Card data: the vocabulary of the TOML card files, and validation that fails loudly.

A card file holds an optional ``[set]`` table, ``[[card]]`` tables and ``[[deck]]``
tables (docs/cards.md). Every card is checked against the vocabulary below; anything
unknown or malformed raises CardDataError naming the file, the line of the card's
``[[card]]`` header and the card id. Inline cards of a ``setup`` go through the same
checks (:func:`parse_card`) and become SetupErrors naming the field instead.

A parsed card is a plain dict with every field present (absent numbers are 0, absent
words None), so a card can live inside a match state and round-trip through msgpack.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from importlib import resources
from typing import Any

from ..errors import CardDataError

TYPES = ("champion", "ally", "magical_item", "artifact", "spell", "psionic_power", "blood_ability",
         "thief_skill", "unarmed_combat", "event", "realm", "holding", "rule", "dungeon")
CLASSES = ("wizard", "cleric", "hero", "monster", "psionicist", "thief", "regent")
WORLDS = ("forgotten_realms", "greyhawk", "ravenloft", "dark_sun", "dragonlance", "birthright", "add")
SPELL_CLASSES = ("wizard", "cleric")

# "Yellow" support cards: played into a battle on a champion's side.
SUPPORT = ("ally", "magical_item", "artifact", "spell", "psionic_power", "blood_ability", "thief_skill",
           "unarmed_combat")
# Support types only some classes may use, and the champion flag that grants each to others.
CLASS_USES = {"psionic_power": ("psionicist", "uses_psionic_powers"),
              "blood_ability": ("regent", "uses_blood_abilities"),
              "thief_skill": ("thief", "uses_thief_skills"),
              "unarmed_combat": ("hero", "uses_unarmed_combat")}
SPELL_USES = {"wizard": ("wizard", "uses_wizard_spells"), "cleric": ("cleric", "uses_cleric_spells")}
# The cards the Rule of the Cosmos allows once in play across all players.
UNIQUE = ("champion", "artifact", "realm", "holding")
# Where a champion can go instead of the discard pile (rules/NOTES.md): Limbo returns, the
# Abyss and the Void are out of the game. A card's to_* power sends what it defeats there.
BEYOND = ("limbo", "abyss", "void")

_CHAMP = ("champion",)
_PLAYED = SUPPORT + ("event",)
_LAND = ("realm", "holding")
# What `negates` may name: a champion's power, or a kind of support card.
NEGATABLE = ("champion",) + SUPPORT
# Flag powers (the `powers` list) and the card types each applies to.
FLAGS: dict[str, tuple[str, ...]] = {
    "flyer": _CHAMP, "swimmer": _CHAMP, "earthwalker": _CHAMP, "undead": _CHAMP,
    "uses_wizard_spells": _CHAMP, "uses_cleric_spells": _CHAMP, "uses_psionic_powers": _CHAMP,
    "uses_blood_abilities": _CHAMP, "uses_thief_skills": _CHAMP, "uses_unarmed_combat": _CHAMP,
    "coastal": ("realm",), "sealed": ("realm",), "defeat_twice": ("realm",),
    "any_time": SUPPORT,
    "raze_realm_event": ("event",), "discard_realm_event": ("event",), "discard_attacker_event": ("event",),
    "discard_defender_event": ("event",), "discard_both_event": ("event",), "counter_spell": ("event",),
    # outcomes of spellfire-3 (battle.py)
    "return_to_pool": _CHAMP + SUPPORT,           # its champion returns to the pool instead of being discarded
    "to_limbo": _CHAMP + _PLAYED, "to_abyss": _CHAMP + _PLAYED, "to_void": _CHAMP + _PLAYED,
    "after_combat_discard": _CHAMP + SUPPORT,     # after the round, the opposing champion is discarded
    "extra_attack": _CHAMP,                       # may attack twice in a turn, in a further battle too
    # timing and reach of a power (activation.py)
    "before_combat": _CHAMP + SUPPORT + _LAND,   # activates in row 6, before every champion
    "before_battle": SUPPORT,                    # played before the battle, activates in row 5
    "always_active": _LAND,                      # works in every battle of its owner, attacked or not
    "brings_ally": _CHAMP,                       # calls a pool champion in as an ally (battle_play only)
    "discard_rule_event": ("event",),            # the rule card in play is discarded
    "play_at_once": ("event",),                  # its player may play another card at once
}
# At most one destination per card.
DESTINATIONS = {"to_limbo": "limbo", "to_abyss": "abyss", "to_void": "void"}
# Named hooks: powers that need code (powers.py), and the types each may sit on.
HOOKS: dict[str, tuple[str, ...]] = {
    "mirror": ("ally",),            # bonus = half the opposing champion's level
    "last_stand": _CHAMP,           # +4 while its owner has two unrazed realms or fewer
    "turn_undead": ("spell",),      # +4 more against an undead champion
    "scavenge": ("event",),         # the top non-event card of the discard pile back to hand
    "lure": ("event",),             # discards the opposing champion if it is a monster
}
# Numeric and word fields: (types it may appear on, check) — check returns an error or None.
Check = Callable[[Any], "str | None"]


def _int(lo: int, hi: int) -> Check:
    def check(v: Any) -> str | None:
        if not isinstance(v, int) or isinstance(v, bool):
            return f"must be an integer, not {type(v).__name__}"
        if not lo <= v <= hi:
            return f"must be from {lo} to {hi}, not {v}"
        return None
    return check


def _word(words: tuple[str, ...]) -> Check:
    def check(v: Any) -> str | None:
        if v not in words:
            return f"must be one of {', '.join(words)}, not {v!r}"
        return None
    return check


def _text(v: Any) -> str | None:
    if not isinstance(v, str) or not v.strip():
        return "must be a non-empty string"
    return None


_ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def _id(v: Any) -> str | None:
    if not isinstance(v, str) or not _ID.match(v):
        return "must be lowercase letters, digits, '-' or '_' (at most 64), starting with a letter or digit"
    return None


ALL = TYPES
FIELDS: dict[str, tuple[tuple[str, ...], Check | None]] = {  # None: checked by its own function
    "id": (ALL, _id),
    "name": (ALL, _text),
    "type": (ALL, _word(TYPES)),
    "text": (ALL, lambda v: None if isinstance(v, str) else "must be a string"),
    "world": (ALL, _word(WORLDS)),
    "class": (_CHAMP, _word(CLASSES)),
    "level": (_CHAMP, _int(0, 20)),
    "bonus": (_PLAYED, _int(-10, 20)),
    "spell_class": (("spell",), _word(SPELL_CLASSES)),
    "attack_bonus": (_CHAMP + SUPPORT + _LAND + ("rule", "dungeon"), _int(-10, 20)),
    "defend_bonus": (_CHAMP + SUPPORT + _LAND + ("rule", "dungeon"), _int(-10, 20)),
    "draw_cards": (_PLAYED, _int(1, 5)),
    "slays": (_CHAMP + _PLAYED, _word(CLASSES + ("undead",))),
    "negates": (_CHAMP + _PLAYED + _LAND + ("rule", "dungeon"), None),  # checked by _negates
    "cost": (_CHAMP, None),  # checked by _cost: a champion with a cost is an avatar
    "defends_as": (("realm",), _int(1, 20)),  # the realm may defend itself as a champion of this level
    "hook": (ALL, None),   # checked against HOOKS below
    "powers": (ALL, None),  # checked against FLAGS below
}
REQUIRED: dict[str, tuple[str, ...]] = {
    "champion": ("class", "level", "world"),
    "realm": ("world",), "holding": ("world",),
    "artifact": ("world", "bonus"),
    "spell": ("bonus", "spell_class"),
    "event": (), "rule": (), "dungeon": (),
}
for _t in ("ally", "magical_item", "psionic_power", "blood_ability", "thief_skill", "unarmed_combat"):
    REQUIRED[_t] = ("bonus",)
NUMBERS = ("level", "bonus", "attack_bonus", "defend_bonus", "draw_cards", "defends_as")
# An avatar's cost (`cost = {...}`): what its player must have, or give, to play it.
COST_KEYS = {"realms": _int(1, 6),            # at least this many unrazed realms in formation
             "sacrifice": _word(CLASSES)}     # a pool champion of this class is discarded


class FieldError(Exception):
    """A bad field of one card; the caller turns it into CardDataError or SetupError."""

    def __init__(self, field: str | None, message: str):
        super().__init__(message)
        self.field, self.message = field, message


def parse_card(table: Any) -> dict:
    """Check one card table and return it normalized (every field present)."""
    if not isinstance(table, dict):
        raise FieldError(None, "a card must be a table")
    for key in ("id", "name", "type"):
        if key not in table:
            raise FieldError(key, f"missing field {key!r}")
        check = FIELDS[key][1]
        assert check is not None  # id, name and type have checks
        problem = check(table[key])
        if problem:
            raise FieldError(key, f"{key} {problem}")
    kind = table["type"]
    for key in REQUIRED[kind]:
        if key not in table:
            raise FieldError(key, f"missing field {key!r} (a {kind} needs {', '.join(REQUIRED[kind])})")
    card = {"id": table["id"], "name": table["name"], "type": kind, "text": "", "world": None,
            "class": None, "spell_class": None, "slays": None, "hook": None, "powers": [],
            "negates": [], "cost": None}
    card.update({k: 0 for k in NUMBERS})
    if kind != "champion":
        card["level"] = None
    for key in table:  # file order; every key is checked
        if key not in FIELDS:
            raise FieldError(key, f"unknown field {key!r} (known: {', '.join(FIELDS)})")
        types, check = FIELDS[key]
        if kind not in types:
            raise FieldError(key, f"field {key!r} does not apply to a {kind}")
        value = table[key]
        if key == "powers":
            card["powers"] = _powers(value, kind)
        elif key == "negates":
            card["negates"] = _negates(value)
        elif key == "cost":
            card["cost"] = _cost(value)
        elif key == "hook":
            if not isinstance(value, str):
                raise FieldError(key, f"hook must be a string, one of {', '.join(HOOKS)}")
            if value not in HOOKS:
                raise FieldError(key, f"unknown power: hook {value!r} (known: {', '.join(HOOKS)})")
            if kind not in HOOKS[value]:
                raise FieldError(key, f"hook {value!r} does not apply to a {kind}")
            card["hook"] = value
        else:
            assert check is not None  # only the fields above are checked by their own function
            problem = check(value)
            if problem:
                raise FieldError(key, f"{key} {problem}")
            card[key] = value
    return card


def _powers(value: Any, kind: str) -> list[str]:
    if not isinstance(value, list):
        raise FieldError("powers", "powers must be a list of power names")
    seen: list[str] = []
    for i, power in enumerate(value):
        if not isinstance(power, str) or power not in FLAGS:
            raise FieldError(f"powers[{i}]", f"unknown power {power!r} (known: {', '.join(FLAGS)})")
        if kind not in FLAGS[power]:
            raise FieldError(f"powers[{i}]", f"power {power!r} does not apply to a {kind}")
        if power in seen:
            raise FieldError(f"powers[{i}]", f"power {power!r} given twice")
        seen.append(power)
    if len([p for p in seen if p in DESTINATIONS]) > 1:
        raise FieldError("powers", f"at most one of {', '.join(DESTINATIONS)}")
    return seen


def _negates(value: Any) -> list[str]:
    if not isinstance(value, list) or not value:
        raise FieldError("negates", f"negates must be a non-empty list of {', '.join(NEGATABLE)}")
    for i, kind in enumerate(value):
        if kind not in NEGATABLE:
            raise FieldError(f"negates[{i}]", f"unknown negates {kind!r} (known: {', '.join(NEGATABLE)})")
        if kind in value[:i]:
            raise FieldError(f"negates[{i}]", f"negates {kind!r} given twice")
    return list(value)


def _cost(value: Any) -> dict:
    if not isinstance(value, dict) or not value:
        raise FieldError("cost", f"cost must be a table of {', '.join(COST_KEYS)}")
    for key, v in value.items():
        if key not in COST_KEYS:
            raise FieldError(f"cost.{key}", f"unknown cost {key!r} (known: {', '.join(COST_KEYS)})")
        problem = COST_KEYS[key](v)
        if problem:
            raise FieldError(f"cost.{key}", f"cost.{key} {problem}")
    return dict(value)


# -- files ----------------------------------------------------------------------------

_HEADER = re.compile(r"^\s*\[\[\s*(card|deck)\s*\]\]\s*(#.*)?$")


def _header_lines(text: str) -> dict[str, list[int]]:
    """Line numbers of the [[card]] and [[deck]] headers, in order (tomllib gives none)."""
    lines: dict[str, list[int]] = {"card": [], "deck": []}
    for number, line in enumerate(text.splitlines(), start=1):
        m = _HEADER.match(line)
        if m:
            lines[m.group(1)].append(number)
    return lines


def load_text(text: str, file: str) -> dict:
    """Parse one card file's text: {"set": {...} | None, "cards": [...], "decks": [...]}."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"line (\d+)", str(e))
        raise CardDataError(file, int(m.group(1)) if m else None, None, f"not valid TOML: {e}") from None
    for key in data:
        if key not in ("set", "card", "deck"):
            raise CardDataError(file, None, None, f"unknown top-level key {key!r} (expected set, card, deck)")
    headers = _header_lines(text)
    cards_raw = data.get("card", [])
    decks_raw = data.get("deck", [])
    for name, raw in (("card", cards_raw), ("deck", decks_raw)):
        if not isinstance(raw, list) or len(raw) != len(headers[name]):
            raise CardDataError(file, None, None, f"write each {name} as its own [[{name}]] table")
    info = data.get("set")
    if info is not None and (not isinstance(info, dict) or _id(info.get("id")) or _text(info.get("name"))):
        raise CardDataError(file, None, None, "[set] needs an id (lowercase slug) and a name")
    cards: list[tuple[dict, int]] = []  # (card, line)
    seen: dict[str, int] = {}  # card id -> the line it is first defined at
    for table, line in zip(cards_raw, headers["card"]):
        cid = table.get("id") if isinstance(table.get("id"), str) else None
        try:
            card = parse_card(table)
        except FieldError as e:
            raise CardDataError(file, line, cid, e.message) from None
        if card["id"] in seen:
            raise CardDataError(file, line, cid, f"duplicate id (first at line {seen[card['id']]})")
        seen[card["id"]] = line
        cards.append((card, line))
    decks = []
    for table, line in zip(decks_raw, headers["deck"]):
        did = table.get("id") if isinstance(table.get("id"), str) else None
        if _id(did) or _text(table.get("name")) or not isinstance(table.get("cards"), list) \
                or sorted(table) != ["cards", "id", "name"]:
            raise CardDataError(file, line, did, "a deck needs exactly an id, a name and a list of card ids")
        decks.append(({"id": did, "name": table["name"], "cards": list(table["cards"])}, line))
    return {"set": info, "cards": cards, "decks": decks}


class Catalog:
    """Cards and decks of a list of card files; ids are unique across all of them."""

    def __init__(self, files: list[tuple[str, str]]):
        self.cards: dict[str, dict] = {}
        self.decks: dict[str, dict] = {}
        self.sets: list[dict] = []
        where: dict[str, str] = {}
        pending: list[tuple[str, dict, int]] = []  # (file, deck, line)
        for file, text in files:
            parsed = load_text(text, file)
            set_cards = []
            for card, line in parsed["cards"]:
                if card["id"] in self.cards:
                    raise CardDataError(file, line, card["id"], f"duplicate id (also in {where[card['id']]})")
                self.cards[card["id"]] = card
                where[card["id"]] = f"{file}:{line}"
                set_cards.append(card["id"])
            if parsed["set"] is not None:
                self.sets.append({"id": parsed["set"]["id"], "name": parsed["set"]["name"], "cards": set_cards,
                                  "decks": [deck["id"] for deck, _ in parsed["decks"]]})
            pending.extend((file, deck, line) for deck, line in parsed["decks"])
        for file, deck, line in pending:  # decks may name cards of any file
            if deck["id"] in self.decks:
                raise CardDataError(file, line, deck["id"], "duplicate deck id")
            for i, cid in enumerate(deck["cards"]):
                if cid not in self.cards:
                    raise CardDataError(file, line, deck["id"], f"cards[{i}]: unknown card {cid!r}")
            self.decks[deck["id"]] = deck


def load_files(paths: list[str]) -> Catalog:
    """A catalog from card files on disk (for tools and tests)."""
    files = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            files.append((str(path), f.read()))
    return Catalog(files)


_shipped: Catalog | None = None


def shipped() -> Catalog:
    """The cards and decks in the package's cards/*.toml, loaded once per process."""
    global _shipped
    if _shipped is None:
        folder = resources.files(__package__).joinpath("cards")
        names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".toml"))
        _shipped = Catalog([(f"cards/{n}", folder.joinpath(n).read_text(encoding="utf-8")) for n in names])
    return _shipped
