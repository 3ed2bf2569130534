"""Joining and viewing: a part of the match's core (match_core.py)."""

from __future__ import annotations

from battlehall.server.empty import EMPTY
from battlehall.server.match.effects import Attach, AttachDelayed, Send, ShowView, ViewDelayed
from battlehall.server.match.inputs import Join, View
from battlehall.server.match.presence import Presence


class Watching(Presence):
    """Joining and viewing: the welcome at the current seq, and the view asked again."""

    # What it reads of the MatchCore it is part of (match_core.py), past what Presence declares.
    match_id: str
    touched: int

    def _came_on(self, seat: str, now: int) -> None:
        raise NotImplementedError  # expiry.py

    # -- joining and viewing --------------------------------------------------------------

    def _join(self, join: Join, now: int) -> None:
        """Welcome at the current seq S, and from now on the live events after S (with a
        `resume` below S, the missed events first: history.py)."""
        conn = join.conn
        self.touched = now
        self.watchers.append(conn)
        if conn.role == "spectator" and self.delayed:
            self._out.append(AttachDelayed(conn, join.reply, join.resume))
            return
        match = self.match
        if conn.role == "player":  # the player is back: the seat is its own again
            if conn.seat not in self.seen:
                self.seen += (conn.seat,)
            self.gone_since.pop(conn.seat, None)
            if not self.gone_since:  # idle, every seat on: the shared empty table again (empty.py)
                self.gone_since = EMPTY
            self._came_on(conn.seat, now)
            if conn.seat in self.told_gone:
                self.told_gone = tuple(s for s in self.told_gone if s != conn.seat)
                self._out += self._presence(conn.seat, True)
            self.timeouts_in_a_row.pop(conn.seat, None)
        welcome = {"t": "welcome", "match": self.match_id, "role": conn.role, "seat": conn.seat,
                   "seq": match.seq, "view": match.ruleset.view(match.state, conn.audience),
                   "prompts": match.prompts_for(conn.audience), "now": now,
                   "definitions": match.ruleset.definitions(match.state)}
        if match.clock.paused is not None:  # a judge stopped every clock: since when
            welcome["paused"] = match.clock.paused
        if self.told_gone:  # only then: a mirror's welcome, which cannot know, is the same otherwise
            welcome["gone"] = {seat: self._away_at(seat) for seat in sorted(self.told_gone)}
        self._out += [
            Send(conn, welcome),
            Attach(conn, join.reply, join.resume if join.resume is not None and join.resume < match.seq else None,
                   match.seq)]
        if conn.role == "player":  # after the welcome: it gets the seat_back event like everyone
            self._mark(conn.seat, False, now)

    def _view(self, view: View, now: int) -> None:
        """The viewer's current view: the welcome's `view`, `seq` and `prompts` again,
        without reconnecting (a delayed spectator's is as of its delay)."""
        conn = view.conn
        if conn.role == "spectator" and self.delayed:
            self._out.append(ViewDelayed(conn))
            return
        match = self.match
        shown = match.ruleset.view(match.state, conn.audience)
        self._out.append(ShowView(conn, {"t": "view", "seq": match.seq, "view": shown,
                                         "prompts": match.prompts_for(conn.audience), "now": now}))
