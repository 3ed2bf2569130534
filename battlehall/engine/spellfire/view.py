"""What one seat (or a spectator, viewer None) may see of a match.

Everyone sees formations, pools, discard piles, Limbo, the Abyss, the Void, the rule
card and the dungeons in play, the battle, whose turn and phase, and the
sizes of hands and draw piles. Only its own seat sees a hand. Nobody sees the order of
a draw pile, or the random generator.
"""

from __future__ import annotations

from ..ruleset import seat_status
from . import activation, battle_state, formation, powers, zones


def view(state: dict, viewer: str | None) -> dict:
    players = {}
    for seat in state["seats"]:
        p = state["players"][seat]
        slots = {}
        for s in formation.SLOTS:
            slot = p["formation"][s]
            slots[s] = None if slot is None else {
                **zones.ref(state, slot["realm"]), "razed": slot["razed"],
                "holding": None if slot["holding"] is None else zones.ref(state, slot["holding"])}
        players[seat] = {
            "hand": zones.refs(state, p["hand"]) if seat == viewer else None,
            "hand_size": len(p["hand"]),
            "draw_size": len(p["draw"]),
            "formation": slots,
            "unrazed": formation.unrazed(p["formation"]),
            "pool": [{**zones.ref(state, e["champion"]), "attached": zones.refs(state, e["attached"])} for e in p["pool"]],
            "discard": zones.refs(state, p["discard"]),
            "limbo": [{**zones.ref(state, e["champion"]), "attached": zones.refs(state, e["attached"])} for e in p["limbo"]],
            "abyss": zones.refs(state, p["abyss"]),
            "void": zones.refs(state, p["void"]),
        }
    # Champions that fought this turn; one taken back into a hand (Scavenger's Luck) is
    # left out for the other seats, whose view never names a card in another hand.
    hidden = {i for seat in state["seats"] if seat != viewer for i in state["players"][seat]["hand"]}
    turn = dict(state["turn"])
    turn["used"] = [i for i in turn["used"] if i not in hidden]
    return {
        "seats": state["seats"],
        "turn": turn,
        "players": players,
        "battle": _battle(state),
        "spoils": None if state["spoils"] is None else {"seat": state["spoils"]["seat"]},
        "rule": None if state.get("rule") is None else {"seat": state["rule"]["seat"],
                                                        **zones.ref(state, state["rule"]["card"])},
        "dungeons": {seat: zones.ref(state, iid) for seat, iid in state.get("dungeons", {}).items()},
        "options": state["options"],
        **seat_status(state),
        "result": state["result"],
    }


def _battle(state: dict) -> dict | None:
    if state["battle"] is None:
        return None
    battle = battle_state.current(state)
    sides: dict[str, dict | None] = {}
    for side in battle_state.SIDES:
        s = battle["sides"][side]
        sides[side] = None if s is None else {
            "seat": s["seat"], **zones.ref(state, s["champion"]), "from": s["from"],
            "attached": zones.refs(state, s["attached"]), "played": zones.refs(state, s["played"]),
            "brought": zones.refs(state, s.get("brought", [])),
            "total": powers.total(state, battle, side)}
    both = battle["sides"]["attacker"] is not None and battle["sides"]["defender"] is not None
    order = [{**zones.ref(state, iid), "side": side, "step": label, "cancelled": activation.cancelled(battle, iid)}
             for label, side, iid in activation.sequence(state, battle)] if both else []
    pending = battle["pending"]
    return {"attacker": battle["attacker"], "defender": battle["defender"], **zones.ref(state, battle["realm"]),
            "slot": battle["slot"], "round": battle["round"], "defeats": battle["defeats"], "step": battle["step"],
            "sides": sides, "order": order,
            "pending": None if pending is None else {**zones.ref(state, pending["card"]), "outcome": pending["outcome"]}}


def secrets(state: dict, viewer: str | None) -> list:
    """What `viewer` must never be told: the cards in another seat's hand, every draw pile
    (contents and order), and the generator's key (engine/rng.py)."""
    out: list = [state["rng"]["key"]]
    for seat in state["seats"]:
        p = state["players"][seat]
        out += p["draw"]
        if seat != viewer:
            out += p["hand"]
    return out
