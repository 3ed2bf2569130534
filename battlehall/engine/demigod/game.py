"""The turn structure, the prompts, and the order in which an attack's steps happen.

A round: each side still in takes a turn, in seat order. In its turn a side may move each
of its characters once (up to its Move, in king steps) and attack once with each, in any
order, then ends its turn. Steps 1-6 of an attack run inside the attacker's turn: the
declaration (Step 1) is the attacker's answer; each targeted character's side then gets a
reaction window (Step 2: a short timed prompt that never spends the bank), one target at
a time; then Steps 3-6 resolve.
"""

from __future__ import annotations

from typing import cast

from ..ruleset import Event, Option, Ruleset, make_result, rank_by, with_combos
from . import about, combat, grid
from .data import cards
from .effects import tick_down

new_prompt = Ruleset.new_prompt


def card_of(state: dict, cid: str) -> dict:
    """The definition of a card instance: the setup's inline cards (`defs`), else the shipped set."""
    name = state["cards"][cid]
    return state.get("defs", {}).get(name) or cards()[name]


def side_units(state: dict, seat: str) -> list[str]:
    return [u for u in state["order"] if state["units"][u]["side"] == seat]


def playable(unit: dict, card: dict) -> bool:
    """Battle Cards by any character; spells by the Demigod alone; reactions only when targeted."""
    return card["type"] == "battle" or (card["type"] == "spell" and unit["kind"] == "demigod")


def targets_of(state: dict, uid: str, card: dict) -> list[list]:
    """Every square a declaration of `card` by `uid` may aim at: in range, and holding an
    enemy (one target) or with an enemy in the area (area of effect); Self: the caster's square."""
    unit = state["units"][uid]
    if card["range"] == "self":
        return [list(unit["pos"])]
    candidates = []  # squares whose area holds an enemy: only these can be aimed at
    for other in state["order"]:
        if state["units"][other]["side"] != unit["side"]:
            pos = state["units"][other]["pos"]
            for sq in grid.area(state, pos, card["area"]) if card["area"] else [pos]:
                if sq not in candidates:
                    candidates.append(sq)
    out = [sq for sq in candidates if grid.in_range(state, card, unit["pos"], sq)]
    return sorted(out, key=lambda s: (s[1], s[0]))


def caught_by(state: dict, attacker: str, card: dict, square: list) -> list[str]:
    """'Some spells hit multiple spaces.' Every character in the area but the attacker (one
    target: the character on the square)."""
    squares = grid.area(state, square, card["area"])
    return [u for u in state["order"] if u != attacker and state["units"][u]["pos"] in squares]


def open_turn_prompt(state: dict) -> None:
    seat = state["turn"]["seat"]
    moves: list[dict[str, list]] = []
    attacks: list[dict[str, list]] = []
    hand = state["hands"][seat]
    blocked = grid.blocked_squares(state)
    for uid in side_units(state, seat):
        unit = state["units"][uid]
        if not unit["moved"]:
            to = grid.reachable(state, unit["pos"], unit["move"], blocked)
            if to:
                moves.append({"unit": [uid], "to": to})
        if not unit["attacked"]:
            known: dict[str, list] = {}  # cards of the same range, reach and area share their targets
            for cid in hand:
                card = card_of(state, cid)
                if playable(unit, card):
                    shape = f"{card['range']}/{card['reach']}/{card['area']}"
                    if shape not in known:
                        known[shape] = targets_of(state, uid, card)
                    targets = known[shape]
                    if targets:
                        attacks.append({"unit": [uid], "card": [cid], "target": list(targets)})
    options: list[dict] = []  # each with its own `about` besides the Option fields
    if attacks:
        option = with_combos({"id": "attack", "text": "Attack or cast: a character, a card and a target square"}, attacks)
        options.append({**option, "about": {
            **{u: about.unit(state, u) for u in option["args"]["unit"]},
            **{c: about.card(state, c, card_of(state, c), seat) for c in option["args"]["card"]},
            **about.squares(state, option["args"]["target"])}})
    if moves:
        option = with_combos({"id": "move", "text": "Move a character"}, moves)
        options.append({**option, "about": {**{u: about.unit(state, u) for u in option["args"]["unit"]},
                                            **about.squares(state, option["args"]["to"])}})
    options.append({"id": "end", "text": "End your turn"})
    names = ", ".join(state["units"][u]["name"] for u in side_units(state, seat))
    text = f"Round {state['turn']['round']}: your turn ({names})"
    state["prompts"] = [new_prompt(state, seat, "turn", text, cast(list[Option], options), "end")]


def open_defence_prompt(state: dict) -> None:
    """Step 2 for the next target: a reaction window to the targeted side, asked whatever its
    hand holds (being asked reveals nothing), on its own short clock that spares the bank.
    Reactions are offered here and nowhere else: 'Timing: Can only be played when the
    specific trigger (e.g., "When targeted") occurs.'"""
    pending = state["pending"]
    uid = pending["targets"][len(pending["defences"])]
    unit = state["units"][uid]
    seat = unit["side"]
    hand = state["hands"][seat]
    battle = [c for c in hand if card_of(state, c)["type"] == "battle"]
    # 'Reactions interrupt an opponent's turn': the side whose turn it is (its own character
    # caught in its own area spell) defends with a Battle Card or not at all.
    reactions = [] if seat == state["turn"]["seat"] else [c for c in hand if card_of(state, c)["type"] == "reaction"]
    react = [c for c in reactions if not card_of(state, c)["move"]]
    moving = [{"card": [c], "to": grid.reachable(state, unit["pos"], card_of(state, c)["move"])}
              for c in reactions if card_of(state, c)["move"]]
    moving = [m for m in moving if m["to"]]
    cards_about = {c: about.card(state, c, card_of(state, c), seat) for c in battle + reactions}
    # Each option has its own `about` and `attack` besides the Option fields.
    options: list[dict] = [{"id": "none", "text": "Do nothing (DV 0)"}]
    if battle:
        options.append({"id": "defend", "text": "Defend with a Battle Card", "args": {"card": battle},
                        "about": {c: cards_about[c] for c in battle}})
    if react:
        options.append({"id": "react", "text": "Play a Reaction", "args": {"card": react},
                        "about": {c: cards_about[c] for c in react}})
    if moving:
        option = with_combos({"id": "react_move", "text": "Play a Reaction that moves you"}, moving)
        options.append({**option, "about": {
            **{c: cards_about[c] for c in option["args"]["card"]}, **about.squares(state, option["args"]["to"])}})
    attacker = state["units"][pending["attacker"]]
    # Every option says which attack it answers: the attacker, its card, its aim, and the
    # character this window defends.
    answers = {"attacker": about.unit(state, pending["attacker"]),
               "card": about.card(state, pending["card"], card_of(state, pending["card"]), attacker["side"]),
               "square": about.square(state, pending["square"]),
               "defender": about.unit(state, uid)}
    options = [{**o, "attack": answers} for o in options]
    state["window"] += 1
    text = (f"{about.unit_words(attacker)} at {about.square_words(attacker['pos'])} attacks your {unit['name']} "
            f"at {about.square_words(unit['pos'])} with {about.card_words(card_of(state, pending['card']))}: defend?")
    state["prompts"] = [new_prompt(state, seat, "defend", text, cast(list[Option], options), "none", window=f"w{state['window']}",
                                   time_ms=state["opts"]["reaction_ms"], bank=False)]


def declare(state: dict, uid: str, cid: str, square: list) -> list[Event]:
    """'Step 1: Declare Attack: Choose your target and play your card/ability.' The card
    leaves the hand and is public from now on."""
    seat = state["turn"]["seat"]
    card = card_of(state, cid)
    state["hands"][seat].remove(cid)
    unit = state["units"][uid]
    unit["attacked"] = True
    events: list[Event] = [{"kind": "declared", "data": {"unit": uid, "card": cid, "name": card["name"], "target": square,
                                                         "seat": seat, "discarded": card["range"] == "self"}}]
    if card["range"] == "self":  # 'Self: Only affects the caster.' Nobody is targeted: no window.
        state["discard"][seat].append(cid)
        if card.get("barrier"):
            events += combat.gain_barrier(state, uid, card["barrier"])
        if card.get("effect"):
            events += combat.apply_effect(state, uid, card["effect"], card["name"])
        return events + after_action(state)
    targets = caught_by(state, uid, card, square)
    state["pending"] = {"attacker": uid, "card": cid, "name": card["name"], "square": square,
                        "from": list(unit["pos"]), "targets": targets, "defences": {}}
    events.append({"kind": "targeted", "data": {"units": targets}})
    open_defence_prompt(state)
    return events


def defend(state: dict, option: str, args: dict) -> list[Event]:
    """'Step 2: Declare Defense (Optional): The defender may play a Battle Card, use a
    Reaction card, or do nothing (DV treated as 0).' A reaction's own effect resolves now,
    before the attack that triggered it ('Priority'), and opens no window of its own ('You
    cannot react to a reaction'); one card per trigger ('Only one reaction per trigger')."""
    pending = state["pending"]
    uid = pending["targets"][len(pending["defences"])]
    seat = state["units"][uid]["side"]
    events: list[Event] = []
    if option == "none":
        pending["defences"][uid] = None
        events.append({"kind": "defence", "data": {"unit": uid, "choice": "none", "seat": seat}})
    else:
        cid = args["card"]
        card = card_of(state, cid)
        state["hands"][seat].remove(cid)
        state["discard"][seat].append(cid)
        pending["defences"][uid] = {"card": cid, "dv": card["dv"]}
        events.append({"kind": "defence", "data": {"unit": uid, "choice": option, "card": cid, "name": card["name"],
                                                   "seat": seat}})
        if card["type"] == "reaction":
            events += react(state, uid, card, args.get("to"))
    attacker = pending["attacker"]
    if attacker not in state["units"]:  # the reaction felled the attacker: its attack never lands
        return events + fail(state, "attacker_defeated")
    if len(pending["defences"]) < len(pending["targets"]):
        open_defence_prompt(state)
        return events
    return events + resolve(state)


def react(state: dict, uid: str, card: dict, to: list | None) -> list[Event]:
    """A reaction's own effect, on the reacting character (or, for damage, on the attacker)."""
    events: list[Event] = []
    if card.get("barrier"):
        events += combat.gain_barrier(state, uid, card["barrier"])
    if card.get("effect"):
        events += combat.apply_effect(state, uid, card["effect"], card["name"])
    if to is not None:
        unit = state["units"][uid]
        events.append({"kind": "moved", "data": {"unit": uid, "from": list(unit["pos"]), "to": to, "by": card["name"]}})
        unit["pos"] = list(to)
    if card.get("damage"):
        attacker = state["pending"]["attacker"]
        hurt = state["units"][attacker]
        taken = combat.take_damage(hurt, card["damage"])
        events.append({"kind": "damage", "data": {"unit": attacker, "by": card["name"], "taken": taken, "hp": hurt["hp"],
                                                  "ap": hurt["ap"], "barrier": hurt["barrier"]}})
        events += combat.check_defeat(state, attacker)
    return events


def leave(state: dict, seat: str) -> list[Event]:
    """`seat` resigned and the others play on: its side is out as if its Demigod had
    fallen (its characters leave the grid, it takes no more turns), but its hand stays
    unseen (a fallen side's hand is discarded face up; one that leaves shows nothing).
    In its own turn, an attack it declared fails and the turn passes. In another side's
    attack, its characters are no longer targets: its reaction window closes and the
    attack goes on against the others, or fails when none is left. Otherwise the side in
    turn is asked again, its options without the characters that left."""
    events: list[Event] = []
    state["prompts"] = [p for p in state["prompts"] if p["seat"] != seat]
    for uid in side_units(state, seat):
        unit = state["units"].pop(uid)
        state["order"].remove(uid)
        events.append({"kind": "defeated", "data": {"unit": uid, "cause": "resigned", "pos": unit["pos"]}})
    state["out"].append(seat)
    events.append({"kind": "side_out", "data": {"seat": seat, "out": list(state["out"]), "discarded": []}})
    pending = state.get("pending")
    if state["turn"]["seat"] == seat:
        state["prompts"] = []
        if pending is not None:
            return events + fail(state, "resigned")  # fail passes the turn: the side is out
        return events + next_turn(state)
    if pending is not None:
        answered = pending["defences"]
        pending["targets"] = [u for u in pending["targets"] if u in answered or u in state["units"]]
        if not any(u in state["units"] for u in pending["targets"]):
            return events + fail(state, "no_target")
        if not state["prompts"]:  # the window that closed was the one open
            if len(answered) < len(pending["targets"]):
                open_defence_prompt(state)
            else:
                events += resolve(state)
    else:  # the side in turn is asked again: its options named the characters that left
        open_turn_prompt(state)
    return events


def fail(state: dict, reason: str) -> list[Event]:
    """'If out of range, the attack fails and the card is discarded.'"""
    pending = state.pop("pending")
    seat = state["turn"]["seat"]
    state["discard"][seat].append(pending["card"])  # the attacker's side played it
    return [{"kind": "attack_failed", "data": {"unit": pending["attacker"], "card": pending["card"], "reason": reason,
                                               "name": pending["name"], "seat": seat}}, *after_action(state)]


def resolve(state: dict) -> list[Event]:
    """Steps 3 to 6, after every window has closed. The range is checked again first: a
    reaction may have moved the target out of it ('If out of range, the attack fails')."""
    pending = state["pending"]
    attacker = state["units"][pending["attacker"]]
    card = card_of(state, pending["card"])
    single = not card["area"]
    if single:
        target = pending["targets"][0]
        aim = state["units"][target]["pos"] if target in state["units"] else None
        if aim is None or not grid.in_range(state, card, attacker["pos"], aim):
            return fail(state, "out_of_range")
    elif not grid.in_range(state, card, attacker["pos"], pending["square"]):
        return fail(state, "out_of_range")
    state.pop("pending")
    state["discard"][state["turn"]["seat"]].append(pending["card"])
    area = grid.area(state, pending["square"], card["area"])
    av = combat.attack_value(card, attacker)
    events: list[Event] = []
    hit = []
    for uid in pending["targets"]:  # 'You must perform a separate Step 3 calculation for every character caught in the area.'
        unit = state["units"].get(uid)
        if unit is None or (not single and unit["pos"] not in area):
            continue  # fell to an earlier part of this attack, or stepped out of the area
        dv = combat.defence_value(pending["defences"][uid], unit)
        data = {"unit": uid, "av": av, "dv": dv, "hit": combat.hits(av, dv)}
        if data["hit"]:
            data["taken"] = combat.take_damage(unit, av - dv)
            data.update(hp=unit["hp"], ap=unit["ap"], barrier=unit["barrier"])
            hit.append(uid)
        events.append({"kind": "attack_result", "data": data})
        events += combat.check_defeat(state, uid)
    events += combat.after_attack(state, card, pending["attacker"], pending["from"], hit)
    events.append({"kind": "attack_resolved", "data": {"unit": pending["attacker"], "card": pending["card"],
                                                       "name": pending["name"], "seat": state["turn"]["seat"], "hit": hit}})
    return events + after_action(state)


def after_action(state: dict) -> list[Event]:
    """After a move or an attack: the match may be over; the side may have fallen in its own
    turn (a reaction); otherwise its turn goes on."""
    if finished(state):
        return end(state, "conquest")
    if state["turn"]["seat"] in state["out"]:
        return next_turn(state)
    open_turn_prompt(state)
    return []


def finished(state: dict) -> bool:
    return len(state["seats"]) - len(state["out"]) <= 1


def end(state: dict, reason: str) -> list[Event]:
    """The last side standing wins; at the turn limit, the sides still in rank by the Health
    Points they have left, above the sides out (the later out, the higher)."""
    score = {}
    for seat in state["seats"]:
        if seat in state["out"]:
            score[seat] = state["out"].index(seat)
        else:
            score[seat] = 10_000 + sum(state["units"][u]["hp"] for u in side_units(state, seat))
    state["prompts"] = []
    state.pop("pending", None)
    state["result"] = make_result(reason, rank_by(state["seats"], score),
                                  hp={s: sum(state["units"][u]["hp"] for u in side_units(state, s)) for s in state["seats"]})
    return [{"kind": "match_ended", "data": state["result"]}]


def start_turn(state: dict) -> list[Event]:
    """A side's turn begins: its characters may move and attack again; Poison and Disease
    grow by `tick_growth` ticks on each character that has any; it draws."""
    seat = state["turn"]["seat"]
    ready = side_units(state, seat)
    events: list[Event] = [{"kind": "turn_started", "data": {"seat": seat, "round": state["turn"]["round"], "ready": ready}}]
    for uid in ready:  # they may move and attack again
        state["units"][uid]["moved"] = state["units"][uid]["attacked"] = False
    for uid in side_units(state, seat):
        for kind in ("poison", "disease"):
            if uid in state["units"] and state["units"][uid][kind] and state["opts"]["tick_growth"]:
                events += combat.add_ticks(state, uid, kind, state["opts"]["tick_growth"])
    if finished(state):
        return events + end(state, "conquest")
    if seat in state["out"]:
        return events + next_turn(state)
    events += combat.draw(state, seat, state["opts"]["draw_per_turn"])
    open_turn_prompt(state)
    return events


def next_turn(state: dict) -> list[Event]:
    """The turn passes to the next side still in, in seat order; after the last seat, a new
    round; after round `turn_limit`, the match ends."""
    seat = state["turn"]["seat"]
    ended: list[Event] = []
    timers: list[dict] = []
    for uid in side_units(state, seat):
        for title in tick_down(state["units"][uid]):
            ended.append({"kind": "effect_ended", "data": {"unit": uid, "title": title}})
        timers += [{"unit": uid, "title": e["title"], "turns": e["turns"]} for e in state["units"][uid]["effects"]]
    # `timers`: every effect of the side still running, with the turns it has left.
    events: list[Event] = [{"kind": "turn_ended", "data": {"seat": seat, "timers": timers}}, *ended]
    seats = state["seats"]
    i = seats.index(seat)
    while True:
        i += 1
        if i == len(seats):
            if state["turn"]["round"] == state["opts"]["turn_limit"]:
                return events + end(state, "turn_limit")  # the round stays the last one played
            i = 0
            state["turn"]["round"] += 1
        if seats[i] not in state["out"]:
            break
    state["turn"]["seat"] = seats[i]
    return events + start_turn(state)


def move(state: dict, uid: str, to: list) -> list[Event]:
    unit = state["units"][uid]
    events: list[Event] = [{"kind": "moved", "data": {"unit": uid, "from": list(unit["pos"]), "to": list(to)}}]
    unit["pos"] = list(to)
    unit["moved"] = True
    open_turn_prompt(state)
    return events
