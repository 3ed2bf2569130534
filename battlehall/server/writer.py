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
submit connects again.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import logging
import ssl
import time
from typing import Callable

import hiredis
from redis.connection import parse_url

from .metrics import REDIS_BUCKETS, Histogram

log = logging.getLogger("battlehall.store")


class StoreUnavailable(Exception):
    """Redis could not be reached or refused a write; nothing was acknowledged."""


class Fenced(StoreUnavailable):
    """The match's lease is no longer this node's: its write was refused (lease.py)."""


def _error(reply: hiredis.ReplyError) -> StoreUnavailable:
    text = str(reply)
    return Fenced(text) if text.startswith("FENCED") else StoreUnavailable(text)


class WriteBatcher:
    """Send every write submitted in one loop turn at once; call back each in order."""

    def __init__(self, url: str, timeout_s: float = 5.0):
        self.url = url
        self.timeout_s = timeout_s
        self.link: _Link | None = None  # the connection in use, once connected
        self.connecting: asyncio.Task | None = None
        # Submitted, not yet sent: (commands, callback, args).
        self.queued: list[tuple[list[tuple], Callable, tuple]] = []
        self.send_scheduled = False
        # Sent, waiting for replies, oldest first: [replies still due, callback, args,
        # first error reply, when it was sent, whether it is the last of its send].
        self.in_flight: collections.deque[list] = collections.deque()
        self.watchdog: asyncio.TimerHandle | None = None
        self.closed = False
        self.flushes = 0  # sends, for /metrics
        self.commands = 0
        self.latency = Histogram(REDIS_BUCKETS)  # a send to the reply of its last write
        self.redirections = collections.Counter()  # a Redis Cluster's (cluster_writer.py); none here
        self.scripts: dict[str, bytes] = {}  # sha1 -> body: loaded on every new connection

    # -- what the store calls ------------------------------------------------------------

    def submit(self, commands: list[tuple], callback: Callable, *args) -> None:
        """Write `commands`; then `callback(*args, error)`, error None or StoreUnavailable."""
        self.queued.append((commands, callback, args))
        if not self.send_scheduled:
            self.send_scheduled = True
            asyncio.get_running_loop().call_soon(self._send)

    async def write(self, commands: list[tuple]) -> None:
        """Write and wait; StoreUnavailable if Redis did not take it all."""
        done = asyncio.get_running_loop().create_future()
        self.submit(commands, _settle, done)
        await done

    def register_script(self, body: str | bytes) -> str:
        """The SHA1 to EVALSHA `body` by: loaded now, and again on every new connection
        (a restarted Redis has lost it), ahead of the writes that use it."""
        body = body.encode() if isinstance(body, str) else body
        sha = hashlib.sha1(body).hexdigest()
        self.scripts[sha] = body
        if self.link is not None:  # else the connection, once made, loads it first
            self.submit([("SCRIPT", "LOAD", body)], _script_loaded)
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
            elif self.connecting is None:
                self.connecting = asyncio.get_running_loop().create_task(self._connect())
            return  # sent once connected
        batch, self.queued = self.queued, []
        sent_at = time.monotonic()
        packed = []
        for commands, callback, args in batch:
            packed += map(hiredis.pack_command, commands)
            self.in_flight.append([len(commands), callback, args, None, sent_at, False])
            self.commands += len(commands)
        self.in_flight[-1][5] = True
        self.flushes += 1
        self.link.transport.write(b"".join(packed))
        if self.watchdog is None:
            self.watchdog = asyncio.get_running_loop().call_later(self.timeout_s, self._check_timeout)

    async def _connect(self) -> None:
        options = parse_url(self.url)
        link = _Link(self)
        try:
            await open_link(self.url, options, link, self.timeout_s)
        except (OSError, TimeoutError) as exc:
            self.connecting = None
            self._fail_all(f"cannot connect to Redis: {exc!r}")
            return
        self.connecting = None
        self.link = link
        # AUTH, SELECT and the scripts go first, as a write of their own: a refusal fails
        # the writes queued behind them, since they went out on the same connection.
        setup = setup_commands(options) + [("SCRIPT", "LOAD", body) for body in self.scripts.values()]
        if setup:
            self.queued.insert(0, (setup, _setup_done, (self,)))
        self._send()

    def _check_timeout(self) -> None:
        self.watchdog = None
        if not self.in_flight:
            return
        waited = time.monotonic() - self.in_flight[0][4]
        if waited >= self.timeout_s:
            log.warning("Redis did not answer for %.1f s: dropping the connection", waited)
            self._drop(f"Redis did not answer within {self.timeout_s:g} s")
        else:
            self.watchdog = asyncio.get_running_loop().call_later(self.timeout_s - waited, self._check_timeout)

    # -- receiving -----------------------------------------------------------------------

    def _replies(self, reader: hiredis.Reader, data: bytes) -> None:
        """Match the replies in `data` to the writes in flight, oldest first."""
        in_flight = self.in_flight
        reader.feed(data)
        try:
            while (reply := reader.gets()) is not False:
                write = in_flight[0]
                if write[1] is _collect:
                    write[2][1].append(reply)
                if isinstance(reply, hiredis.ReplyError) and write[3] is None:
                    write[3] = reply
                    if str(reply).startswith("NOSCRIPT"):  # Redis lost its scripts: load them again
                        asyncio.get_running_loop().call_soon(self._drop, "Redis had lost its scripts")
                write[0] -= 1
                if write[0] == 0:
                    in_flight.popleft()
                    if write[5]:
                        self.latency.observe(time.monotonic() - write[4])
                    error = None if write[3] is None else _error(write[3])
                    _call(write[1], write[2], error)
                    if self.link is None:  # the callback gave the connection up (_setup_done)
                        return
        except (hiredis.ProtocolError, IndexError) as exc:  # not Redis talking, or a reply for nothing
            log.error("unexpected data from Redis: %r; dropping the connection", exc)
            self._drop("unexpected data from Redis")

    def _drop(self, reason: str) -> None:
        """Give up the connection: fail what is in flight or queued, connect again when asked."""
        link, self.link = self.link, None
        if self.watchdog is not None:
            self.watchdog.cancel()
            self.watchdog = None
        if link is not None:
            link.transport.abort()  # its connection_lost is ignored: it is no longer the link
        self._fail_all(reason)

    def _fail_all(self, reason: str) -> None:
        """Fail every write in flight and queued: none of them is known to have landed."""
        failed = [(w[1], w[2]) for w in self.in_flight] + [(cb, args) for _, cb, args in self.queued]
        self.in_flight.clear()
        self.queued = []
        for callback, args in failed:
            _call(callback, args, StoreUnavailable(reason))


class _Link(asyncio.Protocol):
    """One connection of a WriteBatcher. Once dropped, what it still receives is ignored."""

    def __init__(self, batcher: WriteBatcher):
        self.batcher = batcher
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader()

    def connection_made(self, transport) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.batcher.link is self:
            self.batcher._replies(self.reader, data)

    def connection_lost(self, exc) -> None:
        if self.batcher.link is self:
            self.batcher._drop(f"connection to Redis lost: {exc!r}" if exc else "connection to Redis closed")


async def open_link(url: str, options: dict, protocol: asyncio.Protocol, timeout_s: float,
                    host: str | None = None, port: int | None = None) -> None:
    """Connect `protocol` to the Redis of `url` (parsed as `options`), or to `host`:`port`
    with the URL's TLS settings (a node of a cluster)."""
    loop = asyncio.get_running_loop()
    async with asyncio.timeout(timeout_s):
        if host is None and "path" in options:
            await loop.create_unix_connection(lambda: protocol, options["path"])
        else:
            await loop.create_connection(lambda: protocol, host or options.get("host", "localhost"),
                                         port or options.get("port", 6379), ssl=_tls(url, options))


def setup_commands(options: dict) -> list[tuple]:
    """AUTH and SELECT as the URL asks, to send first on a new connection."""
    setup = []
    if options.get("password"):
        setup.append(("AUTH", options["username"], options["password"]) if options.get("username")
                     else ("AUTH", options["password"]))
    if options.get("db"):
        setup.append(("SELECT", options["db"]))
    return setup


CERT_REQS = {"none": ssl.CERT_NONE, "optional": ssl.CERT_OPTIONAL, "required": ssl.CERT_REQUIRED}


def _tls(url: str, options: dict) -> ssl.SSLContext | None:
    """For `rediss://`: TLS as redis-py sets it up from the same URL's options (so every
    connection of the server, this one and redis-py's, is made alike): the CA to trust
    (`ssl_ca_certs`, `ssl_ca_path`), a client certificate for a Redis that asks for one
    (`ssl_certfile`, `ssl_keyfile`, `ssl_password`), `ssl_cert_reqs` and `ssl_check_hostname`."""
    if not url.startswith("rediss://"):
        return None
    context = ssl.create_default_context(cafile=options.get("ssl_ca_certs"), capath=options.get("ssl_ca_path"))
    if options.get("ssl_certfile"):
        context.load_cert_chain(options["ssl_certfile"], options.get("ssl_keyfile"), options.get("ssl_password"))
    requirement = options.get("ssl_cert_reqs", "required")
    requirement = CERT_REQS.get(requirement, requirement) if isinstance(requirement, str) else requirement
    if options.get("ssl_check_hostname") in (False, "false", "0", "no") or requirement == ssl.CERT_NONE:
        context.check_hostname = False
    context.verify_mode = requirement
    return context


def _call(callback: Callable, args: tuple, error: StoreUnavailable | None) -> None:
    try:
        callback(*args, error)
    except Exception:  # one write's owner must not stop the replies of the others
        log.exception("a Redis write's callback failed")


def _settle(future: asyncio.Future, error: StoreUnavailable | None) -> None:
    if future.done():
        return
    if error is None:
        future.set_result(None)
    else:
        future.set_exception(error)


def _collect(future: asyncio.Future, replies: list, error: StoreUnavailable | None) -> None:
    _settle(future, error)  # the replies were gathered as they came (`_replies`)


def _setup_done(batcher: WriteBatcher, error: StoreUnavailable | None) -> None:
    if error is not None:
        log.error("Redis refused AUTH, SELECT or SCRIPT LOAD: %s", error)
        batcher._drop(f"Redis refused AUTH, SELECT or SCRIPT LOAD: {error}")


def _script_loaded(error: StoreUnavailable | None) -> None:
    if error is not None:  # Redis away: the next connection loads it
        log.warning("could not load a script into Redis yet: %s", error)
