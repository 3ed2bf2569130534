"""When each prompt's default is due, with the grace measured lag gives late answers, and
each answer's clock record: a part of the match's core (match_core.py).

A seat's sockets report their measured round trip (`Lag`, from transport/lag.py: the
server's own pings, never a client's claim). A prompt's default then waits, past its
expiry, the credit the seat could still get (`Clock.grace`: its round trip, at most the
cap per answer and what is left of its quota), and an answer arriving in that grace is
taken, credited only its lateness.

Fairness: a grace never lets a seat act on what it could have seen. Credit is at most
the measured round trip, so an answer arriving in it left its client before any event
sent after the expiry could have reached it. And should the measure be more than the
truth, the grace of a prompt still ends the moment another seat decides anything after
the prompt's expiry (an answer, a timeout, a resign): from then on the late seat's
answer is too late, whatever its lag (`_decided`).

Every answer and timeout carries a `clock` record in its log entry: time used, lag
credited, bank spent, and how long of it its seat had no socket on (`away_ms`).
"""

from __future__ import annotations

from typing import Any

from battlehall.server.empty import EMPTY
from battlehall.server.match.effects import Arm
from battlehall.server.match.inputs import Lag
from battlehall.server.match.watching import Watching
from battlehall.server.match.writes import Status

#: How many of a seat's spells without a socket are kept for `away_ms`: enough for the
#: prompts open now (a prompt older than them is answered or timed out long since).
OFFLINE_KEPT = 8


class Expiry(Watching):
    """Prompt deadlines armed, measured lag per socket and the graces it gives, and the
    clock record of each answer."""

    # What it reads of the MatchCore it is part of (match_core.py), past what Watching declares.
    lags: dict[Any, int]
    cut: tuple[str, ...]
    offline: dict[str, tuple[int, ...]]

    def _start_expiry(self) -> None:
        self.lags = {}  # player socket -> its measured round trip (ms)
        # Prompts whose grace another seat's decision ended: a few at most, in a tuple (an
        # empty set is 216 bytes; the empty tuple is shared).
        self.cut = ()
        # seat -> its latest spells with no socket on, flat: since, until, since, ... (an
        # odd length: the last is still on), ints in one tuple (a list and its spare room
        # are nearly twice the size, and spells change only as a socket comes or goes).
        self.offline = {}
        self.ack_clocks = EMPTY  # (empty.py) "seat act-id" -> the clock record of its ack, for the latest acts (writes.py)

    def _lag(self, event: Lag) -> None:
        """A socket's round trip was measured again: its seat's graces follow it."""
        if event.conn.role != "player" or event.conn not in self.watchers:
            return
        if event.ms > 0:
            self.lags[event.conn] = event.ms
        else:
            self.lags.pop(event.conn, None)
        self._out += self._arm()

    def _seat_lag(self, seat: str) -> int:
        """The seat's lag: the slowest of its sockets on the match (any of them may answer);
        0 with none on, so a seat nobody plays gets no grace."""
        return max((ms for conn, ms in self.lags.items() if conn.seat == seat), default=0)

    def _due(self, prompt_id: str) -> int | None:
        """When the prompt's default is applied: its expiry, plus its seat's grace."""
        clock = self.match.clock
        expires = clock.expires_at(prompt_id)
        if expires is None or prompt_id in self.cut:
            return expires
        return expires + clock.grace(prompt_id, self._seat_lag(clock.data["open"][prompt_id]["seat"]))

    def _decided(self, seat: str | None, at: int) -> None:
        """`seat` decided something at `at`: every other seat's prompt already expired by
        then loses its grace (its seat could see this before answering)."""
        clock = self.match.clock
        for prompt_id, entry in clock.data["open"].items():
            if entry["seat"] != seat and prompt_id not in self.cut:
                expires = clock.expires_at(prompt_id)
                if expires is not None and expires < at:
                    self.cut += (prompt_id,)

    def _clocked(self, entry: dict, prompt_id: str, lag_ms: int = 0) -> dict:
        """`entry` with the clock record of answering (or timing out) `prompt_id` at its `at`."""
        record = self.match.clock.record(prompt_id, entry["at"], lag_ms)
        if record:
            away = self._away_during(self.match.clock.data["open"][prompt_id], entry["at"])
            if away:
                record["away_ms"] = away
            entry["clock"] = record
        return entry

    def _credit_of(self, conn: Any) -> int:
        """The lag an answer from `conn` may be credited: that socket's own measure."""
        return self.lags.get(conn, 0)

    # -- time without a socket -------------------------------------------------------------

    def _went_off(self, seat: str, now: int) -> None:
        spells = self.offline.get(seat, ())
        if len(spells) % 2 == 0:
            self.offline[seat] = (spells + (now,))[-2 * OFFLINE_KEPT + 1:]

    def _came_on(self, seat: str, now: int) -> None:
        spells = self.offline.get(seat)
        if spells and len(spells) % 2 == 1:
            self.offline[seat] = spells + (now,)

    def _gone_conn(self, conn: Any) -> None:
        self.lags.pop(conn, None)

    def _away_during(self, opened: dict, at: int) -> int:
        """How long, from the prompt's opening to `at`, its seat had no socket on."""
        start = opened.get("opened")
        if start is None:
            return 0
        total = 0
        spells = self.offline.get(opened["seat"], ())
        for i in range(0, len(spells), 2):
            since, until = spells[i], spells[i + 1] if i + 1 < len(spells) else at
            total += max(0, min(until, at) - max(since, start))
        return total

    # -- deadlines -------------------------------------------------------------------------

    def _arm(self) -> list:
        """A deadline for each open prompt, when its default must be applied.

        Only deadlines that changed are armed again (a bank spent by one answer moves the
        expiry of that seat's other open prompts); one no longer in `timers` is ignored
        when it comes up (`wants`).
        """
        clock = self.match.clock
        open_prompts = clock.data["open"]
        for prompt_id in [p for p in self.timers if p not in open_prompts]:
            del self.timers[prompt_id]
        if self.cut:
            self.cut = tuple(p for p in self.cut if p in open_prompts)
        if self.match.over or self.status is Status.STOPPED:
            return []
        armed = []
        for prompt_id in open_prompts:
            due = self._due(prompt_id)  # None: a prompt without a deadline never expires
            if due is not None and self.timers.get(prompt_id) != due:
                if self.timers is EMPTY:
                    self.timers = {}
                self.timers[prompt_id] = due
                armed.append(Arm(prompt_id, due))
        return armed
