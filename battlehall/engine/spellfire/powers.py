"""What card powers do in a battle: levels and bonuses, who may use what, and effects.

The declarative vocabulary (cards.py) is interpreted here; the few powers that need code
are the named hooks at the bottom. A card played into a battle returns an *outcome*
when it ends the round or the battle outright (spellfire-3):

- ``"realm_razed"``: the realm falls to card play; both champions go back to their pools.
- ``"realm_discarded"``: likewise, and the realm (with its holding) goes to the discard pile.
- ``"attacker_discarded"``: the attacking champion is discarded; the battle is over.
- ``"defender_discarded"``: the defending champion is discarded; the attacker wins the round.
- ``"both_discarded"``: both champions are discarded; no winner, no spoils.
"""

from __future__ import annotations

from collections.abc import Callable

from . import activation, battle_state, formation, zones
from .battle_state import OTHER, SIDES, Battle, Side
from .cards import CLASS_USES, SPELL_USES
from .prompts import option as _option

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


def card_bonus(state: dict, battle: Battle, side: str, c: dict) -> int:
    """What one card adds to its side's total."""
    value = c["bonus"] + (c["attack_bonus"] if side == "attacker" else c["defend_bonus"])
    if c["hook"] in BONUS_HOOKS:
        value += BONUS_HOOKS[c["hook"]](state, battle, side)
    return value


def level_of(c: dict) -> int:
    """A champion's level; a realm that defends itself fights at its `defends_as` level."""
    return c["level"] if c["type"] == "champion" else c["defends_as"]


def total(state: dict, battle: Battle, side: str) -> int:
    """A side's adjusted level: its champion's level, plus what each card in the round
    adds to it (activation.participants: the rule card, dungeons, the realm and holding
    for the defender, the champion's power, attachments, cards played, allies called
    in), except cards whose power was cancelled, and the optional same-world bonus."""
    s = battle["sides"][side]
    if s is None:
        return 0
    champion = zones.card(state, s["champion"])
    value = level_of(champion)
    for card_side, iid in activation.participants(state, battle):
        if card_side in (None, side) and not activation.cancelled(battle, iid):
            value += card_bonus(state, battle, side, zones.card(state, iid))
    for iid in s.get("brought", ()):
        if not activation.cancelled(battle, iid):
            value += zones.card(state, iid)["level"]
    realm = zones.card(state, battle["realm"])
    if state["options"]["same_world_bonus"] and champion["type"] == "champion" and champion["world"] == realm["world"]:
        value += SAME_WORLD_BONUS
    return value


def totals(state: dict, battle: Battle) -> dict:
    return {"attacker": total(state, battle, "attacker"), "defender": total(state, battle, "defender")}


def loser(state: dict, battle: Battle) -> str:
    """The side that is behind; ties go to the defender (spellfire-1 E)."""
    return "attacker" if total(state, battle, "attacker") <= total(state, battle, "defender") else "defender"


def activate_round(state: dict, battle: Battle, events: list) -> tuple[str, str] | None:
    """Step D: every card of the round activates in the order of spellfire-2, one
    ``activated`` event each; a card that slays the opposing champion ends the sequence
    there (the attacker's power comes first). Returns (the slain side, the card that slew
    it: where the slain champion goes depends on it), or None."""
    battle["effects"] = None
    activation.effects(battle)  # this round's negations start empty
    order, slain = [], None
    for label, side, iid in activation.sequence(state, battle):
        entry = activate(state, battle, label, side, iid)
        events.append({"kind": "activated", "data": {**entry, "round": battle["round"]}})
        order.append(entry)
        if "slays" in entry:
            slain = (entry["slays"], iid)
            break
    events.append({"kind": "powers_activated", "data": {"order": order, "slain": None if slain is None else slain[0],
                                                        "totals": totals(state, battle)}})
    return slain


def activate(state: dict, battle: Battle, label: str, side: str | None, iid: str) -> dict:
    """Step D for one card: what it adds to each side, what it negates, whether it slays
    the opposing champion. A card whose power was cancelled before its turn does nothing."""
    c = zones.card(state, iid)
    negations = activation.effects(battle)
    entry = {**activation.where(state, battle, side, iid), "seat": activation.owner(state, battle, side, iid), "side": side,
             "step": label, "effects": []}
    is_champion = side is not None and activation.kind_of(battle, side, iid, c) == "champion"
    if iid in negations["cancelled"]:  # a champion's level is no power: it still counts
        entry.update(bonus=level_of(c) if is_champion else 0, adds={"attacker": 0, "defender": 0}, cancelled=True)
        return entry
    negations["activated"].append(iid)
    adds = {t: (card_bonus(state, battle, t, c) if side in (None, t) else 0) for t in SIDES}
    entry["adds"] = adds
    entry["bonus"] = (adds[side] + (level_of(c) if is_champion else 0)) if side is not None else 0
    _negate(state, battle, side, c, entry)
    if "brings_ally" in c["powers"]:
        entry["effects"].append("brings_ally_waits")  # acts only when its player may play a card
    target = battle["sides"][OTHER[side]] if side is not None else None
    if side is not None and target is not None and slays(c, zones.card(state, target["champion"])):
        entry["slays"] = OTHER[side]
        entry["effects"].append("slays")
    return entry


def _negate(state: dict, battle: Battle, side: str | None, c: dict, entry: dict) -> None:
    """Record what `c` negates, and cancel the cards it reaches that have not activated yet."""
    if not c["negates"]:
        return
    negations = activation.effects(battle)
    reached = [[t, kind] for t in activation.negation_targets(side, c) for kind in c["negates"]]
    negations["negated"] += [r for r in reached if r not in negations["negated"]]
    hit = []
    for card_side, iid in activation.participants(state, battle):
        if card_side is None or iid in negations["activated"] or iid in negations["cancelled"]:
            continue
        if [card_side, activation.kind_of(battle, card_side, iid, zones.card(state, iid))] in negations["negated"]:
            negations["cancelled"].append(iid)
            hit.append(iid)
    for s in SIDES:  # allies called in by a champion's power
        fighting = battle["sides"][s]
        for iid in fighting.get("brought", ()) if fighting is not None else ():
            if [s, "ally"] in negations["negated"] and iid not in negations["activated"] and iid not in negations["cancelled"]:
                negations["cancelled"].append(iid)
                hit.append(iid)
    entry["effects"].append("negates")
    entry["negates"] = reached
    entry["cancels"] = zones.refs(state, hit)


def playable(state: dict, battle: Battle, side: str, iid: str, responding: bool) -> bool:
    """May this hand card be played into the battle by `side` now? The losing side plays
    support cards its champion can use and events; a response is an event or a card
    that says it may be played at any time."""
    c = zones.card(state, iid)
    kind = c["type"]
    if kind == "event":
        return True
    if kind not in CLASS_USES and kind not in ("ally", "magical_item", "artifact", "spell"):
        return False  # champions, realms, holdings
    if responding and "any_time" not in c["powers"]:
        return False
    if "before_battle" in c["powers"]:
        return False  # only before the battle (activation.prompt_before_battle)
    s = battle_state.side(battle, side)
    champion = zones.card(state, s["champion"])
    if not can_use(champion, c):
        return False
    if kind == "artifact":
        return zones.artifact_fits(state, iid, s["champion"], s["attached"]) and zones.cosmos_allows(state, iid)
    return True


SIDED_HOOKS = ("lure",)


def takes_side(c: dict) -> bool:
    """Does this card act for one side of the battle? Support cards, and events that add
    a bonus, counter the opposing side's spell or act on the opposing champion (a hook
    or `slays`). A seat
    outside the battle names the side such an event is played for."""
    return (c["type"] != "event" or bool(c["bonus"]) or "counter_spell" in c["powers"] or c["hook"] in SIDED_HOOKS
            or c["slays"] is not None or bool(c["negates"]))


def play(state: dict, battle: Battle, side: str | None, iid: str, events: list, seat: str) -> str | None:
    """Resolve a card just played by `seat` (already out of its hand) for `side` (None: an
    event of a seat outside the battle that helps no side); its outcome, if any."""
    c = zones.card(state, iid)
    s = battle["sides"][side] if side is not None else None
    other = OTHER[side] if side is not None else None
    outcome = None
    effects: list[str] = []
    played = {"seat": seat, "side": side, **zones.about(state, iid, seat, "battle"), "from": "hand"}
    events.append({"kind": "card_played", "data": played})  # its effects' events follow it
    activation.enter(battle, [iid])  # played after every card already in the round (spellfire-2)
    if s is not None and c["type"] in ("magical_item", "artifact"):
        s["attached"].append(iid)  # stays with the champion if it wins
    elif s is not None and (c["type"] != "event" or c["bonus"]):
        s["played"].append(iid)    # allies, spells, ... and events that add a bonus: until the round ends
    negations = activation.effects(battle)
    if s is not None and side is not None and c["type"] != "event" and [side, c["type"]] in negations["negated"]:
        negations["cancelled"].append(iid)  # negated before it was played: it is in the round, powerless
        played.update(effects=["cancelled"], outcome=None, totals=totals(state, battle))
        events.append(_activated(state, battle, side, iid, seat, cancelled=True))
        return None
    negations["activated"].append(iid)
    if s is not None and side is not None and c["type"] != "event":
        events.append(_activated(state, battle, side, iid, seat))
    powers = c["powers"]
    if c["negates"] and side is not None:
        entry: dict = {"effects": []}
        _negate(state, battle, side, c, entry)
        effects.append("negates")
        played.update(negates=entry["negates"])
    if "discard_rule_event" in powers and state.get("rule") is not None:
        effects.append("discard_rule_event")
        discard_rule(state, events)
    if "counter_spell" in powers and s is not None and other is not None:
        opposing = battle_state.side(battle, other)
        for spell in reversed(opposing["played"]):
            if zones.card(state, spell)["type"] == "spell":
                opposing["played"].remove(spell)
                effects.append("counter_spell")
                zones.discard(state, opposing["seat"], [spell], "countered", events)
                break
    if c["draw_cards"]:
        effects.append("draw_cards")
        zones.draw(state, seat, c["draw_cards"], "card", events)
    if c["hook"] in PLAY_HOOKS:
        effects.append(c["hook"])
        outcome = PLAY_HOOKS[c["hook"]](state, battle, side, seat, events)
    target = battle["sides"][other] if other is not None else None
    if outcome is None and target is not None and slays(c, zones.card(state, target["champion"])):
        outcome = f"{other}_discarded"
        effects.append("slays")
    for flag, result in (("raze_realm_event", "realm_razed"), ("discard_realm_event", "realm_discarded"),
                         ("discard_attacker_event", "attacker_discarded"),
                         ("discard_defender_event", "defender_discarded"), ("discard_both_event", "both_discarded")):
        if flag in powers:
            outcome = outcome or result
            effects.append(flag)
    played.update(effects=effects, outcome=outcome, totals=totals(state, battle))
    if c["type"] == "event" and not c["bonus"]:
        zones.discard(state, seat, [iid], "event", events)
    return outcome


def _activated(state: dict, battle: Battle, side: str, iid: str, seat: str, cancelled: bool = False) -> dict:
    """A support card played into the round activates when it is played, in its kind's row."""
    c = zones.card(state, iid)
    data = {**activation.where(state, battle, side, iid), "seat": seat, "side": side,
            "step": activation.ORDER[activation.row_of(state, battle, side, iid)][0],
            "round": battle["round"], "bonus": 0 if cancelled else card_bonus(state, battle, side, c)}
    if cancelled:
        data["cancelled"] = True
    return {"kind": "activated", "data": data}


def discard_rule(state: dict, events: list) -> None:
    """The rule card in play goes to its owner's discard pile."""
    rule, state["rule"] = state["rule"], None
    zones.discard(state, rule["seat"], [rule["card"]], "rule_discarded", events)


# -- a champion that calls another champion in as an ally (Gib Aklem) ---------------------

def bring_options(state: dict, battle: Battle, side: str) -> list[dict]:
    """Options of a `brings_ally` champion whose side may play a card now: each champion
    of its player's pool not used this turn, once per round. The power waits for such a
    moment (spellfire-2: it activates only when its player may play a card)."""
    s = battle_state.side(battle, side)
    champion = zones.card(state, s["champion"])
    if "brings_ally" not in champion["powers"] or activation.cancelled(battle, s["champion"]) or s.get("brought"):
        return []
    used = state["turn"]["used"]
    return [_option(e["champion"], f"{champion['name']} calls {zones.name(state, e['champion'])} "
                                   f"(level {zones.card(state, e['champion'])['level']}) in as an ally",
                    zones.about(state, e["champion"], s["seat"], "pool"))
            for e in state["players"][s["seat"]]["pool"] if e["champion"] not in used]


def bring(state: dict, battle: Battle, side: str, iid: str, events: list) -> None:
    """The pool champion fights as an ally: its level is added; it stays in the pool (so
    its attachments stay with it) and is used for this turn."""
    s = battle_state.side(battle, side)
    s.setdefault("brought", []).append(iid)
    state["turn"]["used"].append(iid)
    activation.enter(battle, [iid])
    negations = activation.effects(battle)
    cancelled = [side, "ally"] in negations["negated"]
    (negations["cancelled"] if cancelled else negations["activated"]).append(iid)
    events.append({"kind": "ally_called", "data": {"seat": s["seat"], "side": side,
                                                   **zones.about(state, iid, s["seat"], "pool"),
                                                   "by": zones.ref(state, s["champion"]),
                                                   "totals": totals(state, battle)}})
    data = {**zones.about(state, iid, s["seat"], "pool"), "seat": s["seat"], "side": side,
            "step": activation.LABEL[(side, "ally")],
            "round": battle["round"], "bonus": 0 if cancelled else zones.card(state, iid)["level"]}
    if cancelled:
        data["cancelled"] = True
    events.append({"kind": "activated", "data": data})


def release_brought(state: dict, side: Side, kept: bool, events: list) -> None:
    """When the round ends, allies called from the pool share their side's fate: they stay
    in the pool if it won, and are discarded from it (with their attachments) if it lost."""
    if kept or not side.get("brought"):
        return
    seat = side["seat"]
    lost = []
    for iid in side["brought"]:
        entry = zones.pool_entry(state, seat, iid)
        if entry is not None:
            state["players"][seat]["pool"].remove(entry)
            lost += [entry["champion"]] + entry["attached"]
    zones.discard(state, seat, lost, "defeated", events, where="pool")


# -- named hooks ------------------------------------------------------------------------

def _opposing_champion(state: dict, battle: Battle, side: str) -> dict | None:
    target = battle["sides"][OTHER[side]]
    return None if target is None else zones.card(state, target["champion"])


def _mirror(state: dict, battle: Battle, side: str) -> int:
    opposing = _opposing_champion(state, battle, side)
    return 0 if opposing is None else level_of(opposing) // 2


def _last_stand(state: dict, battle: Battle, side: str) -> int:
    seat = battle_state.side(battle, side)["seat"]
    return 4 if formation.unrazed(state["players"][seat]["formation"]) <= 2 else 0


def _turn_undead(state: dict, battle: Battle, side: str) -> int:
    opposing = _opposing_champion(state, battle, side)
    return 4 if opposing is not None and "undead" in opposing["powers"] else 0


def _scavenge(state: dict, battle: Battle | None, side: str | None, seat: str, events: list) -> None:
    pile = state["players"][seat]["discard"]
    for i in range(len(pile) - 1, -1, -1):
        if zones.card(state, pile[i])["type"] != "event":  # never an event: no endless loops
            iid = pile.pop(i)
            state["players"][seat]["hand"].append(iid)
            events.append({"kind": "card_returned", "data": {"seat": seat, "count": 1, "from": "discard", "index": i,
                                                             "owner": seat, "zone": "hand"},
                           "private": {seat: {"cards": [zones.ref(state, iid)]}}})
            break
    return None


def _lure(state: dict, battle: Battle, side: str | None, seat: str, events: list) -> str | None:
    if side is None:  # never: a lure takes a side (SIDED_HOOKS), so it is not played for none
        return None
    opposing = _opposing_champion(state, battle, side)
    if opposing is not None and opposing["class"] == "monster":
        return f"{OTHER[side]}_discarded"
    return None


BONUS_HOOKS = {"mirror": _mirror, "last_stand": _last_stand, "turn_undead": _turn_undead}
PLAY_HOOKS = {"scavenge": _scavenge, "lure": _lure}
#: The play hooks that act with no battle too (plays.OFF_BATTLE_HOOKS): called with no battle and no side.
OFF_BATTLE_PLAY_HOOKS: dict[str, Callable[[dict, None, None, str, list], str | None]] = {"scavenge": _scavenge}
