"""The battle phase as a state machine: which battle, alliances, and the Battle Turn's
steps 1-8 and its end, one small function per step (each quotes its sentence).

`advance` runs the rules until someone must decide (an open prompt) or the match ends.
Bandit decisions are made here, with the match's own generator.
"""

from __future__ import annotations

from typing import cast

from ..rng import below, shuffle
from ..ruleset import Option, Prompt, Ruleset, State, make_result, rank_by, with_combos
from . import about, rules
from .rules import BANDITS


def new_prompt(state: State, seat: str, kind: str, text: str, options: list[dict], default: str) -> Prompt:
    # Hourglass's options carry fields of their own (`about`, ...) besides the Option ones.
    return Ruleset.new_prompt(state, seat, kind, text, cast(list[Option], options), default)


def battle(state: State) -> dict:
    return next(b for b in state["battles"] if b["tile"] == state["current"])


def advance(state: State, events: list) -> None:
    while not state["prompts"] and state["result"] is None:
        if state["current"] is None:
            next_battle(state, events)
        else:
            STEPS[state["phase"]](state, battle(state), events)


# -- Battles: "In Player Turn Order, each player resolves the Battles they are still
#    involved in, in the order of their choice." --------------------------------------

def next_battle(state: State, events: list) -> None:
    order = state["turn_order"]
    while state["resolver"] < len(order):
        seat = order[state["resolver"]]
        mine = [b["tile"] for b in state["battles"] if not b["done"] and seat in rules.sides_in(b)]
        if len(mine) > 1:
            told = {b["tile"]: about.battle(b) for b in state["battles"] if b["tile"] in mine}
            options = [{"id": "battle", "text": "Resolve this battle next", "args": {"tile": mine}, "about": told}]
            text = "Choose the battle you resolve next: " + "; ".join(told[t]["text"] for t in mine)
            state["prompts"] = [new_prompt(state, seat, "choose_battle", text, options, "battle")]
            return
        if mine:
            start_battle(state, mine[0], events)
            return
        state["resolver"] += 1
        following = order[state["resolver"]] if state["resolver"] < len(order) else None
        events.append({"kind": "player_turn_ended", "data": {"seat": seat, "resolver": following}})
    end_match(state, events)


def start_battle(state: State, tile: str, events: list) -> None:
    """"Battles start with participating players forming Alliances." """
    state["current"] = tile
    b = battle(state)
    b["started"] = True
    sides = rules.sides_in(b)
    events.append({"kind": "battle_started", "data": {"tile": tile, "resolver": state["turn_order"][state["resolver"]],
                                                      "sides": sides}})
    players = [s for s in sides if s != BANDITS]  # "Bandit cannot be part of any Alliances."
    if state["alliances_on"] and len(players) >= 2:
        state["phase"] = "alliances"
        state["offers"] = {}
        state["prompts"] = [alliance_prompt(state, seat, players) for seat in players]
    else:
        place_cubes(state, b, events)


def alliance_prompt(state: State, seat: str, players: list[str]) -> Prompt:
    others = [p for p in players if p != seat]
    b = battle(state)
    options = [{"id": "alone", "text": "Fight alone", "about": {}},
               {"id": "ally", "text": "Offer an Alliance (it forms if that player offers one to you)",
                "args": {"with": others}, "about": {p: about.seat(b, p) for p in others}}]
    text = (f"Alliances at {about.tile_words(b['tile'])}: offer one to another player "
            f"({', '.join(others)}), or fight alone")
    return new_prompt(state, seat, "alliance", text, options, "alone")


def answer_alliance(state: State, seat: str, partner: str | None, events: list) -> None:
    """By mutual agreement: each player's offer stays its own until every player has answered."""
    state["offers"][seat] = partner
    # Who was offered an Alliance is the offerer's own to know until the Alliances form.
    events.append({"kind": "alliance_answered", "data": {"tile": state["current"], "seat": seat},
                   "private": {seat: {"with": partner}}})
    if not state["prompts"]:
        form_alliances(state, battle(state), events)


def form_alliances(state: State, b: dict, events: list) -> None:
    """Every player has answered: the Alliances form, and the cubes go on the board."""
    players = [s for s in rules.sides_in(b) if s != BANDITS]
    b["alliances"] = rules.form_alliances(players, state["offers"])
    state["offers"] = {}
    events.append({"kind": "alliances_formed", "data": {"tile": b["tile"], "alliances": b["alliances"]}})
    place_cubes(state, b, events)


def place_cubes(state: State, b: dict, events: list) -> None:
    """"At the start of a Battle, all involved players put a number of their Player Cubes
    corresponding to the Delay Attribute of their Knight (rounded up) on the top part of
    the Hourglass Board. If any Bandit are in the Battle, Bandit Cube are likewise added." """
    for side in rules.sides_in(b):
        b["top"][side] = rules.cubes_for(state["attributes"][side]["delay2"])
        b["bottom"][side] = 0
    events.append({"kind": "cubes_placed", "data": {"tile": b["tile"], "top": dict(b["top"]),
                                                    "bottom": dict(b["bottom"])}})
    state["phase"] = "turn_start"


# -- Start of Battle Turn ------------------------------------------------------------

def turn_start(state: State, b: dict, events: list) -> None:
    if rules.battle_over(b):
        end_battle(state, b, "decided", events)
        return
    if b["turns"] >= state["limit"]:  # the text is silent: a table calls the battle off
        end_battle(state, b, "turn_limit", events)
        return
    attacker = rules.choose_attacker(state, b)
    while attacker is None:  # step 1's restart rule
        mover, moved = rules.turn_hourglass(state, b)
        events.append({"kind": "hourglass_turned", "data": {"tile": b["tile"], "first": mover, "moved": moved,
                                                            "top": dict(b["top"]), "bottom": dict(b["bottom"])}})
        attacker = rules.choose_attacker(state, b)
    b["turns"] += 1
    state["turn"] = {"attacker": attacker, "targets": {}, "defenders": [], "placed": {}}
    events.append({"kind": "battle_turn", "data": {"tile": b["tile"], "turn": b["turns"], "attacker": attacker}})
    if attacker == BANDITS:
        bandit_targets(state, b, events)
    else:
        state["phase"] = "targets"
        state["prompts"] = [targets_prompt(state, b, attacker)]


def targets_prompt(state: State, b: dict, attacker: str) -> Prompt:
    """2. "The Attacker distributes the Knight they have in this Battle so they each target
    at most one Bandit or one Knight of the other players." One argument per Knight."""
    foes = rules.enemies(b, attacker)
    mine = [k for k in b["knights"] if k["owner"] == attacker]
    told = {k["id"]: about.knight(state, b["tile"], k) for k in mine + foes}
    told["none"] = dict(about.NO_TARGET)
    options = [{"id": "assign", "text": "Give each of your Knights a target (or none)",
                "args": {k["id"]: [f["id"] for f in foes] + ["none"] for k in mine}, "about": told}]
    text = (f"Battle at {about.tile_words(b['tile'])}: choose a target for each of your Knights "
            f"({', '.join(about.knight_name(k) for k in mine)}) among "
            f"{'; '.join(told[f['id']]['text'] for f in foes)}; or none")
    return new_prompt(state, attacker, "targets", text, options, "assign")


def bandit_targets(state: State, b: dict, events: list) -> None:
    """The Bandits' step 2: each Bandit targets an enemy Knight drawn by the generator."""
    foes = [k["id"] for k in rules.enemies(b, BANDITS)]
    targets = {k["id"]: foes[below(state, len(foes))] for k in b["knights"] if k["owner"] == BANDITS}
    set_targets(state, b, targets, events)


def set_targets(state: State, b: dict, targets: dict, events: list) -> None:
    """"The owners of these Knight or Bandit are considered to be the Defenders." """
    turn = state["turn"]
    turn["targets"] = targets
    owner = {k["id"]: k["owner"] for k in b["knights"]}
    turn["defenders"] = [s for s in rules.sides_in(b) if any(owner[t] == s for t in targets.values())]
    events.append({"kind": "targets_assigned", "data": {"tile": b["tile"], "attacker": turn["attacker"],
                                                        "targets": targets, "defenders": turn["defenders"]}})
    defenders_place(state, b, events)


# -- Battlecards ---------------------------------------------------------------------

def refill(state: State, seat: str, events: list) -> None:
    """"If a player needs to place a Battlecard from their Battle Hand when it is empty,
    they draw all their discarded Battlecards beforehand." """
    if not state["hands"][seat] and state["discards"][seat]:
        state["hands"][seat], state["discards"][seat] = state["discards"][seat], []
        events.append({"kind": "discards_drawn", "data": {"seat": seat, "cards": len(state["hands"][seat])}})


def bandit_card(state: State) -> str | None:
    """"Bandit Battle Hands and their Battlecards discard are the same deck, kept face
    down. Whenever a Bandit must place a Battlecard, shuffle this deck and place the top
    card." """
    deck = state["bandit_deck"]
    if not deck:
        return None
    shuffle(state, deck)
    return deck.pop(0)


def defenders_place(state: State, b: dict, events: list) -> None:
    """3. "The Defenders place one Battlecard from their Battle Hand facedown for use in
    this turn." All at once: one prompt per Defender, each seen by its Defender only."""
    turn = state["turn"]
    prompts = []
    for side in turn["defenders"]:
        if side == BANDITS:
            card = bandit_card(state)
            turn["placed"][side] = card
            events.append({"kind": "card_placed", "data": {"tile": b["tile"], "side": side, "face": "down",
                                                           "card": None, "shuffled": card is not None,
                                                           "bandit_deck": len(state["bandit_deck"])}})
            continue
        refill(state, side, events)
        hand = state["hands"][side]
        if not hand:
            turn["placed"][side] = None
            events.append({"kind": "no_card", "data": {"tile": b["tile"], "side": side}})
            continue
        prompts.append(defend_prompt(state, b, side, hand))
    if prompts:
        state["phase"] = "defend"
        state["prompts"] = prompts
    else:
        attacker_places(state, b, events)


def defend_prompt(state: State, b: dict, side: str, hand: list[str]) -> Prompt:
    """The Defender's prompt says which of its Knights are targeted, and by which of the
    Attacker's Knights (public already: `targets_assigned`), and names its cards."""
    turn = state["turn"]
    knights = {k["id"]: k for k in b["knights"]}
    targeted: list[dict] = []
    for k in b["knights"]:
        by = [a for a, t in turn["targets"].items() if t == k["id"]]
        if k["owner"] == side and by:
            targeted.append({"knight": about.knight(state, b["tile"], k),
                             "by": [about.knight(state, b["tile"], knights[a]) for a in by]})
    options = [{"id": "place", "text": "Place this Battlecard face down", "args": {"card": list(hand)},
                "about": {c: about.card(state, c, side) for c in hand}, "attacker": turn["attacker"],
                "targeted": targeted}]
    threats = "; ".join(f"{t['knight']['name']} is targeted by "
                        + " and ".join(about.knight_words(knights[a["knight"]]) for a in t["by"]) for t in targeted)
    text = (f"Defend at {about.tile_words(b['tile'])} against {about.side_words(turn['attacker'])}: your {threats}. "
            f"Place one Battlecard face down ({about.card_names(state, hand)})")
    return new_prompt(state, side, "defend", text, options, "place")


def answer_defend(state: State, seat: str, card: str, events: list) -> None:
    state["hands"][seat].remove(card)
    state["turn"]["placed"][seat] = card
    events.append({"kind": "card_placed", "data": {"tile": state["current"], "side": seat, "face": "down", "card": None,
                                                   "hand": len(state["hands"][seat])},
                   "private": {seat: {"card": card, "kind": state["cards"][card],
                                      "name": state["kinds"][state["cards"][card]]["name"]}}})
    if not state["prompts"]:
        attacker_places(state, battle(state), events)


def attacker_places(state: State, b: dict, events: list) -> None:
    """4. "The Attacker places one Battlecard from their Battle Hand faceup for use in this
    turn. They also discard another Battlecard from their Battle Hand, if able." """
    attacker = state["turn"]["attacker"]
    if attacker == BANDITS:  # the Bandits' hand and discard pile are one deck: nothing to discard
        card = bandit_card(state)
        state["turn"]["placed"][BANDITS] = card
        kind = state["cards"][card] if card else None
        events.append({"kind": "card_placed", "data": {"tile": b["tile"], "side": BANDITS, "face": "up", "card": kind,
                                                       "name": state["kinds"][kind]["name"] if kind else None,
                                                       "shuffled": card is not None,
                                                       "bandit_deck": len(state["bandit_deck"])}})
        resolve(state, b, events)
        return
    refill(state, attacker, events)
    hand = state["hands"][attacker]
    if not hand:
        state["turn"]["placed"][attacker] = None
        events.append({"kind": "no_card", "data": {"tile": b["tile"], "side": attacker}})
        resolve(state, b, events)
        return
    knights = {k["id"]: k for k in b["knights"]}
    told = {"about": {c: about.card(state, c, attacker) for c in hand},
            "attacks": [{"knight": about.knight(state, b["tile"], knights[a]),
                         "target": about.knight(state, b["tile"], knights[t])}
                        for a, t in state["turn"]["targets"].items()]}
    if len(hand) == 1:
        option: dict = {"id": "place", "text": "Place your last Battlecard face up", "args": {"card": list(hand)}, **told}
        what = "place your last Battlecard face up"
    else:
        # `told`'s fields ride along: with_combos keeps every field of the option it is given.
        place = cast(Option, {"id": "place", "text": "Place one Battlecard face up and discard another", **told})
        option = cast(dict, with_combos(place, [{"card": [c], "discard": [d for d in hand if d != c]} for c in hand]))
        what = "place a Battlecard face up and discard another"
    attacks = "; ".join(f"{about.knight_name(knights[a])} attacks {about.knight_words(knights[t])}"
                        for a, t in state["turn"]["targets"].items()) or "none of your Knights attacks"
    state["phase"] = "attack_card"
    state["prompts"] = [new_prompt(state, attacker, "attack_card",
                                   f"Attack at {about.tile_words(b['tile'])} ({attacks}): {what} "
                                   f"({about.card_names(state, hand)})", [option], "place")]


def answer_attack_card(state: State, seat: str, card: str, discard: str | None, events: list) -> None:
    hand = state["hands"][seat]
    hand.remove(card)
    state["turn"]["placed"][seat] = card
    events.append({"kind": "card_placed", "data": {"tile": state["current"], "side": seat, "face": "up",
                                                   "card": state["cards"][card],
                                                   "name": state["kinds"][state["cards"][card]]["name"],
                                                   "hand": len(hand)}})
    if discard is not None:  # which card: the Attacker's own to know
        hand.remove(discard)
        state["discards"][seat].append(discard)
        events.append({"kind": "card_discarded", "data": {"tile": state["current"], "side": seat, "hand": len(hand),
                                                          "discards": len(state["discards"][seat])},
                       "private": {seat: {"card": discard, "kind": state["cards"][discard],
                                          "name": state["kinds"][state["cards"][discard]]["name"]}}})
    resolve(state, battle(state), events)


# -- Steps 5 to 8 and the End of Battle Turn -------------------------------------------

def modifiers(state: State, side: str) -> dict:
    card = state["turn"]["placed"].get(side)
    if card is None:
        return {"damage": 0, "precision": 0, "delay2": 0, "defense": 0, "dodge": 0, "wound": 0}
    return state["kinds"][state["cards"][card]]


def resolve(state: State, b: dict, events: list) -> None:
    turn = state["turn"]
    attacker = turn["attacker"]
    # 5. "All placed Battlecards are revealed."
    shown = {side: (state["cards"][c] if c is not None else None) for side, c in turn["placed"].items()}
    events.append({"kind": "cards_revealed", "data": {"tile": b["tile"], "cards": shown}})
    defence = {side: defensive(state, side) for side in turn["defenders"]}
    card_wounds_step(state, b, events)
    offence = offensive(state, attacker)
    # 8. "Each of the Attacker's Knight and Bandit performs one attack on their target."
    for knight, target in list(turn["targets"].items()):
        perform_attack(state, b, knight, target, offence, defence, events)
    end_of_turn(state, b, offence, events)


def defensive(state: State, side: str) -> dict:
    """6. "During this Battle Turn, Defenders Knight and Bandit Attributes are considered to
    be modified by the value on their respective Battlecards. Only the defensive
    Attributes are considered, however: Defense, Dodge, and Wound." """
    base, card = state["attributes"][side], modifiers(state, side)
    return {"defense": base["defense"] + card["defense"], "dodge": base["dodge"] + card["dodge"],
            "health": base["health"]}


def card_wounds_step(state: State, b: dict, events: list) -> None:
    """6. "The Wound attribute change is only considered as the amount of Wound to
    immediately add or remove to each of the Defender's targeted Knight and Bandit." """
    targeted = list(dict.fromkeys(state["turn"]["targets"].values()))
    for knight in b["knights"]:
        if knight["id"] in targeted:
            change = modifiers(state, knight["owner"])["wound"]
            if change:
                knight["wounds"] = rules.card_wounds(knight["wounds"], change)
                events.append({"kind": "wounds_changed", "data": {"tile": b["tile"], "knight": knight["id"],
                                                                  "owner": knight["owner"],
                                                                  "change": change, "wounds": knight["wounds"]}})


def offensive(state: State, side: str) -> dict:
    """7. "During this Battle Turn, the Attacker's Knight and Bandit Attributes are
    considered to be modified by the Battlecard's values. Only the offensive attributes
    are considered, however: Damage, Precision, and Delay." """
    base, card = state["attributes"][side], modifiers(state, side)
    return {"damage": base["damage"] + card["damage"], "precision": base["precision"] + card["precision"],
            "delay2": base["delay2"] + card["delay2"]}


def perform_attack(state: State, b: dict, knight_id: str, target_id: str, offence: dict, defence: dict,
                   events: list) -> None:
    attacker = state["turn"]["attacker"]
    target = next((k for k in b["knights"] if k["id"] == target_id), None)
    if target is None:  # sent back by an earlier attack of this turn: nothing left to hit
        events.append({"kind": "attack", "data": {"tile": b["tile"], "knight": knight_id, "owner": attacker,
                                                  "target": target_id, "outcome": "gone", "tie": False,
                                                  "tie_to": None, "wounds_added": 0, "wounds": 0}})
        return
    d = defence[target["owner"]]
    favoured = rules.attacker_wins_ties(state, b, attacker, target["owner"])
    out = rules.attack(offence["precision"], d["dodge"], offence["damage"], d["defense"], favoured)
    target["wounds"] += out["wounds"]
    events.append({"kind": "attack", "data": {
        "tile": b["tile"], "knight": knight_id, "owner": attacker, "target": target_id,
        "target_owner": target["owner"], "outcome": out["outcome"],
        "precision": offence["precision"], "dodge": d["dodge"], "damage": out["damage"], "defense": d["defense"],
        # Only a tie is settled for someone: with none, nobody was favoured.
        "tie": out["tie"], "tie_to": (attacker if favoured else target["owner"]) if out["tie"] else None,
        "wounds_added": out["wounds"], "wounds": target["wounds"]}})
    if rules.knocked_out(target["wounds"], d["health"]):
        b["knights"].remove(target)
        events.append({"kind": "knight_returned", "data": {"tile": b["tile"], "knight": target_id,
                                                           "owner": target["owner"], "wounds": target["wounds"]}})


def end_of_turn(state: State, b: dict, offence: dict, events: list) -> None:
    turn = state["turn"]
    attacker = turn["attacker"]
    placed = rules.end_turn_cubes(b, attacker, offence["delay2"])
    # 2. "All active Battlecards are put on their owner's Battlecard discard pile."
    discards = {}
    for side, card in turn["placed"].items():
        if card is not None:
            (state["bandit_deck"] if side == BANDITS else state["discards"][side]).append(card)
            if side != BANDITS:
                discards[side] = len(state["discards"][side])
    # Only sides involved in the battle are considered: one with no Knight left leaves it.
    for side in list(b["top"]):
        if side not in rules.sides_in(b):
            del b["top"][side]
            del b["bottom"][side]
            events.append({"kind": "side_left", "data": {"tile": b["tile"], "side": side}})
    events.append({"kind": "turn_ended", "data": {"tile": b["tile"], "attacker": attacker, "cubes": placed,
                                                  "top": dict(b["top"]), "bottom": dict(b["bottom"]),
                                                  "discards": discards, "bandit_deck": len(state["bandit_deck"])}})
    # 3. "The Battle Turn is now over. If only one Alliance or player remains, the Battle
    #    is also over." (checked at the start of the next step)
    state["turn"] = None
    state["phase"] = "turn_start"


# -- A player resigns -----------------------------------------------------------------

def leave(state: State, seat: str, events: list) -> None:
    """`seat` resigned and the others play on (the text is silent on a player leaving; a
    table would take its Knights off the board). Its Knights leave every battle not yet
    over, and its cubes the Hourglass Board; it is asked nothing more. In the battle being
    resolved: an Alliance forms without it; a Battle Turn it attacks in is called off; a
    Battle Turn it defends in goes on without the attacks on its Knights (an Attacker
    still choosing targets is asked again, without them). Its Battlecards stay face
    down: a card it had placed goes to its discard pile unrevealed."""
    for b in state["battles"]:
        gone = [k["id"] for k in b["knights"] if k["owner"] == seat]
        if b["done"] or not gone:
            continue
        b["knights"] = [k for k in b["knights"] if k["owner"] != seat]
        events.append({"kind": "knights_withdrawn", "data": {"tile": b["tile"], "seat": seat, "knights": gone}})
        if seat in b["top"]:
            del b["top"][seat]
            del b["bottom"][seat]
            events.append({"kind": "side_left", "data": {"tile": b["tile"], "side": seat}})
    state["prompts"] = [p for p in state["prompts"] if p["seat"] != seat]
    if state["current"] is not None:
        b = battle(state)
        turn = state["turn"]
        if state["phase"] == "alliances":
            state["offers"].pop(seat, None)
            if not state["prompts"]:
                form_alliances(state, b, events)
        elif turn is not None and turn["attacker"] == seat:
            call_off(state, b, events)
        elif state["phase"] == "targets":  # the Attacker's choice named Knights that have left: asked again
            state["prompts"] = []
            if rules.enemies(b, turn["attacker"]):
                state["prompts"] = [targets_prompt(state, b, turn["attacker"])]
            else:
                call_off(state, b, events)
        elif turn is not None and seat in turn["defenders"]:
            defender_left(state, b, seat, events)
    advance(state, events)


def defender_left(state: State, b: dict, seat: str, events: list) -> None:
    """A Defender left: the attacks on its Knights are dropped, a card it placed goes to
    its discard pile face down, and the Battle Turn goes on (the Attacker, placing its
    card already, is asked again without the dropped attacks)."""
    turn = state["turn"]
    present = [k["id"] for k in b["knights"]]
    turn["targets"] = {k: t for k, t in turn["targets"].items() if t in present}
    turn["defenders"].remove(seat)
    card = turn["placed"].pop(seat, None)
    if card is not None:
        state["discards"][seat].append(card)
    events.append({"kind": "defender_left", "data": {"tile": b["tile"], "side": seat, "targets": turn["targets"],
                                                     "defenders": turn["defenders"],
                                                     "discards": len(state["discards"][seat])}})
    if state["phase"] == "attack_card" or (state["phase"] == "defend" and not state["prompts"]):
        state["prompts"] = []
        attacker_places(state, b, events)


def call_off(state: State, b: dict, events: list) -> None:
    """The Attacker left: its Battle Turn ends with no attack. The Battlecards placed face
    down go to their owners' discard piles (the Bandits' back into their deck) unrevealed."""
    discards = {}
    for side, card in state["turn"]["placed"].items():
        if card is None:
            continue
        if side == BANDITS:
            state["bandit_deck"].append(card)
        else:
            state["discards"][side].append(card)
            discards[side] = len(state["discards"][side])
    events.append({"kind": "turn_called_off", "data": {"tile": b["tile"], "attacker": state["turn"]["attacker"],
                                                       "discards": discards, "bandit_deck": len(state["bandit_deck"])}})
    state["prompts"] = []
    state["turn"] = None
    state["phase"] = "turn_start"


# -- End of Battle and of the battle phase ----------------------------------------------

def end_battle(state: State, b: dict, reason: str, events: list) -> None:
    """End of Battle: "1. All Wound are discarded. 2. The Hourglass Board is emptied."
    and 3: the players with Knights left on the tile are recorded for the rewards phase."""
    for knight in b["knights"]:
        knight["wounds"] = 0
    b["top"], b["bottom"] = {}, {}
    b["done"] = True
    state["current"], state["phase"], state["turn"] = None, None, None
    events.append({"kind": "battle_ended", "data": {"tile": b["tile"], "reason": reason,
                                                    "remaining": holders(state, b), "alliances": b["alliances"]}})


def holders(state: State, b: dict) -> list[str]:
    """The players with Knights remaining on the tile (Bandits are no player)."""
    return [s for s in state["seats"] if any(k["owner"] == s for k in b["knights"])]


def end_match(state: State, events: list) -> None:
    tiles = {b["tile"]: holders(state, b) for b in state["battles"]}
    knights = {s: sum(1 for b in state["battles"] for k in b["knights"] if k["owner"] == s) for s in state["seats"]}
    held = {s: sum(1 for t in tiles.values() if s in t) for s in state["seats"]}
    score = {s: held[s] * 1000 + knights[s] for s in state["seats"]}
    bandits = {b["tile"]: sum(1 for k in b["knights"] if k["owner"] == BANDITS) for b in state["battles"]}
    state["result"] = make_result("battles_resolved", rank_by(state["seats"], score), tiles=tiles,
                                  knights=knights, bandits=bandits)
    state["prompts"] = []
    events.append({"kind": "match_ended", "data": state["result"]})


STEPS = {"turn_start": turn_start}
