"""Opening a prompt. Spellfire has one prompt open at a time: `apply` clears the answered
one and the rules open the next (or end the match)."""

from __future__ import annotations

from ..ruleset import Ruleset


def ask(state: dict, seat: str, kind: str, text: str, options: list[dict], default: str,
        window: str | None = None) -> None:
    state["prompts"].append(Ruleset.new_prompt(state, seat, kind, text, options, default, window))
