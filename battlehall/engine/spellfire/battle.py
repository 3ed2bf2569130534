"""A battle: rounds of combat against one realm, steps B-J of spellfire-1.

``state["battle"]`` while one runs::

    {"attacker": seat, "defender": seat, "realm": card, "slot": "A".."F",
     "round": n, "defeats": n,            # rounds fought; rounds the realm lost
     "step": "attacker" | "defender" | "play" | "respond",
     "razed": bool, "discarded": bool,    # what card play or combat did to the realm
     "extra": bool,                       # a battle beyond attacks_per_turn (extra_attack)
     "pending": None | {"outcome", "card", "seat", "held"},  # a card's outcome, waiting for its window
     "at_once": card,                     # while its player may play another card at once (play_at_once)
     "sides": {"attacker": side | None, "defender": side | None},
     "owners": {card: seat},             # cards played for a side by a seat outside the battle
     "before_battle": [card, ...],       # cards played before this round's battle (before.py)
     "entered": {card: moment},          # when each card came into this round (activation.enter)
     "effects": {...}}                   # this round's negations (activation.effects)

and a side is ``{"seat", "champion", "from": "hand" | "pool" | "realm", "attached": [...],
"played": [...], "brought": [...]}`` (attached: magical items and artifacts, which stay
with a winning champion; played: allies, spells and the like, discarded when the round
ends; brought: pool champions called in as allies, which stay in the pool; "realm": the
realm under attack defends itself).

Each function that answers a prompt returns True when the battle is over (spoils
included), so that the turn goes on; otherwise it has opened the next prompt. Where the
champions go when a round ends is fates.py; the spoils are spoils.py.
"""

from __future__ import annotations

from ..ruleset import Prompt
from . import activation, before, fates, powers, spoils, zones
from . import formation as fm
from .prompts import ask
from .prompts import option as _option

OTHER = powers.OTHER


def uses_left(state: dict, seat: str, iid: str) -> int:
    """How many more times this champion may fight this turn: once, or twice for an
    `extra_attack` champion of the seat whose turn it is (spellfire-1 I: "No champion may
    be used more than once each turn unless its special power permits it")."""
    limit = 2 if seat == state["turn"]["seat"] and "extra_attack" in zones.card(state, iid)["powers"] else 1
    return limit - state["turn"]["used"].count(iid)


def available_champions(state: dict, seat: str) -> list[tuple[str, str]]:
    """(champion, "pool" | "hand") that may still fight this turn; from hand only if the
    Rule of the Cosmos lets it come into play."""
    player = state["players"][seat]
    out = [(e["champion"], "pool") for e in player["pool"] if uses_left(state, seat, e["champion"]) > 0]
    # an avatar (a champion with a cost) comes into play only through the pool, where its cost is paid
    hand = [iid for iid in player["hand"] if zones.card(state, iid)["type"] == "champion"
            and uses_left(state, seat, iid) > 0 and zones.card(state, iid)["cost"] is None]
    if hand:
        playing = zones.in_play(state)
        out += [(iid, "hand") for iid in hand if zones.cosmos_allows(state, iid, playing)]
    return out


def extra_attackers(state: dict) -> list[tuple[str, str]]:
    """The turn's champions that attacked once and may attack again (`extra_attack`): each
    may open a battle beyond `attacks_per_turn` (spellfire-1 J: "Only a handful of champions
    allow an attack on more than one realm per turn")."""
    seat = state["turn"]["seat"]
    return [(iid, where) for iid, where in available_champions(state, seat)
            if "extra_attack" in zones.card(state, iid)["powers"] and iid in state["turn"]["used"]]


def _champion_text(state: dict, iid: str, where: str) -> str:
    c = zones.card(state, iid)
    return f"{c['name']} (level {c['level']}, {c['class']}, from {where})"


# -- A: the realm is chosen (turn.py); the battle begins ---------------------------------

def start(state: dict, realm: str, events: list) -> None:
    for seat in state["seats"]:
        formation = state["players"][seat]["formation"]
        for s in fm.SLOTS:
            if formation[s] is not None and formation[s]["realm"] == realm:
                owner, slot = seat, s
    attacker = state["turn"]["seat"]
    extra = state["turn"]["attacks"] >= state["options"]["attacks_per_turn"]
    state["battle"] = {"attacker": attacker, "defender": owner, "realm": realm, "slot": slot,
                       "round": 0, "defeats": 0, "step": "attacker", "razed": False, "discarded": False,
                       "extra": extra, "pending": None, "sides": {"attacker": None, "defender": None}, "owners": {}}
    events.append({"kind": "battle_started", "data": {"attacker": attacker, "defender": owner,
                                                      **zones.about(state, realm, owner, "formation", slot)}})
    prompt_attacker(state)


# -- B: the attacking champion ---------------------------------------------------------

def prompt_attacker(state: dict) -> None:
    b = state["battle"]
    b["step"] = "attacker"
    formation = state["players"][b["defender"]]["formation"]
    realm = zones.card(state, b["realm"])
    is_exposed = fm.exposed(formation, b["slot"])
    champions = extra_attackers(state) if b["extra"] and b["round"] == 0 else available_champions(state, b["attacker"])
    options = [_option(iid, f"Attack with {_champion_text(state, iid, where)}", zones.about(state, iid, b["attacker"], where))
               for iid, where in champions if fm.reaches(zones.card(state, iid), realm, is_exposed)]
    target = f"{b['defender']}'s {realm['name']} ({b['slot']})"
    if b["round"] > 0:
        options.append(_option("end", f"End the battle: {realm['name']} stands, and nobody draws spoils"))
        text = f"Round {b['round'] + 1} against {target}: choose an attacking champion, or end the battle"
    else:
        if may_withdraw(state):
            options.append(_option("back", f"Back: leave {realm['name']} and choose another realm or end "
                                           "the attack phase (the attack is not spent; once a turn)"))
        options.append(_option("end", f"End the battle against {realm['name']} without fighting: "
                                      "no spoils, and this attack is spent"))
        text = (f"Round 1 against {target}: choose an attacking champion"
                + (", go back (the attack is not spent)" if may_withdraw(state) else "")
                + ", or end the battle (the attack is spent)")
    ask(state, b["attacker"], "choose_attacker", text, options, "end")


def may_withdraw(state: dict) -> bool:
    """May the attacker back out of the realm it chose, before any champion steps forward?
    Once a turn, so that a turn always moves on (every other answer consumes a card or
    a step)."""
    return not state["turn"].get("withdrawn", False)


def withdraw(state: dict, events: list) -> bool:
    """`back` at step B of the first round: no battle was fought, the attack is not
    spent; the turn goes back to choosing a realm (turn.after_battle)."""
    b = state["battle"]
    state["battle"] = None
    state["turn"]["withdrawn"] = True
    events.append({"kind": "attack_withdrawn", "data": {
        "attacker": b["attacker"], "defender": b["defender"],
        **zones.about(state, b["realm"], b["defender"], "formation", b["slot"]), "attacks": state["turn"]["attacks"]}})
    return True


def _take_champion(state: dict, seat: str, iid: str) -> dict:
    """Move a champion (with what is attached to it) from hand or pool into a battle side;
    a realm that defends itself stays in its formation slot."""
    player = state["players"][seat]
    entry = zones.pool_entry(state, seat, iid)
    if iid == state["battle"]["realm"]:
        where, attached = "realm", []
    elif entry is not None:
        player["pool"].remove(entry)
        where, attached = "pool", entry["attached"]
    else:
        player["hand"].remove(iid)
        where, attached = "hand", []
    state["turn"]["used"].append(iid)  # one use of its fights this turn (uses_left)
    activation.enter(state["battle"], [iid] + attached)  # its pool items come in with it (spellfire-2)
    return {"seat": seat, "champion": iid, "from": where, "attached": attached, "played": [], "brought": []}


def _chosen(state: dict, side: str, s: dict, events: list) -> None:
    events.append({"kind": "champion_chosen", "data": {
        "seat": s["seat"], "side": side, **zones.about(state, s["champion"], s["seat"], "battle"), "from": s["from"],
        "attached": zones.refs(state, s["attached"]), "round": state["battle"]["round"]}})


def answer_attacker(state: dict, option: str, events: list) -> bool:
    b = state["battle"]
    if option == "back":
        return withdraw(state, events)
    if option == "end":
        return finish(state, None, events)
    b["round"] += 1
    b["entered"] = {}  # a new round: nothing has come into it yet
    b["sides"]["attacker"] = _take_champion(state, b["attacker"], option)
    _chosen(state, "attacker", b["sides"]["attacker"], events)
    prompt_defender(state)
    return False


# -- C: the defending champion, or no defence -------------------------------------------

def prompt_defender(state: dict) -> None:
    b = state["battle"]
    b["step"] = "defender"
    options = [_option(iid, f"Defend with {_champion_text(state, iid, where)}", zones.about(state, iid, b["defender"], where))
               for iid, where in available_champions(state, b["defender"])]
    realm = zones.card(state, b["realm"])
    if realm["defends_as"] and b["realm"] not in state["turn"]["used"]:
        options.append(_option(b["realm"], f"{realm['name']} defends itself (level {realm['defends_as']})",
                               zones.about(state, b["realm"], b["defender"], "formation", b["slot"])))
    options.append(_option("decline", f"Do not defend: {realm['name']} is razed and the battle ends"))
    attacking = b["sides"]["attacker"]["champion"]
    ask(state, b["defender"], "choose_defender",
        f"Round {b['round']}: {b['attacker']} attacks your {realm['name']} ({b['slot']}) with "
        f"{_champion_text(state, attacking, b['sides']['attacker']['from'])}: choose a champion to defend it, "
        "or decline", options, "decline")


def answer_defender(state: dict, option: str, events: list) -> bool:
    b = state["battle"]
    if option == "decline":
        events.append({"kind": "defense_declined", "data": {
            "seat": b["defender"], "round": b["round"], "attacker": b["attacker"],
            **zones.about(state, b["realm"], b["defender"], "formation", b["slot"])}})
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
    slain = powers.activate_round(state, b, events)
    if slain is not None:
        side, slayer = slain
        return round_won(state, OTHER[side], "slain", events, cause=[slayer])
    prompt_play(state)
    return False


# -- F: the losing side plays cards, each answered by a response window ------------------

def _side_of(b: dict, seat: str) -> str:
    return "attacker" if b["attacker"] == seat else "defender"


def prompt_play(state: dict) -> None:
    b = state["battle"]
    b["step"] = "play"
    side = powers.loser(state, b)
    seat = b["sides"][side]["seat"]
    options = [_option(iid, f"Play {zones.name(state, iid)}", zones.about(state, iid, seat, "hand"))
               for iid in state["players"][seat]["hand"] if powers.playable(state, b, side, iid, False)]
    options += powers.bring_options(state, b, side)  # a power that brings a card in acts only now
    options.append(_option("stop", "Play no more cards (you lose the round)"))
    t = powers.totals(state, b)
    mine, theirs = (zones.name(state, b["sides"][s]["champion"]) for s in (side, OTHER[side]))
    ask(state, seat, "battle_play",
        f"Round {b['round']} for {b['defender']}'s {zones.name(state, b['realm'])} ({b['slot']}): your {mine} "
        f"({side}) is behind {theirs}, {t[side]} against {t[OTHER[side]]}: play a card, or stop", options, "stop")


def _open_window(state: dict, player: str, played: str, played_for: str | None) -> None:
    """After a card is played every other player may respond: the two sides with events
    and play-at-any-time cards their champion can use, the other players with events.
    One prompt per seat, sharing a window id; each opens whether or not its seat holds a
    card it could play, so that being asked tells nothing. Every option says, in
    `answers`, which card the window answers (who played it, for which side)."""
    b = state["battle"]
    b["step"] = "respond"
    window = f"w{state['next_prompt'] + 1}"
    answers = {**zones.ref(state, played), "owner": player, "side": played_for}
    for seat in state["seats"]:
        if seat == player or seat in state.get("resigned", []):  # a seat that resigned is asked nothing
            continue
        hand = state["players"][seat]["hand"]
        if seat in (b["attacker"], b["defender"]):
            side = _side_of(b, seat)
            options = [_option(iid, f"Play {zones.name(state, iid)}", zones.about(state, iid, seat, "hand"), answers=answers)
                       for iid in hand if powers.playable(state, b, side, iid, True)]
            text = (f"{player} played {zones.name(state, played)}"
                    + (f" for the {played_for}" if played_for else "")
                    + f" in the battle for {zones.name(state, b['realm'])}: respond with an event or a "
                    "play-at-any-time card, or pass")
        else:
            options = [_outside_option(state, seat, iid, answers) for iid in hand
                       if zones.card(state, iid)["type"] == "event"]
            text = (f"{player} played {zones.name(state, played)}"
                    + (f" for the {played_for}" if played_for else "")
                    + f" in the battle of {b['attacker']} against {b['defender']}'s {zones.name(state, b['realm'])}: "
                    "play an event, or pass")
        options.append(_option("pass", f"Let {zones.name(state, played)} stand", answers=answers))
        ask(state, seat, "respond", text, options, "pass", window=window)


def _outside_option(state: dict, seat: str, iid: str, answers: dict) -> dict:
    """An event played by a seat outside the battle: one that helps a side names it."""
    c = zones.card(state, iid)
    about = zones.about(state, iid, seat, "hand")
    if powers.takes_side(c):
        b = state["battle"]
        words = {side: f"for the {side}, {b[side]}'s {zones.name(state, b['sides'][side]['champion'])}"
                 for side in ("attacker", "defender")}
        return _option(iid, f"Play {c['name']} for a side", about, answers=answers,
                       args={"side": ["attacker", "defender"]}, args_text={"side": words})
    return _option(iid, f"Play {c['name']}", about, answers=answers)


def _held(b: dict) -> list[str]:
    """The cards a battle holds for its sides (played and attached)."""
    return [i for s in b["sides"].values() if s is not None for i in s["played"] + s["attached"]]


def _play(state: dict, seat: str, iid: str, events: list, side: str | None = None) -> bool:
    """`seat` plays a card from its hand: for its own side if it is in the battle, else
    for `side` (or for none: an event that helps no side). Every card, the one that ends
    the round or the battle too, is followed by an any-time window (rules/NOTES.md): an
    outcome waits in ``pending`` until the window has passed."""
    b = state["battle"]
    if seat in (b["attacker"], b["defender"]):
        side = _side_of(b, seat)
    elif side is not None and zones.card(state, iid)["bonus"]:
        b["owners"][iid] = seat  # it stays with the side until the round ends, then goes back to its owner
    state["players"][seat]["hand"].remove(iid)
    outcome = powers.play(state, b, side, iid, events, seat)
    pending = b["pending"]
    if pending is not None and pending["held"] and pending["card"] not in _held(b):
        # the card whose outcome waited was taken out of the battle (counter_spell): no outcome
        b["pending"] = None
        events.append({"kind": "outcome_cancelled", "data": {
            **zones.about(state, pending["card"], pending["seat"], "discard"), "outcome": pending["outcome"],
            "by": zones.ref(state, iid)}})
        pending = None
    if outcome is not None and pending is None:
        # a second outcome while one waits has none: the card played first wins (spellfire-2)
        b["pending"] = {"outcome": outcome, "card": iid, "seat": seat, "held": iid in _held(b)}
        events.append({"kind": "outcome_pending", "data": {
            "seat": seat, **zones.about(state, iid, seat, "battle" if iid in _held(b) else "discard"),
            "outcome": outcome}})
    if "play_at_once" in zones.card(state, iid)["powers"] and seat in (b["attacker"], b["defender"]):
        prompt_at_once(state, seat, iid)  # the window follows the card played at once, or the pass
        return False
    _open_window(state, seat, iid, side)
    return False


def prompt_at_once(state: dict, seat: str, played: str) -> None:
    """A card that lets its player play another card at once, outside the order of
    activation and of the turns of play (spellfire-2: such cards supersede the rule)."""
    b = state["battle"]
    b["step"] = "play_at_once"
    b["at_once"] = played
    side = _side_of(b, seat)
    options = [_option(iid, f"Play {zones.name(state, iid)} at once", zones.about(state, iid, seat, "hand"))
               for iid in state["players"][seat]["hand"] if powers.playable(state, b, side, iid, False)]
    options.append(_option("pass", "Play nothing more now"))
    ask(state, seat, "play_at_once", f"{zones.name(state, played)} lets you play one more card at once, or pass",
        options, "pass")


def answer_at_once(state: dict, seat: str, option: str, events: list) -> bool:
    b = state["battle"]
    played = b.pop("at_once")
    if option == "pass":  # the window answers the card that allowed the play
        _open_window(state, seat, played, _side_of(b, seat))
        return False
    return _play(state, seat, option, events)


def answer_play(state: dict, seat: str, option: str, events: list) -> bool:
    b = state["battle"]
    if option == "stop":  # G: the side that stops is behind, so the other wins
        side = _side_of(b, seat)
        return round_won(state, OTHER[side], "combat", events)
    if option not in state["players"][seat]["hand"]:  # a pool champion called in as an ally
        side = _side_of(b, seat)
        powers.bring(state, b, side, option, events)
        _open_window(state, seat, option, side)
        return False
    return _play(state, seat, option, events)


def answer_respond(state: dict, prompt: Prompt, option: str, args: dict, events: list) -> bool:
    """A pass closes that seat's prompt; when the whole window has passed, a waiting
    outcome takes effect, or else the side behind plays on. A card played closes the
    rest of the window and opens the next one."""
    if option == "pass":
        state["prompts"] = [p for p in state["prompts"] if p["id"] != prompt["id"]]
        if not state["prompts"]:
            b = state["battle"]
            if b["pending"] is not None:
                pending, b["pending"] = b["pending"], None
                return _outcome(state, pending, events)
            prompt_play(state)
        return False
    state["prompts"] = []
    return _play(state, prompt["seat"], option, events, args.get("side"))


# The side a card's outcome makes the round's winner (round_ended.winner), if any.
CARD_WINNER = {"realm_razed": "attacker", "realm_discarded": "attacker", "attacker_discarded": "defender"}


def _outcome(state: dict, pending: dict, events: list) -> bool:
    """A card ended the round or the battle outright (spellfire-3), once the any-time
    window after it has passed."""
    b = state["battle"]
    outcome, card = pending["outcome"], pending["card"]
    if outcome == "defender_discarded":
        return round_won(state, "attacker", "card", events, cause=[card])
    to = fates.destination(state, [card])
    sent = {"realm_razed": {"attacker": "pool", "defender": "pool"},
            "realm_discarded": {"attacker": "pool", "defender": "pool"},
            "attacker_discarded": {"attacker": to, "defender": "pool"},
            "both_discarded": {"attacker": to, "defender": to}}[outcome]
    t = powers.totals(state, b)
    closed = fates.close_round(state, sent, events)
    winner = CARD_WINNER.get(outcome)
    events.append({"kind": "round_ended", "data": {"round": b["round"], "attacker": b["attacker"],
                                                   "defender": b["defender"], "winner": winner,
                                                   "winner_seat": None if winner is None else b[winner],
                                                   "how": outcome, "totals": t, "defeats": b["defeats"]}})
    fates.after_combat(state, closed, events)
    if outcome in ("realm_razed", "realm_discarded"):  # the attacker's spoils; both champions went home
        (_raze if outcome == "realm_razed" else _discard_realm)(state, "card", events)
        return finish(state, "attacker", events)
    _spend(state, closed)
    if outcome == "attacker_discarded" and closed["fates"]["attacker"] in fates.LOST:
        return finish(state, "defender", events)
    return finish(state, None, events)  # both discarded (or a champion returned): no spoils


# -- G, H, I: the round's winner, the cards, the realm ---------------------------------

def round_won(state: dict, winner: str, how: str, events: list, cause: list[str] | None = None) -> bool:
    """The round is over and `winner` won it. The loser goes where `cause` (the cards that
    defeated it; by default the winner's side) sends it. A defeated attacker ends the
    battle (spellfire-3); so does a razed realm; a realm that must be defeated twice and
    has been defeated once holds, and the battle goes on (spellfire-1 I) — but not when
    the defence was declined: "Whenever a defender declines to defend the realm, the
    realm is razed and the battle ends" (spellfire-3; no champion was defeated)."""
    b = state["battle"]
    loser = OTHER[winner]
    t = powers.totals(state, b) if b["sides"]["defender"] is not None else None
    if cause is None:  # no side yet: the attacker left before a defender was chosen
        cause = fates.side_cards(b["sides"][winner]) if b["sides"][winner] is not None else []
    closed = fates.close_round(state, {winner: "pool", loser: fates.destination(state, cause)}, events)
    events.append({"kind": "round_ended", "data": {"round": b["round"], "attacker": b["attacker"],
                                                   "defender": b["defender"], "winner": winner,
                                                   "winner_seat": b[winner], "how": how, "totals": t,
                                                   "defeats": b["defeats"] + (winner == "attacker")}})
    fates.after_combat(state, closed, events)
    if winner == "defender":
        _spend(state, closed)
        return finish(state, "defender" if closed["fates"]["attacker"] in fates.LOST else None, events)
    b["defeats"] += 1
    if how not in ("declined", "resigned") and "defeat_twice" in zones.card(state, b["realm"])["powers"] and b["defeats"] < 2:
        events.append({"kind": "realm_holds", "data": {"seat": b["defender"], "defeats": b["defeats"],
                                                       **zones.about(state, b["realm"], b["defender"], "formation", b["slot"])}})
        prompt_attacker(state)
        return False
    _raze(state, how, events)
    return finish(state, "attacker", events)


def _spend(state: dict, closed: dict) -> None:
    """A defeated attacking champion makes no further attack this turn (spellfire-3),
    even one that returned to its pool or may attack twice."""
    if "attacker" in closed["champions"]:
        _, iid = closed["champions"]["attacker"]
        state["turn"]["used"] += [iid] * max(0, uses_left(state, state["turn"]["seat"], iid))


def _raze(state: dict, how: str, events: list) -> None:
    b = state["battle"]
    b["razed"] = True
    slot = state["players"][b["defender"]]["formation"][b["slot"]]
    slot["razed"] = True
    events.append({"kind": "realm_razed", "data": {"seat": b["defender"], "how": how,
                                                   **zones.about(state, b["realm"], b["defender"], "formation", b["slot"])}})
    if slot["holding"] is not None:  # a razed realm loses its holding
        holding, slot["holding"] = slot["holding"], None
        zones.discard(state, b["defender"], [holding], "realm_razed", events, b["slot"])


def _discard_realm(state: dict, how: str, events: list) -> None:
    """The realm under attack leaves the formation for the discard pile, with its holding;
    its slot is empty (and shields nothing)."""
    b = state["battle"]
    b["discarded"] = True
    formation = state["players"][b["defender"]]["formation"]
    slot, formation[b["slot"]] = formation[b["slot"]], None
    events.append({"kind": "realm_discarded", "data": {"seat": b["defender"], "how": how,
                                                       **zones.about(state, b["realm"], b["defender"], "formation", b["slot"])}})
    zones.discard(state, b["defender"], [slot["realm"]] + ([slot["holding"]] if slot["holding"] else []),
              "realm_discarded", events, b["slot"])


def forfeit(state: dict, seat: str, events: list) -> bool:
    """`seat`, fighting on one side, resigned: the battle ends as a loss for its side.
    Its prompts and the rest of an any-time window are closed already; an outcome that
    waited for the window has none. The round goes to the other side as if the seat had
    stopped playing (its champion is defeated; a realm that must be defeated twice does
    not hold), spoils included. At step B there is no round to lose: the battle ends as
    when the attacker ends it, with no spoils."""
    b = state["battle"]
    b["pending"] = None
    b.pop("at_once", None)
    if b["step"] == "attacker":
        return finish(state, None, events)
    return round_won(state, OTHER[_side_of(b, seat)], "resigned", events)


# -- J: the end of the battle, and its spoils --------------------------------------------

def finish(state: dict, winner: str | None, events: list) -> bool:
    """The battle is over; `winner` ("attacker", "defender" or None) draws the spoils."""
    b = state["battle"]
    state["battle"] = None
    seat = None if winner is None else b[winner]
    state["turn"]["attacks"] += 1  # counted here, so that battle_ended can say it
    events.append({"kind": "battle_ended", "data": {"attacker": b["attacker"], "defender": b["defender"],
                                                    **zones.about(state, b["realm"], b["defender"],
                                                              *(("discard", None) if b["discarded"]
                                                                else ("formation", b["slot"]))),
                                                    "razed": b["razed"], "discarded": b["discarded"],
                                                    "rounds": b["round"], "attacks": state["turn"]["attacks"],
                                                    "spoils": seat}})
    return spoils.draw(state, seat, events)

