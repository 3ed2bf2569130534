"""`hourglass`: the battle phase of a Heirless round (docs/hourglass.md).

Knights and Bandits fight on tiles; who attacks next is read off the Hourglass Board.
The rule sentences are functions in rules.py (attacks, the Tie Breaker, the board) and
game.py (the steps of a Battle Turn), each quoting its sentence; setup.py builds the
position, view.py says what each viewer sees and must never see.
"""

from __future__ import annotations

from ..ruleset import Declaration, Event, Prompt, Ruleset, State, boolean_option, choice_option, integer_option
from . import cards, game
from .setup import build
from .view import secrets, view

_DECKS = sorted(cards.shipped()["decks"])


class Hourglass(Ruleset):
    name = "hourglass"
    title = "Heirless"
    summary = "Heirless battles: Knights and Bandits on an hourglass initiative track, 2-4 players."
    declaration = Declaration(information="hidden", moves="simultaneous", chance="seeded", min_seats=2, max_seats=4)
    options_doc = {
        "knights": integer_option(3, 1, 4, "Knights per player",
                                  "Knights of each player on the crossroads, in the default scenario"),
        "bandits": integer_option(2, 0, 4, "Bandits", "Bandits on the crossroads in the default scenario (0: no Bandits)"),
        "standard_deck": choice_option("standard", _DECKS, "Players' deck", "the players' Battlecards: a deck of the shipped set"),
        "bandit_deck": choice_option("bandit", _DECKS, "Bandits' deck", "the Bandits' Battlecards: a deck of the shipped set"),
        "bandit_priority": choice_option("last", ["last", "first"], "Bandits in the Tie Breaker",
                                         "the Bandits' place in the Tie Breaker, after or before the players "
                                         "(in seat order; setup.tie_breaker gives any order)"),
        "alliances": boolean_option(True, "Alliances", "players may form Alliances at the start of each battle"),
        "battle_turn_limit": integer_option(60, 1, 1000, "Battle Turn limit",
                                            "Battle Turns after which a battle is called off, "
                                            "every Knight staying on its tile"),
    }

    def card_sets(self) -> list[dict]:
        return cards.describe()

    def new_state(self, seats: list[str], seed: int, options: dict, setup: dict | None) -> tuple[State, list[Event]]:
        state = build(seats, seed, options, setup)
        events: list[Event] = [{"kind": "match_started", "data": {
            "seats": list(seats), "tie_breaker": state["priority"], "turn_order": state["turn_order"],
            "battles": [{"tile": b["tile"], "knights": [dict(k) for k in b["knights"]]} for b in state["battles"]]}}]
        game.advance(state, events)
        return state, events

    def apply(self, state: State, prompt: Prompt, option: str, args: dict) -> list[Event]:
        events: list[Event] = []
        seat, kind = prompt["seat"], prompt["kind"]
        state["prompts"] = [p for p in state["prompts"] if p["id"] != prompt["id"]]
        if kind == "choose_battle":
            game.start_battle(state, args["tile"], events)
        elif kind == "alliance":
            game.answer_alliance(state, seat, args["with"] if option == "ally" else None, events)
        elif kind == "targets":
            targets = {k: t for k, t in args.items() if t != "none"}
            game.set_targets(state, game.battle(state), {k: targets[k] for k in sorted(targets, key=_order(state))},
                             events)
        elif kind == "defend":
            game.answer_defend(state, seat, args["card"], events)
        elif kind == "attack_card":
            game.answer_attack_card(state, seat, args["card"], args.get("discard"), events)
        else:  # pragma: no cover - every prompt this ruleset opens is one of the above
            raise ValueError(f"unknown prompt kind {kind!r}")
        game.advance(state, events)
        return events

    def leave(self, state: State, seat: str) -> list[Event]:
        events: list[Event] = []
        game.leave(state, seat, events)
        return events

    def view(self, state: State, viewer: str | None) -> dict:
        return view(state, viewer)

    def secrets(self, state: State, viewer: str | None) -> list:
        return secrets(state, viewer)


def _order(state: State):
    """Knights attack in the order they are listed in the battle."""
    listed = [k["id"] for k in game.battle(state)["knights"]]
    return listed.index
