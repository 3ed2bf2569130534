"""Phase 0: rule cards and dungeons (spellfire-2 rows 1 and 2).

A rule card, once played, stays in play for everyone: ``state["rule"]`` is None or
``{"seat", "card"}``. One rule card is in play at a time: a new one sends the old one
to its owner's discard pile. Each seat may have one dungeon in play,
``state["dungeons"][seat]``; a new one replaces its own old one. A turn's phase 0
plays at most one rule card and one dungeon.

The phase-0 prompt opens only in matches that hold a rule card or a dungeon at all
(the decks are public), and then on every turn, whatever the hand holds.
"""

from __future__ import annotations

from . import zones
from .prompts import ask
from .prompts import option as _option

KINDS = ("rule", "dungeon")


def in_match(state: dict) -> bool:
    return zones.holds(state, _is_rule_card)


def _is_rule_card(definition: dict) -> bool:
    return definition["type"] in KINDS


def wanted(state: dict) -> bool:
    t = state["turn"]
    return in_match(state) and not (t.get("rule_played") and t.get("dungeon_played"))


def option(state: dict, iid: str) -> dict | None:
    """Playing this hand card as a rule card or dungeon, or None."""
    c = zones.card(state, iid)
    if c["type"] == "rule":
        return _option(iid, f"Play rule card {c['name']}", zones.about(state, iid, state["turn"]["seat"], "hand"))
    if c["type"] == "dungeon":
        return _option(iid, f"Play dungeon {c['name']}", zones.about(state, iid, state["turn"]["seat"], "hand"))
    return None


def prompt(state: dict) -> None:
    t = state["turn"]
    seat = t["seat"]
    options = [o for iid in state["players"][seat]["hand"]
               if not t.get(f"{zones.card(state, iid)['type']}_played")
               for o in [option(state, iid)] if o is not None]
    options.append(_option("done", "End phase 0"))
    ask(state, seat, "play_rule", "Phase 0: play a rule card and/or a dungeon, or end the phase", options, "done")


def play(state: dict, seat: str, iid: str, events: list, via: str = "phase") -> None:
    """Put a rule card or dungeon, already taken from `seat`'s hand, into play (phase 0,
    or `via` spoils)."""
    kind = zones.card(state, iid)["type"]
    if kind == "rule":
        old = state.get("rule")
        state["rule"] = {"seat": seat, "card": iid}
        events.append({"kind": "rule_played", "data": {"seat": seat, **zones.about(state, iid, seat, "rule"),
                                                       "from": "hand", "via": via}})
        if old is not None:
            zones.discard(state, old["seat"], [old["card"]], "replaced", events, where="rule")
    else:
        dungeons = state.setdefault("dungeons", {})
        old = dungeons.get(seat)
        dungeons[seat] = iid
        events.append({"kind": "dungeon_played", "data": {"seat": seat, **zones.about(state, iid, seat, "dungeon"),
                                                          "from": "hand", "via": via}})
        if old is not None:
            zones.discard(state, seat, [old], "replaced", events, where="dungeon")


def answer(state: dict, option_id: str, events: list) -> bool:
    """True when phase 0 is over."""
    t = state["turn"]
    if option_id == "done":
        return True
    t[f"{zones.card(state, option_id)['type']}_played"] = True
    state["players"][t["seat"]]["hand"].remove(option_id)
    play(state, t["seat"], option_id, events)
    if not wanted(state):
        return True
    prompt(state)
    return False
