"""`duel`: the smallest ruleset, and the example of how to write one.

Two seats, 20 HP each. The seat to act strikes or guards; turns alternate.
A strike rolls 1-3 damage (1 less, not below 0, against a guarding opponent) and ends
the opponent's guard. Guarding lasts until the seat is next struck. A seat at 0 HP or
less loses; the striker wins.

Randomness is a linear congruential generator held in the state, so the rules are
easy to reproduce exactly in another server (bench/ compares against one):
``rng = (rng * 1664525 + 1013904223) mod 2**32`` and a roll is ``1 + rng % 3``.

With ``"simultaneous": true`` both seats choose at once each round, neither seeing the
other's choice until both are in (two prompts open together): guards take effect first,
then each strike is rolled, in seat order. Both falling in the same round is a draw.

A ruleset declares what it is (`declaration`) and does three things: build a state
(`new_state`), apply an answer that the base class has already checked against the open
prompt (`apply`), and show a viewer what it may see (`view`). Prompts, errors, timeouts and redaction of prompt
options come from the base class.
"""

from __future__ import annotations

from .errors import SetupError
from .ruleset import (
    Declaration,
    Event,
    Option,
    Prompt,
    Ruleset,
    State,
    base_state,
    boolean_option,
    integer_option,
    make_result,
    seat_status,
)

START_HP = 20


class Duel(Ruleset):
    name = "duel"
    title = "Duel"
    summary = "Two seats trade strikes and guards until one falls: the benchmark game."
    # Simultaneous with its "simultaneous" option; a choice not yet revealed is its only secret.
    declaration = Declaration(information="perfect", moves="simultaneous", chance="seeded", min_seats=2, max_seats=2)
    options_doc = {
        "hp": integer_option(START_HP, 1, 1000, "Hit points", "starting hit points of each seat"),
        "simultaneous": boolean_option(False, "Simultaneous", "both seats choose at once each round, unseen by the other"),
    }

    def new_state(self, seats: list[str], seed: int, options: dict, setup: dict | None) -> tuple[State, list[Event]]:
        if len(seats) != 2:
            raise SetupError("seats", "duel is played by exactly two seats")
        hp = options["hp"]  # checked against options_doc by resolve_options
        if setup is not None:
            raise SetupError("setup", "duel takes no setup")
        state = base_state(seats)
        state.update(rng=(1 if seed is None else seed) % 2**32, turn=0,
                     hp={s: hp for s in seats}, guarding={s: False for s in seats})
        if options["simultaneous"]:
            state["chosen"] = {}  # seat -> its move this round, hidden until both are in
            self._prompt_round(state)
        else:
            self._prompt_turn(state)
        return state, [{"kind": "match_started", "data": {"seats": seats, "hp": hp}}]

    def _prompt_turn(self, state: State) -> None:
        seat = state["seats"][state["turn"]]
        options: list[Option] = [{"id": "strike", "text": "Strike"}, {"id": "guard", "text": "Guard"}]
        state["prompts"] = [self.new_prompt(state, seat, "move", "Strike or guard", options, "strike")]

    def _prompt_round(self, state: State) -> None:
        options: list[Option] = [{"id": "strike", "text": "Strike"}, {"id": "guard", "text": "Guard"}]
        state["prompts"] = [self.new_prompt(state, seat, "move", "Strike or guard (your opponent chooses at the same time)",
                                            options, "strike") for seat in state["seats"]]

    def _roll(self, state: State) -> int:
        state["rng"] = (state["rng"] * 1664525 + 1013904223) % 2**32
        return 1 + state["rng"] % 3

    def _apply_simultaneous(self, state: State, prompt: Prompt, option: str) -> list[Event]:
        seat = prompt["seat"]
        state["chosen"][seat] = option
        state["prompts"] = [p for p in state["prompts"] if p["id"] != prompt["id"]]
        if state["prompts"]:  # the other seat has not chosen yet: nothing shows
            return []
        chosen, state["chosen"] = state["chosen"], {}
        events: list[Event] = [{"kind": "revealed", "data": {"moves": {s: chosen[s] for s in state["seats"]}}}]
        for s in state["seats"]:
            if chosen[s] == "guard":
                state["guarding"][s] = True
        for s in state["seats"]:
            if chosen[s] == "strike":
                other = state["seats"][1 - state["seats"].index(s)]
                roll = self._roll(state)
                damage = max(0, roll - 1) if state["guarding"][other] else roll
                state["guarding"][other] = False
                state["hp"][other] -= damage
                events.append({"kind": "strike", "data": {"seat": s, "target": other, "roll": roll,
                                                          "damage": damage, "hp": state["hp"][other]}})
        fallen = [s for s in state["seats"] if state["hp"][s] <= 0]
        if fallen:
            standing = [s for s in state["seats"] if s not in fallen]
            state["result"] = (make_result("knockout", [standing, fallen]) if standing
                               else make_result("double knockout", [fallen]))  # both fell: a draw
            return events + [{"kind": "match_ended", "data": state["result"]}]
        self._prompt_round(state)
        return events

    def apply(self, state: State, prompt: Prompt, option: str, args: dict) -> list[Event]:
        if "chosen" in state:
            return self._apply_simultaneous(state, prompt, option)
        seat = prompt["seat"]
        other = state["seats"][1 - state["turn"]]
        events: list[Event]
        if option == "guard":
            state["guarding"][seat] = True
            events = [{"kind": "guard", "data": {"seat": seat}}]
        else:
            roll = self._roll(state)
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
        # Nothing in a duel is hidden, but a simultaneous move not yet revealed.
        if "chosen" in state:
            waiting = [p["seat"] for p in state["prompts"]]
            mine = state["chosen"].get(viewer) if viewer is not None else None
            return {"hp": state["hp"], "guarding": state["guarding"], "to_act": waiting,
                    "my_move": mine, **seat_status(state), "result": state["result"]}
        return {"hp": state["hp"], "guarding": state["guarding"],
                "to_act": state["seats"][state["turn"]], **seat_status(state), "result": state["result"]}
