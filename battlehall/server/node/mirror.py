"""Spectators of a match that another node runs: a read-only copy of it, fed from Redis.

A spectator may connect to any node. The node that owns the match publishes a doorbell
on its tail channel (the seq of each log entry it wrote, storage/subscription.py) after the entry's
write; a node with spectators of a match it does not own keeps a `Mirror`: a replica
loaded from Redis (the latest snapshot and the log after it, or the start and the whole
log when the match has a stream delay), advanced by the entries it reads from the log
each time the doorbell rings. The log is the truth, the doorbell only says when to read:
a lost or duplicated doorbell, a write the owner's lease refused, or an owner that
changes (a takeover, a drain) costs nothing but a read, and a slow poll catches what a
lost pub/sub connection missed. Since the engine is deterministic the replica produces
the owner's events exactly; they go to the spectators through the same `DelayedFeed`
as the owner's delayed stream, so the delay is honoured and everything is redacted for
spectators as on the owner.

A mirror never writes to Redis (but the spectator count, audience.py): it holds no
lease, opens no prompt deadline, and is dropped a while after its last spectator left.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Callable

from battlehall.server.clock import Clock, now_ms
from battlehall.server.match import inputs
from battlehall.server.match.match_state import MatchState
from battlehall.server.match.spectators import DelayedFeed
from battlehall.server.storage.store import StoreUnavailable

log = logging.getLogger("battlehall.mirror")

POLL_S = 2.0  # a read of the log even without a doorbell: a lost pub/sub message costs this much delay at most
IDLE_S = 30.0  # a mirror without spectators is dropped after this long
LINGER_S = 60.0  # after the end (as seen by spectators), like a finished match on its owner


class Mirror:
    """A match run by another node, as its spectators here see it."""

    def __init__(self, mirrors: "Mirrors", match_id: str):
        self.mirrors = mirrors
        self.match_id = match_id
        self.feed: DelayedFeed | None = None
        self.meta: dict | None = None
        self.last_seq = 0  # the last seq read from the log (applied, or waiting for the delay)
        self.reading: asyncio.Task | None = None
        self.again = False  # the doorbell rang during a read: read once more
        self.stopped = False
        self.idle: asyncio.TimerHandle | None = None
        self.ending: asyncio.TimerHandle | None = None
        self.poller: asyncio.Task | None = None

    @property
    def conns(self) -> list:
        return self.feed.conns if self.feed else []

    @property
    def started(self) -> DelayedFeed:
        """The feed, once `start` made it: Mirrors hands out only started mirrors, and
        reading starts (`ring`) only with a feed."""
        if self.feed is None:
            raise RuntimeError(f"the mirror of {self.match_id} has not started")
        return self.feed

    @property
    def spectators(self) -> int:
        return len(self.conns)

    def viewers(self) -> set[str | None]:
        """Who its spectator sockets are (audience.viewer_of): a client's many sockets, one."""
        return {c.viewer for c in self.conns}

    async def start(self) -> None:
        """Load the replica; the doorbell is listened to first, so no entry is missed."""
        store = self.mirrors.store
        await self.mirrors.doorbells.add(self.match_id, self)
        loaded = await store.load(self.match_id)
        if loaded is None:
            raise LookupError(self.match_id)
        self.meta = loaded.meta
        delay = self.delay_of(loaded.meta)
        if delay:  # spectators are shown the past: replay from the start
            start, entries = await store.load_from_start(self.match_id)
            replica = MatchState(loaded.meta, start["state"], Clock(start["clock"]), start["seq"])
            self.feed = feed = self.new_feed(replica, delay, start)
            self.last_seq = entries[-1]["last_seq"] if entries else start["seq"]
            feed.catch_up(entries)
        else:
            replica = MatchState.from_loaded(loaded)
            self.feed = feed = self.new_feed(replica, 0, None)
            self.last_seq = replica.seq
        feed.on_applied = self._applied
        self._applied()
        self.ring()  # whatever was written while the replica loaded
        self.poller = asyncio.get_running_loop().create_task(self._poll())

    def delay_of(self, meta: dict) -> int:
        """How late its viewers see the match: the spectators' stream delay."""
        return meta["spectators"]["delay_ms"]

    def new_feed(self, replica: MatchState, delay: int, start: dict | None) -> DelayedFeed:
        """The feed of the viewers; `start`: the match's starting snapshot, when replayed from it."""
        return DelayedFeed(replica, delay, self.mirrors.metrics)

    # -- reading the log --------------------------------------------------------------

    def ring(self) -> None:
        """The doorbell: the owner wrote an entry (or a poll asks): read what is new."""
        if self.stopped or self.feed is None:
            return
        if self.reading is not None:
            self.again = True
            return
        self.reading = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        try:
            while True:
                self.again = False
                try:
                    entries = await self.mirrors.store.entries_after(self.match_id, self.last_seq)
                except StoreUnavailable as exc:  # Redis away: the poll tries again
                    log.debug("match %s: reading the log failed: %r", self.match_id, exc)
                    return
                feed = self.started
                for entry in entries:
                    if entry["seq"] == self.last_seq + 1:  # in order, each once
                        feed.push(entry)
                        self.last_seq = entry["last_seq"]
                if not self.again or self.stopped:
                    return
        finally:
            self.reading = None

    async def _poll(self) -> None:
        while not self.stopped:
            await asyncio.sleep(POLL_S)
            self.ring()

    def _applied(self) -> None:
        """The spectators have been shown up to the replica's seq: at the end, linger, then go."""
        if self.started.replica.over and self.ending is None and not self.stopped:
            self.ending = asyncio.get_running_loop().call_later(LINGER_S, self._drop)

    # -- what a session does with it (as with an actor) -------------------------------

    def submit(self, event: inputs.Input) -> None:
        """`Join`, `View` or `Leave` (inputs.py): spectators send nothing else."""
        if type(event) is inputs.Join:
            self._join(event.conn, event.resume, event.reply)
        elif type(event) is inputs.View:  # in order with the events: the replica is as of the last one sent
            event.conn.send(self.view(event.conn))
        elif type(event) is inputs.Leave:
            if event.conn in self.conns:
                self.conns.remove(event.conn)
            if not self.conns and not self.stopped:
                self._arm_idle()

    def _join(self, conn, resume: int | None, done: asyncio.Future) -> None:
        if self.stopped:  # dropped while the socket joined: it reconnects and gets a new mirror
            done.set_exception(ConnectionResetError("the mirror was dropped"))
            return
        if self.idle is not None:
            self.idle.cancel()
            self.idle = None
        feed = self.started
        conn.send(self.welcome(conn))
        catch_up = None
        if resume is not None and resume < feed.seq:
            conn.hold()
            catch_up = (feed.message, resume, feed.seq)
        feed.conns.append(conn)
        done.set_result(catch_up)

    def welcome(self, conn) -> dict:
        feed = self.started
        r = feed.replica
        welcome = {"t": "welcome", "match": self.match_id, "role": conn.role, "seat": None, "seq": r.seq,
                   "view": r.ruleset.view(r.state, None), "prompts": [], "now": now_ms(),
                   "definitions": r.ruleset.definitions(r.state)}
        if feed.delay_ms:
            welcome["delay_ms"] = feed.delay_ms
        return welcome

    def view(self, conn) -> dict:
        """The answer to a `view`: what a welcome now would show."""
        shown = self.welcome(conn)
        return {"t": "view", **{k: v for k, v in shown.items()
                                if k not in ("t", "match", "role", "seat", "definitions")}}  # once, in the welcome

    # -- lifecycle --------------------------------------------------------------------

    def _arm_idle(self) -> None:
        if self.idle is None:
            self.idle = asyncio.get_running_loop().call_later(IDLE_S, self._drop_if_idle)

    def _drop_if_idle(self) -> None:
        self.idle = None
        if not self.conns:
            self._drop()

    def _drop(self) -> None:
        asyncio.get_running_loop().create_task(self.mirrors.drop(self.match_id, self))

    async def stop(self) -> None:
        self.stopped = True
        for handle in (self.idle, self.ending):
            if handle is not None:
                handle.cancel()
        for conn in list(self.conns):
            conn.close(1001)
        if self.feed is not None:
            self.feed.stop()
        for task in (self.poller, self.reading):
            if task is not None and task is not asyncio.current_task():
                task.cancel()
        await self.mirrors.doorbells.remove(self.match_id, self)


class Mirrors:
    """This node's mirrors: one per match another node runs that has spectators here,
    started once however many spectators ask for it at the same time."""

    #: What each mirror is: spectators' (here), or casters' (caster.py).
    mirror_class: type[Mirror] = Mirror

    def __init__(self, store, metrics, dropped: Callable[[str], None]):
        self.store = store
        self.metrics = metrics
        self.dropped = dropped  # a mirror was let go: its spectators left (audience.py)
        self.running: dict[str, Mirror] = {}
        self.starting: dict[str, asyncio.Future] = {}
        self.doorbells = Doorbells(store)

    def __len__(self) -> int:
        return len(self.running)

    def get(self, match_id: str) -> Mirror | None:
        return self.running.get(match_id)

    async def open(self, match_id: str) -> Mirror | None:
        """The match's mirror, started on first use; None if there is no such match."""
        mirror = self.running.get(match_id)
        if mirror is not None:
            return mirror
        if match_id in self.starting:
            return await asyncio.shield(self.starting[match_id])
        future = asyncio.get_running_loop().create_future()
        self.starting[match_id] = future
        mirror = self.mirror_class(self, match_id)
        try:
            await mirror.start()
        except LookupError:  # gone since its settings were read
            await mirror.stop()
            mirror = None
        except BaseException as exc:
            await mirror.stop()
            future.set_exception(exc)
            future.exception()  # mark retrieved
            raise
        finally:
            del self.starting[match_id]
        if mirror is not None:
            self.running[match_id] = mirror
        future.set_result(mirror)
        return mirror

    async def drop(self, match_id: str, mirror: Mirror) -> None:
        if self.running.get(match_id) is mirror:
            del self.running[match_id]
        await mirror.stop()
        self.dropped(match_id)

    async def close(self) -> None:
        for match_id, mirror in list(self.running.items()):
            await self.drop(match_id, mirror)
        await self.doorbells.close()


class Doorbells:
    """One pub/sub connection per node, for the doorbells of every match it mirrors."""

    def __init__(self, store):
        self.bells = store.doorbells()
        self.mirrors: dict[str, list[Mirror]] = {}  # match id -> its mirrors (spectators', casters')
        self.task: asyncio.Task | None = None

    async def add(self, match_id: str, mirror: Mirror) -> None:
        listeners = self.mirrors.setdefault(match_id, [])
        listeners.append(mirror)
        if len(listeners) == 1:
            await self.bells.add(match_id)
        if self.task is None:
            self.task = asyncio.get_running_loop().create_task(self._listen())

    async def remove(self, match_id: str, mirror: Mirror) -> None:
        listeners = self.mirrors.get(match_id, [])
        if mirror in listeners:
            listeners.remove(mirror)
            if not listeners:
                del self.mirrors[match_id]
                with contextlib.suppress(StoreUnavailable):
                    await self.bells.remove(match_id)

    async def _listen(self) -> None:
        while True:
            try:
                rung = await self.bells.next(timeout_s=1.0)
            except StoreUnavailable as exc:
                # redis-py reconnects and subscribes again on the next read; what was
                # published meanwhile is read from the logs (and the polls catch it anyway).
                log.warning("doorbells: the pub/sub connection failed (%r); reconnecting", exc)
                await asyncio.sleep(0.5)
                for listeners in list(self.mirrors.values()):
                    for mirror in list(listeners):
                        mirror.ring()
                continue
            if rung is not None:
                for mirror in list(self.mirrors.get(rung, ())):
                    mirror.ring()

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        await self.bells.close()
