"""Spoils of victory (spellfire-1 J, spellfire-3 "Spoils of victory").

Drawn once, when a battle ends, by the seat the battle's end names (battle.py): the
attacker when the realm was razed, the defender when the attacking champion was
discarded or sent to Limbo, the Abyss or the Void. The drawn card is offered at once
when the texts let it be played as spoils (plays.spoils_option); otherwise it is kept.
"""

from __future__ import annotations

from . import plays, zones
from .prompts import ask
from .prompts import option as _option


def draw(state: dict, seat: str | None, events: list) -> bool:
    """Draw the spoils; True when there is nothing to decide (no seat, or an empty pile)."""
    if seat is None:
        return True
    drawn = zones.draw(state, seat, 1, "spoils", events)
    if not drawn:
        return True
    state["spoils"] = {"seat": seat, "card": drawn[0]}
    prompt(state)
    return False


def prompt(state: dict) -> None:
    """Always asked, even when the card cannot be played now, so that nothing leaks."""
    seat, iid = state["spoils"]["seat"], state["spoils"]["card"]
    options = []
    opt = plays.spoils_option(state, seat, iid)
    if opt is not None:
        options.append(opt)
    options.append(_option("keep", f"Keep {zones.name(state, iid)} in your hand", zones.about(state, iid, seat, "hand")))
    ask(state, seat, "spoils", f"Spoils of victory: {zones.name(state, iid)}. Play it now or keep it",
        options, "keep")


def answer(state: dict, option: str, args: dict, events: list) -> bool:
    seat, iid = state["spoils"]["seat"], state["spoils"]["card"]
    state["spoils"] = None
    if option == "keep":
        events.append({"kind": "spoils_kept", "data": {"seat": seat},
                       "private": {seat: zones.about(state, iid, seat, "hand")}})
    else:
        plays.play(state, seat, option, args, events, via="spoils")
    return True
