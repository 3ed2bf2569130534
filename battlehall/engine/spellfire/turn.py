"""The turn (rules/NOTES.md): 0 rule cards, 1 draw, 2 realm and holding, 3 pool, 4 attack, 5 discard.

Phase 0 (rule cards and dungeons, rulecards.py) is asked only in matches that hold such
cards. Phases with choices are prompts whose default ends the phase; the draw, the end
of the turn, the victory check and the turn limit are automatic and only emit events. The prompts of
phases 2-4 open whether or not the seat has anything to play, so their existence never
tells the other seat what is in a hand.
"""

from __future__ import annotations

from typing import Any

from ..ruleset import make_result, rank_by
from . import battle, battle_state, champions, formation, plays, rulecards, zones
from .prompts import ask
from .prompts import option as _option

PHASES = ("rule", "draw", "realm", "pool", "attack", "discard")


def begin(state: dict, seat: str, number: int, events: list, phase: str = "rule", **flags: Any) -> None:
    """Start turn `number` of `seat` at `phase` (a setup may start mid-turn)."""
    state["turn"] = {"seat": seat, "number": number, "phase": phase,
                     "realm_played": flags.get("realm_played", False),
                     "holding_played": flags.get("holding_played", False),
                     "attacks": flags.get("attacks", 0), "used": list(flags.get("used", [])),
                     "rule_played": False, "dungeon_played": False,
                     "withdrawn": False}  # backed out of a chosen realm this turn (battle.withdraw)
    events.append({"kind": "turn_started", "data": {"seat": seat, "number": number}})
    leave_limbo(state, seat, events)
    if phase == "rule" and not rulecards.wanted(state):
        phase = "draw"  # a match without rule cards or dungeons has no phase 0
    enter(state, phase, events)


def leave_limbo(state: dict, seat: str, events: list) -> None:
    """Champions in Limbo come back to their owner's pool, with their attachments, when
    the owner's next turn begins (rules/NOTES.md: Limbo "returns later"). One whose card
    is in play meanwhile (Rule of the Cosmos) is discarded instead."""
    player = state["players"][seat]
    while player["limbo"]:
        entry = player["limbo"].pop(0)
        back = zones.cosmos_allows(state, entry["champion"])
        events.append({"kind": "left_limbo", "data": {
            "seat": seat, **zones.about(state, entry["champion"], seat, "pool" if back else "discard"),
            "attached": zones.refs(state, entry["attached"]), "from": "limbo", "to": "pool" if back else "discard"}})
        if back:
            player["pool"].append(entry)
        else:
            zones.discard(state, seat, [entry["champion"]] + entry["attached"], "cosmos", events)


def enter(state: dict, phase: str, events: list) -> None:
    t = state["turn"]
    seat = t["seat"]
    if seat in state.get("resigned", []):  # it resigned during its turn (in a battle): the turn ends
        return end_turn(state, events)
    t["phase"] = phase
    events.append({"kind": "phase", "data": {"seat": seat, "phase": phase}})
    if phase == "rule":
        rulecards.prompt(state)
    elif phase == "draw":
        zones.draw(state, seat, state["options"]["draw_per_turn"], "turn", events)
        enter(state, "realm", events)
    elif phase == "realm":
        if t["realm_played"] and t["holding_played"]:
            enter(state, "pool", events)
        else:
            prompt_realm(state)
    elif phase == "pool":
        prompt_pool(state)
    elif phase == "attack":
        if t["attacks"] >= state["options"]["attacks_per_turn"] and not champions.extra_attackers(state):
            enter(state, "discard", events)
        else:
            prompt_attack(state)
    else:
        discard_or_end(state, events)


def _options(state: dict, seat: str, iids: list[str]) -> list[dict]:
    """The play options of these hand cards (the cards in play are looked up only if needed)."""
    if not iids:
        return []
    playing = zones.in_play(state)
    return [opt for opt in (plays.option(state, seat, iid, playing) for iid in iids) if opt is not None]


# -- phase 2: at most one realm and one holding ------------------------------------------

def prompt_realm(state: dict) -> None:
    t = state["turn"]
    seat = t["seat"]
    wanted = [iid for iid in state["players"][seat]["hand"]
              if (not t["realm_played"] and zones.card(state, iid)["type"] == "realm")
              or (not t["holding_played"] and zones.card(state, iid)["type"] == "holding")]
    options = _options(state, seat, wanted)
    options.append(_option("done", "End phase 2"))
    ask(state, seat, "play_realm", "Phase 2: play a realm and/or a holding, or end the phase", options, "done")


def answer_rule(state: dict, option: str, events: list) -> None:
    if rulecards.answer(state, option, events):
        enter(state, "draw", events)


def answer_realm(state: dict, option: str, args: dict, events: list) -> None:
    t = state["turn"]
    if option == "done":
        return enter(state, "pool", events)
    t["realm_played" if zones.card(state, option)["type"] == "realm" else "holding_played"] = True
    plays.play(state, t["seat"], option, args, events)
    if t["realm_played"] and t["holding_played"]:
        return enter(state, "pool", events)
    prompt_realm(state)


# -- phase 3: champions into the pool, magical items and artifacts onto them -------------

def prompt_pool(state: dict) -> None:
    seat = state["turn"]["seat"]
    wanted = [iid for iid in state["players"][seat]["hand"]
              if zones.card(state, iid)["type"] in ("champion", "magical_item", "artifact")]
    options = _options(state, seat, wanted)
    options.append(_option("done", "End phase 3"))
    ask(state, seat, "play_pool", "Phase 3: put champions into your pool and attach items, or end the phase",
        options, "done")


def answer_pool(state: dict, option: str, args: dict, events: list) -> None:
    if option == "done":
        return enter(state, "attack", events)
    plays.play(state, state["turn"]["seat"], option, args, events)
    prompt_pool(state)


# -- phase 4: battle step A, choose a realm to attack ----------------------------------

def prompt_attack(state: dict) -> None:
    seat = state["turn"]["seat"]
    t = state["turn"]
    # beyond attacks_per_turn, only a champion that may attack again opens a battle
    extra = t["attacks"] >= state["options"]["attacks_per_turn"]
    found = champions.extra_attackers(state) if extra else champions.available(state, seat)
    fighters = [zones.card(state, iid) for iid, _ in found]
    options = []
    for other in state["seats"]:
        if other == seat or other in state.get("resigned", []):  # its realms are out of play
            continue
        slots = state["players"][other]["formation"]
        for s in formation.SLOTS:
            slot = slots[s]
            if slot is None or slot["razed"]:
                continue
            realm = zones.card(state, slot["realm"])
            is_exposed = formation.exposed(slots, s)
            if any(formation.reaches(c, realm, is_exposed) for c in fighters):
                options.append(_option(slot["realm"], f"Attack {other}'s {realm['name']} ({s})",
                                       zones.about(state, slot["realm"], other, "formation", s)))
    options.append(_option("end", "End the attack phase"))
    ask(state, seat, "choose_realm", "Phase 4: choose a realm to attack, or end the attack phase", options, "end")


def answer_attack(state: dict, option: str, events: list) -> None:
    if option == "end":
        return enter(state, "discard", events)
    battle.start(state, option, events)


def after_battle(state: dict, events: list) -> None:
    """The battle (and its spoils) is over; it was counted when it ended (battle.finish),
    unless the attacker backed out before it began (battle.withdraw)."""
    enter(state, "attack", events)


# -- phase 5: discard down to the hand limit, then the end of the turn ------------------

def discard_or_end(state: dict, events: list) -> None:
    seat = state["turn"]["seat"]
    hand = state["players"][seat]["hand"]
    extra = len(hand) - state["options"]["hand_limit"]
    if extra <= 0:
        return end_turn(state, events)
    options = [_option(iid, f"Discard {zones.name(state, iid)}", zones.about(state, iid, seat, "hand")) for iid in hand]
    ask(state, seat, "discard", f"Phase 5: discard a card ({extra} over the hand limit)", options, options[0]["id"])


def answer_discard(state: dict, option: str, events: list) -> None:
    seat = state["turn"]["seat"]
    state["players"][seat]["hand"].remove(option)
    zones.discard(state, seat, [option], "hand_limit", events)
    discard_or_end(state, events)


def end_turn(state: dict, events: list) -> None:
    t = state["turn"]
    seat = t["seat"]
    player = state["players"][seat]
    if formation.unrazed(player["formation"]) == 0 and player["pool"]:
        lost = []
        for entry in player["pool"]:
            lost += [entry["champion"]] + entry["attached"]
        player["pool"] = []
        zones.discard(state, seat, lost, "no_realms", events)
    events.append({"kind": "turn_ended", "data": {"seat": seat, "number": t["number"]}})
    seats = state["seats"]
    i = seats.index(seat)
    playing = [s for s in seats[i:] + seats[:i] if s not in state.get("resigned", [])]  # a resigned seat plays no more
    for s in playing:  # the seat whose turn it was is checked first
        if formation.unrazed(state["players"][s]["formation"]) >= state["options"]["realms_to_win"]:
            return end_match(state, "realms", events, s)
    if t["number"] >= state["options"]["turn_limit"]:
        return end_match(state, "turn_limit", events)
    nxt = next(s for s in seats[i + 1:] + seats[:i + 1] if s in playing)
    if state["options"]["exhaustion"] == "end" and all(not state["players"][s]["draw"] for s in playing):
        return end_match(state, "exhausted", events)
    begin(state, nxt, t["number"] + 1, events)


def leave(state: dict, seat: str, events: list) -> None:
    """`seat` resigned (it is in ``state["resigned"]``) and the others play on. A battle it
    fights ends as a loss for its side (battle.forfeit); in its own turn, the turn ends
    now. From then on it has no turn, no window asks it, and its realms are no target;
    its cards stay where they are: its hand and draw pile unseen, its formation, pool
    and discard pile as they were. A seat choosing a realm to attack is asked again,
    without its realms. A spoils or window prompt it had open is answered
    with its default unseen (Ruleset._after_resigns)."""
    if battle_state.in_battle(state, seat):
        state["prompts"] = []
        if battle.forfeit(state, seat, events):
            after_battle(state, events)
    elif state["battle"] is None and state["spoils"] is None and state["turn"] is not None and state["turn"]["seat"] == seat:
        state["prompts"] = []
        end_turn(state, events)
    elif [p["kind"] for p in state["prompts"]] == ["choose_realm"]:  # asked again, without its realms
        state["prompts"] = []
        prompt_attack(state)


def end_match(state: dict, reason: str, events: list, winner: str | None = None) -> None:
    """Ends the match. A winner by realms comes first, the others follow by unrazed
    realms; without one, every seat is ranked by unrazed realms, and several seats with
    the most are a draw. Equal counts share a place (the ranking names no tie-break)."""
    seats = state["seats"]
    realms = {s: formation.unrazed(state["players"][s]["formation"]) for s in seats}
    if winner is None:
        ranking = rank_by(seats, realms)
    else:
        ranking = [[winner]] + rank_by([s for s in seats if s != winner], realms)
    state["result"] = make_result(reason, ranking, realms=realms)
    state["prompts"] = []
    events.append({"kind": "match_ended", "data": state["result"]})
