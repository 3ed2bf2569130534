"""A judge's hand on the match's clocks: pause, resume, time added; a part of the match's
core (match_core.py).

Each is a log entry like an answer (`{"at", "judge": {"action", "by", ...}}`), written
before it is confirmed, replayed by recovery, delayed spectators and `battlehall verify`
(the rules give it a `judge` event, which everyone sees). While the clocks are paused no
deadline runs (`Clock.expires_at` is None), no answer is taken (`match_paused`), no bot
moves and no stop passes; a resume gives every open prompt back the time paused. The
pause is in the clock's data, so a match paused when its node dies is loaded paused.
"""

from __future__ import annotations

from battlehall.engine.errors import BadSeat, MatchOver
from battlehall.server.errors import MatchPaused, NotPaused
from battlehall.server.match.expiry import Expiry
from battlehall.server.match.inputs import AutoPass, Judge


class Judging(Expiry):
    """Pause, resume and time added: judge entries committed like answers."""

    @property
    def paused(self) -> bool:
        return self.match.clock.paused is not None

    def _refuse_paused(self) -> None:
        """An answer while the clocks are paused is refused: nothing runs until the resume."""
        if self.paused:
            raise MatchPaused("the match's clocks are paused: answer once they are resumed")

    def _judge(self, judge: Judge, now: int) -> None:
        match, action = self.match, judge.action
        self.touched = now
        if match.over:
            raise MatchOver("the match has already ended")
        kind = action["action"]
        if kind == "pause" and self.paused:
            raise MatchPaused("the match's clocks are already paused")
        if kind == "resume" and not self.paused:
            raise NotPaused("the match's clocks are not paused")
        if kind == "add_time" and action.get("seat") not in match.meta["seats"]:
            raise BadSeat(f"no seat {action.get('seat')!r} in this match")
        self._commit({"at": now, "judge": action}, judge)
        if kind == "resume":  # what the seats' stops pass waited for the resume
            for prompt in match.ruleset.prompts(match.state):
                if self.stops.passes(prompt):
                    self.queue.append(AutoPass(prompt["seat"], prompt["id"]))
