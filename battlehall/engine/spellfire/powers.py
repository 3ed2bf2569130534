"""What card powers do in a battle: levels and bonuses, who may use what, and effects.

The declarative vocabulary (cards.py) is interpreted here; the few powers that need code
are the named hooks at the bottom. A card played into a battle returns an *outcome*
when it ends the round or the battle outright (spellfire-3):

- ``"realm_razed"``: the realm falls to card play; both champions go back to their pools.
- ``"attacker_discarded"``: the attacking champion is discarded; the battle is over.
- ``"defender_discarded"``: the defending champion is discarded; the attacker wins the round.
- ``"both_discarded"``: both champions are discarded; no winner, no spoils.
"""

from __future__ import annotations

from . import formation as fm
from . import zones as z
from .cards import CLASS_USES, SPELL_USES

OTHER = {"attacker": "defender", "defender": "attacker"}
SAME_WORLD_BONUS = 3


def can_use(champion: dict, c: dict) -> bool:
    """May a champion's side play this card (class restrictions, NOTES.md)?"""
    kind = c["type"]
    if kind == "spell":
        cls, flag = SPELL_USES[c["spell_class"]]
    elif kind in CLASS_USES:
        cls, flag = CLASS_USES[kind]
    else:
        return True  # allies, magical items, artifacts, events: anyone
    return champion["class"] == cls or flag in champion["powers"]


def slays(c: dict, target: dict) -> bool:
    s = c["slays"]
    return s is not None and (target["class"] == s or (s == "undead" and "undead" in target["powers"]))


def card_bonus(state: dict, battle: dict, side: str, c: dict) -> int:
    """What one card adds to its side's total."""
    value = c["bonus"] + (c["attack_bonus"] if side == "attacker" else c["defend_bonus"])
    if c["hook"] in BONUS_HOOKS:
        value += BONUS_HOOKS[c["hook"]](state, battle, side)
    return value


def total(state: dict, battle: dict, side: str) -> int:
    """A side's adjusted level: champion, its attachments, cards played, and for the
    defender the realm and holding (and the optional same-world bonus for both)."""
    s = battle["sides"][side]
    if s is None:
        return 0
    champion = z.card(state, s["champion"])
    value = champion["level"] + card_bonus(state, battle, side, champion)
    for iid in s["attached"]:
        value += card_bonus(state, battle, side, z.card(state, iid))
    for iid in s["played"]:
        value += card_bonus(state, battle, side, z.card(state, iid))
    slot = state["players"][battle["defender"]]["formation"][battle["slot"]]
    realm = z.card(state, slot["realm"])
    if side == "defender":
        value += realm["defend_bonus"]
        if slot["holding"] is not None:
            value += z.card(state, slot["holding"])["defend_bonus"]
    if state["options"]["same_world_bonus"] and champion["world"] == realm["world"]:
        value += SAME_WORLD_BONUS
    return value


def totals(state: dict, battle: dict) -> dict:
    return {"attacker": total(state, battle, "attacker"), "defender": total(state, battle, "defender")}


def loser(state: dict, battle: dict) -> str:
    """The side that is behind; ties go to the defender (spellfire-1 E)."""
    return "attacker" if total(state, battle, "attacker") <= total(state, battle, "defender") else "defender"


def activate(state: dict, battle: dict, side: str | None, iid: str) -> dict:
    """Step D for one card: what it adds, and whether it slays the opposing champion."""
    c = z.card(state, iid)
    entry = {"card": iid, "def": c["id"], "side": side}
    if side is None:  # realm and holding powers help the defender
        entry["bonus"] = c["defend_bonus"]
        return entry
    entry["bonus"] = card_bonus(state, battle, side, c) + (c["level"] if c["type"] == "champion" else 0)
    target = battle["sides"][OTHER[side]]
    if target is not None and slays(c, z.card(state, target["champion"])):
        entry["slays"] = OTHER[side]
    return entry


def playable(state: dict, battle: dict, side: str, iid: str, responding: bool) -> bool:
    """May this hand card be played into the battle by `side` now? The losing side plays
    support cards its champion can use and events; a response is an event or a card
    that says it may be played at any time."""
    c = z.card(state, iid)
    kind = c["type"]
    if kind == "event":
        return True
    if kind not in CLASS_USES and kind not in ("ally", "magical_item", "artifact", "spell"):
        return False  # champions, realms, holdings
    if responding and "any_time" not in c["powers"]:
        return False
    s = battle["sides"][side]
    champion = z.card(state, s["champion"])
    if not can_use(champion, c):
        return False
    if kind == "artifact":
        return z.artifact_fits(state, iid, s["champion"], s["attached"]) and z.cosmos_allows(state, iid)
    return True


SIDED_HOOKS = ("lure",)


def takes_side(c: dict) -> bool:
    """Does this card act for one side of the battle? Support cards, and events that add
    a bonus, counter the opposing side's spell or act on the opposing champion. A seat
    outside the battle names the side such an event is played for."""
    return c["type"] != "event" or bool(c["bonus"]) or "counter_spell" in c["powers"] or c["hook"] in SIDED_HOOKS


def play(state: dict, battle: dict, side: str | None, iid: str, events: list, seat: str) -> str | None:
    """Resolve a card just played by `seat` (already out of its hand) for `side` (None: an
    event of a seat outside the battle that helps no side); its outcome, if any."""
    c = z.card(state, iid)
    s = battle["sides"][side] if side is not None else None
    other = OTHER[side] if side is not None else None
    outcome = None
    effects: list[str] = []
    played = {"seat": seat, "side": side, **z.about(state, iid, seat, "battle"), "from": "hand"}
    events.append({"kind": "card_played", "data": played})  # its effects' events follow it
    if s is not None and c["type"] in ("magical_item", "artifact"):
        s["attached"].append(iid)  # stays with the champion if it wins
    elif s is not None and (c["type"] != "event" or c["bonus"]):
        s["played"].append(iid)    # allies, spells, ... and events that add a bonus: until the round ends
    powers = c["powers"]
    if "counter_spell" in powers and s is not None:
        target = battle["sides"][other]
        for spell in reversed(target["played"]):
            if z.card(state, spell)["type"] == "spell":
                target["played"].remove(spell)
                effects.append("counter_spell")
                z.discard(state, target["seat"], [spell], "countered", events)
                break
    if c["draw_cards"]:
        effects.append("draw_cards")
        z.draw(state, seat, c["draw_cards"], "card", events)
    if c["hook"] in PLAY_HOOKS:
        effects.append(c["hook"])
        outcome = PLAY_HOOKS[c["hook"]](state, battle, side, seat, events)
    target = battle["sides"][other] if other is not None else None
    if outcome is None and target is not None and slays(c, z.card(state, target["champion"])):
        outcome = f"{other}_discarded"
        effects.append("slays")
    for flag, result in (("raze_realm_event", "realm_razed"), ("discard_attacker_event", "attacker_discarded"),
                         ("discard_defender_event", "defender_discarded"), ("discard_both_event", "both_discarded")):
        if flag in powers:
            outcome = outcome or result
            effects.append(flag)
    played.update(effects=effects, outcome=outcome, totals=totals(state, battle))
    if c["type"] == "event" and not c["bonus"]:
        z.discard(state, seat, [iid], "event", events)
    return outcome


# -- named hooks ------------------------------------------------------------------------

def _opposing_champion(state: dict, battle: dict, side: str) -> dict | None:
    target = battle["sides"][OTHER[side]]
    return None if target is None else z.card(state, target["champion"])


def _mirror(state: dict, battle: dict, side: str) -> int:
    opposing = _opposing_champion(state, battle, side)
    return 0 if opposing is None else opposing["level"] // 2


def _last_stand(state: dict, battle: dict, side: str) -> int:
    seat = battle["sides"][side]["seat"]
    return 4 if fm.unrazed(state["players"][seat]["formation"]) <= 2 else 0


def _turn_undead(state: dict, battle: dict, side: str) -> int:
    opposing = _opposing_champion(state, battle, side)
    return 4 if opposing is not None and "undead" in opposing["powers"] else 0


def _scavenge(state: dict, battle: dict, side: str | None, seat: str, events: list) -> None:
    pile = state["players"][seat]["discard"]
    for i in range(len(pile) - 1, -1, -1):
        if z.card(state, pile[i])["type"] != "event":  # never an event: no endless loops
            iid = pile.pop(i)
            state["players"][seat]["hand"].append(iid)
            events.append({"kind": "card_returned", "data": {"seat": seat, "count": 1, "from": "discard", "index": i,
                                                             "owner": seat, "zone": "hand"},
                           "private": {seat: {"cards": [z.ref(state, iid)]}}})
            break
    return None


def _lure(state: dict, battle: dict, side: str, seat: str, events: list) -> str | None:
    opposing = _opposing_champion(state, battle, side)
    if opposing is not None and opposing["class"] == "monster":
        return f"{OTHER[side]}_discarded"
    return None


BONUS_HOOKS = {"mirror": _mirror, "last_stand": _last_stand, "turn_undead": _turn_undead}
PLAY_HOOKS = {"scavenge": _scavenge, "lure": _lure}
