"""Duel's greedy bot: strike, except guard when one blow could finish it and the
opponent is not already worn down below what a guard saves."""

from __future__ import annotations

import random

from ..engine.ruleset import Prompt
from .base import Answer, Seen

MAX_ROLL = 3  # a strike rolls 1-3


class DuelBot:
    level = "greedy"

    def choose(self, seen: Seen, prompt: Prompt, rng: random.Random) -> Answer:
        hp = seen.view["hp"]
        me = seen.seat
        other = next(s for s in sorted(hp) if s != me)
        ids = [o["id"] for o in prompt["options"]]
        if "strike" not in ids:
            return Answer(ids[0], {})
        # Guarding takes one off the next blow; worth it only when that blow could kill
        # us and we cannot finish the opponent first.
        if hp[me] <= MAX_ROLL and hp[other] > MAX_ROLL and not seen.view["guarding"][me] and "guard" in ids:
            return Answer("guard", {})
        return Answer("strike", {})
