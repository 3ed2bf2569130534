"""The any-time window that follows every card played into a battle (rules/NOTES.md).

After a card is played every other player may respond: the two sides with events and
play-at-any-time cards their champion can use, the other players with events. One
prompt per seat, sharing a window id; each opens whether or not its seat holds a card
it could play, so that being asked tells nothing. Every option says, in `answers`,
which card the window answers (who played it, for which side). The answers are
battle.answer_respond's.
"""

from __future__ import annotations

from . import battle_state, powers, zones
from .prompts import ask
from .prompts import option as _option


def open_window(state: dict, player: str, played: str, played_for: str | None) -> None:
    battle = battle_state.current(state)
    battle["step"] = "respond"
    window = f"w{state['next_prompt'] + 1}"
    answers = {**zones.ref(state, played), "owner": player, "side": played_for}
    realm = zones.name(state, battle["realm"])
    said = f"{player} played {zones.name(state, played)}" + (f" for the {played_for}" if played_for else "")
    for seat in state["seats"]:
        if seat == player or seat in state.get("resigned", []):  # a seat that resigned is asked nothing
            continue
        hand = state["players"][seat]["hand"]
        if battle_state.fights(battle, seat):
            side = battle_state.side_of(battle, seat)
            options = [_option(iid, f"Play {zones.name(state, iid)}", zones.about(state, iid, seat, "hand"), answers=answers)
                       for iid in hand if powers.playable(state, battle, side, iid, True)]
            text = (f"{said} in the battle for {realm}: respond with an event or a "
                    "play-at-any-time card, or pass")
        else:
            options = [_outside_option(state, seat, iid, answers) for iid in hand
                       if zones.card(state, iid)["type"] == "event"]
            text = (f"{said} in the battle of {battle['attacker']} against {battle['defender']}'s {realm}: "
                    "play an event, or pass")
        options.append(_option("pass", f"Let {zones.name(state, played)} stand", answers=answers))
        ask(state, seat, "respond", text, options, "pass", window=window)


def _outside_option(state: dict, seat: str, iid: str, answers: dict) -> dict:
    """An event played by a seat outside the battle: one that helps a side names it."""
    c = zones.card(state, iid)
    about = zones.about(state, iid, seat, "hand")
    if powers.takes_side(c):
        battle = battle_state.current(state)
        words = {side: f"for the {side}, {battle_state.seat_of(battle, side)}'s "
                       f"{zones.name(state, battle_state.champion(battle, side))}"
                 for side in battle_state.SIDES}
        return _option(iid, f"Play {c['name']} for a side", about, answers=answers,
                       args={"side": ["attacker", "defender"]}, args_text={"side": words})
    return _option(iid, f"Play {c['name']}", about, answers=answers)
