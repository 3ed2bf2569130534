"""An event's games as matches: the id each game's match has, the create request that makes
it, and the log entry its result becomes.

A game's match id follows from the event's secret seed and the game's place (round,
table, game): the node that takes an event over finds a game already made under that id
instead of making it again, so no game is ever made twice, and nobody can tell a game's
id before it is made.
"""

from __future__ import annotations

import hashlib
import hmac
import re
from dataclasses import dataclass

from battlehall.server.players.matcher import QUICK_CLOCK

_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_.-]+")
SEAT_NAME_MAX = 24


@dataclass(frozen=True, slots=True)
class GamePlace:
    """Where a game stands in its event."""
    round: int
    table: int
    game: int

    @property
    def label(self) -> str:
        return f"{self.round}.{self.table}.{self.game}"


def match_id(seed: str, place: GamePlace) -> str:
    """The id of the game's match: an HMAC of its place under the event's seed."""
    digest = hmac.new(seed.encode(), f"game {place.label}".encode(), hashlib.sha256).hexdigest()
    return "m_" + digest[:16]


def seat_names(names: list[str]) -> list[str]:
    """Seat names for players of these display names, in order: their letters a seat name
    may hold, each once at the table (a second "Ann" is "Ann-2")."""
    out: list[str] = []
    for name in names:
        base = _NOT_IN_NAME.sub("", name.replace(" ", "_"))[:SEAT_NAME_MAX].strip("._-") or "player"
        seat, n = base, 1
        while seat in out:
            n += 1
            seat = f"{base}-{n}"
        out.append(seat)
    return out


def create_body(tournament_id: str, spec, place: GamePlace, seats: list[str], caster: dict | None = None) -> dict:
    """The `POST /matches` body of a game (the binding to profiles goes beside it); with the
    event's `caster` settings, the game has a caster link at that delay."""
    return {**({"caster": dict(caster)} if caster else {}), "ruleset": spec.ruleset, "seats": seats, "options": spec.options,
            "clock": spec.clock or QUICK_CLOCK,
            "spectators": {"allowed": True, "public": bool(spec.public)},
            "label": {"tournament": tournament_id, "round": str(place.round), "table": str(place.table),
                      "game": str(place.game)},
            "when_away": "bot" if spec.bots_take_over else "nothing"}


def game_entry(place: GamePlace, match: str, players: list[str], profiles: dict[str, str], result: dict,
               at: int) -> dict:
    """The `game` entry of a match's result: its ranking by profile, or a draw (a draw, an
    abort or an abandon, or a ranking of one group)."""
    entry = {"k": "game", "round": place.round, "table": place.table, "game": place.game, "match": match,
             "seats": players, "at": at}
    ranking = result.get("ranking") or []
    if result.get("draw") or result.get("reason") in ("aborted", "abandoned") or len(ranking) < 2:
        return {**entry, "draw": True}
    return {**entry, "places": [[profiles[seat] for seat in group if seat in profiles] for group in ranking]}


def no_show_entry(place: GamePlace, match: str, players: list[str], absent: set[str], at: int) -> dict:
    """The `game` entry of a game some players never came to: the present ahead; a draw
    when nobody came."""
    entry = {"k": "game", "round": place.round, "table": place.table, "game": place.game, "match": match,
             "seats": players, "at": at}
    present = [p for p in players if p not in absent]
    if not present:
        return {**entry, "draw": True}
    return {**entry, "places": [present, [p for p in players if p in absent]]}
