"""The weakest level: any option, any listed values."""

from __future__ import annotations

import random

from ..engine.ruleset import Prompt, random_answer
from .base import Answer, Seen


class RandomBot:
    level = "random"

    def choose(self, seen: Seen, prompt: Prompt, rng: random.Random) -> Answer:
        return Answer(*random_answer(rng, prompt))
