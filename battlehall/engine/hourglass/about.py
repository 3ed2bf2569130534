"""What the values of a prompt's arguments are about, in fields and in words.

A client shown `bob-1@ford` or `alice#c3` should not have to parse ids or look up the
hand to say "bob's Knight 1 (2 of 6 wounds)" or "Parry": every option carries `about`,
one description per argument name and value (docs/hourglass.md, Prompts).
"""

from __future__ import annotations

from ..ruleset import State
from .rules import BANDITS


def delay(delay2: int) -> int | float:
    """A Delay kept in halves, as players read it: 5 -> 2.5, 4 -> 2."""
    return delay2 // 2 if delay2 % 2 == 0 else delay2 / 2


def side_words(side: str) -> str:
    return "the Bandits" if side == BANDITS else side


def tile_words(tile: str) -> str:
    return "the " + tile.replace("-", " ").replace("_", " ")


def knight_name(knight: dict) -> str:
    """"Knight 2" or "Bandit 1": the number in the Knight's id, named for its side."""
    number = knight["id"].rsplit("@", 1)[0].rsplit("-", 1)[-1]
    return f"{'Bandit' if knight['owner'] == BANDITS else 'Knight'} {number}"


def knight_words(knight: dict) -> str:
    """"bob's Knight 1" or "Bandit 2" (a Bandit's owner goes without saying)."""
    name = knight_name(knight)
    return name if knight["owner"] == BANDITS else f"{knight['owner']}'s {name}"


def knight(state: State, tile: str, k: dict) -> dict:
    health = state["attributes"][k["owner"]]["health"]
    return {"knight": k["id"], "name": knight_name(k), "owner": k["owner"], "tile": tile, "wounds": k["wounds"],
            "health": health, "text": f"{knight_words(k)} ({k['wounds']} of {health} wounds)"}


MODIFIER_WORDS = (("damage", "Damage"), ("precision", "Precision"), ("delay2", "Delay"),
                  ("defense", "Defense"), ("dodge", "Dodge"), ("wound", "Wound"))


def modifiers_words(kind: dict) -> str:
    parts = []
    for key, word in MODIFIER_WORDS:
        value = delay(kind[key]) if key == "delay2" else kind[key]
        if value:
            parts.append(f"{word} {'+' if value > 0 else ''}{value}")
    return ", ".join(parts) or "no modifiers"


def card(state: State, instance: str, owner: str) -> dict:
    kind_id = state["cards"][instance]
    kind = state["kinds"][kind_id]
    return {"card": instance, "kind": kind_id, "name": kind["name"], "owner": owner,
            "text": f"{kind['name']} ({modifiers_words(kind)})"}


def card_names(state: State, instances: list[str]) -> str:
    return ", ".join(state["kinds"][state["cards"][c]]["name"] for c in instances)


def battle(b: dict) -> dict:
    counts: dict[str, int] = {}
    for k in b["knights"]:
        counts[k["owner"]] = counts.get(k["owner"], 0) + 1
    sides = ", ".join(f"{n} Bandit{'s' if n > 1 else ''}" if s == BANDITS else f"{s} ({n} Knight{'s' if n > 1 else ''})"
                      for s, n in counts.items())
    return {"tile": b["tile"], "sides": list(counts), "knights": counts, "text": f"{tile_words(b['tile'])}: {sides}"}


def seat(b: dict, s: str) -> dict:
    n = sum(1 for k in b["knights"] if k["owner"] == s)
    return {"seat": s, "knights": n, "text": f"{s} ({n} Knight{'s' if n != 1 else ''} here)"}


NO_TARGET = {"knight": None, "text": "no target: the Knight stays idle"}
