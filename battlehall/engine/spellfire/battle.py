"""A battle: rounds of combat against one realm, steps B-J of spellfire-1.

``state["battle"]`` while one runs::

    {"attacker": seat, "defender": seat, "realm": card, "slot": "A".."F",
     "round": n, "defeats": n,            # rounds fought; rounds the realm lost
     "step": "attacker" | "defender" | "play" | "respond",
     "razed": bool, "defender_spoils": bool,
     "sides": {"attacker": side | None, "defender": side | None},
     "owners": {card: seat},             # cards played for a side by a seat outside the battle
     "before_battle": [card, ...],       # cards played before this round's battle (before.py)
     "effects": {...}}                   # this round's negations (activation.effects)

and a side is ``{"seat", "champion", "from": "hand" | "pool" | "realm", "attached": [...],
"played": [...], "brought": [...]}`` (attached: magical items and artifacts, which stay
with a winning champion; played: allies, spells and the like, discarded when the round
ends; brought: pool champions called in as allies, which stay in the pool; "realm": the
realm under attack defends itself).

Each function that answers a prompt returns True when the battle is over (spoils
included), so that the turn goes on; otherwise it has opened the next prompt.
"""

from __future__ import annotations

from . import before
from . import formation as fm
from . import plays
from . import powers as pw
from . import zones as z
from .prompts import ask

OTHER = pw.OTHER


def available_champions(state: dict, seat: str) -> list[tuple[str, str]]:
    """(champion, "pool" | "hand") not yet used this turn; from hand only if the Rule of
    the Cosmos lets it come into play."""
    used = state["turn"]["used"]
    player = state["players"][seat]
    out = [(e["champion"], "pool") for e in player["pool"] if e["champion"] not in used]
    # an avatar (a champion with a cost) comes into play only through the pool, where its cost is paid
    hand = [iid for iid in player["hand"] if z.card(state, iid)["type"] == "champion" and iid not in used
            and z.card(state, iid)["cost"] is None]
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
                                                      **z.ref(state, realm), "slot": slot}})
    prompt_attacker(state)


# -- B: the attacking champion ---------------------------------------------------------

def prompt_attacker(state: dict) -> None:
    b = state["battle"]
    b["step"] = "attacker"
    formation = state["players"][b["defender"]]["formation"]
    realm = z.card(state, b["realm"])
    is_exposed = fm.exposed(formation, b["slot"])
    options = [{"id": iid, "text": f"Attack with {_champion_text(state, iid, where)}"}
               for iid, where in available_champions(state, b["attacker"])
               if fm.reaches(z.card(state, iid), realm, is_exposed)]
    options.append({"id": "end", "text": "End the battle"})
    ask(state, b["attacker"], "choose_attacker",
        f"Round {b['round'] + 1} against {realm['name']}: choose an attacking champion, or end the battle",
        options, "end")


def _take_champion(state: dict, seat: str, iid: str) -> dict:
    """Move a champion (with what is attached to it) from hand or pool into a battle side;
    a realm that defends itself stays in its formation slot."""
    player = state["players"][seat]
    entry = z.pool_entry(state, seat, iid)
    if iid == state["battle"]["realm"]:
        where, attached = "realm", []
    elif entry is not None:
        player["pool"].remove(entry)
        where, attached = "pool", entry["attached"]
    else:
        player["hand"].remove(iid)
        where, attached = "hand", []
    state["turn"]["used"].append(iid)  # no champion fights twice in a turn
    return {"seat": seat, "champion": iid, "from": where, "attached": attached, "played": [], "brought": []}


def _chosen(state: dict, side: str, s: dict, events: list) -> None:
    events.append({"kind": "champion_chosen", "data": {
        "seat": s["seat"], "side": side, **z.ref(state, s["champion"]), "from": s["from"],
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
    options = [{"id": iid, "text": f"Defend with {_champion_text(state, iid, where)}"}
               for iid, where in available_champions(state, b["defender"])]
    realm = z.card(state, b["realm"])
    if realm["defends_as"] and b["realm"] not in state["turn"]["used"]:
        options.append({"id": b["realm"], "text": f"{realm['name']} defends itself (level {realm['defends_as']})"})
    options.append({"id": "decline", "text": "Do not defend (the realm is razed)"})
    ask(state, b["defender"], "choose_defender",
        f"Choose a champion to defend {z.name(state, b['realm'])}, or decline", options, "decline")


def answer_defender(state: dict, option: str, events: list) -> bool:
    b = state["battle"]
    if option == "decline":
        events.append({"kind": "defense_declined", "data": {"seat": b["defender"], "round": b["round"]}})
        return round_won(state, "attacker", "declined", events)
    b["sides"]["defender"] = _take_champion(state, b["defender"], option)
    _chosen(state, "defender", b["sides"]["defender"], events)
    if before.open_step(state):  # yellow cards played before the battle (spellfire-2 row 5)
        return False
    return step_d(state, events)


def answer_before(state: dict, seat: str, option: str, events: list) -> bool:
    if before.answer(state, seat, option, events):
        return step_d(state, events)
    return False


def step_d(state: dict, events: list) -> bool:
    """D: powers activate in the order of spellfire-2 (powers.activate_round); a champion
    that slays its opponent before the opponent's turn to activate wins the round there
    and then. E: compare; F: the side behind plays."""
    b = state["battle"]
    slain = pw.activate_round(state, b, events)
    if slain is not None:
        return round_won(state, OTHER[slain], "slain", events)
    prompt_play(state)
    return False


# -- F: the losing side plays cards, each answered by a response window ------------------

def _side_of(b: dict, seat: str) -> str:
    return "attacker" if b["attacker"] == seat else "defender"


def prompt_play(state: dict) -> None:
    b = state["battle"]
    b["step"] = "play"
    side = pw.loser(state, b)
    seat = b["sides"][side]["seat"]
    options = [{"id": iid, "text": f"Play {z.name(state, iid)}"}
               for iid in state["players"][seat]["hand"] if pw.playable(state, b, side, iid, False)]
    options += pw.bring_options(state, b, side)  # a power that brings a card in acts only now
    options.append({"id": "stop", "text": "Play no more cards (you lose the round)"})
    t = pw.totals(state, b)
    ask(state, seat, "battle_play",
        f"You are behind ({t[side]} against {t[OTHER[side]]}): play a card, or stop", options, "stop")


def _open_window(state: dict, player: str) -> None:
    """After a card is played every other player may respond: the two sides with events
    and play-at-any-time cards their champion can use, the other players with events.
    One prompt per seat, sharing a window id; each opens whether or not its seat holds a
    card it could play, so that being asked tells nothing."""
    b = state["battle"]
    b["step"] = "respond"
    window = f"w{state['next_prompt'] + 1}"
    for seat in state["seats"]:
        if seat == player:
            continue
        hand = state["players"][seat]["hand"]
        if seat in (b["attacker"], b["defender"]):
            side = _side_of(b, seat)
            options = [{"id": iid, "text": f"Play {z.name(state, iid)}"}
                       for iid in hand if pw.playable(state, b, side, iid, True)]
            text = "A card was played: respond with an event or a play-at-any-time card, or pass"
        else:
            options = [_outside_option(state, iid) for iid in hand if z.card(state, iid)["type"] == "event"]
            text = (f"A card was played in the battle of {b['attacker']} against {b['defender']}: "
                    "play an event, or pass")
        options.append({"id": "pass", "text": "Let it stand"})
        ask(state, seat, "respond", text, options, "pass", window=window)


def _outside_option(state: dict, iid: str) -> dict:
    """An event played by a seat outside the battle: one that helps a side names it."""
    c = z.card(state, iid)
    if pw.takes_side(c):
        return {"id": iid, "text": f"Play {c['name']} for a side", "args": {"side": ["attacker", "defender"]}}
    return {"id": iid, "text": f"Play {c['name']}"}


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
    if "play_at_once" in z.card(state, iid)["powers"] and seat in (b["attacker"], b["defender"]):
        prompt_at_once(state, seat)
        return False
    _open_window(state, seat)
    return False


def prompt_at_once(state: dict, seat: str) -> None:
    """A card that lets its player play another card at once, outside the order of
    activation and of the turns of play (spellfire-2: such cards supersede the rule)."""
    b = state["battle"]
    b["step"] = "play_at_once"
    side = _side_of(b, seat)
    options = [{"id": iid, "text": f"Play {z.name(state, iid)} at once"}
               for iid in state["players"][seat]["hand"] if pw.playable(state, b, side, iid, False)]
    options.append({"id": "pass", "text": "Play nothing more now"})
    ask(state, seat, "play_at_once", "Play one more card at once, or pass", options, "pass")


def answer_at_once(state: dict, seat: str, option: str, events: list) -> bool:
    if option == "pass":
        _open_window(state, seat)
        return False
    return _play(state, seat, option, events)


def answer_play(state: dict, seat: str, option: str, events: list) -> bool:
    b = state["battle"]
    if option == "stop":  # G: the side that stops is behind, so the other wins
        side = _side_of(b, seat)
        return round_won(state, OTHER[side], "combat", events)
    if option not in state["players"][seat]["hand"]:  # a pool champion called in as an ally
        pw.bring(state, b, _side_of(b, seat), option, events)
        _open_window(state, seat)
        return False
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
    events.append({"kind": "round_ended", "data": {"round": b["round"], "winner": None, "how": outcome, "totals": t}})
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
        pw.release_brought(state, s, keep[side], events)
        if s["from"] == "realm":  # a realm that defended itself stays in its slot; what it used goes
            _discard_owned(state, seat, s["attached"] + s["played"], "round_over", events)
        elif keep[side]:
            state["players"][seat]["pool"].append({"champion": s["champion"], "attached": s["attached"]})
            events.append({"kind": "champion_returned", "data": {"seat": seat, **z.ref(state, s["champion"]),
                                                                 "attached": z.refs(state, s["attached"])}})
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
    events.append({"kind": "round_ended", "data": {"round": b["round"], "winner": winner, "how": how, "totals": t}})
    if winner == "defender":
        b["defender_spoils"] = True  # the attacking champion was discarded
        prompt_attacker(state)
        return False
    b["defeats"] += 1
    if "defeat_twice" in z.card(state, b["realm"])["powers"] and b["defeats"] < 2:
        events.append({"kind": "realm_holds", "data": {"seat": b["defender"], **z.ref(state, b["realm"]),
                                                       "defeats": b["defeats"]}})
        prompt_attacker(state)
        return False
    _raze(state, how, events)
    return finish(state, events)


def _raze(state: dict, how: str, events: list) -> None:
    b = state["battle"]
    b["razed"] = True
    slot = state["players"][b["defender"]]["formation"][b["slot"]]
    slot["razed"] = True
    events.append({"kind": "realm_razed", "data": {"seat": b["defender"], **z.ref(state, b["realm"]),
                                                   "slot": b["slot"], "how": how}})
    if slot["holding"] is not None:  # a razed realm loses its holding
        holding, slot["holding"] = slot["holding"], None
        z.discard(state, b["defender"], [holding], "realm_razed", events)


# -- J: spoils of victory ----------------------------------------------------------------

def finish(state: dict, events: list) -> bool:
    """The battle is over: the attacker draws spoils if the realm fell, else the defender
    if an attacking champion was discarded (once per battle either way)."""
    b = state["battle"]
    state["battle"] = None
    events.append({"kind": "battle_ended", "data": {"attacker": b["attacker"], "defender": b["defender"],
                                                    **z.ref(state, b["realm"]), "razed": b["razed"],
                                                    "rounds": b["round"]}})
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
    if z.card(state, iid)["type"] in ("realm", "holding", "champion", "magical_item", "artifact", "rule", "dungeon"):
        opt = plays.option(state, seat, iid, z.in_play(state))
        if opt is not None:
            options.append(opt)
    options.append({"id": "keep", "text": "Keep it in your hand"})
    ask(state, seat, "spoils", f"Spoils of victory: {z.name(state, iid)}. Play it now or keep it",
        options, "keep")


def answer_spoils(state: dict, option: str, args: dict, events: list) -> bool:
    seat = state["spoils"]["seat"]
    state["spoils"] = None
    if option == "keep":
        events.append({"kind": "spoils_kept", "data": {"seat": seat}})
    else:
        plays.play(state, seat, option, args, events)
    return True
