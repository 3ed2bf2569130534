"""Away and back: a part of the match's core (match_core.py)."""

from __future__ import annotations

from battlehall.server.empty import EMPTY
from battlehall.server.match.effects import Later, Send
from battlehall.server.match.inputs import AwayDue
from battlehall.server.match.writes import Writes


class Presence(Writes):
    """Away and back: a seat whose player is gone past its grace, or timed out too often, is marked away."""

    # What it reads of the MatchCore it is part of (match_core.py), past what Writes declares.
    away_grace_ms: int
    away_timeouts: int
    bot_seats: dict[str, str]
    gone_since: dict[str, int]
    seen: tuple[str, ...]
    timeouts_in_a_row: dict[str, int]
    told_gone: tuple[str, ...]

    @property
    def delayed(self) -> bool:
        """Whether spectators see a delayed stream: read from the settings, not kept beside them."""
        return bool(self.match.meta.get("spectators", {}).get("delay_ms"))

    # -- away and back --------------------------------------------------------------------

    def _timed_out(self, seat: str, at: int) -> None:
        """A prompt of `seat` timed out at `at`: too many in a row mark it away."""
        missed = self.timeouts_in_a_row.get(seat, 0) + 1
        self.timeouts_in_a_row = {**self.timeouts_in_a_row, seat: missed}  # a new dict: the first replaces EMPTY
        if self.away_timeouts and missed >= self.away_timeouts:
            self._mark(seat, True, at)

    def _seat_on(self, seat: str) -> bool:
        """Whether a socket of `seat`'s player is on the match."""
        return any(c.seat == seat and c.role == "player" for c in self.watchers)

    def _gone(self, seat: str, now: int) -> list:
        """No socket of `seat`'s player is on from `now`: say so to everyone watching live,
        and look again when its grace ends."""
        if not self.away_grace_ms or seat in self.gone_since or seat in self.bot_seats:
            return []
        if self.gone_since is EMPTY:
            self.gone_since = {}
        self.gone_since[seat] = now
        told = []
        if seat in self.seen:  # it left (not: it has not come yet), so the others hear of it
            self.told_gone += (seat,)  # not there: it left told_gone with gone_since
            told = self._presence(seat, False)
        return told + [Later(self.away_grace_ms, AwayDue(seat))]

    def _away_at(self, seat: str) -> int:
        return self.gone_since[seat] + self.away_grace_ms

    def _presence(self, seat: str, connected: bool) -> list:
        """A `presence` message to every live socket (a delayed stream would learn of it
        before its events): a seat's player left, with when the seat is marked away, or is
        back. It is not logged: it says who is connected, not what happened in the match."""
        if self.match.over:
            return []
        message = {"t": "presence", "seat": seat, "connected": connected,
                   "away_at": None if connected else self._away_at(seat)}
        return [Send(c, message) for c in self.watchers
                if not (c.role == "spectator" and self.delayed) and c.seat != seat]

    def away_wanted(self, seat: str) -> bool:
        """Whether an AwayDue of `seat` may still mark it away (`_away_due`): not once its
        player is back with no timeouts to count (the node's deadlines drop it then)."""
        return seat in self.gone_since or self._missed(seat)

    def _missed(self, seat: str) -> bool:
        return bool(self.away_timeouts) and self.timeouts_in_a_row.get(seat, 0) >= self.away_timeouts

    def _away_due(self, due: AwayDue, now: int) -> None:
        seat = due.seat
        since = self.gone_since.get(seat)
        # Back meanwhile, or gone again since (that grace's own AwayDue comes later): not yet.
        gone = since is not None and now >= since + self.away_grace_ms
        if gone or self._missed(seat):
            self._mark(seat, True, now)

    def _mark(self, seat: str, away: bool, now: int) -> None:
        """Write `{"away": seat}` or `{"back": seat}` when it changes something: never for a
        match over or a seat that resigned (it is out of the match for good)."""
        state = self.match.state
        if (self.match.over or seat in state.get("resigned", ()) or seat in self.bot_seats
                or (seat in state.get("away", ())) == away):
            return
        self._commit({"at": now, "away" if away else "back": seat}, AwayDue(seat))
