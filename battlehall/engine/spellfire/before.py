"""Yellow cards played before the battle (spellfire-2, row 5 of the order of activation).

Once both champions of a round are chosen and before any power activates, the two sides
take turns, the attacker first, each playing one support card marked ``before_battle``
that its champion can use or passing (``done``); the step ends when both have passed one
after the other. So either side may play first, and each may answer the other's card.
These cards then activate in row 5, ahead of every champion, in the order they were
played (spellfire-2: "the first card played gets to use the power first"); they cannot
be played later in the round.

The step is asked only in matches that hold a ``before_battle`` card at all (the decks
are public), and then every round, whatever the hands hold, so that being asked tells
nothing about a hand.
"""

from __future__ import annotations

from . import activation, powers, zones
from .prompts import ask
from .prompts import option as _option

OTHER = activation.OTHER


def in_match(state: dict) -> bool:
    return zones.holds(state, _before_battle)


def _before_battle(definition: dict) -> bool:
    return "before_battle" in definition["powers"]


def open_step(state: dict) -> bool:
    """Start the step for a round whose champions are both chosen; False if the match has
    no such cards (the round goes straight to step D)."""
    b = state["battle"]
    b["before_battle"] = []
    if not in_match(state):
        return False
    b["before_passes"] = 0  # passes in a row: two end the step
    prompt(state, "attacker")
    return True


def playable(state: dict, side: str, iid: str) -> bool:
    b = state["battle"]
    c = zones.card(state, iid)
    if "before_battle" not in c["powers"]:
        return False
    s = b["sides"][side]
    if not powers.can_use(zones.card(state, s["champion"]), c):
        return False
    if c["type"] == "artifact":
        return zones.artifact_fits(state, iid, s["champion"], s["attached"]) and zones.cosmos_allows(state, iid)
    return True


def prompt(state: dict, side: str) -> None:
    b = state["battle"]
    b["step"] = "before_battle"
    seat = b["sides"][side]["seat"]
    options = [_option(iid, f"Play {zones.name(state, iid)} before the battle", zones.about(state, iid, seat, "hand"))
               for iid in state["players"][seat]["hand"] if playable(state, side, iid)]
    options.append(_option("done", "Play nothing more before the battle now (pass)"))
    mine, theirs = (zones.name(state, b["sides"][t]["champion"]) for t in (side, OTHER[side]))
    ask(state, seat, "before_battle",
        f"Before the battle for {zones.name(state, b['realm'])}, your {mine} ({side}) against {theirs}: "
        "play a card that is played before battle, or pass", options, "done")


def answer(state: dict, seat: str, option: str, events: list) -> bool:
    """True when both sides have passed one after the other (step D follows)."""
    b = state["battle"]
    side = "attacker" if seat == b["attacker"] else "defender"
    if option == "done":
        b["before_passes"] = b.get("before_passes", 0) + 1
        if b["before_passes"] >= 2:
            del b["before_passes"]
            return True
        prompt(state, OTHER[side])
        return False
    b["before_passes"] = 0
    s = b["sides"][side]
    state["players"][seat]["hand"].remove(option)
    kind = zones.card(state, option)["type"]
    (s["attached"] if kind in ("magical_item", "artifact") else s["played"]).append(option)
    b["before_battle"].append(option)
    activation.enter(b, [option])
    events.append({"kind": "card_played", "data": {"seat": seat, "side": side,
                                                   **zones.about(state, option, seat, "battle"), "from": "hand",
                                                   "before_battle": True, "effects": [], "outcome": None,
                                                   "totals": powers.totals(state, b)}})
    prompt(state, OTHER[side])
    return False
