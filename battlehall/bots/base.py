"""What a bot is given and what it returns."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from ..engine.ruleset import Prompt


@dataclass(frozen=True, slots=True)
class Seen:
    """All a bot may know when it answers: what its seat's player is shown."""

    ruleset: str
    seat: str
    view: dict[str, Any]  # the ruleset's view of the state for this seat
    definitions: dict[str, Any]  # what the match defines once (Spellfire's inline cards)


class Answer(NamedTuple):
    option: str
    args: dict[str, Any]


class Bot(Protocol):
    """Chooses an answer to one of its seat's prompts."""

    level: str

    def choose(self, seen: Seen, prompt: Prompt, rng: random.Random) -> Answer:
        """A legal answer to `prompt` (one of `prompt["options"]` with listed values).
        `rng` is the bot's own generator, never the match's."""
        ...
