"""Writes to Redis on a connection of their own: one send per loop turn, replies in order.

Every write the actors submit during one turn of the event loop goes out in one send.
Redis answers pipelined commands in order, so each reply belongs to the oldest write
still waiting for replies; a write's callback runs as soon as its last reply is parsed,
inside `data_received`: no task, future or await per answer, and no extra loop turn
before the answer is acknowledged. hiredis packs the commands and parses the replies.

redis-py's asyncio pipeline did the same work through a task per flush, an awaited
`read_response` per reply and a future per write; that machinery cost more than the
commands (bench/RESULTS.md).

If Redis does not answer within `timeout_s`, or the connection is lost, every write in
flight fails with `StoreUnavailable` (nothing of it was acknowledged), and the next
submit connects again: the connection, its watchdog and its failures are the core's
(`Connection`, store_link.py), shared with cluster_writer.py.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Callable, NamedTuple

import hiredis

from battlehall.server.storage.store_link import (
    CERT_REQS,
    Connection,
    Fenced,
    StoreUnavailable,
    Writer,
    WriterBase,
    _call,
    _error,
    _settle,
    _tls,
    open_link,
    setup_commands,
)

__all__ = ["CERT_REQS", "Fenced", "StoreUnavailable", "WriteBatcher", "Writer", "_tls", "open_link",
           "setup_commands"]

log = logging.getLogger("battlehall.store")


class _Queued(NamedTuple):
    """A write submitted, not yet sent."""
    commands: list[tuple]
    callback: Callable
    args: tuple


class _Sent:
    """A write in flight: its commands are answered in order, on this one connection."""

    __slots__ = ("due", "callback", "args", "error", "sent_at", "last")

    def __init__(self, due: int, callback: Callable, args: tuple, sent_at: float):
        self.due = due  # replies still due
        self.callback = callback
        self.args = args
        self.error: hiredis.ReplyError | None = None  # the first error reply
        self.sent_at = sent_at
        self.last = False  # the last write of its send: its reply times the round trip


class WriteBatcher(WriterBase, Connection[_Sent]):
    """Send every write submitted in one loop turn at once; call back each in order."""

    def __init__(self, url: str, timeout_s: float = 5.0):
        WriterBase.__init__(self, url, timeout_s)
        self._init_connection()
        self.queued: list[_Queued] = []  # submitted, not yet sent
        self.send_scheduled = False

    # -- what the store calls ------------------------------------------------------------

    def submit(self, commands: list[tuple], callback: Callable[..., None], *args: object) -> None:
        """Write `commands`; then `callback(*args, error)`, error None or StoreUnavailable."""
        self.queued.append(_Queued(commands, callback, args))
        if not self.send_scheduled:
            self.send_scheduled = True
            asyncio.get_running_loop().call_soon(self._send)

    def register_script(self, body: str | bytes) -> str:
        """The SHA1 to EVALSHA `body` by: loaded now, and again on every new connection
        (a restarted Redis has lost it), ahead of the writes that use it."""
        sha = WriterBase.register_script(self, body)
        if self.link is not None:  # else the connection, once made, loads it first
            self.submit([("SCRIPT", "LOAD", self.scripts[sha])], _script_loaded)
        return sha

    async def call(self, commands: list[tuple]) -> list:
        """Send and return the replies in order; StoreUnavailable if Redis did not take
        it all (any error reply). For lease upkeep: thousands of commands at a time cost
        a twentieth of the CPU they do through redis-py."""
        done = asyncio.get_running_loop().create_future()
        replies: list = []
        self.submit(commands, _collect, done, replies)
        await done
        return replies

    async def close(self) -> None:
        self.closed = True
        if self.connecting is not None:
            self.connecting.cancel()
        self._drop("the server is stopping")

    # -- sending -------------------------------------------------------------------------

    def _send(self) -> None:
        self.send_scheduled = False
        if not self.queued:
            return
        if self.link is None:
            if self.closed:
                self._fail_all("the server is stopping")
            else:
                self._connect_soon()
            return  # sent once connected
        batch, self.queued = self.queued, []
        sent_at = time.monotonic()
        packed: list[bytes] = []
        for commands, callback, args in batch:
            packed += map(hiredis.pack_command, commands)
            self.in_flight.append(_Sent(len(commands), callback, args, sent_at))
            self.commands += len(commands)
        self.in_flight[-1].last = True
        self.flushes += 1
        transport = self.link.transport
        assert transport is not None  # a link is in use only once connected (Connection._connect)
        transport.write(b"".join(packed))
        if self.watchdog is None:  # _arm, inline: this is every answer's path
            self.watchdog = asyncio.get_running_loop().call_later(self.timeout_s, self._check_timeout)

    def _connected(self) -> None:
        # AUTH, SELECT and the scripts go first, as a write of their own: a refusal fails
        # the writes queued behind them, since they went out on the same connection.
        setup = setup_commands(self.options) + self.script_loads()
        if setup:
            self.queued.insert(0, _Queued(setup, _setup_done, (self,)))
        self._send()

    # -- receiving -----------------------------------------------------------------------

    def _replies(self, reader: hiredis.Reader, data: bytes) -> None:
        """Match the replies in `data` to the writes in flight, oldest first."""
        in_flight = self.in_flight
        reader.feed(data)
        try:
            while (reply := reader.gets()) is not False:
                write = in_flight[0]
                if write.callback is _collect:
                    write.args[1].append(reply)
                if isinstance(reply, hiredis.ReplyError) and write.error is None:
                    write.error = reply
                    if str(reply).startswith("NOSCRIPT"):  # Redis lost its scripts: load them again
                        asyncio.get_running_loop().call_soon(self._drop, "Redis had lost its scripts")
                write.due -= 1
                if write.due == 0:
                    in_flight.popleft()
                    if write.last:
                        self.latency.observe(time.monotonic() - write.sent_at)
                    error = None if write.error is None else _error(write.error)
                    _call(write.callback, write.args, error)
                    if self.link is None:  # the callback gave the connection up (_setup_done)
                        return
        except (hiredis.ProtocolError, IndexError) as exc:  # not Redis talking, or a reply for nothing
            self._unexpected(exc)

    def _fail_all(self, reason: str) -> None:
        """Fail every write in flight and queued: none of them is known to have landed."""
        failed = [(w.callback, w.args) for w in self.in_flight] + [(q.callback, q.args) for q in self.queued]
        self.in_flight.clear()
        self.queued = []
        for callback, args in failed:
            _call(callback, args, StoreUnavailable(reason))


def _collect(future: asyncio.Future, replies: list, error: StoreUnavailable | None) -> None:
    _settle(future, error)  # the replies were gathered as they came (`_replies`)


def _setup_done(batcher: WriteBatcher, error: StoreUnavailable | None) -> None:
    if error is not None:
        log.error("Redis refused AUTH, SELECT or SCRIPT LOAD: %s", error)
        batcher._drop(f"Redis refused AUTH, SELECT or SCRIPT LOAD: {error}")


def _script_loaded(error: StoreUnavailable | None) -> None:
    if error is not None:  # Redis away: the next connection loads it
        log.warning("could not load a script into Redis yet: %s", error)
