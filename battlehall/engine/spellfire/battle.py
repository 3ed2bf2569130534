"""A battle: rounds of combat against one realm, steps B-J of spellfire-1.

``state["battle"]`` while one runs::

    {"attacker": seat, "defender": seat, "realm": card, "slot": "A".."F",
     "round": n, "defeats": n,            # rounds fought; rounds the realm lost
     "step": "attacker" | "defender" | "play" | "respond",
     "razed": bool, "defender_spoils": bool,
     "sides": {"attacker": side | None, "defender": side | None},
     "owners": {card: seat}}              # cards played for a side by a seat outside the battle

and a side is ``{"seat", "champion", "from": "hand" | "pool", "attached": [...], "played": [...]}``
(attached: magical items and artifacts, which stay with a winning champion; played:
allies, spells and the like, discarded when the round ends).

Each function that answers a prompt returns True when the battle is over (spoils
included), so that the turn goes on; otherwise it has opened the next prompt.
"""

from __future__ import annotations

from . import activation
from . import formation as fm
from . import plays
from . import powers as pw
from . import zones as z
from .prompts import ask, option as _option

OTHER = pw.OTHER


def available_champions(state: dict, seat: str) -> list[tuple[str, str]]:
    """(champion, "pool" | "hand") not yet used this turn; from hand only if the Rule of
    the Cosmos lets it come into play."""
    used = state["turn"]["used"]
    player = state["players"][seat]
    out = [(e["champion"], "pool") for e in player["pool"] if e["champion"] not in used]
    hand = [iid for iid in player["hand"] if z.card(state, iid)["type"] == "champion" and iid not in used]
    if hand:
        playing = z.in_play(state)
        out += [(iid, "hand") for iid in hand if z.cosmos_allows(state, iid, playing)]
    return out


def _champion_text(state: dict, iid: str, where: str) -> str:
    c = z.card(state, iid)
    return f"{c['name']} (level {c['level']}, {c['class']}, from {where})"


# -- A: the realm is chosen (turn.py); the battle begins ---------------------------------

def start(state: dict, realm: str, events: list) -> None:
    for seat in state["seats"]:
        formation = state["players"][seat]["formation"]
        for s in fm.SLOTS:
            if formation[s] is not None and formation[s]["realm"] == realm:
                owner, slot = seat, s
    attacker = state["turn"]["seat"]
    state["battle"] = {"attacker": attacker, "defender": owner, "realm": realm, "slot": slot,
                       "round": 0, "defeats": 0, "step": "attacker", "razed": False,
                       "defender_spoils": False, "sides": {"attacker": None, "defender": None}, "owners": {}}
    events.append({"kind": "battle_started", "data": {"attacker": attacker, "defender": owner,
                                                      **z.about(state, realm, owner, "formation", slot)}})
    prompt_attacker(state)


# -- B: the attacking champion ---------------------------------------------------------

def prompt_attacker(state: dict) -> None:
    b = state["battle"]
    b["step"] = "attacker"
    formation = state["players"][b["defender"]]["formation"]
    realm = z.card(state, b["realm"])
    is_exposed = fm.exposed(formation, b["slot"])
    options = [_option(iid, f"Attack with {_champion_text(state, iid, where)}", z.about(state, iid, b["attacker"], where))
               for iid, where in available_champions(state, b["attacker"])
               if fm.reaches(z.card(state, iid), realm, is_exposed)]
    options.append(_option("end", "End the battle"))
    ask(state, b["attacker"], "choose_attacker",
        f"Round {b['round'] + 1} against {realm['name']}: choose an attacking champion, or end the battle",
        options, "end")


def _take_champion(state: dict, seat: str, iid: str) -> dict:
    """Move a champion (with what is attached to it) from hand or pool into a battle side."""
    player = state["players"][seat]
    entry = z.pool_entry(state, seat, iid)
    if entry is not None:
        player["pool"].remove(entry)
        where, attached = "pool", entry["attached"]
    else:
        player["hand"].remove(iid)
        where, attached = "hand", []
    state["turn"]["used"].append(iid)  # no champion fights twice in a turn
    return {"seat": seat, "champion": iid, "from": where, "attached": attached, "played": []}


def _chosen(state: dict, side: str, s: dict, events: list) -> None:
    events.append({"kind": "champion_chosen", "data": {
        "seat": s["seat"], "side": side, **z.about(state, s["champion"], s["seat"], "battle"), "from": s["from"],
        "attached": z.refs(state, s["attached"]), "round": state["battle"]["round"]}})


def answer_attacker(state: dict, option: str, events: list) -> bool:
    b = state["battle"]
    if option == "end":
        return finish(state, events)
    b["round"] += 1
    b["sides"]["attacker"] = _take_champion(state, b["attacker"], option)
    _chosen(state, "attacker", b["sides"]["attacker"], events)
    prompt_defender(state)
    return False


# -- C: the defending champion, or no defence -------------------------------------------

def prompt_defender(state: dict) -> None:
    b = state["battle"]
    b["step"] = "defender"
    options = [_option(iid, f"Defend with {_champion_text(state, iid, where)}", z.about(state, iid, b["defender"], where))
               for iid, where in available_champions(state, b["defender"])]
    options.append(_option("decline", "Do not defend (the realm is razed)"))
    ask(state, b["defender"], "choose_defender",
        f"Choose a champion to defend {z.name(state, b['realm'])}, or decline", options, "decline")


def answer_defender(state: dict, option: str, events: list) -> bool:
    b = state["battle"]
    if option == "decline":
        events.append({"kind": "defense_declined", "data": {"seat": b["defender"], "round": b["round"]}})
        return round_won(state, "attacker", "declined", events)
    b["sides"]["defender"] = _take_champion(state, b["defender"], option)
    _chosen(state, "defender", b["sides"]["defender"], events)
    # D: powers activate in the order of spellfire-2; a champion that slays its opponent
    # before the opponent's turn to activate wins the round there and then.
    order, slain = [], None
    for label, side, iid in activation.sequence(state, b):
        entry = pw.activate(state, b, side, iid)
        entry["step"] = label
        entry.update(_where(state, b, side, iid))
        order.append(entry)
        if "slays" in entry:
            slain = entry["slays"]
            break
    events.append({"kind": "powers_activated", "data": {"order": order, "slain": slain,
                                                        "totals": pw.totals(state, b)}})
    if slain is not None:
        return round_won(state, OTHER[slain], "slain", events)
    prompt_play(state)  # E: compare; F: the side behind plays
    return False


def _where(state: dict, b: dict, side: str | None, iid: str) -> dict:
    """Owner, zone and slot of a card that activates: the realm and its holding are in
    the defender's formation; the other cards are in the battle, each its player's."""
    if side is None:
        return {"owner": b["defender"], "zone": "formation", "slot": b["slot"]}
    return {"owner": b["owners"].get(iid, b["sides"][side]["seat"]), "zone": "battle", "slot": None}


# -- F: the losing side plays cards, each answered by a response window ------------------

def _side_of(b: dict, seat: str) -> str:
    return "attacker" if b["attacker"] == seat else "defender"


def prompt_play(state: dict) -> None:
    b = state["battle"]
    b["step"] = "play"
    side = pw.loser(state, b)
    seat = b["sides"][side]["seat"]
    options = [_option(iid, f"Play {z.name(state, iid)}", z.about(state, iid, seat, "hand"))
               for iid in state["players"][seat]["hand"] if pw.playable(state, b, side, iid, False)]
    options.append(_option("stop", "Play no more cards (you lose the round)"))
    t = pw.totals(state, b)
    ask(state, seat, "battle_play",
        f"You are behind ({t[side]} against {t[OTHER[side]]}): play a card, or stop", options, "stop")


def _open_window(state: dict, player: str, played: str, played_for: str | None) -> None:
    """After a card is played every other player may respond: the two sides with events
    and play-at-any-time cards their champion can use, the other players with events.
    One prompt per seat, sharing a window id; each opens whether or not its seat holds a
    card it could play, so that being asked tells nothing. Every option says, in
    `answers`, which card the window answers (who played it, for which side)."""
    b = state["battle"]
    b["step"] = "respond"
    window = f"w{state['next_prompt'] + 1}"
    answers = {**z.ref(state, played), "owner": player, "side": played_for}
    for seat in state["seats"]:
        if seat == player:
            continue
        hand = state["players"][seat]["hand"]
        if seat in (b["attacker"], b["defender"]):
            side = _side_of(b, seat)
            options = [_option(iid, f"Play {z.name(state, iid)}", z.about(state, iid, seat, "hand"), answers=answers)
                       for iid in hand if pw.playable(state, b, side, iid, True)]
            text = f"{z.name(state, played)} was played: respond with an event or a play-at-any-time card, or pass"
        else:
            options = [_outside_option(state, seat, iid, answers) for iid in hand
                       if z.card(state, iid)["type"] == "event"]
            text = (f"{z.name(state, played)} was played in the battle of {b['attacker']} against {b['defender']}: "
                    "play an event, or pass")
        options.append(_option("pass", "Let it stand", answers=answers))
        ask(state, seat, "respond", text, options, "pass", window=window)


def _outside_option(state: dict, seat: str, iid: str, answers: dict) -> dict:
    """An event played by a seat outside the battle: one that helps a side names it."""
    c = z.card(state, iid)
    about = z.about(state, iid, seat, "hand")
    if pw.takes_side(c):
        return _option(iid, f"Play {c['name']} for a side", about, answers=answers,
                       args={"side": ["attacker", "defender"]})
    return _option(iid, f"Play {c['name']}", about, answers=answers)


def _play(state: dict, seat: str, iid: str, events: list, side: str | None = None) -> bool:
    """`seat` plays a card from its hand: for its own side if it is in the battle, else
    for `side` (or for none: an event that helps no side)."""
    b = state["battle"]
    if seat in (b["attacker"], b["defender"]):
        side = _side_of(b, seat)
    elif side is not None and z.card(state, iid)["bonus"]:
        b["owners"][iid] = seat  # it stays with the side until the round ends, then goes back to its owner
    state["players"][seat]["hand"].remove(iid)
    outcome = pw.play(state, b, side, iid, events, seat)
    if outcome is not None:
        return _outcome(state, outcome, events)
    _open_window(state, seat, iid, side)
    return False


def answer_play(state: dict, seat: str, option: str, events: list) -> bool:
    b = state["battle"]
    if option == "stop":  # G: the side that stops is behind, so the other wins
        side = _side_of(b, seat)
        return round_won(state, OTHER[side], "combat", events)
    return _play(state, seat, option, events)


def answer_respond(state: dict, prompt: dict, option: str, args: dict, events: list) -> bool:
    """A pass closes that seat's prompt; when the whole window has passed, the side behind
    plays on. A card played closes the rest of the window and opens the next one."""
    if option == "pass":
        state["prompts"] = [p for p in state["prompts"] if p["id"] != prompt["id"]]
        if not state["prompts"]:
            prompt_play(state)
        return False
    state["prompts"] = []
    return _play(state, prompt["seat"], option, events, args.get("side"))


def _outcome(state: dict, outcome: str, events: list) -> bool:
    """A card ended the round or the battle outright (spellfire-3)."""
    b = state["battle"]
    if outcome == "defender_discarded":
        return round_won(state, "attacker", "card", events)
    keep = {"attacker": outcome == "realm_razed", "defender": outcome in ("realm_razed", "attacker_discarded")}
    t = pw.totals(state, b)
    _close_round(state, keep, events)
    winner = {"realm_razed": "attacker", "attacker_discarded": "defender"}.get(outcome)
    events.append({"kind": "round_ended", "data": {"round": b["round"], "winner": winner,
                                                   "winner_seat": None if winner is None else b[winner],
                                                   "how": outcome, "totals": t, "defeats": b["defeats"]}})
    if outcome == "realm_razed":
        _raze(state, "card", events)
    elif outcome == "attacker_discarded":
        b["defender_spoils"] = True
    return finish(state, events)


# -- G, H, I: the round's winner, the cards, the realm ---------------------------------

def _close_round(state: dict, keep: dict, events: list) -> None:
    """H: a kept champion goes back to its pool with its magical items and artifacts; its
    other cards are discarded. A champion not kept is discarded with everything."""
    b = state["battle"]
    for side in ("attacker", "defender"):
        s = b["sides"][side]
        if s is None:
            continue
        b["sides"][side] = None
        seat = s["seat"]
        if keep[side]:
            state["players"][seat]["pool"].append({"champion": s["champion"], "attached": s["attached"]})
            events.append({"kind": "champion_returned", "data": {"seat": seat, **z.about(state, s["champion"], seat, "pool"),
                                                                 "attached": z.refs(state, s["attached"]),
                                                                 "from": "battle"}})
            _discard_owned(state, seat, s["played"], "round_over", events)
        else:
            _discard_owned(state, seat, [s["champion"]] + s["attached"] + s["played"], "defeated", events)


def _discard_owned(state: dict, seat: str, iids: list[str], reason: str, events: list) -> None:
    """Discard a side's cards, each to its owner's pile: the side's seat, or the seat
    outside the battle that played it for that side."""
    owners = state["battle"]["owners"]
    piles: dict[str, list[str]] = {seat: []}
    for iid in iids:
        piles.setdefault(owners.pop(iid, seat), []).append(iid)
    for owner, cards in piles.items():  # insertion order: the side's seat first
        z.discard(state, owner, cards, reason, events)


def round_won(state: dict, winner: str, how: str, events: list) -> bool:
    b = state["battle"]
    both = b["sides"]["defender"] is not None
    t = pw.totals(state, b) if both else None
    _close_round(state, {winner: True, OTHER[winner]: False}, events)
    events.append({"kind": "round_ended", "data": {"round": b["round"], "winner": winner, "winner_seat": b[winner],
                                                   "how": how, "totals": t,
                                                   "defeats": b["defeats"] + (winner == "attacker")}})
    if winner == "defender":
        b["defender_spoils"] = True  # the attacking champion was discarded
        prompt_attacker(state)
        return False
    b["defeats"] += 1
    if "defeat_twice" in z.card(state, b["realm"])["powers"] and b["defeats"] < 2:
        events.append({"kind": "realm_holds", "data": {"seat": b["defender"], "defeats": b["defeats"],
                                                       **z.about(state, b["realm"], b["defender"], "formation", b["slot"])}})
        prompt_attacker(state)
        return False
    _raze(state, how, events)
    return finish(state, events)


def _raze(state: dict, how: str, events: list) -> None:
    b = state["battle"]
    b["razed"] = True
    slot = state["players"][b["defender"]]["formation"][b["slot"]]
    slot["razed"] = True
    events.append({"kind": "realm_razed", "data": {"seat": b["defender"], "how": how,
                                                   **z.about(state, b["realm"], b["defender"], "formation", b["slot"])}})
    if slot["holding"] is not None:  # a razed realm loses its holding
        holding, slot["holding"] = slot["holding"], None
        z.discard(state, b["defender"], [holding], "realm_razed", events, b["slot"])


# -- J: spoils of victory ----------------------------------------------------------------

def finish(state: dict, events: list) -> bool:
    """The battle is over: the attacker draws spoils if the realm fell, else the defender
    if an attacking champion was discarded (once per battle either way)."""
    b = state["battle"]
    state["battle"] = None
    state["turn"]["attacks"] += 1  # counted here, so that battle_ended can say it
    events.append({"kind": "battle_ended", "data": {"attacker": b["attacker"], "defender": b["defender"],
                                                    **z.about(state, b["realm"], b["defender"], "formation", b["slot"]),
                                                    "razed": b["razed"], "rounds": b["round"],
                                                    "attacks": state["turn"]["attacks"]}})
    seat = b["attacker"] if b["razed"] else b["defender"] if b["defender_spoils"] else None
    if seat is None:
        return True
    drawn = z.draw(state, seat, 1, "spoils", events)
    if not drawn:
        return True
    state["spoils"] = {"seat": seat, "card": drawn[0]}
    prompt_spoils(state)
    return False


def prompt_spoils(state: dict) -> None:
    """Always asked, even when the card cannot be played now, so that nothing leaks."""
    seat, iid = state["spoils"]["seat"], state["spoils"]["card"]
    options = []
    if z.card(state, iid)["type"] in ("realm", "holding", "champion", "magical_item", "artifact"):
        opt = plays.option(state, seat, iid, z.in_play(state))
        if opt is not None:
            options.append(opt)
    options.append(_option("keep", "Keep it in your hand", z.about(state, iid, seat, "hand")))
    ask(state, seat, "spoils", f"Spoils of victory: {z.name(state, iid)}. Play it now or keep it",
        options, "keep")


def answer_spoils(state: dict, option: str, args: dict, events: list) -> bool:
    seat, iid = state["spoils"]["seat"], state["spoils"]["card"]
    state["spoils"] = None
    if option == "keep":
        events.append({"kind": "spoils_kept", "data": {"seat": seat},
                       "private": {seat: z.about(state, iid, seat, "hand")}})
    else:
        plays.play(state, seat, option, args, events, via="spoils")
    return True
