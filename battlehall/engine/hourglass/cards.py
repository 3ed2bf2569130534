"""Battlecards and attributes as data: the shipped default set (data/default.toml) and the
same tables given in a match's setup, checked the same way.

Inside the state every number is an integer: Delay, which may end in .5 and is rounded
up when cubes are placed, is kept in halves (``delay2``).
"""

from __future__ import annotations

import functools
import re
import tomllib
from pathlib import Path

from ..errors import SetupError

ATTRIBUTES = ("health", "defense", "dodge", "damage", "precision", "delay")
OFFENSIVE = ("damage", "precision", "delay")  # rule 7: what the Attacker's Battlecard changes
DEFENSIVE = ("defense", "dodge", "wound")  # rule 6: what a Defender's Battlecard changes
MODIFIERS = OFFENSIVE + DEFENSIVE
ID = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
LIMIT = 99  # no attribute or modifier is larger than this, either way


def halves(value, path: str) -> int:
    """A Delay (or Delay modifier) in halves: an integer, or a number ending in .5."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value * 2 != int(value * 2):
        raise SetupError(path, "must be a whole number or end in .5")
    if abs(value) > LIMIT:
        raise SetupError(path, f"must be between -{LIMIT} and {LIMIT}")
    return int(value * 2)


def integer(value, path: str, low: int = -LIMIT, high: int = LIMIT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SetupError(path, f"must be an integer from {low} to {high}")
    return value


def attributes(table, path: str, base: dict | None = None) -> dict:
    """A player's six attributes (missing ones from `base`), as the state keeps them."""
    if not isinstance(table, dict):
        raise SetupError(path, "must be an object of attributes")
    for key in table:
        if key not in ATTRIBUTES:
            raise SetupError(f"{path}.{key}", f"unknown attribute; the attributes are {', '.join(ATTRIBUTES)}")
    out = dict(base or {})
    for key in ATTRIBUTES:
        if key in table:
            if key == "delay":
                out["delay2"] = halves(table[key], f"{path}.delay")
            else:
                out[key] = integer(table[key], f"{path}.{key}", 1 if key == "health" else 0)
        elif base is None:
            raise SetupError(f"{path}.{key}", "is required")
    if out["delay2"] < 0:
        raise SetupError(f"{path}.delay", "must not be negative")
    return out


def card(table, path: str) -> dict:
    """One Battlecard kind: its name, text and six modifiers (missing ones are 0)."""
    if not isinstance(table, dict):
        raise SetupError(path, "must be an object")
    for key in table:
        if key not in ("id", "name", "text") + MODIFIERS:
            raise SetupError(f"{path}.{key}", "unknown field")
    if not isinstance(table.get("id"), str) or not ID.match(table["id"]):
        raise SetupError(f"{path}.id", "must be lowercase letters, digits, - or _ (at most 64)")
    name = table.get("name", table["id"])
    if not isinstance(name, str) or not name or len(name) > 80:
        raise SetupError(f"{path}.name", "must be a non-empty string of at most 80 characters")
    text = table.get("text", "")
    if not isinstance(text, str) or len(text) > 500:
        raise SetupError(f"{path}.text", "must be a string of at most 500 characters")
    out: dict[str, str | int] = {"name": name, "text": text}
    for key in MODIFIERS:
        if key == "delay":
            out["delay2"] = halves(table.get(key, 0), f"{path}.delay")
        else:
            out[key] = integer(table.get(key, 0), f"{path}.{key}")
    return out


@functools.cache
def shipped() -> dict:
    """The default set: {"set", "attributes": {"player", "bandits"}, "cards": {id: kind},
    "decks": {id: {"name", "cards"}}}. Loaded once per process; callers copy what they keep."""
    raw = tomllib.loads((Path(__file__).parent / "data" / "default.toml").read_text())
    kinds = {}
    for i, table in enumerate(raw["card"]):
        kinds[table["id"]] = card(table, f"card[{i}]")
    decks = {d["id"]: {"name": d["name"], "cards": list(d["cards"])} for d in raw["deck"]}
    for deck in decks.values():
        assert all(c in kinds for c in deck["cards"]), deck
    return {"set": raw["set"], "cards": kinds, "decks": decks, "raw": raw,
            "attributes": {side: attributes(t, f"attributes.{side}") for side, t in raw["attributes"].items()}}


def describe() -> list[dict]:
    """The shipped set for GET /rulesets, in the card file's own terms (Delay as a number)."""
    raw = shipped()["raw"]
    return [{"id": raw["set"]["id"], "name": raw["set"]["name"], "attributes": raw["attributes"],
             "cards": raw["card"], "decks": raw["deck"]}]
