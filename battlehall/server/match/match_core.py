"""The rules of one live match, without I/O: typed inputs in, a list of effects out.

`MatchCore` decides everything about a match that does not need a socket, Redis or a
clock: which answers are applied and in what order, who is refused and how, when an
entry is durable enough to acknowledge, what to rebuild after a failed write, and
which prompt deadlines to set. Time comes in as a number (`now`, epoch ms) with each
input; nothing is read, written or awaited here. The asyncio driver (actor.py)
performs the effects: writes through the write batcher, sends to sockets, sets
deadlines, and feeds back what happened (`WriteDone`, `WriteFailed`, `Rebuilt`, ...).

An answer is acknowledged only after its entry is in Redis. While a write is in
flight, the inputs that come wait; when it returns, the answers, timeouts and aborts
waiting are applied together and their entries go out in one write (one fenced call).
What they produce (events, acks, refusals) is held until that write returns and then
delivered in the order the inputs came, exactly as if each had been written alone. If
the write fails, none of it is acknowledged: every input of the batch gets the write's
refusal, and the state (ahead of Redis) is rebuilt before the next input.
"""

from __future__ import annotations

import enum
import logging
from dataclasses import dataclass
from typing import Any

from battlehall.bots import bot_answer
from battlehall.engine.errors import BadSeat, EngineError, MatchOver
from battlehall.engine.ruleset import default_answer
from battlehall.server import errors
from battlehall.server.errors import Fenced, MatchLive, NoClaim, NotHere, StoreUnavailable, WireError
from battlehall.server.match.match_state import MatchState
from battlehall.server.match.stops import Stops

log = logging.getLogger("battlehall.actor")

MAX_BATCH = 256  # entries in one write at most: a bound on the script's arguments
RETRY_MS = 500  # a timeout that could not be recorded is tried again this much later


# -- inputs ------------------------------------------------------------------------------
# `conn` is whoever sent the input and gets the answer (a socket's Connection: its
# `seat`, `role` and `audience` are read); `reply` is an opaque handle the driver
# resolves (a future). The core only hands them back in effects.

@dataclass(slots=True)  # not frozen, as the effects: one per answer, and frozen costs 5 times to build
class Act:
    """A seat's answer to a prompt; `received` (monotonic s) is for the ack latency metric."""
    conn: Any
    seat: str
    id: str | int
    prompt: str
    option: str
    args: dict
    received: float = 0.0


@dataclass(frozen=True, slots=True)
class SetStops:
    """A seat sets which window prompts it is asked (stops.py); the rest are passed for it."""
    conn: Any
    seat: str
    mode: str


@dataclass(frozen=True, slots=True)
class AutoPass:
    """Pass `prompt` for its seat, if it is still open and the seat's stops still say so."""
    seat: str
    prompt: str


@dataclass(frozen=True, slots=True)
class HoldOver:
    """The windows' minimum time that ends at `due` (epoch ms) is up: the answers held
    for it are handled now (`MatchCore._hold_over`)."""
    due: int


@dataclass(frozen=True, slots=True)
class Resign:
    """A seat gives up: a `{"resign": seat}` entry, written and acknowledged like an answer
    (its `id` deduplicates a re-sent resign as an act's does)."""
    conn: Any
    seat: str
    id: str | int
    received: float = 0.0


@dataclass(frozen=True, slots=True)
class Claim:
    """A seat claims the win over the seats marked away (a match created with
    `"when_away": "claim"`): each is resigned, `{"resign": seat}` entries written and
    acknowledged like an answer."""
    conn: Any
    seat: str
    id: str | int
    received: float = 0.0


@dataclass(frozen=True, slots=True)
class BotMove:
    """A bot's think time for `prompt` is over: it answers for `seat`, if the prompt is
    still open and the seat still the bot's."""
    seat: str
    prompt: str


@dataclass(frozen=True, slots=True)
class Expire:
    """A prompt's deadline has come: apply its default if it is really due."""
    prompt: str


@dataclass(frozen=True, slots=True)
class AwayDue:
    """The seat may be due to be marked away (its grace without a socket ran out, or it let
    too many prompts time out): marked if it is. Also what an away or back entry answers to."""
    seat: str


@dataclass(frozen=True, slots=True)
class Join:
    """A socket joins: a welcome at the current seq, then the live events after it."""
    conn: Any
    resume: int | None
    reply: Any


@dataclass(frozen=True, slots=True)
class View:
    conn: Any


@dataclass(frozen=True, slots=True)
class Leave:
    conn: Any


@dataclass(frozen=True, slots=True)
class Abort:
    """An operator ends the match: a log entry like an answer, in order with them."""
    reply: Any


@dataclass(frozen=True, slots=True)
class Abandon:
    """End the match with `reason` if nothing touched it since `idle_before` (epoch ms) and
    no socket is on it: recorded like an abort; `reply` gets True, or False if it was
    touched or watched meanwhile."""
    reply: Any
    idle_before: int
    reason: str


@dataclass(frozen=True, slots=True)
class Delete:
    """An operator removes an ended match's keys, after its last write."""
    reply: Any


@dataclass(frozen=True, slots=True)
class Release:
    """A drain: nothing more is written here; the match is handed on."""
    reply: Any


@dataclass(frozen=True, slots=True)
class WriteDone:
    """The last `Write` is in Redis."""


@dataclass(frozen=True, slots=True)
class WriteFailed:
    """The last `Write` is not known to have landed (`Fenced`: the lease is another node's)."""
    error: StoreUnavailable


@dataclass(frozen=True, slots=True)
class Rebuilt:
    """The match as Redis has it, and the event records after `Rebuild.after_seq` (a write
    that landed though its reply was lost)."""
    match: MatchState
    missed: list


@dataclass(frozen=True, slots=True)
class RebuildFailed:
    pass


Input = (Act | AutoPass | HoldOver | BotMove | SetStops | Resign | Claim | Expire | AwayDue | Join | View | Leave
         | Abort | Abandon | Delete | Release)
BATCHED = (Act, AutoPass, HoldOver, BotMove, Resign, Claim, Expire, AwayDue, Abort, Abandon)  # inputs that may join a write in preparation


# -- effects -----------------------------------------------------------------------------
# Not frozen: the driver performs each at once, and an answer makes several, where a
# frozen dataclass costs about five times as much to build.

@dataclass(slots=True)
class Write:
    """Write these log entries (entry, its event records), in order, in one call; with
    the snapshot, and the match's end when `ends`. Feed back WriteDone or WriteFailed."""
    entries: tuple
    snapshot: dict | None
    ends: bool


@dataclass(slots=True)
class Publish:
    """Send these event records to the match's live sockets; the entry (None for a
    rebuild's catch-up) goes to the delayed spectator stream."""
    records: list
    entry: dict | None


@dataclass(slots=True)
class Send:
    conn: Any
    message: dict


@dataclass(slots=True)
class ShowView:
    """Send a `view` message (its own effect: a view's cost is the viewer's to bear)."""
    conn: Any
    message: dict


@dataclass(slots=True)
class Ack:
    conn: Any
    id: str | int
    seq: int
    received: float


@dataclass(slots=True)
class Resolve:
    reply: Any
    value: Any


@dataclass(slots=True)
class Reject:
    reply: Any
    error: BaseException


@dataclass(slots=True)
class Attach:
    """The socket (already sent its welcome at `seq`) gets the live events from now on;
    with `resume_after`, it is sent the events after that up to `seq` first."""
    conn: Any
    reply: Any
    resume_after: int | None
    seq: int


@dataclass(slots=True)
class AttachDelayed:
    """A spectator of a delayed match joins the delayed stream instead."""
    conn: Any
    reply: Any
    resume: int | None


@dataclass(slots=True)
class ViewDelayed:
    conn: Any


@dataclass(slots=True)
class Detach:
    conn: Any


@dataclass(slots=True)
class Arm:
    """Feed `Expire(prompt)` at `due` (epoch ms), if `MatchCore.wants(prompt, due)` then."""
    prompt: str
    due: int


@dataclass(slots=True)
class Think:
    """A bot plays `seat` and `prompt` is open for it: feed `BotMove(seat, prompt)` when
    its think time is over (the node paces bots: bot_turns.py)."""
    seat: str
    prompt: str


@dataclass(slots=True)
class Later:
    """Feed `input` again after `delay_ms`."""
    delay_ms: int
    input: Any


@dataclass(slots=True)
class Rebuild:
    """Load the match from Redis; feed back Rebuilt (with the records after `after_seq`)
    or RebuildFailed."""
    after_seq: int


@dataclass(slots=True)
class DeleteKeys:
    """Remove the match's keys; then resolve `reply` (True) or reject it."""
    reply: Any


@dataclass(slots=True)
class Ended:
    """The match's end is in Redis."""


@dataclass(slots=True)
class Lost:
    """A write was refused by the lease's fence: another node runs the match now."""


class Status(enum.Enum):
    IDLE = "idle"  # inputs are handled as they come
    WRITING = "writing"  # a write is in flight: inputs wait for it
    STALE = "stale"  # memory may be ahead of Redis: rebuild before the next input
    REBUILDING = "rebuilding"  # a rebuild is in flight: inputs wait for it
    STOPPED = "stopped"  # released, fenced out or unloaded: nothing more is handled


@dataclass(slots=True)
class _Committed:
    """An entry applied in memory, waiting for its write."""
    entry: dict
    records: list


def refusal(event: Input, error: BaseException) -> list:
    """How the sender of `event` is told that it was refused with `error`: the one place
    that decides it."""
    if isinstance(event, (Act, Resign, Claim)):
        answer: errors.WireError
        if isinstance(error, Fenced):
            answer = NotHere(message="this node no longer runs the match; nothing was recorded")
        elif isinstance(error, StoreUnavailable):
            answer = errors.Unavailable("match storage is unreachable; nothing was recorded, try again")
        else:  # an engine error as its code, a bug as `internal`
            answer = errors.of(error)
        return [Send(event.conn, errors.ws_message(answer.answering(event.id)))]
    if isinstance(event, (Join, Abort, Abandon, Delete, Release)):
        return [Reject(event.reply, error)]
    if isinstance(event, View) and isinstance(error, StoreUnavailable) and not isinstance(error, Fenced):
        return [Send(event.conn, errors.ws_message(
            errors.Unavailable("match storage is unreachable; ask for the view again later")))]
    if isinstance(event, (Expire, AutoPass, HoldOver, BotMove, AwayDue)) and isinstance(error, StoreUnavailable) \
            and not isinstance(error, Fenced):
        return [Later(RETRY_MS, event)]  # still due: applied when Redis is back (if still open then)
    return []


class MatchCore:
    """One live match's rules and bookkeeping; `receive(input, now)` returns the effects."""

    def __init__(self, match_id: str, match: MatchState, snapshot_every: int, touched: int = 0,
                 away_grace_ms: int = 0, away_timeouts: int = 0):
        self.match_id = match_id
        self.match = match
        self.snapshot_every = snapshot_every
        self.window_min_ms = match.meta["clock"].get("window_min_ms", 0)
        self.delayed = bool(match.meta.get("spectators", {}).get("delay_ms"))  # spectators see a delayed stream
        self.status = Status.IDLE
        # Inputs waiting for a write or a rebuild: a few at a time, in a list (an empty
        # deque is over 600 bytes per idle match; actor.py's inbox says the same).
        self.queue: list = []
        self.batch: list[tuple[dict, list]] = []  # entries applied, for the next write
        self.outbox: list[tuple[Input, Any]] = []  # per input of the batch: _Committed, or its effects
        self.snapshot_pending = False  # the write in flight carries a snapshot
        self.damaged = False  # a bug interrupted an entry: rebuild once the batch is written
        self.timers: dict[str, int] = {}  # prompt id -> when its default is due, as armed
        self.sent_seq = match.seq  # the last seq published to sockets
        self.touched = touched  # the last act, or socket joining or leaving (epoch ms): for Abandon
        self.watchers: list = []  # the sockets attached, live or delayed
        self.stops = Stops()  # kept while this node runs the match; a seat sends its own again after a welcome
        # Answers and passes held for a window's minimum time, by when it ends (epoch ms),
        # in the order they came; one `Later(HoldOver)` per end (`_hold`).
        self.held: dict[int, list[Act | AutoPass]] = {}
        # When a seat is marked away (0: never that way): its player gone this long, or
        # this many of its prompts in a row timed out.
        self.away_grace_ms = away_grace_ms
        self.away_timeouts = away_timeouts
        self.gone_since: dict[str, int] = {}  # seat -> since when no socket of its player is on
        self.timeouts_in_a_row: dict[str, int] = {}  # seat -> its prompts that timed out since it last acted
        self.bot_seats: dict[str, str] = match.meta.get("bots") or {}  # seat -> level: seats a bot always plays
        self.thinking: dict[str, str] = {}  # prompt id -> seat: a bot's BotMove for it is on its way
        self._out: list = []

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
    def clock(self):
        return self.match.clock

    @property
    def ruleset(self):
        return self.match.ruleset

    @property
    def over(self) -> bool:
        return self.match.over

    @property
    def stale(self) -> bool:
        """Whether memory may be ahead of Redis."""
        return self.status in (Status.STALE, Status.REBUILDING) or self.damaged

    def wants(self, prompt: str, due: int) -> bool:
        """Whether the deadline armed for `prompt` at `due` still stands."""
        return self.status is not Status.STOPPED and self.timers.get(prompt) == due

    # -- driving ------------------------------------------------------------------------

    def start(self, now: int) -> list:
        """The match is loaded at `now`: its deadlines, the bots' turns, and the grace of
        every seat a player plays (nobody is on it yet)."""
        out = self._arm() + self._bots()
        for seat in self.match.meta["seats"]:
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

    def receive(self, event, now: int) -> list:
        """Handle one input at `now`; the effects to perform, in order."""
        out = self._out = []
        kind = type(event)
        if kind is WriteDone:
            self._write_done()
        elif kind is WriteFailed:
            self._write_failed(event.error)
        elif kind is Rebuilt:
            self._rebuilt(event)
        elif kind is RebuildFailed:
            self._rebuild_failed()
        elif self.status is Status.STOPPED:
            if kind is Join:  # let go meanwhile: join again, wherever it runs now
                out += refusal(event, NotHere(None))
            else:
                self.queue.append(event)  # refused by `stop` when the hub lets the match go
            return out
        else:
            self.queue.append(event)
        self._drain(now)
        self._out = []
        return out

    def stop(self, error: BaseException | None = None) -> list:
        """Nothing more is handled here; with `error`, whoever waits for an answer is
        refused with it (else they wait for the hub to refuse them)."""
        self.status = Status.STOPPED
        self.timers.clear()
        if error is None:
            return []
        waiting = [event for event, _ in self.outbox] + list(self.queue)
        self.queue.clear()
        self.batch, self.outbox = [], []
        # Acts are not answered: their sockets are closed or sent away; timeouts are the next owner's.
        unanswered = (Act, AutoPass, BotMove, Resign, Claim, Expire, AwayDue)
        return [effect for event in waiting if not isinstance(event, unanswered) for effect in refusal(event, error)]

    # -- the queue --------------------------------------------------------------------

    def _drain(self, now: int) -> None:
        while self.queue and self.status in (Status.IDLE, Status.STALE):
            event = self.queue[0]
            kind = type(event)
            if self.batch and (kind not in BATCHED or self.damaged or len(self.batch) >= MAX_BATCH):
                break  # written first: what comes after it sees only durable state
            if self.status is Status.STALE and kind is not Leave and kind is not Release and kind is not SetStops:
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
                if not self.batch and self.damaged:
                    self.damaged = False
                    self.status = Status.STALE
        if self.batch and self.status is Status.IDLE:
            self._out.append(self._write())

    def _reply(self, event: Input, effects: list) -> None:
        """Effects answering `event`: held behind the batch being prepared, if any."""
        if self.batch:
            self.outbox.append((event, effects))
        else:
            self._out += effects

    def _handle(self, event: Input, now: int) -> None:
        if type(event) is Act:
            self._act(event, now)
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
            self._out.append(Detach(event.conn))
            seat = event.conn.seat
            if event.conn.role == "player" and not self._seat_on(seat):
                self._out += self._gone(seat, now)
        elif type(event) is Abort:
            self._abort(event, now)
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

    # -- answers, timeouts, aborts ------------------------------------------------------

    def _act(self, act: Act, now: int) -> None:
        self.touched = now
        match = self.match
        acked = match.acts.get(f"{act.seat} {act.id}")
        if acked is not None:  # a re-sent act: same ack, not applied again
            self._reply(act, [Ack(act.conn, act.id, acked, act.received)])
            return
        if match.over:
            raise MatchOver("the match is over")
        if self._hold(act, now):
            return
        self._mark(act.seat, False, now)  # an answer from a seat marked away: it is back first
        self._commit({"at": now, "seat": act.seat, "prompt": act.prompt, "option": act.option,
                      "args": act.args, "act": act.id}, act)
        self.timeouts_in_a_row.pop(act.seat, None)

    def _bot_move(self, move: BotMove, now: int) -> None:
        """The bot answers from what its seat is shown (the seat's view and prompt, as a
        player's page gets them: bots.py): an answer entry marked `"bot": level`. Its own
        generator is seeded by the match and the prompt, so a replay tells the same story."""
        match = self.match
        level = None if match.over else self.bot_level(move.seat)
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
        entry = {"at": now, "seat": move.seat, "prompt": move.prompt, "option": option, "args": args, "bot": level}
        try:
            self._commit(entry, move)
        except EngineError:  # a bot's bug: its seat still answers, with the default
            log.exception("match %s: the %s bot's answer to %s was refused", self.match_id, level, move.prompt)
            option, args = default_answer(prompt)
            self._commit({**entry, "option": option, "args": args}, move)

    def _bots(self) -> list:
        """A bot's turn for each open prompt of a seat a bot plays now, once per prompt."""
        if not self.bot_seats and self.match.meta.get("when_away") != "bot":
            return []  # no bot may play here: nothing to look at on the answer path
        if self.match.over or self.status is Status.STOPPED:
            return []
        turns = []
        for prompt_id, opened in self.match.clock.data["open"].items():
            seat = opened["seat"]
            if prompt_id not in self.thinking and self.bot_level(seat) is not None:
                self.thinking[prompt_id] = seat
                turns.append(Think(seat, prompt_id))
        return turns

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
        if self.match.over:
            return
        prompt = next((p for p in self.match.ruleset.prompts(self.match.state) if p["id"] == auto.prompt), None)
        if prompt is None or prompt["seat"] != auto.seat or not self.stops.passes(prompt):
            return  # answered, closed, or the seat asks for it now
        if self._hold(auto, now):
            return
        option, args = default_answer(prompt)
        self._commit({"at": now, "seat": auto.seat, "prompt": auto.prompt, "option": option, "args": args}, auto)

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
        due = self.match.clock.expires_at(expire.prompt)
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
        try:
            self._commit({"at": max(due, now), "timeout": True, "prompt": expire.prompt}, expire)
        except EngineError:
            log.exception("match %s: expiring %s failed", self.match_id, expire.prompt)
            return
        if seat not in self.match.meta["seats"]:  # a side the server plays itself (hourglass' Bandits)
            return
        missed = self.timeouts_in_a_row[seat] = self.timeouts_in_a_row.get(seat, 0) + 1
        if self.away_timeouts and missed >= self.away_timeouts:
            self._mark(seat, True, max(due, now))

    # -- away and back --------------------------------------------------------------------

    def _seat_on(self, seat: str) -> bool:
        """Whether a socket of `seat`'s player is on the match."""
        return any(c.seat == seat and c.role == "player" for c in self.watchers)

    def _gone(self, seat: str, now: int) -> list:
        """No socket of `seat`'s player is on from `now`: say so to everyone watching live,
        and look again when its grace ends."""
        if not self.away_grace_ms or seat in self.gone_since or seat in self.bot_seats:
            return []
        self.gone_since[seat] = now
        return self._presence(seat, False) + [Later(self.away_grace_ms, AwayDue(seat))]

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

    def _away_due(self, due: AwayDue, now: int) -> None:
        seat = due.seat
        since = self.gone_since.get(seat)
        # Back meanwhile, or gone again since (that grace's own AwayDue comes later): not yet.
        gone = since is not None and now >= since + self.away_grace_ms
        missed = bool(self.away_timeouts) and self.timeouts_in_a_row.get(seat, 0) >= self.away_timeouts
        if gone or missed:
            self._mark(seat, True, now)

    def _mark(self, seat: str, away: bool, now: int) -> None:
        """Write `{"away": seat}` or `{"back": seat}` when it changes something: never for a
        match over or a seat that resigned (it is out of the match for good)."""
        state = self.match.state
        if (self.match.over or seat in state.get("resigned", ()) or seat in self.bot_seats
                or (seat in state.get("away", ())) == away):
            return
        self._commit({"at": now, "away" if away else "back": seat}, AwayDue(seat))

    def _abort(self, abort: Abort, now: int) -> None:
        """End the match now. The abort is a log entry like an answer: ordered with the
        answers, durable before it is reported, replayed by recovery and delayed spectators.
        Any other ending the server decides follows this path: an input, an entry
        committed like this one, and its `reply` resolved once the write has landed."""
        if self.match.over:
            raise MatchOver("the match has already ended")
        self._commit({"at": now, "abort": True}, abort)

    def _abandon(self, abandon: Abandon, now: int) -> None:
        if self.match.over or self.touched > abandon.idle_before or self.watchers:
            self._reply(abandon, [Resolve(abandon.reply, False)])
            return
        self._commit({"at": now, "abort": True, "reason": abandon.reason}, abandon)

    def _commit(self, entry: dict, event: Input) -> None:
        """Apply in memory and add the entry to the next write. EngineError: nothing changed."""
        try:
            records = self.match.commit(entry)
        except EngineError:
            raise
        except Exception:  # a ruleset bug may have half-changed the state: rebuild it
            self.damaged = True
            raise
        self.batch.append((entry, records))
        self.outbox.append((event, _Committed(entry, records)))
        if self.stops.modes:
            self._stops_on(records, event)

    def _write(self) -> Write:
        snapshot = None if self.damaged else self.match.snapshot_due(self.snapshot_every)
        self.snapshot_pending = snapshot is not None
        self.status = Status.WRITING
        return Write(tuple(self.batch), snapshot, self.match.over and not self.damaged)

    def _write_done(self) -> None:
        if self.status is not Status.WRITING:
            return  # stopped meanwhile: nothing more is sent from here
        batch, outbox = self.batch, self.outbox
        self.batch, self.outbox = [], []
        if self.snapshot_pending:
            self.match.snapshot_written()
            self.snapshot_pending = False
        last = batch[-1][0]
        ended = self.match.over and not self.damaged
        out = self._out
        for event, result in outbox:
            if type(result) is not _Committed:
                out += result
                continue
            entry, records = result.entry, result.records
            out.append(Publish(records, entry))
            if records:
                self.sent_seq = records[-1]["seq"]
            if ended and entry is last:
                out.append(Ended())
            if type(event) is Act or type(event) is Resign or type(event) is Claim:
                out.append(Ack(event.conn, event.id, entry["last_seq"], event.received))
            elif type(event) is Abort or type(event) is Abandon:
                out.append(Resolve(event.reply, True))
        if self.damaged:
            self.damaged = False
            self.status = Status.STALE
        else:
            self.status = Status.IDLE
        out += self._arm()
        out += self._bots()

    def _write_failed(self, error: StoreUnavailable) -> None:
        if self.status is not Status.WRITING:
            return
        outbox = self.outbox
        self.batch, self.outbox = [], []
        self.snapshot_pending = self.damaged = False
        for event, _ in outbox:  # nothing of it was recorded: none of it is acknowledged
            self._out += refusal(event, error)
        if isinstance(error, Fenced):  # another node holds the match now
            self.status = Status.STOPPED
            self.timers.clear()
            self._out.append(Lost())
        else:  # the state in memory is ahead of Redis
            self.status = Status.STALE

    # -- rebuilding after a failed write -------------------------------------------------

    def _rebuilt(self, rebuilt: Rebuilt) -> None:
        if self.status is not Status.REBUILDING:
            return
        self.match = rebuilt.match
        self.status = Status.IDLE
        if rebuilt.missed:  # a write landed though its reply was lost: deliver it
            self._out.append(Publish(rebuilt.missed, None))
            self.sent_seq = rebuilt.missed[-1]["seq"]
        for prompt in self.match.ruleset.prompts(self.match.state):  # a pass lost with the write is due again
            if self.stops.passes(prompt):
                self.queue.append(AutoPass(prompt["seat"], prompt["id"]))
        self._out += self._arm()
        self._out += self._bots()

    def _rebuild_failed(self) -> None:
        """Redis is away: the input that waited for the rebuild is refused; the next one
        tries again."""
        if self.status is not Status.REBUILDING:
            return
        self.status = Status.STALE
        if self.queue:
            self._out += refusal(self.queue.pop(0), StoreUnavailable("match storage is unreachable"))

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
            if self.gone_since.pop(conn.seat, None) is not None:
                self._out += self._presence(conn.seat, True)
            self.timeouts_in_a_row.pop(conn.seat, None)
        self._out += [
            Send(conn, {"t": "welcome", "match": self.match_id, "role": conn.role, "seat": conn.seat,
                        "seq": match.seq, "view": match.ruleset.view(match.state, conn.audience),
                        "prompts": match.prompts_for(conn.audience), "now": now,
                        "definitions": match.ruleset.definitions(match.state),
                        "gone": {seat: self._away_at(seat) for seat in sorted(self.gone_since)}}),
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

    # -- deadlines ----------------------------------------------------------------------

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
        if self.match.over or self.status is Status.STOPPED:
            return []
        armed = []
        for prompt_id in open_prompts:
            due = clock.expires_at(prompt_id)  # None: a prompt without a deadline never expires
            if due is not None and self.timers.get(prompt_id) != due:
                self.timers[prompt_id] = due
                armed.append(Arm(prompt_id, due))
        return armed

