"""`duel`: the smallest ruleset, and the example of how to write one.

Two seats, 20 HP each. The seat to act strikes or guards; turns alternate.
A strike rolls 1-3 damage (1 less, not below 0, against a guarding opponent) and ends
the opponent's guard. Guarding lasts until the seat is next struck. A seat at 0 HP or
less loses; the striker wins.

Randomness is a linear congruential generator held in the state, so the rules are
easy to reproduce exactly in another server (bench/ compares against one):
``rng = (rng * 1664525 + 1013904223) mod 2**32`` and a roll is ``1 + rng % 3``.

A ruleset only does three things: build a state (`new_state`), apply an answer that
the base class has already checked against the open prompt (`apply`), and show a
viewer what it may see (`view`). Prompts, errors, timeouts and redaction of prompt
options come from the base class.
"""

from __future__ import annotations

from .errors import SetupError
from .ruleset import Event, Prompt, Ruleset, State, base_state, make_result

START_HP = 20


class Duel(Ruleset):
    name = "duel"
    summary = "Two seats trade strikes and guards until one falls: the benchmark game."
    options_doc = {"hp": {"default": START_HP, "doc": "starting hit points of each seat"}}

    def new_state(self, seats: list[str], seed: int, options: dict, setup: dict | None) -> tuple[State, list[Event]]:
        if len(seats) != 2:
            raise SetupError("seats", "duel is played by exactly two seats")
        hp = options["hp"]
        if not isinstance(hp, int) or isinstance(hp, bool) or not 1 <= hp <= 1000:
            raise SetupError("options.hp", "hp must be an integer from 1 to 1000")
        if setup is not None:
            raise SetupError("setup", "duel takes no setup")
        state = base_state(seats)
        state.update(rng=(1 if seed is None else seed) % 2**32, turn=0,
                     hp={s: hp for s in seats}, guarding={s: False for s in seats})
        self._prompt_turn(state)
        return state, [{"kind": "match_started", "data": {"seats": seats, "hp": hp}}]

    def _prompt_turn(self, state: State) -> None:
        seat = state["seats"][state["turn"]]
        options = [{"id": "strike", "text": "Strike"}, {"id": "guard", "text": "Guard"}]
        state["prompts"] = [self.new_prompt(state, seat, "move", "Strike or guard", options, "strike")]

    def apply(self, state: State, prompt: Prompt, option: str, args: dict) -> list[Event]:
        seat = prompt["seat"]
        other = state["seats"][1 - state["turn"]]
        if option == "guard":
            state["guarding"][seat] = True
            events = [{"kind": "guard", "data": {"seat": seat}}]
        else:
            state["rng"] = (state["rng"] * 1664525 + 1013904223) % 2**32
            roll = 1 + state["rng"] % 3
            damage = max(0, roll - 1) if state["guarding"][other] else roll
            state["guarding"][other] = False
            state["hp"][other] -= damage
            events = [{"kind": "strike", "data": {"seat": seat, "target": other, "roll": roll,
                                                  "damage": damage, "hp": state["hp"][other]}}]
            if state["hp"][other] <= 0:
                state["result"] = make_result("knockout", [[seat], [other]])
                state["prompts"] = []
                return events + [{"kind": "match_ended", "data": state["result"]}]
        state["turn"] = 1 - state["turn"]
        self._prompt_turn(state)
        return events

    def view(self, state: State, viewer: str | None) -> dict:
        # Nothing in a duel is hidden.
        return {"hp": state["hp"], "guarding": state["guarding"],
                "to_act": state["seats"][state["turn"]], "result": state["result"]}
