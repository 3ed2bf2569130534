"""Stops: which window prompts each seat wants to be asked; the server passes the rest.

A *window* prompt is one with a `window` id (docs/protocol.md, Windows); its pass is
its `default`, what its time running out would apply. A seat's mode says which of its
window prompts the server answers with that pass on its behalf:

- ``ask``: none (every seat starts so);
- ``pass_unless_playable``: those whose only option is the pass (the engine lists
  every legal answer, so the seat holds nothing it could play there);
- ``pass_until_my_turn``: all of them, until the seat is asked anything that is not
  a window (its turn, or a decision in a battle it is in); then the mode it had before.

An automatic pass is an answer like any other (match_core.py applies it after the
window's minimum hold, as a pass sent at once would be), so nobody else can tell it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from battlehall.server.empty import EMPTY

ASK = "ask"
PASS_UNLESS_PLAYABLE = "pass_unless_playable"
PASS_UNTIL_MY_TURN = "pass_until_my_turn"
MODES = (ASK, PASS_UNLESS_PLAYABLE, PASS_UNTIL_MY_TURN)


def pass_option(prompt: Mapping[str, Any]) -> str | None:
    """The option that passes `prompt`, if it is a window prompt."""
    return prompt["default"] if "window" in prompt else None


class Stops:
    """Every seat's mode in one match (seats not listed ask)."""

    __slots__ = ("modes", "before")  # one per live match: no instance dict

    def __init__(self) -> None:
        # Every seat asks until one sets a mode: till then the shared EMPTY (empty.py).
        self.modes: dict[str, str] = EMPTY
        self.before: dict[str, str] = EMPTY  # seat -> its mode before pass_until_my_turn

    def mode(self, seat: str) -> str:
        return self.modes.get(seat, ASK)

    def set(self, seat: str, mode: str) -> None:
        if self.modes is EMPTY:
            self.modes, self.before = {}, {}
        if mode == PASS_UNTIL_MY_TURN:
            if self.mode(seat) != PASS_UNTIL_MY_TURN:
                self.before[seat] = self.mode(seat)
        else:
            self.before.pop(seat, None)
        self.modes[seat] = mode

    def passes(self, prompt: Mapping[str, Any]) -> bool:
        """Whether the server answers `prompt` (open for its seat) with its pass."""
        option = pass_option(prompt)
        mode = self.mode(prompt["seat"])
        if option is None or mode == ASK:
            return False
        if mode == PASS_UNLESS_PLAYABLE:
            return all(o["id"] == option for o in prompt["options"])
        return True

    def opened(self, prompt: Mapping[str, Any]) -> str | None:
        """A prompt opened for its seat: the seat's new mode when this ends its
        pass_until_my_turn, else None."""
        seat = prompt["seat"]
        if "window" in prompt or self.mode(seat) != PASS_UNTIL_MY_TURN:
            return None
        self.set(seat, self.before.pop(seat, ASK))
        return self.modes[seat]
