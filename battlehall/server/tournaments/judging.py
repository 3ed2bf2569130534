"""A judge's action on an event's game, as an entry of the event's log (`"k": "judged"`,
docs/tournaments.md, Judges): the clock actions are entered by the route that applied
them, once the match's own log has them; the ends a judge gives a game (a rewind, a
ruling, a void) by the event's runner when it learns the match's end (runner.py).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from battlehall.server.clock import now_ms
from battlehall.server.storage.store import StoreUnavailable
from battlehall.server.tournaments import games
from battlehall.server.tournaments.games import GamePlace
from battlehall.server.tournaments.refusals import Refused

if TYPE_CHECKING:
    from battlehall.server.tournaments.events import Events

log = logging.getLogger("battlehall.tournaments")


def place_of(meta: dict) -> tuple[str, GamePlace] | None:
    """The event and the game a match is, from its label; None for a match of no event."""
    label = meta.get("label") or {}
    try:
        return label["tournament"], GamePlace(int(label["round"]), int(label["table"]), int(label["game"]))
    except (KeyError, TypeError, ValueError):
        return None


async def enter_clock_action(events: Events, match_id: str, meta: dict, action: dict, reason: str | None) -> None:
    """The event's `judged` entry of a clock action applied to its game `match_id`. The
    match's log has it already: an event that cannot take it (ended meanwhile, Redis away)
    is logged, not refused to the judge."""
    found = place_of(meta)
    if found is None:
        return
    tournament_id, place = found
    entry = games.judged_entry(action["action"], place, match_id, action["by"], reason, now_ms(),
                               seat=action.get("seat"), ms=action.get("ms"))
    try:
        await events.change(tournament_id, lambda f: [entry])
    except (Refused, StoreUnavailable) as exc:
        log.warning("tournament %s: the judge's %s on %s is not in its log: %s", tournament_id, action["action"],
                    match_id, exc)
