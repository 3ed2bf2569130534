"""What the values of a prompt's arguments are about, in fields and in words.

Every option that takes arguments carries `about`: for each value of each argument (a
character's id, a card instance, a square written ``"x,y"``), its description, so that a
client shows every choice without looking anything up: ``"bob's Minion Ghoul at [4, 3]
(HP 9/9)"``, ``"Strike (battle: AV 4, DV 2, melee)"``, ``"[4, 3]: bob's Minion Ghoul"``.
"""

from __future__ import annotations

from functools import lru_cache

KINDS = {"demigod": "Demigod", "minion": "Minion"}


@lru_cache(maxsize=4096)
def _names(x: int, y: int) -> tuple[str, str]:
    """A square's key and words: a move option lists dozens of squares on every answer."""
    return f"{x},{y}", f"[{x}, {y}]"


def square_key(sq: list) -> str:
    return _names(sq[0], sq[1])[0]


def square_words(sq: list) -> str:
    return _names(sq[0], sq[1])[1]


def squares(state: dict, sqs: list[list]) -> dict:
    """The descriptions of squares, keyed "x,y", with the character on each (one scan of the grid)."""
    at = {tuple(u["pos"]): uid for uid, u in state["units"].items()}
    out = {}
    for sq in sqs:
        key, words = _names(sq[0], sq[1])
        occupant = at.get((sq[0], sq[1]))
        out[key] = {"square": list(sq), "unit": occupant,
                    "text": f"{words}, empty" if occupant is None else f"{words}: {unit_words(state['units'][occupant])}"}
    return out


def unit_words(unit: dict) -> str:
    return f"{unit['side']}'s {KINDS[unit['kind']]} {unit['name']}"


def unit(state: dict, uid: str) -> dict:
    u = state["units"][uid]
    return {"unit": uid, "name": u["name"], "side": u["side"], "kind": u["kind"], "pos": list(u["pos"]),
            "text": f"{unit_words(u)} at {square_words(u['pos'])} (HP {u['hp']}/{u['max_hp']})"}


def card_words(card: dict) -> str:
    """'Fireball (spell: AV 3, line of sight, area 1)'."""
    bits = [f"{k.upper()} {card[k]}" for k in ("av", "dv") if card[k] is not None]
    if card["type"] != "reaction":  # a reaction is played when targeted: it has no range of its own
        bits.append({"los": "line of sight"}.get(card["range"], card["range"]))
    bits += [f"{k} {card[k]}" for k in ("reach", "area", "push", "draw", "poison", "disease", "barrier", "damage", "move")
             if card[k]]
    if card.get("effect"):
        e = card["effect"]
        bits.append(f"{e['title']}: {e['stat'].upper()} {e['value']:+d} for {e['turns']} turn{'s' if e['turns'] != 1 else ''}")
    return f"{card['name']} ({card['type']}: {', '.join(bits)})"


def card(state: dict, cid: str, card_def: dict, owner: str) -> dict:
    return {"card": cid, "name": card_def["name"], "type": card_def["type"], "owner": owner, "text": card_words(card_def)}


def square(state: dict, sq: list) -> dict:
    return squares(state, [sq])[square_key(sq)]
