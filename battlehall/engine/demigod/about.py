"""What the values of a prompt's arguments are about, in fields and in words.

Every option that takes arguments carries `about`: for each value of each argument (a
character's id, a card instance, a square written ``"x,y"``), its description, so that a
client shows every choice without looking anything up: ``"bob's Minion Ghoul at [4, 3]
(HP 9/9)"``, ``"Strike (battle: AV 4, DV 2, melee)"``, ``"[4, 3]: bob's Minion Ghoul"``.
"""

from __future__ import annotations

KINDS = {"demigod": "Demigod", "minion": "Minion"}


def square_key(sq: list) -> str:
    return f"{sq[0]},{sq[1]}"


def square_words(sq: list) -> str:
    return f"[{sq[0]}, {sq[1]}]"


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


def square(state: dict, sq: list, occupant: str | None) -> dict:
    if occupant is None:
        return {"square": list(sq), "unit": None, "text": f"{square_words(sq)}, empty"}
    return {"square": list(sq), "unit": occupant, "text": f"{square_words(sq)}: {unit_words(state['units'][occupant])}"}
