"""`demigod`: Demayth's tactical grid combat (Chapter 4, Combat), with reactions.

Two to four sides, each a Demigod and its Minions on a grid battlefield with terrain.
Every attack follows the six steps of the rule text; the modules map its sentences to
functions: grid.py (range), effects.py (stacking), combat.py (steps 3-6), game.py (turns,
steps 1-2 and their prompts), setup.py (starting positions), about.py (what options are
about, in words). docs/demigod.md has the rules
as implemented and every ruling where the text is silent.
"""

from __future__ import annotations

from copy import deepcopy

from ..errors import SetupError
from ..rng import seed_state
from ..ruleset import Declaration, Event, Prompt, Ruleset, State, base_state, choice_option, integer_option, seat_status
from . import game
from .data import cards, maps
from .setup import default_start, explicit_start


class Demigod(Ruleset):
    name = "demigod"
    windows = True  # reaction windows
    title = "Demayth"
    summary = ("Demayth tactical grid combat for two to four sides: Demigods and Minions, range by melee, "
               "line of sight and perception, six-step attacks, reactions on their own short clock.")
    declaration = Declaration(information="hidden", moves="sequential", chance="seeded", min_seats=2, max_seats=4)
    options_doc = {
        "map": choice_option("crossroads", sorted(maps()), "Battlefield", "the map the sides fight on"),
        "turn_limit": integer_option(15, 1, 100, "Turn limit",
                                     "rounds before the match ends on points (Health Points left)"),
        "hand_size": integer_option(5, 0, 10, "Starting hand", "cards each side draws before the first turn"),
        "draw_per_turn": integer_option(1, 0, 5, "Cards drawn per turn",
                                        "cards a side draws at the start of each of its turns"),
        "hand_limit": integer_option(7, 1, 15, "Hand limit", "no draw takes a hand past this many cards"),
        "reaction_ms": integer_option(8000, 500, 60_000, "Reaction time (ms)",
                                      "time of a reaction window (Step 2), never taken from the bank"),
        "tick_growth": integer_option(1, 0, 5, "Poison and Disease growth",
                                      "ticks a character that has any gains at the start of its side's turn"),
        "los": choice_option("lines", ["lines", "any"], "Line of sight",
                             "\"lines\": along rows, columns and diagonals only (the text); "
                             "\"any\": at any angle, by the same crossing rule"),
    }

    def card_sets(self) -> list[dict]:
        # `details`: every card's fields, so that a client can show a card and its range.
        return [{"name": "demayth", "cards": sorted(cards()), "details": {n: cards()[n] for n in sorted(cards())}}]

    def new_state(self, seats: list[str], seed: int, options: dict, setup: dict | None) -> tuple[State, list[Event]]:
        state = base_state(seats)
        state.update(rng=seed_state(seed), opts=dict(options), map={}, units={}, order=[], cards={},
                     defs={}, hands={s: [] for s in seats}, decks={s: [] for s in seats}, discard={s: [] for s in seats},
                     out=[], window=0, turn={"seat": seats[0], "round": 1})
        if setup is None:
            if len(seats) > len(maps()[options["map"]]["starts"]):
                raise SetupError("options.map", "this map has fewer starting places than seats")
            default_start(state, seats)
        else:
            explicit_start(state, seats, setup)
        # A copy: the event is kept while the state moves on.
        events: list[Event] = [{"kind": "match_started", "data": deepcopy({"seats": seats, "map": state["map"], "units": state["units"],
                                                              "turn": state["turn"],
                                                              "custom_cards": list(state["defs"].values())})}]
        if setup is None:
            for seat in seats:
                events += game.combat.draw(state, seat, options["hand_size"])
            events += game.start_turn(state)
        else:
            events.append({"kind": "hands", "data": {"counts": {s: len(state["hands"][s]) for s in seats}},
                           "private": {s: {"cards": [{"id": c, "name": state["cards"][c]} for c in state["hands"][s]]}
                                       for s in seats}})
            game.open_turn_prompt(state)
        return state, events

    def apply(self, state: State, prompt: Prompt, option: str, args: dict) -> list[Event]:
        if prompt["kind"] == "defend":
            return game.defend(state, option, args)
        if option == "move":
            return game.move(state, args["unit"], args["to"])
        if option == "attack":
            return game.declare(state, args["unit"], args["card"], args["target"])
        return game.next_turn(state)

    def leave(self, state: State, seat: str) -> list[Event]:
        return game.leave(state, seat)

    def eliminated(self, state: State) -> list[str]:
        # The sides out, in the order they went out (a resigned side is among them).
        return list(state["out"])

    def view(self, state: State, viewer: str | None) -> dict:
        def shown(cid):
            return {"id": cid, "name": state["cards"][cid]}

        pending = state.get("pending")
        return {
            "map": state["map"], "units": state["units"], "turn": state["turn"], "out": state["out"],
            "hand_counts": {s: len(state["hands"][s]) for s in state["seats"]},
            "deck_counts": {s: len(state["decks"][s]) for s in state["seats"]},
            "discard": {s: [shown(c) for c in state["discard"][s]] for s in state["seats"]},
            "hand": [shown(c) for c in state["hands"][viewer]] if viewer in state["hands"] else None,
            "attack": None if pending is None else {
                "attacker": pending["attacker"], "card": pending["card"], "name": pending["name"],
                "square": pending["square"], "targets": pending["targets"],
                "answered": sorted(pending["defences"])},
            "custom_cards": list(state.get("defs", {}).values()),
            "options": {k: v for k, v in sorted(state["opts"].items())},
            **seat_status(state),
            "result": state["result"],
        }

    def secrets(self, state: State, viewer: str | None) -> list:
        """Every card in a deck, every card in another side's hand, and the generator's key."""
        hidden = [c for s in state["seats"] for c in state["decks"][s]]
        hidden += [c for s in state["seats"] if s != viewer for c in state["hands"][s]]
        return hidden + [state["rng"]["key"]]
