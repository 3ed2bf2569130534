"""The shipped cards, units and maps (data/*.json), checked once when first loaded.

Card fields: ``name``, ``type`` (``battle`` | ``spell`` | ``reaction``), ``av`` (attack
value: a card without one is not an attack), ``dv`` (defence value, battle cards and
reactions), ``range`` (``self`` | ``melee`` | ``los`` | ``perception``; Battle Cards are
Melee by default, and only Melee), ``reach`` (most squares away, or none), ``area``
(radius of an area of effect around the target square; 0: one target), and the effects
``push``, ``draw``, ``poison``, ``disease``, ``barrier``, ``effect`` ({title, stat, value,
turns}), ``damage`` and ``move`` (reactions). docs/demigod.md describes each. A setup may
define more cards in the same format (setup.py), checked by the same function.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from ..errors import SetupError

DATA = Path(__file__).parent / "data"
TYPES = ("battle", "spell", "reaction")
RANGES = ("self", "melee", "los", "perception")
STATS = ("av", "dv", "dr")
INTS = ("av", "dv", "reach", "area", "push", "draw", "poison", "disease", "barrier", "damage", "move")


FIELDS = ("name", "type", "text", "range", "effect", *INTS)
MAX_NAME, MAX_TEXT = 80, 500


def check_card(card, where: str) -> dict:
    """A card with its defaults filled in; a SetupError naming `where` and the field if bad
    (shipped cards: `cards.json[3].range`; inline cards of a setup: `setup.cards[0].range`)."""
    if not isinstance(card, dict):
        raise SetupError(where, "a card: an object")
    for key in card:
        if key not in FIELDS:
            raise SetupError(f"{where}.{key}", f"unknown field; the fields are {', '.join(FIELDS)}")
    if not isinstance(card.get("name"), str) or not card["name"] or len(card["name"]) > MAX_NAME:
        raise SetupError(f"{where}.name", f"a card needs a name of at most {MAX_NAME} characters")
    if card.get("type") not in TYPES:
        raise SetupError(f"{where}.type", f"one of {', '.join(TYPES)}")
    text = card.get("text", "")
    if not isinstance(text, str) or len(text) > MAX_TEXT:
        raise SetupError(f"{where}.text", f"a string of at most {MAX_TEXT} characters")
    out = {"name": card["name"], "type": card["type"], "text": text,
           "range": card.get("range", "melee"), **{key: None for key in INTS}, "area": 0}
    if out["range"] not in RANGES or (card["type"] == "battle" and out["range"] != "melee"):
        raise SetupError(f"{where}.range", f"one of {', '.join(RANGES)} (battle cards: melee)")
    for key in INTS:
        if key in card and card[key] is not None:
            if not isinstance(card[key], int) or isinstance(card[key], bool) or not -50 <= card[key] <= 50:
                raise SetupError(f"{where}.{key}", "an integer from -50 to 50")
            out[key] = card[key]
    for key in ("reach", "area", "push", "draw", "poison", "disease", "barrier", "damage", "move"):
        if out[key] is not None and out[key] < 0:
            raise SetupError(f"{where}.{key}", "an integer from 0 to 50")
    if out["area"] > 10:
        raise SetupError(f"{where}.area", "an integer from 0 to 10")
    if card["type"] == "reaction" and out["dv"] is None:
        raise SetupError(f"{where}.dv", "a reaction defends with a value")
    if card["type"] == "battle" and (out["av"] is None or out["dv"] is None):
        raise SetupError(f"{where}.av", "a battle card has an attack value and a defence value")
    if card["type"] != "reaction":
        for key in ("damage", "move"):
            if out[key] is not None:
                raise SetupError(f"{where}.{key}", "only a reaction deals damage to its attacker or moves its character")
    if "effect" in card:
        e = card["effect"]
        if (not isinstance(e, dict) or sorted(e) != ["stat", "title", "turns", "value"]
                or not isinstance(e["title"], str) or not 1 <= len(e["title"]) <= MAX_NAME or e["stat"] not in STATS
                or not isinstance(e["value"], int) or isinstance(e["value"], bool) or not -50 <= e["value"] <= 50
                or not isinstance(e["turns"], int) or isinstance(e["turns"], bool) or not 1 <= e["turns"] <= 99):
            raise SetupError(f"{where}.effect", "{title (1-80 characters), stat (av|dv|dr), value (-50 to 50), turns (1-99)}")
        out["effect"] = {k: e[k] for k in ("title", "stat", "value", "turns")}
    if out["range"] == "self" and out["av"] is not None:
        raise SetupError(f"{where}.av", "a Self card affects the caster only and is not an attack")
    if card["type"] == "spell" and out["range"] != "self" and out["av"] is None:
        raise SetupError(f"{where}.av", "a spell aimed at a target attacks with a value")
    return out


@lru_cache(maxsize=1)
def cards() -> dict:
    """name -> card."""
    raw = json.loads((DATA / "cards.json").read_text())
    out = {}
    for i, card in enumerate(raw):
        c = check_card(card, f"cards.json[{i}]")
        out[c["name"]] = c
    return out


@lru_cache(maxsize=1)
def units() -> dict:
    return json.loads((DATA / "units.json").read_text())


@lru_cache(maxsize=1)
def maps() -> dict:
    """name -> map."""
    return {m["name"]: m for m in json.loads((DATA / "maps.json").read_text())}
