"""The rules of one live match, without I/O: typed inputs in, a list of effects out.

`MatchCore` decides everything about a match that does not need a socket, Redis or a
clock: which answers are applied and in what order, who is refused and how, when an
entry is durable enough to acknowledge, what to rebuild after a failed write, and
which prompt deadlines to set. Time comes in as a number (`now`, epoch ms) with each
input; nothing is read, written or awaited here. The asyncio driver (actor.py)
performs the effects: writes through the write batcher, sends to sockets, sets
deadlines, and feeds back what happened (`WriteDone`, `WriteFailed`, `Rebuilt`, ...).

An answer is acknowledged only after its entry is in Redis. Answers, timeouts and aborts
that come while a write is in flight go out together in a second one, which Redis takes
only behind the first (writes.py); the rest waits. What inputs produce (events, acks,
refusals) is held until their write returns, then delivered in the order they came, as
if each had been written alone. A failed write, and any sent after it, acknowledges
nothing: the state (ahead of Redis) is rebuilt before the next input.

The core is one class in parts, one idea each, each part the base of the next: holds.py
holds window answers and makes the stops' passes; writes.py commits entries and follows
their write; presence.py marks seats away and back; watching.py joins and shows views;
expiry.py credits late answers their measured lag and records each answer's clock;
judging.py pauses and resumes the clocks; this module drives the queue and applies
answers, timeouts and aborts. Its vocabulary is inputs.py and effects.py.
"""

from __future__ import annotations

import logging
from typing import Any, get_args

from battlehall.bots import bot_answer
from battlehall.engine.errors import BadSeat, EngineError, MatchOver
from battlehall.engine.ruleset import Ruleset, default_answer
from battlehall.server import errors
from battlehall.server.clock import Clock
from battlehall.server.empty import EMPTY, EMPTY_LIST
from battlehall.server.errors import MatchLive, NoClaim, NotHere, WireError
from battlehall.server.match.effects import Ack, DeleteKeys, Detach, Rebuild, Resolve, Think, refusal
from battlehall.server.match.inputs import (
    BATCHED,
    Abandon,
    Abort,
    Act,
    AutoPass,
    AwayDue,
    BotMove,
    Claim,
    Delete,
    Expire,
    HoldOver,
    Input,
    Join,
    Judge,
    Lag,
    Leave,
    Outcome,
    RebuildFailed,
    Rebuilt,
    Release,
    Resign,
    SetStops,
    View,
    WriteDone,
    WriteFailed,
)
from battlehall.server.match.judging import Judging
from battlehall.server.match.match_state import MatchState
from battlehall.server.match.stops import Stops
from battlehall.server.match.writes import Status, _InFlight

log = logging.getLogger("battlehall.actor")

#: Every input and outcome the core is given (inputs.py).
KINDS = frozenset(get_args(Input) + get_args(Outcome))
MAX_BATCH = 256  # entries in one write at most: a bound on the script's arguments


class MatchCore(Judging):
    """One live match's rules and bookkeeping; `receive(input, now)` returns the effects."""

    def __init__(self, match_id: str, match: MatchState, snapshot_every: int, touched: int = 0,
                 away_grace_ms: int = 0, away_timeouts: int = 0):
        self.match_id = match_id
        self.match = match
        self.snapshot_every = snapshot_every
        self.status = Status.IDLE
        # Inputs waiting for a write or a rebuild: a few at a time, in a list (an empty
        # deque is over 600 bytes per idle match; actor.py's inbox says the same).
        self.queue: list = []
        self.batch: list[tuple[dict, list]] = EMPTY_LIST  # entries applied, for the next write
        self.outbox: list[tuple[Input, Any]] = EMPTY_LIST  # per input of the batch: _Committed, or its effects
        self.writing: tuple[_InFlight, ...] = ()  # the writes in flight, oldest first (writes.py)
        self.damaged = False  # a bug interrupted an entry: rebuild once the batch is written
        self.timers: dict[str, int] = EMPTY  # prompt id -> when its default is due, as armed
        self.sent_seq = match.seq  # the last seq published to sockets
        self.touched = touched  # the last act, or socket joining or leaving (epoch ms): for Abandon
        self.watchers: list = []  # the sockets attached, live or delayed
        self.stops = Stops()  # kept while this node runs the match; a seat sends its own again after a welcome
        # Answers and passes held for a window's minimum time, by when it ends (epoch ms),
        # in the order they came; one `Later(HoldOver)` per end (`_hold`).
        self.held: dict[int, list[Act | AutoPass]] = EMPTY
        # When a seat is marked away (0: never that way): its player gone this long, or
        # this many of its prompts in a row timed out.
        self.away_grace_ms = away_grace_ms
        self.away_timeouts = away_timeouts
        self.gone_since: dict[str, int] = EMPTY  # seat -> since when no socket of its player is on
        # Seats (a few) in tuples, not sets: an empty set is 216 bytes, the empty tuple shared.
        self.seen: tuple[str, ...] = ()  # seats whose player has had a socket on since the match was loaded
        self.told_gone: tuple[str, ...] = ()  # seats whose player left, as the others were told (presence)
        self.timeouts_in_a_row: dict[str, int] = EMPTY  # seat -> its prompts that timed out since it last acted
        self.bot_seats: dict[str, str] = match.meta.get("bots") or EMPTY  # seat -> level: seats a bot always plays
        self.thinking: dict[str, str] = EMPTY  # prompt id -> seat: a bot's BotMove for it is on its way
        self._start_expiry()  # measured lags, graces ended, time without a socket (expiry.py)
        self._out: list = EMPTY_LIST  # the effects of the input being handled (`receive`)

    # -- what the hub reads -------------------------------------------------------------

    @property
    def meta(self) -> dict:
        return self.match.meta

    @property
    def state(self) -> dict:
        return self.match.state

    @property
    def seq(self) -> int:
        return self.match.seq

    @property
    def clock(self) -> Clock:
        return self.match.clock

    @property
    def ruleset(self) -> Ruleset:
        return self.match.ruleset

    @property
    def over(self) -> bool:
        return self.match.over

    @property
    def stale(self) -> bool:
        """Whether memory may be ahead of Redis."""
        return self.status in (Status.STALE, Status.REBUILDING, Status.FAILING) or self.damaged

    def wants(self, prompt: str, due: int) -> bool:
        """Whether the deadline armed for `prompt` at `due` still stands."""
        return self.status is not Status.STOPPED and self.timers.get(prompt) == due

    # -- driving ------------------------------------------------------------------------

    def start(self, now: int) -> list:
        """The match is loaded at `now`: its deadlines, the bots' turns, and the grace of
        every seat a player plays (nobody is on it yet)."""
        out = self._arm() + self._bots()
        for seat in self.match.meta["seats"]:
            if seat not in self.bot_seats:
                self._went_off(seat, now)
            out += self._gone(seat, now)
        return out

    def bot_level(self, seat: str) -> str | None:
        """The level of the bot that plays `seat` now, None when its player does: a bot
        seat's always, and an away seat's while it is away in a match created with
        `"when_away": "bot"` (the greedy bot stands in for its player)."""
        level = self.bot_seats.get(seat)
        if level is None and self.match.meta.get("when_away") == "bot" and seat in self.match.state.get("away", ()):
            level = "greedy"
        return level

    def receive(self, event: object, now: int) -> list:
        """Handle one input at `now`; the effects to perform, in order. Any object: one that
        is not an input (a bug) is logged, and a compiled core (setup.py) raises no TypeError."""
        if type(event) not in KINDS:
            log.error("match %s: not an input of a match: %r", self.match_id, event)
            return []
        out = self._out = []
        if type(event) is WriteDone:
            self._write_done()
        elif type(event) is WriteFailed:
            self._write_failed(event.error)
        elif type(event) is Rebuilt:
            self._rebuilt(event)
        elif type(event) is RebuildFailed:
            self._rebuild_failed()
        elif self.status is Status.STOPPED:
            if type(event) is Join:  # let go meanwhile: join again, wherever it runs now
                out += refusal(event, NotHere(None))
            else:
                self.queue.append(event)  # refused by `stop` when the hub lets the match go
            return out
        else:
            self.queue.append(event)
        self._drain(now)
        self._out = EMPTY_LIST
        return out

    def stop(self, error: BaseException | None = None) -> list:
        """Nothing more is handled here; with `error`, whoever waits for an answer is
        refused with it (else they wait for the hub to refuse them)."""
        self.status = Status.STOPPED
        self.timers.clear()
        if error is None:
            return []
        waiting = [e for write in self.writing for e, _ in write.outbox] + [e for e, _ in self.outbox] + self.queue
        self.queue.clear()
        self.batch, self.outbox, self.writing = EMPTY_LIST, EMPTY_LIST, ()
        # Acts are not answered: their sockets are closed or sent away; timeouts are the next owner's.
        unanswered = (Act, AutoPass, BotMove, Resign, Claim, Expire, AwayDue)
        return [effect for event in waiting if not isinstance(event, unanswered) for effect in refusal(event, error)]

    # -- the queue --------------------------------------------------------------------

    def _drain(self, now: int) -> None:
        while self.queue and self.status in (Status.IDLE, Status.STALE, Status.WRITING):
            event = self.queue[0]
            kind = type(event)
            if self.batch and (kind not in BATCHED or self.damaged or len(self.batch) >= MAX_BATCH):
                break  # written first: what comes after it sees only durable state
            if self.status is Status.WRITING and not self.batch and (kind not in BATCHED or not self._may_pipeline()):
                break  # waits for the writes in flight
            if self.status is Status.STALE and kind not in (Leave, Release, SetStops, Lag):
                self.status = Status.REBUILDING
                self._out.append(Rebuild(self.sent_seq))
                return
            self.queue.pop(0)
            try:
                self._handle(event, now)
            except (EngineError, WireError) as exc:
                self._reply(event, refusal(event, exc))
            except Exception:  # a bug must not kill the match: log it, answer `internal`
                log.exception("match %s: error handling %s", self.match_id, kind.__name__)
                self._reply(event, refusal(event, errors.Internal()))
                if not self.batch and self.damaged and not self.writing:
                    self.damaged = False
                    self.status = Status.STALE
        if self.batch and (self.status is Status.IDLE or self.status is Status.WRITING):
            self._out.append(self._write())

    def _reply(self, event: Input, effects: list) -> None:
        """Effects answering `event`: held behind the batch being prepared or the last write in flight."""
        held = self._held()
        if held is not None:
            held.append((event, effects))
        else:
            self._out += effects

    def _handle(self, event: Input, now: int) -> None:
        if type(event) is Act:
            self._act(event, now)
        elif type(event) is Lag:
            self._lag(event)
        elif type(event) is AutoPass:
            self._auto_pass(event, now)
        elif type(event) is HoldOver:
            self._hold_over(event, now)
        elif type(event) is BotMove:
            self._bot_move(event, now)
        elif type(event) is SetStops:
            self._set_stops(event)
        elif type(event) is Resign:
            self._resign(event, now)
        elif type(event) is Claim:
            self._claim(event, now)
        elif type(event) is Expire:
            self._expire(event, now)
        elif type(event) is AwayDue:
            self._away_due(event, now)
        elif type(event) is Join:
            self._join(event, now)
        elif type(event) is View:
            self._view(event, now)
        elif type(event) is Leave:
            self.touched = now
            if event.conn in self.watchers:
                self.watchers.remove(event.conn)
            self._gone_conn(event.conn)
            self._out.append(Detach(event.conn))
            seat = event.conn.seat
            if event.conn.role == "player" and not self._seat_on(seat):
                self._went_off(seat, now)
                self._out += self._gone(seat, now)
                self._out += self._arm()  # its graces go with its sockets
        elif type(event) is Abort:
            self._abort(event, now)
        elif type(event) is Judge:
            self._judge(event, now)
        elif type(event) is Abandon:
            self._abandon(event, now)
        elif type(event) is Delete:
            if not self.match.over:
                self._out += refusal(event, MatchLive("the match is live: abort it first"))
            else:
                self._out.append(DeleteKeys(event.reply))
        elif type(event) is Release:
            self.status = Status.STOPPED
            self.timers.clear()
            self._out.append(Resolve(event.reply, None))
        else:
            raise TypeError(f"not an input of a match: {event!r}")

    # -- answers, timeouts, aborts ------------------------------------------------------

    def _act(self, act: Act, now: int) -> None:
        self.touched = now
        match = self.match
        acked = match.acts.get(f"{act.seat} {act.id}")
        if acked is not None:  # a re-sent act: same ack, not applied again
            self._reply(act, [Ack(act.conn, act.id, acked, act.received, self.ack_clocks.get(f"{act.seat} {act.id}"))])
            return
        if match.over:
            raise MatchOver("the match is over")
        self._refuse_paused()
        due = self._due(act.prompt)
        if due is not None and now > due and not (self.held and min(self.held) <= now):
            # Past its expiry and any grace (its timer not yet run): the timeout comes
            # first, and the answer is refused as one to a closed prompt.
            self._expire(Expire(act.prompt), now)
        if self._hold(act, now):
            return
        self._mark(act.seat, False, now)  # an answer from a seat marked away: it is back first
        entry = {"at": now, "seat": act.seat, "prompt": act.prompt, "option": act.option, "args": act.args,
                 "act": act.id}
        if act.prompt in match.clock.data["open"] and match.clock.data["open"][act.prompt]["seat"] == act.seat:
            self._clocked(entry, act.prompt, self._credit_of(act.conn))
        self._commit(entry, act)
        self._decided(act.seat, now)
        self.timeouts_in_a_row.pop(act.seat, None)

    def _bot_move(self, move: BotMove, now: int) -> None:
        """The bot answers from what its seat is shown (the seat's view and prompt, as a
        player's page gets them: bots.py): an answer entry marked `"bot": level`. Its own
        generator is seeded by the match and the prompt, so a replay tells the same story."""
        match = self.match
        level = None if match.over or self.paused else self.bot_level(move.seat)
        prompt = None if level is None else next(
            (p for p in match.prompts_for(move.seat) if p["id"] == move.prompt), None)
        if level is None or prompt is None:  # answered, closed, or the seat's player is back
            self.thinking.pop(move.prompt, None)
            return
        if self._hold(move, now):
            return
        self.thinking.pop(move.prompt, None)
        option, args = bot_answer(match.meta["ruleset"], level, move.seat, match.ruleset.view(match.state, move.seat),
                                  match.ruleset.definitions(match.state), prompt, f"{self.match_id} {move.prompt}")
        entry = self._clocked({"at": now, "seat": move.seat, "prompt": move.prompt, "option": option, "args": args,
                               "bot": level}, move.prompt)
        try:
            self._commit(entry, move)
        except EngineError:  # a bot's bug: its seat still answers, with the default
            log.exception("match %s: the %s bot's answer to %s was refused", self.match_id, level, move.prompt)
            option, args = default_answer(prompt)
            self._commit({**entry, "option": option, "args": args}, move)
        self._decided(move.seat, now)

    def _bots(self) -> list:
        """A bot's turn for each open prompt of a seat a bot plays now, once per prompt."""
        if not self.bot_seats and self.match.meta.get("when_away") != "bot":
            return []  # no bot may play here: nothing to look at on the answer path
        if self.match.over or self.status is Status.STOPPED or self.paused:
            return []
        turns = []
        for prompt_id, opened in self.match.clock.data["open"].items():
            seat = opened["seat"]
            if prompt_id not in self.thinking and self.bot_level(seat) is not None:
                self.thinking = {**self.thinking, prompt_id: seat}  # a new dict: the first replaces EMPTY
                turns.append(Think(seat, prompt_id))
        return turns

    def _resign(self, resign: Resign, now: int) -> None:
        """The seat leaves the match for good (the engine's `Ruleset.resign`): refused with
        `match_over` after the end, `bad_seat` when it has resigned already."""
        self.touched = now
        match = self.match
        acked = match.acts.get(f"{resign.seat} {resign.id}")
        if acked is not None:  # a re-sent resign: same ack
            self._reply(resign, [Ack(resign.conn, resign.id, acked, resign.received)])
            return
        if match.over:
            raise MatchOver("the match is over")
        self._commit({"at": now, "resign": resign.seat, "act": resign.id}, resign)
        self._decided(resign.seat, now)

    def _claim(self, claim: Claim, now: int) -> None:
        """Every other seat marked away resigns; the last resign entry carries the claim's
        id (and the claiming seat), so a re-sent claim gets the same ack."""
        self.touched = now
        match = self.match
        acked = match.acts.get(f"{claim.seat} {claim.id}")
        if acked is not None:
            self._reply(claim, [Ack(claim.conn, claim.id, acked, claim.received)])
            return
        if match.over:
            raise MatchOver("the match is over")
        if claim.seat in match.state.get("resigned", ()):
            raise BadSeat(f"{claim.seat} has resigned")
        if match.meta.get("when_away", "nothing") != "claim":
            raise NoClaim("this match does not allow claiming the win (when_away is not \"claim\")")
        away = [seat for seat in match.state.get("away", ()) if seat != claim.seat]
        if not away:
            raise NoClaim("no other seat is away")
        self._mark(claim.seat, False, now)  # the claiming seat is here
        for seat in away[:-1]:
            self._commit({"at": now, "resign": seat}, AwayDue(seat))
        self._commit({"at": now, "resign": away[-1], "seat": claim.seat, "act": claim.id}, claim)

    def _expire(self, expire: Expire, now: int) -> None:
        self.timers.pop(expire.prompt, None)
        due = self._due(expire.prompt)
        if due is None or self.match.over:
            return
        if due > now:  # woke early (a bank changed): sleep again
            self._out += self._arm()
            return
        if self.held and min(self.held) <= now:
            # Answers held for a window until now came before this deadline: they go first.
            # Else a window whose own time is its minimum hold timed out on a pass sent by
            # hand (its hold set after the deadline was armed), not on an automatic one.
            self.queue.insert(0, expire)
            self._hold_over(HoldOver(now), now)
            return
        seat = self.match.clock.data["open"][expire.prompt]["seat"]
        entry = self._clocked({"at": max(due, now), "timeout": True, "prompt": expire.prompt}, expire.prompt)
        expired = self.match.clock.expires_at(expire.prompt) or due
        try:
            self._commit(entry, expire)
        except EngineError:
            log.exception("match %s: expiring %s failed", self.match_id, expire.prompt)
            return
        # Decided at its expiry, not when its timer ran: another seat's prompt due then keeps its grace.
        self._decided(seat, expired)
        if seat not in self.match.meta["seats"]:  # a side the server plays itself (hourglass' Bandits)
            return
        self._timed_out(seat, max(due, now))

    def _abort(self, abort: Abort, now: int) -> None:
        """End the match now. The abort is a log entry like an answer: ordered with the
        answers, durable before it is reported, replayed by recovery and delayed spectators.
        Any other ending the server decides follows this path: an input, an entry
        committed like this one, and its `reply` resolved once the write has landed."""
        if self.match.over:
            raise MatchOver("the match has already ended")
        self._commit(abort.entry(now), abort)

    def _abandon(self, abandon: Abandon, now: int) -> None:
        if self.match.over or self.touched > abandon.idle_before or self.watchers:
            self._reply(abandon, [Resolve(abandon.reply, False)])
            return
        self._commit({"at": now, "abort": True, "reason": abandon.reason}, abandon)
