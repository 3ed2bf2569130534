"""A battle: rounds of combat against one realm, steps B-J of spellfire-1.

``state["battle"]`` while one runs is a battle_state.Battle: the two seats, the realm
under attack, the round and the step, and for each side the champion and the cards
that fight with it. Who may fight is champions.py; the window after each card played is
window.py; where the champions go when a round ends is fates.py; the spoils are
spoils.py.

Each function that answers a prompt returns True when the battle is over (spoils
included), so that the turn goes on; otherwise it has opened the next prompt.
"""

from __future__ import annotations

from ..ruleset import Prompt
from . import activation, battle_state, before, champions, fates, formation, powers, spoils, window, zones
from .battle_state import OTHER, Battle, Pending, Side
from .prompts import ask
from .prompts import option as _option

# -- A: the realm is chosen (turn.py); the battle begins ---------------------------------

def start(state: dict, realm: str, events: list) -> None:
    owner, slot = _position(state, realm)
    attacker = state["turn"]["seat"]
    extra = state["turn"]["attacks"] >= state["options"]["attacks_per_turn"]
    battle: Battle = {"attacker": attacker, "defender": owner, "realm": realm, "slot": slot,
                      "round": 0, "defeats": 0, "step": "attacker", "razed": False, "discarded": False,
                      "extra": extra, "pending": None, "sides": {"attacker": None, "defender": None}, "owners": {}}
    state["battle"] = battle
    events.append({"kind": "battle_started", "data": {"attacker": attacker, "defender": owner,
                                                      **battle_state.about_realm(state, battle)}})
    prompt_attacker(state)


def _position(state: dict, realm: str) -> tuple[str, str]:
    """The seat and the formation slot of a realm in play."""
    for seat in state["seats"]:
        slots = state["players"][seat]["formation"]
        for slot in formation.SLOTS:
            if slots[slot] is not None and slots[slot]["realm"] == realm:
                return seat, slot
    raise ValueError(f"{realm} is in no formation")  # pragma: no cover - turn.py offers only realms in play


# -- B: the attacking champion ---------------------------------------------------------

def prompt_attacker(state: dict) -> None:
    battle = battle_state.current(state)
    battle["step"] = "attacker"
    attacker, defender = battle["attacker"], battle["defender"]
    realm = zones.card(state, battle["realm"])
    is_exposed = formation.exposed(state["players"][defender]["formation"], battle["slot"])
    fighters = (champions.extra_attackers(state) if battle["extra"] and battle["round"] == 0
                else champions.available(state, attacker))
    options = [_option(iid, f"Attack with {champions.text(state, iid, where)}", zones.about(state, iid, attacker, where))
               for iid, where in fighters if formation.reaches(zones.card(state, iid), realm, is_exposed)]
    target = f"{defender}'s {realm['name']} ({battle['slot']})"
    if battle["round"] > 0:
        options.append(_option("end", f"End the battle: {realm['name']} stands, and nobody draws spoils"))
        text = f"Round {battle['round'] + 1} against {target}: choose an attacking champion, or end the battle"
    else:
        if may_withdraw(state):
            options.append(_option("back", f"Back: leave {realm['name']} and choose another realm or end "
                                           "the attack phase (the attack is not spent; once a turn)"))
        options.append(_option("end", f"End the battle against {realm['name']} without fighting: "
                                      "no spoils, and this attack is spent"))
        text = (f"Round 1 against {target}: choose an attacking champion"
                + (", go back (the attack is not spent)" if may_withdraw(state) else "")
                + ", or end the battle (the attack is spent)")
    ask(state, attacker, "choose_attacker", text, options, "end")


def may_withdraw(state: dict) -> bool:
    """May the attacker back out of the realm it chose, before any champion steps forward?
    Once a turn, so that a turn always moves on (every other answer consumes a card or
    a step)."""
    return not state["turn"].get("withdrawn", False)


def withdraw(state: dict, events: list) -> bool:
    """`back` at step B of the first round: no battle was fought, the attack is not
    spent; the turn goes back to choosing a realm (turn.after_battle)."""
    battle = battle_state.current(state)
    state["battle"] = None
    state["turn"]["withdrawn"] = True
    events.append({"kind": "attack_withdrawn", "data": {
        "attacker": battle["attacker"], "defender": battle["defender"],
        **battle_state.about_realm(state, battle), "attacks": state["turn"]["attacks"]}})
    return True


def _take_champion(state: dict, seat: str, iid: str) -> Side:
    """Move a champion (with what is attached to it) from hand or pool into a battle side;
    a realm that defends itself stays in its formation slot."""
    battle = battle_state.current(state)
    player = state["players"][seat]
    entry = zones.pool_entry(state, seat, iid)
    if iid == battle["realm"]:
        where, attached = "realm", []
    elif entry is not None:
        player["pool"].remove(entry)
        where, attached = "pool", entry["attached"]
    else:
        player["hand"].remove(iid)
        where, attached = "hand", []
    state["turn"]["used"].append(iid)  # one use of its fights this turn (champions.uses_left)
    activation.enter(battle, [iid] + attached)  # its pool items come in with it (spellfire-2)
    return {"seat": seat, "champion": iid, "from": where, "attached": attached, "played": [], "brought": []}


def _chosen(state: dict, side: str, s: Side, events: list) -> None:
    events.append({"kind": "champion_chosen", "data": {
        "seat": s["seat"], "side": side, **zones.about(state, s["champion"], s["seat"], "battle"), "from": s["from"],
        "attached": zones.refs(state, s["attached"]), "round": battle_state.current(state)["round"]}})


def answer_attacker(state: dict, option: str, events: list) -> bool:
    battle = battle_state.current(state)
    if option == "back":
        return withdraw(state, events)
    if option == "end":
        return finish(state, None, events)
    battle["round"] += 1
    battle["entered"] = {}  # a new round: nothing has come into it yet
    attacking = _take_champion(state, battle["attacker"], option)
    battle["sides"]["attacker"] = attacking
    _chosen(state, "attacker", attacking, events)
    prompt_defender(state)
    return False


# -- C: the defending champion, or no defence -------------------------------------------

def prompt_defender(state: dict) -> None:
    battle = battle_state.current(state)
    battle["step"] = "defender"
    defender = battle["defender"]
    options = [_option(iid, f"Defend with {champions.text(state, iid, where)}", zones.about(state, iid, defender, where))
               for iid, where in champions.available(state, defender)]
    realm = zones.card(state, battle["realm"])
    if realm["defends_as"] and battle["realm"] not in state["turn"]["used"]:
        options.append(_option(battle["realm"], f"{realm['name']} defends itself (level {realm['defends_as']})",
                               battle_state.about_realm(state, battle)))
    options.append(_option("decline", f"Do not defend: {realm['name']} is razed and the battle ends"))
    attacking = battle_state.side(battle, "attacker")
    ask(state, defender, "choose_defender",
        f"Round {battle['round']}: {battle['attacker']} attacks your {realm['name']} ({battle['slot']}) with "
        f"{champions.text(state, attacking['champion'], attacking['from'])}: choose a champion to defend it, "
        "or decline", options, "decline")


def answer_defender(state: dict, option: str, events: list) -> bool:
    battle = battle_state.current(state)
    if option == "decline":
        events.append({"kind": "defense_declined", "data": {
            "seat": battle["defender"], "round": battle["round"], "attacker": battle["attacker"],
            **battle_state.about_realm(state, battle)}})
        return round_won(state, "attacker", "declined", events)
    defending = _take_champion(state, battle["defender"], option)
    battle["sides"]["defender"] = defending
    _chosen(state, "defender", defending, events)
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
    slain = powers.activate_round(state, battle_state.current(state), events)
    if slain is not None:
        side, slayer = slain
        return round_won(state, OTHER[side], "slain", events, cause=[slayer])
    prompt_play(state)
    return False


# -- F: the losing side plays cards, each answered by a response window (window.py) --------

def prompt_play(state: dict) -> None:
    battle = battle_state.current(state)
    battle["step"] = "play"
    side = powers.loser(state, battle)
    seat = battle_state.side(battle, side)["seat"]
    options = [_option(iid, f"Play {zones.name(state, iid)}", zones.about(state, iid, seat, "hand"))
               for iid in state["players"][seat]["hand"] if powers.playable(state, battle, side, iid, False)]
    options += powers.bring_options(state, battle, side)  # a power that brings a card in acts only now
    options.append(_option("stop", "Play no more cards (you lose the round)"))
    t = powers.totals(state, battle)
    mine, theirs = (zones.name(state, battle_state.champion(battle, s)) for s in (side, OTHER[side]))
    ask(state, seat, "battle_play",
        f"Round {battle['round']} for {battle['defender']}'s {zones.name(state, battle['realm'])} ({battle['slot']}): "
        f"your {mine} ({side}) is behind {theirs}, {t[side]} against {t[OTHER[side]]}: play a card, or stop",
        options, "stop")


def _play(state: dict, seat: str, iid: str, events: list, side: str | None = None) -> bool:
    """`seat` plays a card from its hand: for its own side if it is in the battle, else
    for `side` (or for none: an event that helps no side). Every card, the one that ends
    the round or the battle too, is followed by an any-time window (rules/NOTES.md): an
    outcome waits in ``pending`` until the window has passed."""
    battle = battle_state.current(state)
    if battle_state.fights(battle, seat):
        side = battle_state.side_of(battle, seat)
    elif side is not None and zones.card(state, iid)["bonus"]:
        battle["owners"][iid] = seat  # it stays with the side until the round ends, then goes back to its owner
    state["players"][seat]["hand"].remove(iid)
    outcome = powers.play(state, battle, side, iid, events, seat)
    pending = battle["pending"]
    if pending is not None and pending["held"] and pending["card"] not in battle_state.held(battle):
        # the card whose outcome waited was taken out of the battle (counter_spell): no outcome
        battle["pending"] = None
        events.append({"kind": "outcome_cancelled", "data": {
            **zones.about(state, pending["card"], pending["seat"], "discard"), "outcome": pending["outcome"],
            "by": zones.ref(state, iid)}})
        pending = None
    if outcome is not None and pending is None:
        # a second outcome while one waits has none: the card played first wins (spellfire-2)
        held = iid in battle_state.held(battle)
        battle["pending"] = {"outcome": outcome, "card": iid, "seat": seat, "held": held}
        events.append({"kind": "outcome_pending", "data": {
            "seat": seat, **zones.about(state, iid, seat, "battle" if held else "discard"), "outcome": outcome}})
    if "play_at_once" in zones.card(state, iid)["powers"] and battle_state.fights(battle, seat):
        prompt_at_once(state, seat, iid)  # the window follows the card played at once, or the pass
        return False
    window.open_window(state, seat, iid, side)
    return False


def prompt_at_once(state: dict, seat: str, played: str) -> None:
    """A card that lets its player play another card at once, outside the order of
    activation and of the turns of play (spellfire-2: such cards supersede the rule)."""
    battle = battle_state.current(state)
    battle["step"] = "play_at_once"
    battle["at_once"] = played
    side = battle_state.side_of(battle, seat)
    options = [_option(iid, f"Play {zones.name(state, iid)} at once", zones.about(state, iid, seat, "hand"))
               for iid in state["players"][seat]["hand"] if powers.playable(state, battle, side, iid, False)]
    options.append(_option("pass", "Play nothing more now"))
    ask(state, seat, "play_at_once", f"{zones.name(state, played)} lets you play one more card at once, or pass",
        options, "pass")


def answer_at_once(state: dict, seat: str, option: str, events: list) -> bool:
    battle = battle_state.current(state)
    played = battle.pop("at_once")
    if option == "pass":  # the window answers the card that allowed the play
        window.open_window(state, seat, played, battle_state.side_of(battle, seat))
        return False
    return _play(state, seat, option, events)


def answer_play(state: dict, seat: str, option: str, events: list) -> bool:
    battle = battle_state.current(state)
    side = battle_state.side_of(battle, seat)
    if option == "stop":  # G: the side that stops is behind, so the other wins
        return round_won(state, OTHER[side], "combat", events)
    if option not in state["players"][seat]["hand"]:  # a pool champion called in as an ally
        powers.bring(state, battle, side, option, events)
        window.open_window(state, seat, option, side)
        return False
    return _play(state, seat, option, events)


def answer_respond(state: dict, prompt: Prompt, option: str, args: dict, events: list) -> bool:
    """A pass closes that seat's prompt; when the whole window has passed, a waiting
    outcome takes effect, or else the side behind plays on. A card played closes the
    rest of the window and opens the next one."""
    if option == "pass":
        state["prompts"] = [p for p in state["prompts"] if p["id"] != prompt["id"]]
        if not state["prompts"]:
            battle = battle_state.current(state)
            pending = battle["pending"]
            if pending is not None:
                battle["pending"] = None
                return _outcome(state, pending, events)
            prompt_play(state)
        return False
    state["prompts"] = []
    return _play(state, prompt["seat"], option, events, args.get("side"))


# The side a card's outcome makes the round's winner (round_ended.winner), if any.
CARD_WINNER = {"realm_razed": "attacker", "realm_discarded": "attacker", "attacker_discarded": "defender"}


def _outcome(state: dict, pending: Pending, events: list) -> bool:
    """A card ended the round or the battle outright (spellfire-3), once the any-time
    window after it has passed."""
    battle = battle_state.current(state)
    outcome, card = pending["outcome"], pending["card"]
    if outcome == "defender_discarded":
        return round_won(state, "attacker", "card", events, cause=[card])
    to = fates.destination(state, [card])
    sent = {"realm_razed": {"attacker": "pool", "defender": "pool"},
            "realm_discarded": {"attacker": "pool", "defender": "pool"},
            "attacker_discarded": {"attacker": to, "defender": "pool"},
            "both_discarded": {"attacker": to, "defender": to}}[outcome]
    t = powers.totals(state, battle)
    closed = fates.close_round(state, sent, events)
    winner = CARD_WINNER.get(outcome)
    events.append({"kind": "round_ended", "data": {
        "round": battle["round"], "attacker": battle["attacker"], "defender": battle["defender"], "winner": winner,
        "winner_seat": None if winner is None else battle_state.seat_of(battle, winner),
        "how": outcome, "totals": t, "defeats": battle["defeats"]}})
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
    battle = battle_state.current(state)
    loser = OTHER[winner]
    t = powers.totals(state, battle) if battle["sides"]["defender"] is not None else None
    winning = battle["sides"][winner]
    if cause is None:  # no side yet: the attacker left before a defender was chosen
        cause = fates.side_cards(winning) if winning is not None else []
    closed = fates.close_round(state, {winner: "pool", loser: fates.destination(state, cause)}, events)
    events.append({"kind": "round_ended", "data": {
        "round": battle["round"], "attacker": battle["attacker"], "defender": battle["defender"], "winner": winner,
        "winner_seat": battle_state.seat_of(battle, winner), "how": how, "totals": t,
        "defeats": battle["defeats"] + (winner == "attacker")}})
    fates.after_combat(state, closed, events)
    if winner == "defender":
        _spend(state, closed)
        return finish(state, "defender" if closed["fates"]["attacker"] in fates.LOST else None, events)
    battle["defeats"] += 1
    realm = zones.card(state, battle["realm"])
    if how not in ("declined", "resigned") and "defeat_twice" in realm["powers"] and battle["defeats"] < 2:
        events.append({"kind": "realm_holds", "data": {"seat": battle["defender"], "defeats": battle["defeats"],
                                                       **battle_state.about_realm(state, battle)}})
        prompt_attacker(state)
        return False
    _raze(state, how, events)
    return finish(state, "attacker", events)


def _spend(state: dict, closed: dict) -> None:
    """A defeated attacking champion makes no further attack this turn (champions.spend)."""
    if "attacker" in closed["champions"]:
        _, iid = closed["champions"]["attacker"]
        champions.spend(state, iid)


def _raze(state: dict, how: str, events: list) -> None:
    battle = battle_state.current(state)
    battle["razed"] = True
    slot = battle_state.realm_slot(state, battle)
    slot["razed"] = True
    events.append({"kind": "realm_razed", "data": {"seat": battle["defender"], "how": how,
                                                   **battle_state.about_realm(state, battle)}})
    if slot["holding"] is not None:  # a razed realm loses its holding
        holding, slot["holding"] = slot["holding"], None
        zones.discard(state, battle["defender"], [holding], "realm_razed", events, battle["slot"])


def _discard_realm(state: dict, how: str, events: list) -> None:
    """The realm under attack leaves the formation for the discard pile, with its holding;
    its slot is empty (and shields nothing)."""
    battle = battle_state.current(state)
    battle["discarded"] = True
    defending = state["players"][battle["defender"]]["formation"]
    slot, defending[battle["slot"]] = defending[battle["slot"]], None
    events.append({"kind": "realm_discarded", "data": {"seat": battle["defender"], "how": how,
                                                       **battle_state.about_realm(state, battle)}})
    zones.discard(state, battle["defender"], [slot["realm"]] + ([slot["holding"]] if slot["holding"] else []),
                  "realm_discarded", events, battle["slot"])


def forfeit(state: dict, seat: str, events: list) -> bool:
    """`seat`, fighting on one side, resigned: the battle ends as a loss for its side.
    Its prompts and the rest of an any-time window are closed already; an outcome that
    waited for the window has none. The round goes to the other side as if the seat had
    stopped playing (its champion is defeated; a realm that must be defeated twice does
    not hold), spoils included. At step B there is no round to lose: the battle ends as
    when the attacker ends it, with no spoils."""
    battle = battle_state.current(state)
    battle["pending"] = None
    battle.pop("at_once", None)
    if battle["step"] == "attacker":
        return finish(state, None, events)
    return round_won(state, OTHER[battle_state.side_of(battle, seat)], "resigned", events)


# -- J: the end of the battle, and its spoils --------------------------------------------

def finish(state: dict, winner: str | None, events: list) -> bool:
    """The battle is over; `winner` ("attacker", "defender" or None) draws the spoils."""
    battle = battle_state.current(state)
    state["battle"] = None
    seat = None if winner is None else battle_state.seat_of(battle, winner)
    state["turn"]["attacks"] += 1  # counted here, so that battle_ended can say it
    where = ("discard", None) if battle["discarded"] else ("formation", battle["slot"])
    events.append({"kind": "battle_ended", "data": {
        "attacker": battle["attacker"], "defender": battle["defender"],
        **zones.about(state, battle["realm"], battle["defender"], *where),
        "razed": battle["razed"], "discarded": battle["discarded"],
        "rounds": battle["round"], "attacks": state["turn"]["attacks"], "spoils": seat}})
    return spoils.draw(state, seat, events)
