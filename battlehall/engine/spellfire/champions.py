"""Which champions may still fight this turn (spellfire-1 I and J), and how a prompt names one."""

from __future__ import annotations

from . import zones


def uses_left(state: dict, seat: str, iid: str) -> int:
    """How many more times this champion may fight this turn: once, or twice for an
    `extra_attack` champion of the seat whose turn it is (spellfire-1 I: "No champion may
    be used more than once each turn unless its special power permits it")."""
    limit = 2 if seat == state["turn"]["seat"] and "extra_attack" in zones.card(state, iid)["powers"] else 1
    return limit - state["turn"]["used"].count(iid)


def available(state: dict, seat: str) -> list[tuple[str, str]]:
    """(champion, "pool" | "hand") that may still fight this turn; from hand only if the
    Rule of the Cosmos lets it come into play."""
    player = state["players"][seat]
    out = [(e["champion"], "pool") for e in player["pool"] if uses_left(state, seat, e["champion"]) > 0]
    # an avatar (a champion with a cost) comes into play only through the pool, where its cost is paid
    hand = [iid for iid in player["hand"] if zones.card(state, iid)["type"] == "champion"
            and uses_left(state, seat, iid) > 0 and zones.card(state, iid)["cost"] is None]
    if hand:
        playing = zones.in_play(state)
        out += [(iid, "hand") for iid in hand if zones.cosmos_allows(state, iid, playing)]
    return out


def extra_attackers(state: dict) -> list[tuple[str, str]]:
    """The turn's champions that attacked once and may attack again (`extra_attack`): each
    may open a battle beyond `attacks_per_turn` (spellfire-1 J: "Only a handful of champions
    allow an attack on more than one realm per turn")."""
    seat = state["turn"]["seat"]
    return [(iid, where) for iid, where in available(state, seat)
            if "extra_attack" in zones.card(state, iid)["powers"] and iid in state["turn"]["used"]]


def spend(state: dict, iid: str) -> None:
    """A defeated attacking champion makes no further attack this turn (spellfire-3),
    even one that returned to its pool or may attack twice."""
    state["turn"]["used"] += [iid] * max(0, uses_left(state, state["turn"]["seat"], iid))


def text(state: dict, iid: str, where: str) -> str:
    c = zones.card(state, iid)
    return f"{c['name']} (level {c['level']}, {c['class']}, from {where})"
