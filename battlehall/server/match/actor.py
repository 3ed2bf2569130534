"""One live match on the event loop: the I/O around its sans-I/O core (match_core.py).

The core decides; this driver feeds it inputs (socket messages, deadlines, operator
requests, and what became of its writes and reads) with the time, and performs the
effects it returns: writes through the write batcher, sends to sockets (fanout.py),
deadlines (deadlines.py), Redis reads for a rebuild, and the hub's bookkeeping.

The actor has no task of its own: an input is handled at once, in the caller's turn of
the event loop (no queue hand-off, no task switch: that was a tenth of the CPU per
answer); a write's reply is fed back from the write batcher's callback.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Hashable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, cast

from battlehall.server.clock import now_ms
from battlehall.server.errors import MatchLive
from battlehall.server.match.effects import (
    Ack,
    Arm,
    Attach,
    AttachDelayed,
    DeleteKeys,
    Detach,
    Ended,
    Later,
    Lost,
    Publish,
    Rebuild,
    Reject,
    Resolve,
    Send,
    ShowView,
    Think,
    ViewDelayed,
    Write,
)
from battlehall.server.match.fanout import event_message, fan_out
from battlehall.server.match.inputs import (
    AwayDue,
    BotMove,
    Expire,
    RebuildFailed,
    Rebuilt,
    WriteDone,
    WriteFailed,
)
from battlehall.server.match.match_core import MatchCore
from battlehall.server.match.match_state import MatchState, ReplayMismatch
from battlehall.server.match.writes import Status
from battlehall.server.storage.store import Store, StoreUnavailable

if TYPE_CHECKING:
    from battlehall.server.config import Settings
    from battlehall.server.match.bot_turns import BotTurns
    from battlehall.server.match.connection import Connection
    from battlehall.server.match.deadlines import Deadlines
    from battlehall.server.match.effects import Effect
    from battlehall.server.match.inputs import Input, Outcome
    from battlehall.server.match.spectators import DelayedFeed
    from battlehall.server.metrics import Metrics

__all__ = ["MatchActor", "MatchLive", "MatchServices", "MatchState", "ReplayMismatch"]

log = logging.getLogger("battlehall.actor")



@dataclass(frozen=True, slots=True)
class MatchServices:
    """All an actor uses of the node that runs it (hub.py), and nothing else of it."""
    store: Store
    settings: Settings
    metrics: Metrics
    deadlines: Deadlines
    bot_turns: BotTurns
    ended: Callable[["MatchActor"], None]  # the match's end is in Redis
    lost: Callable[["MatchActor"], None]  # a write was fenced out: another node runs the match
    away_grace_ms: int = 0  # settings.away_grace_s in ms: one int for every match, not one each


class MatchActor:
    """One live match's core, fed and obeyed: the hub, the sessions and the deadlines talk
    to the match only through `submit` and the deadline callbacks."""

    def __init__(self, services: MatchServices, match_id: str, match: MatchState):
        self.services = services
        self.store = services.store
        self.settings = services.settings
        self.metrics = services.metrics
        self.match_id = match_id
        settings = services.settings
        self.core = MatchCore(match_id, match, settings.snapshot_every, now_ms(),
                              services.away_grace_ms, settings.away_timeouts)
        self.conns: list[Connection] = []
        self.feed: DelayedFeed | None = None  # for spectators when the match has a stream delay
        # Spectators may watch on other nodes, casters on any (mirror.py, caster.py).
        self.doorbell = match.meta["spectators"]["allowed"] or match.meta.get("caster") is not None
        self.lease: str | None = None  # "<token> <node>": every write is fenced by it (lease.py)
        self.task: asyncio.Task | None = None  # the Redis read in flight, if any
        # While effects are performed, the inputs that come meanwhile (else None: nothing
        # is kept per idle match). A list: it holds one or two at a time.
        self.inbox: list | None = None

    @property
    def spectators(self) -> int:
        watching = self.feed.conns if self.feed else self.conns
        return sum(1 for c in watching if c.role == "spectator")

    def viewers(self) -> set[str | None]:
        """Who its spectator sockets are (audience.viewer_of): a client's many sockets, one."""
        watching = self.feed.conns if self.feed else self.conns
        return {c.viewer for c in watching if c.role == "spectator"}

    # The two a bot's turn waits by (bot_turns.py shares the node's bot rate by them).
    @property
    def made_from(self) -> str | None:
        """The address that made the match (its meta's `made_from`), None when unknown."""
        return self.core.meta.get("made_from")

    @property
    def watched(self) -> bool:
        """Whether any socket is on the match: a player's or a spectator's, live or delayed."""
        return bool(self.conns or (self.feed and self.feed.conns))

    @property
    def stopped(self) -> bool:
        return self.core.status is Status.STOPPED

    @stopped.setter
    def stopped(self, value: bool) -> None:  # the hub lets the match go (its lease is lost)
        if value and not self.stopped:
            self.core.stop()

    @property
    def touched(self) -> int:
        """The last act, or socket joining or leaving (epoch ms)."""
        return self.core.touched

    @touched.setter
    def touched(self, at: int) -> None:  # a loaded match counts from Redis' record; a watched one is touched
        self.core.touched = at

    @property
    def stale(self) -> bool:
        """Memory may be ahead of Redis: not to be saved from."""
        return self.core.stale

    # -- lifecycle --------------------------------------------------------------------

    def start(self) -> None:
        self._perform_all(self.core.start(now_ms()))

    async def stop(self) -> None:
        self._perform_all(self.core.stop(StoreUnavailable("the match was unloaded before this was handled")))
        for conn in self.conns + (self.feed.conns if self.feed else []):
            conn.close(1001)
        if self.feed:
            self.feed.stop()
        if self.task:
            self.task.cancel()
            try:
                await self.task
            except (asyncio.CancelledError, Exception):
                pass

    def refuse_pending(self, error: Exception) -> None:
        """The match left this node: whatever still waits for the actor is refused with `error`."""
        self._perform_all(self.core.stop(error))

    # -- inputs -------------------------------------------------------------------------

    def submit(self, event: Input | Outcome) -> None:
        """Hand the core an input (inputs.py) now, as a session, an operator, the node's
        upkeep or this driver built it; inputs that come while effects are performed wait
        for them, so the core always sees them one at a time."""
        if self.inbox is not None:  # effects are being performed: it waits for them
            self.inbox.append(event)
            return
        inbox = self.inbox = [event]
        try:
            while inbox:
                self._perform_all(self.core.receive(inbox.pop(0), now_ms()))
        finally:
            self.inbox = None

    # -- deadlines.Owner: what hub.deadlines calls back ---------------------------------

    # A key is a prompt's id (its deadline), or the input of a `Later`, always wanted.

    def deadline_wanted(self, key: Hashable, due: int) -> bool:
        if type(key) is str:
            return self.core.wants(key, due)
        if type(key) is AwayDue:  # not once the seat's player is back: it would change nothing
            return self.core.away_wanted(key.seat)
        return True

    def deadline_due(self, key: Hashable) -> None:
        self.submit(Expire(key) if type(key) is str else cast("Input", key))

    # -- effects ------------------------------------------------------------------------

    def _perform_all(self, effects: list) -> None:
        for effect in effects:
            try:
                self._perform(effect)
            except Exception:  # one effect's failure must not lose the others
                log.exception("match %s: performing %s failed", self.match_id, type(effect).__name__)

    def _perform(self, effect: Effect) -> None:
        if type(effect) is Publish:
            self._publish(effect)
        elif type(effect) is Ack:
            ack: dict = {"t": "ack", "id": effect.id, "seq": effect.seq}
            if effect.clock is not None:  # what the answer spent of its clock (docs/protocol.md, Lag)
                ack["clock"] = effect.clock
            effect.conn.send(ack)
            self.metrics.ack_seconds.observe(time.monotonic() - effect.received)
        elif type(effect) is Send:
            effect.conn.send(effect.message)
        elif type(effect) is Write:
            self._write(effect)
        elif type(effect) is Arm:
            self.services.deadlines.at(effect.due, self, effect.prompt)
        elif type(effect) is Resolve:
            if not effect.reply.done():
                effect.reply.set_result(effect.value)
        elif type(effect) is Reject:
            if not effect.reply.done():
                effect.reply.set_exception(effect.error)
                effect.reply.exception()  # retrieved: whoever waits may be gone
        elif type(effect) is Attach:
            self._attach(effect)
        elif type(effect) is AttachDelayed:
            self._attach_delayed(effect)
        elif type(effect) is ShowView:
            self._show_view(effect.conn, effect.message)
        elif type(effect) is ViewDelayed:
            feed = self.feed
            assert feed is not None  # only a delayed match asks, and its actor has the feed from the start
            welcome = feed.welcome(self.match_id, effect.conn)
            self._show_view(effect.conn, {"t": "view", "seq": welcome["seq"], "view": welcome["view"], "prompts": [],
                                          "now": welcome["now"], "delay_ms": welcome["delay_ms"]})
        elif type(effect) is Detach:
            for conns in (self.conns, self.feed.conns if self.feed else []):
                if effect.conn in conns:
                    conns.remove(effect.conn)
        elif type(effect) is Later:
            # On the node's deadline heap, not a loop timer of its own: a new match's
            # seats are away until their players connect, and a timer each (the away
            # grace) was over 1 KiB per idle match; an entry in the heap is a fifth of it.
            self.services.deadlines.at(now_ms() + effect.delay_ms, self, effect.input)
        elif type(effect) is Think:
            self.services.bot_turns.schedule(self, BotMove(effect.seat, effect.prompt))
        elif type(effect) is Rebuild:
            self.task = asyncio.get_running_loop().create_task(self._rebuild(effect.after_seq))
        elif type(effect) is DeleteKeys:
            asyncio.get_running_loop().create_task(self._delete_keys(effect.reply))
        elif type(effect) is Ended:
            self.services.ended(self)
        elif type(effect) is Lost:
            self.metrics.fenced_writes += 1
            self.services.lost(self)

    def _write(self, write: Write) -> None:
        if not self.store.persist:
            self.submit(WriteDone())
            return
        # The doorbell after the entries, in the same send: other nodes' spectators read them.
        commands = Store.write_commands(self.match_id, write.entries, write.snapshot, write.ends,
                                        self.settings.retention_s, self.lease, self.doorbell, write.after)
        self.store.batcher.submit(commands, self._written)

    def _show_view(self, conn: Connection, message: dict) -> None:
        """A `view` message, as of the last event the viewer was sent; its bytes count
        against the socket's budget of views (connection.py)."""
        conn.view_budget().spend(conn.send(message))

    def _written(self, error: StoreUnavailable | None) -> None:
        self.submit(WriteDone() if error is None else WriteFailed(error))

    def _publish(self, publish: Publish) -> None:
        metrics = self.metrics
        if publish.records:
            metrics.deliveries += fan_out(self.core.ruleset, publish.records, self.conns)
        entry = publish.entry
        if entry is not None:
            metrics.answers += 1
            if entry.get("timeout"):
                metrics.timeouts += 1
            elif "bot" in entry:
                metrics.bot_answers += 1
            if self.feed is not None:
                self.feed.push(entry)

    def _attach(self, attach: Attach) -> None:
        """With a resume below the welcome's seq, the join's future gets what the session
        needs to send the missed events (history.py) while the connection holds the live
        ones behind them: the actor never waits for a history read, however long the history."""
        conn, catch_up = attach.conn, None
        if attach.resume_after is not None:
            ruleset, audience = self.core.ruleset, conn.audience
            conn.hold()
            catch_up = (lambda record: event_message(ruleset, record, audience), attach.resume_after, attach.seq)
        self.conns.append(conn)
        if conn.role == "player":  # its seat's away grace, if one runs, is not wanted now
            self.services.deadlines.forgotten()
        if not attach.reply.done():
            attach.reply.set_result(catch_up)

    def _attach_delayed(self, attach: AttachDelayed) -> None:
        feed, conn, catch_up = self.feed, attach.conn, None
        assert feed is not None  # only a delayed match asks, and its actor has the feed from the start
        seq = feed.replica.seq
        conn.send(feed.welcome(self.match_id, conn))
        if attach.resume is not None and attach.resume < seq:
            conn.hold()
            catch_up = (feed.message, attach.resume, seq)
        feed.conns.append(conn)
        if not attach.reply.done():
            attach.reply.set_result(catch_up)

    async def _rebuild(self, after_seq: int) -> None:
        """Reload the match from Redis after a failed write, with the events after
        `after_seq` that landed though their write's reply was lost."""
        try:
            loaded = await self.store.load(self.match_id)
            if loaded is None:
                raise StoreUnavailable("the match is not in Redis")
            match = MatchState.from_loaded(loaded)
            missed = await self.store.events(self.match_id, after_seq, match.seq) if match.seq > after_seq else []
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # Redis away, or the load failed: try again on the next input
            log.warning("match %s: rebuild failed: %s", self.match_id, exc)
            self.task = None
            self.submit(RebuildFailed())
            return
        self.task = None
        self.submit(Rebuilt(match, missed))

    async def _delete_keys(self, done: asyncio.Future) -> None:
        """Remove an ended match's keys; after its last write, since the core orders it."""
        try:
            await self.store.delete(self.match_id)
        except Exception as exc:
            if not done.done():
                done.set_exception(StoreUnavailable(str(exc)))
            return
        if not done.done():
            done.set_result(True)

