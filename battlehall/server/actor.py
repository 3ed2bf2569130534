"""One live match: the only code that changes it, one message at a time.

Connections submit answers to the actor; it checks them with the engine, records
them in Redis, and only then sends the events and the `ack`. So an answer is either
acknowledged and durable, or refused with an error and not applied at all: when a
write fails, the in-memory state (which is ahead of Redis) is dropped and rebuilt from
Redis before the next message.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import time
from typing import TYPE_CHECKING

from ..engine import get_ruleset
from ..engine.ruleset import ABANDONED, apply_entry
from ..engine.errors import EngineError, MatchOver
from .clock import Clock, now_ms
from .fanout import event_message, fan_out
from .store import LoadedMatch, Store, StoreUnavailable
from .lease import NotHere
from .writer import Fenced

if TYPE_CHECKING:
    from .connection import Connection

log = logging.getLogger("battlehall.actor")


class ReplayMismatch(Exception):
    """Replaying the log did not give the seq it recorded: the log is not this match's."""


class MatchLive(Exception):
    """The match has not ended: it cannot be deleted (abort it first)."""


class MatchCore:
    """A match's state, clock and act ids, advanced by log entries: shared by live play and recovery."""

    def __init__(self, meta: dict, state: dict, clock: Clock, seq: int, acts: dict[str, int] | None = None):
        self.meta = meta
        self.ruleset = get_ruleset(meta["ruleset"])
        self.state = state
        self.clock = clock
        self.seq = seq
        self.acts: dict[str, int] = acts if acts is not None else {}  # "seat act-id" -> seq of its ack
        self.answers_since_snapshot = 0
        self._snapshot_pending = False

    @classmethod
    def from_loaded(cls, loaded: LoadedMatch) -> "MatchCore":
        """Snapshot + replay of the log after it."""
        snap = loaded.snapshot
        core = cls(loaded.meta, snap["state"], Clock(snap["clock"]), snap["seq"], snap.get("acts", {}))
        for entry in loaded.log:
            if entry["seq"] != core.seq + 1:
                raise ReplayMismatch(f"log entry at seq {entry['seq']}, expected {core.seq + 1}")
            core.apply(entry)
            if core.seq != entry["last_seq"]:
                raise ReplayMismatch(f"replay reached seq {core.seq}, log says {entry['last_seq']}")
        core.answers_since_snapshot = len(loaded.log)
        return core

    def apply(self, entry: dict) -> list[dict]:
        """Apply one answer or timeout; returns its stamped event records (seq, at)."""
        events = apply_entry(self.ruleset, self.state, entry)
        self.answers_since_snapshot += 1
        records = self.stamp(events, entry["at"])
        if entry.get("act") is not None:  # a re-sent act id gets this ack again
            self.acts[f"{entry['seat']} {entry['act']}"] = self.seq
        return records

    def stamp(self, events: list[dict], at: int) -> list[dict]:
        records = []
        for event in events:
            self.seq += 1
            data = event["data"]
            if event["kind"] == "prompt":
                data.update(self.clock.open(data["id"], data["seat"], at, data.get("time_ms"),
                                            data.get("bank", True), "window" in data))
            elif event["kind"] == "prompt_closed":
                self.clock.close(data["id"], at)
            record = {"seq": self.seq, "at": at, "kind": event["kind"], "data": data}
            if "private" in event:
                record["private"] = event["private"]
            records.append(record)
        return records

    def advance(self, match_id: str, entry: dict, settings, lease: str | None = None) -> tuple[list[dict], list[tuple]]:
        """Apply an entry; return its event records and the Redis commands that make it durable.

        The entry gets its seq range; every `snapshot_every` answers, and at the end,
        the commands also save a snapshot. With `lease`, they are one fenced script that
        Redis refuses if the lease is no longer that (lease.py); the end of the match then
        leaves `bh:live` only once the write has landed (`Hub.finished`).
        """
        entry["seq"] = self.seq + 1
        records = self.apply(entry)  # raises EngineError before changing anything
        entry["last_seq"] = self.seq
        snapshot = None
        if self.over or self.answers_since_snapshot >= settings.snapshot_every:
            snapshot = self.snapshot()
            self._snapshot_pending = True
        if lease is not None:
            retention = settings.retention_s if self.over else None
            return records, [Store.fenced(match_id, lease, entry, records, snapshot, retention)]
        if self.over:
            return records, (Store.entry_commands(match_id, entry, records, None)
                             + Store.finish_commands(match_id, snapshot, settings.retention_s))
        return records, Store.entry_commands(match_id, entry, records, snapshot)

    def written(self) -> None:
        """The commands of the last `advance` are in Redis."""
        if self._snapshot_pending:
            self.answers_since_snapshot = 0
            self._snapshot_pending = False

    def snapshot(self) -> dict:
        return {"seq": self.seq, "state": self.state, "clock": self.clock.data, "acts": self.acts}

    @property
    def over(self) -> bool:
        return self.state["result"] is not None

    def prompts_for(self, seat: str | None) -> list[dict]:
        if seat is None:
            return []
        return [{**p, **self.clock.info(p["id"])} for p in self.ruleset.prompts(self.state) if p["seat"] == seat]


class MatchActor:
    """Runs one match's messages one at a time, in order, without a task of its own.

    A message is handled at once when the actor is idle, in the caller's turn of the
    event loop (no queue hand-off, no task switch: that was a tenth of the CPU per
    answer). While an answer's write is in flight, or a rebuild reads Redis, the actor
    is busy and later messages wait in `pending`.
    """

    def __init__(self, hub, match_id: str, core: MatchCore):
        self.hub = hub
        self.store: Store = hub.store
        self.settings = hub.settings
        self.match_id = match_id
        self.core = core
        self.sent_seq = core.seq  # the last seq fanned out to sockets
        self.conns: list[Connection] = []
        self.pending: collections.deque[tuple] = collections.deque()
        self.busy = False  # a write or a Redis read is in flight: messages wait in `pending`
        self.stopped = False
        self.task: asyncio.Task | None = None  # the Redis read in flight, if any
        self.timers: dict[str, int] = {}  # prompt id -> when its default is due (hub.deadlines)
        self.stale = False  # in-memory state may be ahead of Redis: rebuild before use
        self.feed = None  # DelayedFeed for spectators when the match has a stream delay
        self.window_min_ms = core.meta["clock"].get("window_min_ms", 0)
        self.aborting: asyncio.Future | None = None  # an abort's write is in flight
        # Spectators may watch on other nodes, casters on any (mirror.py, caster.py).
        self.doorbell = core.meta["spectators"]["allowed"] or core.meta.get("caster") is not None
        self.lease: str | None = None  # "<token> <node>": every write is fenced by it (lease.py)
        self.touched = now_ms()  # the last act, or the last socket joining or leaving (abandon.py)

    @property
    def spectators(self) -> int:
        watching = self.feed.conns if self.feed else self.conns
        return sum(1 for c in watching if c.role == "spectator")

    # -- lifecycle --------------------------------------------------------------------

    def start(self) -> None:
        self._arm_timers()

    async def stop(self) -> None:
        self.stopped = True
        self.timers.clear()
        self._abort_done(StoreUnavailable("the match was unloaded before its abort was recorded"))
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
        pending, self.pending = self.pending, collections.deque()
        for message in pending:
            future = message[3] if message[0] == "join" else message[1] if message[0] in ("abort", "abandon", "delete", "release") else None
            if future is not None and not future.done():
                future.set_exception(error)
                future.exception()  # retrieved: whoever waits may be gone
        self._abort_done(error)

    # -- the message loop ---------------------------------------------------------------

    def submit(self, message: tuple) -> None:
        """("act", conn, msg), ("join", conn, resume, future), ("view", conn), ("leave", conn),
        ("expire", prompt id), an operator's ("abort", future) or ("delete", future), a
        drain's ("release", future), or the abandon sweep's ("abandon", future, idle_before)."""
        if message[0] == "act" and len(message) == 3:  # when it came in, for the ack latency metric
            message = (*message, time.monotonic())
        elif message[0] == "join" and self.stopped:  # let go meanwhile: join again, wherever it runs now
            message[3].set_exception(NotHere(None))
            return
        self.pending.append(message)
        if not self.busy:
            self._pump()

    def _pump(self) -> None:
        while self.pending and not self.busy and not self.stopped:
            message = self.pending.popleft()
            try:
                self._handle(message)
            except Exception:  # a bug must not kill the match: log it, answer `internal`
                self._failed(message)

    def _failed(self, message: tuple) -> None:
        log.exception("match %s: error handling %r", self.match_id, message[0])
        if message[0] == "act":
            conn, msg = message[1], message[2]
            conn.send({"t": "error", "id": msg.get("id"), "code": "internal", "message": "internal error"})
        elif message[0] == "join" and not message[3].done():
            message[3].set_exception(RuntimeError("internal error"))
        elif message[0] in ("abort", "abandon"):
            self._abort_done(RuntimeError("internal error"))
        elif message[0] == "delete" and not message[1].done():
            message[1].set_exception(RuntimeError("internal error"))

    def _in_background(self, coroutine, message: tuple) -> None:
        """Run a step that must wait for Redis; the actor is busy until it ends."""
        self.busy = True
        self.task = asyncio.get_running_loop().create_task(self._background(coroutine, message))

    async def _background(self, coroutine, message: tuple) -> None:
        try:
            await coroutine
        except asyncio.CancelledError:
            raise
        except Exception:
            self._failed(message)
        self.task = None
        self._resume()

    def _resume(self) -> None:
        self.busy = False
        self._pump()

    def _handle(self, message: tuple) -> None:
        kind = message[0]
        if kind == "leave":
            self.touched = now_ms()
            for conns in (self.conns, self.feed.conns if self.feed else []):
                if message[1] in conns:
                    conns.remove(message[1])
        elif kind == "release":  # a drain: nothing more is written here; the hub hands the match on
            self.stopped = True
            self.timers.clear()
            if not message[1].done():
                message[1].set_result(None)
        elif self.stale:
            self._in_background(self._rebuild_then(message), message)
        elif kind == "act":
            self._act(message[1], message[2], message[3])
        elif kind == "expire":
            self._expire(message[1])
        elif kind == "join":
            self._join(message[1], message[2], message[3])
        elif kind == "view":
            self._view(message[1])
        elif kind == "abort":
            self._abort(message[1])
        elif kind == "abandon":
            self._abandon(message[1], message[2])
        elif kind == "delete":
            self._delete(message[1])

    async def _rebuild_then(self, message: tuple) -> None:
        """Rebuild from Redis, then handle the message; refuse it while Redis is away."""
        if await self._rebuild():
            self.pending.appendleft(message)
            return
        kind = message[0]
        if kind == "act":
            conn, msg = message[1], message[2]
            conn.send({"t": "error", "id": msg.get("id"), "code": "unavailable",
                       "message": "match storage is unreachable; nothing was recorded, try again"})
        elif kind == "join":
            message[3].set_exception(StoreUnavailable("storage unreachable"))
        elif kind == "view":
            message[1].send({"t": "error", "code": "unavailable",
                             "message": "match storage is unreachable; ask for the view again later"})
        elif kind in ("abort", "abandon", "delete") and not message[1].done():
            message[1].set_exception(StoreUnavailable("storage unreachable"))
        elif kind == "expire":
            self._retry_later(message)

    # -- joining --------------------------------------------------------------------

    def _join(self, conn: Connection, resume: int | None, done: asyncio.Future) -> None:
        """Welcome at the current seq S, and from now on the live events after S.

        With a `resume` below S, `done` gets what the session needs to send the missed
        events (history.py) while the connection holds the live ones behind them: the
        actor never waits for a history read, however long the history.
        """
        if conn.role == "spectator" and self.feed is not None:
            seq, message, conns = self.feed.replica.seq, self.feed.message, self.feed.conns
            conn.send(self.feed.welcome(self.match_id, conn))
        else:
            core = self.core
            seq, conns = core.seq, self.conns
            conn.send({"t": "welcome", "match": self.match_id, "role": conn.role, "seat": conn.seat,
                       "seq": core.seq, "view": core.ruleset.view(core.state, conn.audience),
                       "prompts": core.prompts_for(conn.audience), "now": now_ms(),
                       "definitions": core.ruleset.definitions(core.state)})

            def message(record):
                return event_message(core.ruleset, record, conn.audience)
        self.touched = now_ms()
        catch_up = None
        if resume is not None and resume < seq:
            conn.hold()
            catch_up = (message, resume, seq)
        conns.append(conn)
        done.set_result(catch_up)

    def _view(self, conn: Connection) -> None:
        """The viewer's current view, as of the last event it was sent: the welcome's
        `view`, `seq` and `prompts` again, without reconnecting (a delayed spectator's
        is as of its delay)."""
        if conn.role == "spectator" and self.feed is not None:
            welcome = self.feed.welcome(self.match_id, conn)
            message = {"t": "view", "seq": welcome["seq"], "view": welcome["view"], "prompts": [],
                       "now": welcome["now"], "delay_ms": welcome["delay_ms"]}
        else:
            core = self.core
            message = {"t": "view", "seq": core.seq, "view": core.ruleset.view(core.state, conn.audience),
                       "prompts": core.prompts_for(conn.audience), "now": now_ms()}
        conn.views.spend(conn.send(message))

    # -- answers --------------------------------------------------------------------

    def _act(self, conn: Connection, msg: dict, received: float) -> None:
        self.touched = now_ms()
        act_id = msg.get("id")
        seat = conn.seat
        act_key = f"{seat} {act_id}"
        acked = self.core.acts.get(act_key)
        if acked is not None:  # a re-sent act: same ack, not applied again
            conn.send({"t": "ack", "id": act_id, "seq": acked})
            self.hub.metrics.ack_seconds.observe(time.monotonic() - received)
            return
        if self.core.over:
            over = MatchOver("the match is over")
            conn.send({"t": "error", "id": act_id, "code": over.code, "message": over.message})
            return
        opened = self.core.clock.window_opened(msg["prompt"])
        if opened is not None and self.window_min_ms:
            # A window stays open a minimum time whatever the seat holds: a fast "pass"
            # waits, so how soon a window closes never tells what was in a hand.
            hold = opened + self.window_min_ms - now_ms()
            if hold > 0:
                asyncio.get_running_loop().call_later(hold / 1000, self.submit, ("act", conn, msg, received))
                return
        entry = {"at": now_ms(), "seat": seat, "prompt": msg["prompt"], "option": msg["option"],
                 "args": msg.get("args") or {}, "act": act_id}
        try:
            self._commit(entry, conn, received)
        except EngineError as exc:
            conn.send({"t": "error", "id": act_id, "code": exc.code, "message": exc.message})

    def _expire(self, prompt_id: str) -> None:
        self.timers.pop(prompt_id, None)
        due = self.core.clock.expires_at(prompt_id)
        if due is None or self.core.over:
            return
        if due > now_ms():  # woke early (a bank changed): sleep again
            self._arm_timers()
            return
        entry = {"at": max(due, now_ms()), "timeout": True, "prompt": prompt_id}
        try:
            self._commit(entry, None, 0.0)
        except EngineError:
            log.exception("match %s: expiring %s failed", self.match_id, prompt_id)

    # -- an operator's abort and delete -------------------------------------------------

    def _abort(self, done: asyncio.Future) -> None:
        """End the match now. The abort is a log entry like an answer: ordered with the
        answers, durable before it is reported, replayed by recovery and delayed spectators."""
        if self.core.over:
            if not done.done():
                done.set_exception(MatchOver("the match has already ended"))
            return
        self.aborting = done
        self._commit({"at": now_ms(), "abort": True}, None, 0.0)

    def _abandon(self, done: asyncio.Future, idle_before: int) -> None:
        """End the match as abandoned, recorded like an abort, if nothing touched it since
        `idle_before` and no socket is on it; else `done` gets False."""
        if self.core.over or self.touched > idle_before or self.conns or (self.feed and self.feed.conns):
            if not done.done():
                done.set_result(False)
            return
        self.aborting = done
        self._commit({"at": now_ms(), "abort": True, "reason": ABANDONED}, None, 0.0)

    def _abort_done(self, error: BaseException | None) -> None:
        done, self.aborting = self.aborting, None
        if done is not None and not done.done():
            if error is None:
                done.set_result(True)
            else:
                done.set_exception(error)

    def _delete(self, done: asyncio.Future) -> None:
        """Remove an ended match's keys; after its last write, since this runs in order."""
        if not self.core.over:
            if not done.done():
                done.set_exception(MatchLive("the match is live: abort it first"))
            return
        self._in_background(self._delete_keys(done), ("delete", done))

    async def _delete_keys(self, done: asyncio.Future) -> None:
        try:
            await self.store.delete(self.match_id)
        except Exception as exc:
            if not done.done():
                done.set_exception(StoreUnavailable(str(exc)))
            return
        if not done.done():
            done.set_result(True)

    def _commit(self, entry: dict, conn: Connection | None, received: float) -> None:
        """Apply, then record durably; `_committed` fans out once Redis has it.

        EngineError: nothing changed. Otherwise the actor is busy until the write ends.
        """
        core = self.core
        try:
            records, commands = core.advance(self.match_id, entry, self.settings, self.lease)
        except EngineError:
            raise
        except Exception:  # a ruleset bug may have half-changed the state: rebuild it
            self.stale = True
            raise
        if not self.store.persist:
            self._committed(entry, conn, records, received, None)
            return
        if self.doorbell:  # after the entry, in the same send: other nodes' spectators read it
            commands.append(Store.doorbell_command(self.match_id, entry))
        self.busy = True
        self.store.batcher.submit(commands, self._after_write, entry, conn, records, received)

    def _after_write(self, entry, conn, records, received: float, error: StoreUnavailable | None) -> None:
        if self.stopped:
            return
        try:
            self._committed(entry, conn, records, received, error)
        except Exception:
            if conn is not None:
                self._failed(("act", conn, {"id": entry.get("act")}))
            else:
                self._failed(("abort",) if entry.get("abort") else ("expire", entry["prompt"]))
        self._resume()

    def _committed(self, entry, conn, records, received: float, error: BaseException | None) -> None:
        core = self.core
        if isinstance(error, Fenced):  # another node holds the match now: nothing was recorded
            self.hub.metrics.fenced_writes += 1
            self.stale = True
            self.stopped = True  # nothing more is handled here; the hub lets the match go
            if conn is not None:
                conn.send({"t": "error", "id": entry["act"], "code": "not_here",
                           "message": "this node no longer runs the match; nothing was recorded"})
            elif entry.get("abort"):
                self._abort_done(error)
            self.hub.lost(self)
            return
        if error is not None:  # not recorded: the state in memory is ahead of Redis
            self.stale = True
            if conn is not None:
                conn.send({"t": "error", "id": entry["act"], "code": "unavailable",
                           "message": "match storage is unreachable; nothing was recorded, try again"})
            elif entry.get("abort"):
                self._abort_done(error)
            else:
                self._retry_later(("expire", entry["prompt"]))
            return
        core.written()
        metrics = self.hub.metrics
        metrics.answers += 1
        if entry.get("timeout"):
            metrics.timeouts += 1
        self._fan_out(records)
        if self.feed is not None:
            self.feed.push(entry)
        self._arm_timers()
        if core.over:
            self.hub.match_ended(self)
            if self.lease is not None:
                self.hub.finished(self.match_id)
        if conn is not None:
            conn.send({"t": "ack", "id": entry["act"], "seq": core.seq})
            metrics.ack_seconds.observe(time.monotonic() - received)
        elif entry.get("abort"):
            self._abort_done(None)

    async def _rebuild(self) -> bool:
        """Reload the match from Redis after a failed write; False while Redis is away."""
        try:
            loaded = await self.store.load(self.match_id)
            if loaded is None:
                return False
            core = MatchCore.from_loaded(loaded)
        except Exception as exc:  # Redis away, or the load failed: try again on the next message
            log.warning("match %s: rebuild failed: %s", self.match_id, exc)
            return False
        self.core = core
        self.stale = False
        if core.seq > self.sent_seq:  # a write landed though its reply was lost: deliver it
            try:
                self._fan_out(await self.store.events(self.match_id, self.sent_seq, core.seq))
            except Exception:
                return False
        self._arm_timers()
        return True

    def _retry_later(self, message: tuple, delay: float = 0.5) -> None:
        asyncio.get_running_loop().call_later(delay, self.submit, message)

    # -- timers ---------------------------------------------------------------------

    def _arm_timers(self) -> None:
        """A deadline for each open prompt, when its default must be applied.

        Only deadlines that changed are set again (a bank spent by one answer moves the
        expiry of that seat's other open prompts); one no longer in `timers` is ignored
        when it comes up (deadlines.py).
        """
        clock = self.core.clock
        open_prompts = clock.data["open"]
        for prompt_id in [p for p in self.timers if p not in open_prompts]:
            del self.timers[prompt_id]
        if self.core.over:
            return
        for prompt_id in open_prompts:
            due = clock.expires_at(prompt_id)  # None: an untimed match's prompt never expires
            if due is not None and self.timers.get(prompt_id) != due:
                self.timers[prompt_id] = due
                self.hub.deadlines.at(due, self, prompt_id)

    # -- deadlines.Owner: what hub.deadlines calls back ---------------------------------

    def deadline_wanted(self, prompt_id: str, due: int) -> bool:
        return not self.stopped and self.timers.get(prompt_id) == due

    def deadline_due(self, prompt_id: str) -> None:
        self.submit(("expire", prompt_id))

    # -- fan-out --------------------------------------------------------------------

    def _fan_out(self, records: list[dict]) -> None:
        if records:
            self.sent_seq = records[-1]["seq"]
        self.hub.metrics.deliveries += fan_out(self.core.ruleset, records, self.conns)
