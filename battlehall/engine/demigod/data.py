"""The shipped cards, units and maps (data/*.json), checked once when first loaded.

Card fields: ``name``, ``type`` (``battle`` | ``spell`` | ``reaction``), ``av`` (attack
value: a card without one is not an attack), ``dv`` (defence value, battle cards and
reactions), ``range`` (``self`` | ``melee`` | ``los`` | ``perception``; Battle Cards are
Melee by default, and only Melee), ``reach`` (most squares away, or none), ``area``
(radius of an area of effect around the target square; 0: one target), and the effects
``push``, ``draw``, ``poison``, ``disease``, ``barrier``, ``effect`` ({title, stat, value,
turns}), ``damage`` and ``move`` (reactions). docs/demigod.md describes each.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).parent / "data"
TYPES = ("battle", "spell", "reaction")
RANGES = ("self", "melee", "los", "perception")
STATS = ("av", "dv", "dr")
INTS = ("av", "dv", "reach", "area", "push", "draw", "poison", "disease", "barrier", "damage", "move")


def check_card(card: dict, where: str) -> dict:
    """A card with its defaults filled in; ValueError naming `where` and the field if bad."""
    if not isinstance(card, dict) or not isinstance(card.get("name"), str) or not card["name"]:
        raise ValueError(f"{where}.name: a card needs a name")
    if card.get("type") not in TYPES:
        raise ValueError(f"{where}.type: one of {', '.join(TYPES)}")
    out = {"name": card["name"], "type": card["type"], "text": str(card.get("text", "")),
           "range": card.get("range", "melee"), **{key: None for key in INTS}, "area": 0}
    if out["range"] not in RANGES or (card["type"] == "battle" and out["range"] != "melee"):
        raise ValueError(f"{where}.range: one of {', '.join(RANGES)} (battle cards: melee)")
    for key in INTS:
        if key in card and card[key] is not None:
            if not isinstance(card[key], int) or isinstance(card[key], bool) or not -50 <= card[key] <= 50:
                raise ValueError(f"{where}.{key}: an integer from -50 to 50")
            out[key] = card[key]
    if card["type"] == "reaction" and out["dv"] is None:
        raise ValueError(f"{where}.dv: a reaction defends with a value")
    if card["type"] == "battle" and (out["av"] is None or out["dv"] is None):
        raise ValueError(f"{where}.av: a battle card has an attack value and a defence value")
    if "effect" in card:
        e = card["effect"]
        if (not isinstance(e, dict) or not isinstance(e.get("title"), str) or e.get("stat") not in STATS
                or not isinstance(e.get("value"), int) or not isinstance(e.get("turns"), int) or e["turns"] < 1):
            raise ValueError(f"{where}.effect: {{title, stat (av|dv|dr), value, turns >= 1}}")
        out["effect"] = {k: e[k] for k in ("title", "stat", "value", "turns")}
    if out["range"] == "self" and out["av"] is not None:
        raise ValueError(f"{where}.av: a Self card affects the caster only and is not an attack")
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
