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

from . import activation, battle_state, powers, zones
from .battle_state import OTHER
from .prompts import ask
from .prompts import option as _option


def in_match(state: dict) -> bool:
    return zones.holds(state, _before_battle)


def _before_battle(definition: dict) -> bool:
    return "before_battle" in definition["powers"]


def open_step(state: dict) -> bool:
    """Start the step for a round whose champions are both chosen; False if the match has
    no such cards (the round goes straight to step D)."""
    battle = battle_state.current(state)
    battle["before_battle"] = []
    if not in_match(state):
        return False
    battle["before_passes"] = 0  # passes in a row: two end the step
    prompt(state, "attacker")
    return True


def playable(state: dict, side: str, iid: str) -> bool:
    c = zones.card(state, iid)
    if "before_battle" not in c["powers"]:
        return False
    s = battle_state.side(battle_state.current(state), side)
    if not powers.can_use(zones.card(state, s["champion"]), c):
        return False
    if c["type"] == "artifact":
        return zones.artifact_fits(state, iid, s["champion"], s["attached"]) and zones.cosmos_allows(state, iid)
    return True


def prompt(state: dict, side: str) -> None:
    battle = battle_state.current(state)
    battle["step"] = "before_battle"
    seat = battle_state.side(battle, side)["seat"]
    options = [_option(iid, f"Play {zones.name(state, iid)} before the battle", zones.about(state, iid, seat, "hand"))
               for iid in state["players"][seat]["hand"] if playable(state, side, iid)]
    options.append(_option("done", "Play nothing more before the battle now (pass)"))
    mine, theirs = (zones.name(state, battle_state.champion(battle, t)) for t in (side, OTHER[side]))
    ask(state, seat, "before_battle",
        f"Before the battle for {zones.name(state, battle['realm'])}, your {mine} ({side}) against {theirs}: "
        "play a card that is played before battle, or pass", options, "done")


def answer(state: dict, seat: str, option: str, events: list) -> bool:
    """True when both sides have passed one after the other (step D follows)."""
    battle = battle_state.current(state)
    side = battle_state.side_of(battle, seat)
    if option == "done":
        battle["before_passes"] = battle.get("before_passes", 0) + 1
        if battle["before_passes"] >= 2:
            del battle["before_passes"]
            return True
        prompt(state, OTHER[side])
        return False
    battle["before_passes"] = 0
    s = battle_state.side(battle, side)
    state["players"][seat]["hand"].remove(option)
    kind = zones.card(state, option)["type"]
    (s["attached"] if kind in ("magical_item", "artifact") else s["played"]).append(option)
    battle["before_battle"].append(option)
    activation.enter(battle, [option])
    events.append({"kind": "card_played", "data": {"seat": seat, "side": side,
                                                   **zones.about(state, option, seat, "battle"), "from": "hand",
                                                   "before_battle": True, "effects": [], "outcome": None,
                                                   "totals": powers.totals(state, battle)}})
    prompt(state, OTHER[side])
    return False
