"""Window prompts held for their minimum time, and the passes a seat's stops make: a part
of the match's core (match_core.py)."""

from __future__ import annotations

from battlehall.engine.ruleset import default_answer
from battlehall.server.empty import EMPTY
from battlehall.server.match.effects import Later, Send
from battlehall.server.match.inputs import Act, AutoPass, BotMove, HoldOver, Input, SetStops
from battlehall.server.match.match_state import MatchState
from battlehall.server.match.stops import Stops


class Holds:
    """Window prompts: answers held for a window's minimum time, and the passes a seat's stops make."""

    # What it reads of the MatchCore it is part of (match_core.py). The core's parts are one
    # line of classes (Holds <- Writes <- Presence <- Watching <- Expiry <- Judging
    # <- MatchCore), not mixins: a
    # compiled class (mypyc, setup.py) has a single base, so a part declares what the ones
    # above it give, and the methods they override, in the class body.
    _out: list
    held: dict[int, list[Act | AutoPass]]
    match: MatchState
    queue: list
    stops: Stops
    watchers: list

    def _commit(self, entry: dict, event: Input) -> None:
        raise NotImplementedError  # writes.py

    def _reply(self, event: Input, effects: list) -> None:
        raise NotImplementedError  # match_core.py

    def _clocked(self, entry: dict, prompt_id: str, lag_ms: int = 0) -> dict:
        raise NotImplementedError  # expiry.py

    def _decided(self, seat: str | None, at: int) -> None:
        raise NotImplementedError  # expiry.py

    @property
    def window_min_ms(self) -> int:
        """How long a window stays open at least (ms): read from the settings, not kept
        beside them (an idle match's attributes stay few enough to share their keys)."""
        return self.match.meta["clock"].get("window_min_ms", 0)

    def _hold(self, event: Act | AutoPass | BotMove, now: int) -> bool:
        """Whether `event` answers a window prompt too soon: it is handled when the window's
        minimum time is up (`_hold_over`; a bot's move is fed again then)."""
        opened = self.match.clock.window_opened(event.prompt)
        if opened is not None and self.window_min_ms:
            # A window stays open a minimum time whatever the seat holds: a fast "pass"
            # waits, so how soon a window closes never tells what was in a hand.
            due = opened + self.window_min_ms
            if due > now:
                if isinstance(event, BotMove):  # a bot's seat is no secret: its turn simply comes again
                    self._out.append(Later(due - now, event))
                    return True
                # Held by the hold's end, not each on a timer of its own: timers due in the
                # same millisecond fire in the order they were set, and the automatic pass,
                # set when the window opened, beat a card sent at once (and closed first).
                held = self.held.get(due)
                if held is None:
                    if self.held is EMPTY:
                        self.held = {}
                    held = self.held[due] = []
                    self._out.append(Later(due - now, HoldOver(due)))
                held.append(event)
                return True
        return False

    def _hold_over(self, over: HoldOver, now: int) -> None:
        """Every hold over by `now`: its answers are handled next, ahead of what came after
        them, in the order of their prompts (as they opened), a seat's own answer before the
        server's pass for it. So neither when an answer came nor whether the server made it
        shows in the order of the closes, and a card sent before the hold ended wins."""
        if over.due > now and over.due in self.held:  # the wall clock stepped back: not yet
            self._out.append(Later(over.due - now, over))
        ends = sorted(due for due in self.held if due <= now)
        if not ends:
            return
        opened = {prompt: i for i, prompt in enumerate(self.match.clock.data["open"])}
        last = len(opened)  # a prompt closed meanwhile: its answers are refused or dropped, after the others
        released: list = []
        for due in ends:
            released += sorted(self.held.pop(due), key=lambda e: (opened.get(e.prompt, last), type(e) is AutoPass))
        self.queue[0:0] = released

    def _auto_pass(self, auto: AutoPass, now: int) -> None:
        """The seat's stops pass this prompt: the same entry, at the same moment, as the
        seat's own pass sent as soon as the prompt opened (an act without the client's id)."""
        if self.match.over or self.match.clock.paused is not None:
            return  # passed again at the resume (judging.py)
        prompt = next((p for p in self.match.ruleset.prompts(self.match.state) if p["id"] == auto.prompt), None)
        if prompt is None or prompt["seat"] != auto.seat or not self.stops.passes(prompt):
            return  # answered, closed, or the seat asks for it now
        if self._hold(auto, now):
            return
        option, args = default_answer(prompt)
        entry = self._clocked({"at": now, "seat": auto.seat, "prompt": auto.prompt, "option": option, "args": args},
                              auto.prompt)
        self._commit(entry, auto)
        self._decided(auto.seat, now)

    def _set_stops(self, event: SetStops) -> None:
        self.stops.set(event.seat, event.mode)
        self._out += self._stops_told(event.seat)
        for prompt in self.match.ruleset.prompts(self.match.state):  # those open now too
            if prompt["seat"] == event.seat and self.stops.passes(prompt):
                self.queue.append(AutoPass(event.seat, prompt["id"]))

    def _stops_told(self, seat: str) -> list:
        """The seat's sockets are told its stops (only its own: nobody else learns them)."""
        message = {"t": "stops", "mode": self.stops.mode(seat)}
        return [Send(conn, message) for conn in self.watchers if conn.role == "player" and conn.seat == seat]

    def _stops_on(self, records: list, event: Input) -> None:
        """The prompts an entry opened: pass those the seats' stops pass; a prompt that is
        not a window ends its seat's pass_until_my_turn."""
        for record in records:
            if record["kind"] != "prompt":
                continue
            data = record["data"]
            seat = data["seat"]
            prompt = {**data, **record["private"][seat]}
            if self.stops.opened(prompt) is not None:
                self._reply(event, self._stops_told(seat))
            if self.stops.passes(prompt):
                self.queue.append(AutoPass(seat, data["id"]))
