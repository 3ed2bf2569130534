"""Bots: players the server runs for a seat, from exactly what that seat is shown.

A bot is given a `Seen` (its seat's view and the match's definitions, the same a
player's page gets) and one of its seat's open prompts, and returns an `Answer`. It
never gets the state, so it cannot peek at hidden information: what it may know is
decided by the ruleset's `view`, as for people.

Every ruleset has at least two levels (`LEVELS`): ``random`` answers any legal option,
``greedy`` plays to win with a heuristic of that ruleset (battlehall/bots/<ruleset>.py).
Bots are pure: the same Seen, prompt and generator give the same answer.
"""

from __future__ import annotations

import importlib
import logging
import random
from typing import Any

from ..engine.ruleset import Prompt, default_answer
from .base import Answer, Bot, Seen
from .random_bot import RandomBot

log = logging.getLogger("battlehall.bots")

#: The levels every ruleset offers, weakest first.
LEVELS = ("random", "greedy")

# ruleset -> "module:Class" of its greedy bot, imported on first use.
_GREEDY = {
    "duel": "battlehall.bots.duel:DuelBot",
    "spellfire": "battlehall.bots.spellfire:SpellfireBot",
    "hourglass": "battlehall.bots.hourglass:HourglassBot",
    "demigod": "battlehall.bots.demigod:DemigodBot",
}


def bot_for(ruleset: str, level: str) -> Bot:
    """The bot of `level` for `ruleset`; KeyError naming what is unknown."""
    if level not in LEVELS:
        raise KeyError(f"no bot level {level!r}: one of {', '.join(LEVELS)}")
    if level == "random":
        return RandomBot()
    if ruleset not in _GREEDY:
        raise KeyError(f"no greedy bot for ruleset {ruleset!r}")
    module, cls = _GREEDY[ruleset].split(":")
    return getattr(importlib.import_module(module), cls)()


_made: dict[tuple[str, str], Bot] = {}  # bots are pure: one of each kind serves every match


def bot_answer(ruleset: str, level: str, seat: str, view: dict[str, Any], definitions: dict[str, Any],
               prompt: Prompt, seed: str) -> Answer:
    """The answer of the `level` bot for `seat` to `prompt`, from the seat's view alone,
    with its own generator seeded by `seed` (the same seed, view and prompt: the same
    answer). A bot that fails answers the prompt's default instead: a bot's bug never
    stops a match."""
    try:
        bot = _made.get((ruleset, level))
        if bot is None:
            bot = _made[(ruleset, level)] = bot_for(ruleset, level)
        return bot.choose(Seen(ruleset, seat, view, definitions), prompt, random.Random(seed))
    except Exception:
        log.exception("the %s %s bot failed on prompt %s; answering its default", level, ruleset, prompt.get("id"))
        return Answer(*default_answer(prompt))


__all__ = ["LEVELS", "Answer", "Bot", "RandomBot", "Seen", "bot_answer", "bot_for"]
