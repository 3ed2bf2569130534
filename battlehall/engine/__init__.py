"""The rules: pure, deterministic state machines with one shared contract (ruleset.py)."""

from __future__ import annotations

import importlib

from .ruleset import Ruleset

# name -> "module:Class"; imported on first use so a server loads only what it runs.
_RULESETS = {
    "demigod": "battlehall.engine.demigod:Demigod",
    "duel": "battlehall.engine.duel:Duel",
    "hourglass": "battlehall.engine.hourglass:Hourglass",
    "spellfire": "battlehall.engine.spellfire:Spellfire",
}
_loaded: dict[str, Ruleset] = {}


def ruleset_names() -> list[str]:
    return sorted(_RULESETS)


def get_ruleset(name: str) -> Ruleset:
    """The ruleset called `name`; KeyError if there is none."""
    if name not in _loaded:
        module, cls = _RULESETS[name].split(":")
        _loaded[name] = getattr(importlib.import_module(module), cls)()
    return _loaded[name]
