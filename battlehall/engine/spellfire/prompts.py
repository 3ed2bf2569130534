"""Opening a prompt. Spellfire has one prompt open at a time, except a battle's any-time
window (one prompt per seat but the card's player, window.py): `apply` clears the
answered prompt and the rules open the next (or end the match)."""

from __future__ import annotations

from typing import Any, cast

from ..ruleset import Option, Ruleset
from .zones import NO_CARD


def ask(state: dict, seat: str, kind: str, text: str, options: list[dict], default: str,
        window: str | None = None) -> None:
    # Spellfire's options carry the card fields of `option` (and `args_text`, `answers`) besides id and text.
    state["prompts"].append(Ruleset.new_prompt(state, seat, kind, text, cast(list[Option], options), default, window))


def option(oid: str, text: str, about: dict | None = None, **more: Any) -> dict:
    """An option with the fields naming its card (zones.about), or nulls when it is about
    none, so that every option of every prompt has the same keys."""
    return {"id": oid, "text": text, **(about if about is not None else NO_CARD), **more}
