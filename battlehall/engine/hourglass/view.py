"""What each viewer may see, and what it must never see.

Hidden: the Battlecards in another player's Battle Hand and discard pile (kept face
down), a Defender's card until the reveal, the card the Attacker discarded, the Bandit
deck, and the generator. Card instances (``alice#c3``) are never shown to anyone but
their owner: public events name a revealed card by its kind (``parry``)."""

from __future__ import annotations

from ..ruleset import State, seat_status
from .about import delay, knight_name


def owner(card: str) -> str:
    return card.rsplit("#", 1)[0]


def secrets(state: State, viewer: str | None) -> list:
    """Every card instance but the viewer's own, and the generator's key (engine/rng.py)."""
    hidden = [c for c in state["cards"] if owner(c) != viewer]
    return hidden + [state["rng"]["key"]]


def _cards(state: State, ids: list[str]) -> list[dict]:
    return [{"card": c, "kind": state["cards"][c]} for c in ids]


def with_delay(table: dict) -> dict:
    """Attributes or a card with its Delay as players read it (`delay`: 2.5) beside the
    halves the state keeps (`delay2`: 5)."""
    return {**table, "delay": delay(table["delay2"])}


def view(state: State, viewer: str | None) -> dict:
    turn = None
    if state["turn"] is not None:
        t = state["turn"]
        placed: dict[str, dict | str | None] = {}
        for side, card in t["placed"].items():
            if card is None:
                placed[side] = None
            elif side == t["attacker"] or (side == viewer):
                placed[side] = state["cards"][card]  # the Attacker's is face up; a Defender knows its own
            else:
                placed[side] = "face_down"
        turn = {"attacker": t["attacker"], "targets": t["targets"], "defenders": t["defenders"], "placed": placed}
    out = {
        "tie_breaker": state["priority"], "turn_order": state["turn_order"],
        "resolver": state["turn_order"][state["resolver"]] if state["resolver"] < len(state["turn_order"]) else None,
        "current": state["current"], "turn": turn, "battle_turn_limit": state["limit"],
        "attributes": {s: with_delay(a) for s, a in state["attributes"].items()},
        "cards": {k: with_delay(c) for k, c in state["kinds"].items()},
        "battles": [{"tile": b["tile"], "knights": [{**k, "name": knight_name(k)} for k in b["knights"]],
                     "alliances": b["alliances"], "top": b["top"],
                     "bottom": b["bottom"], "turns": b["turns"], "started": b["started"], "done": b["done"]}
                    for b in state["battles"]],
        "hands": {s: len(h) for s, h in state["hands"].items()},
        "discards": {s: len(d) for s, d in state["discards"].items()},
        "bandit_deck": len(state["bandit_deck"]),
        **seat_status(state),
        "result": state["result"],
    }
    if viewer is not None and viewer in state["hands"]:
        out["my_hand"] = _cards(state, state["hands"][viewer])
        out["my_discards"] = _cards(state, state["discards"][viewer])
        if viewer in state["offers"]:
            out["my_offer"] = state["offers"][viewer]
    return out
