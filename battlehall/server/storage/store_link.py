"""The connection core under both writers (writer.py, cluster_writer.py).

One `Connection` is one hiredis connection to one Redis (a single Redis, or one master
of a Redis Cluster): made on demand, AUTH/SELECT and the registered scripts sent first,
a watchdog that drops it when Redis does not answer within `timeout_s`, and one way to
give it up (`_drop`) that fails every write with something in flight or queued there,
with `StoreUnavailable`. What goes out and how replies are matched is the writer's.

`Writer` is what the store and the actors use of either writer: `submit`, `write`,
`register_script`, `close` and the counters of /metrics.

Every failure of Redis is one exception type, `StoreUnavailable` (`Fenced`, a write
refused by a match's lease, is one of them): these writers raise nothing else, and
`Store` turns redis-py's errors into it (store.py).

redis-py is imported here for the URL only (`parse_url`, and `key_slot` for the cluster's
slots): a URL must mean the same connection to these writers as to the store's redis-py
clients (TLS options, credentials, database), so it is read by the same code.
"""

from __future__ import annotations

import asyncio
import collections
import hashlib
import logging
import ssl
import time
from typing import TYPE_CHECKING, Callable, Generic, Protocol, TypeVar, cast

import hiredis
from redis.connection import parse_url  # see the module's docstring: the URL read as redis-py reads it
from redis.crc import REDIS_CLUSTER_HASH_SLOTS, key_slot  # noqa: F401 (cluster_writer.py's)

from battlehall.server.errors import Fenced, StoreUnavailable
from battlehall.server.metrics import REDIS_BUCKETS, Histogram

log = logging.getLogger("battlehall.store")


def _error(reply: object) -> StoreUnavailable:
    """The exception of an error reply (or of a reason given as text)."""
    text = str(reply)
    return Fenced(text) if text.startswith("FENCED") else StoreUnavailable(text)


class Writer(Protocol):
    """What the store and the actors use of a writer (WriteBatcher, ClusterWriteBatcher)."""

    flushes: int
    commands: int
    latency: Histogram
    redirections: collections.Counter[str]

    def submit(self, commands: list[tuple], callback: Callable[..., None], *args: object) -> None:
        """Write `commands`; then `callback(*args, error)`, error None or StoreUnavailable."""

    async def write(self, commands: list[tuple]) -> None:
        """Write and wait; StoreUnavailable if Redis did not take it all."""

    def register_script(self, body: str | bytes) -> str:
        """The SHA1 to EVALSHA `body` by, loaded wherever the writer's writes go."""

    async def close(self) -> None: ...


class WriterBase:
    """What both writers keep alike: the URL, the scripts, the counters, `write`."""

    def __init__(self, url: str, timeout_s: float):
        self.url = url
        self.options = parse_url(url)
        self.timeout_s = timeout_s
        self.closed = False
        self.scripts: dict[str, bytes] = {}  # sha1 -> body: loaded on every new connection
        self.flushes = 0  # sends, for /metrics
        self.commands = 0
        self.latency = Histogram(REDIS_BUCKETS)  # a send to the reply of its last write
        self.redirections: collections.Counter[str] = collections.Counter()  # a Redis Cluster's (cluster_writer.py)

    def submit(self, commands: list[tuple], callback: Callable[..., None], *args: object) -> None:
        raise NotImplementedError

    async def write(self, commands: list[tuple]) -> None:
        """Write and wait; StoreUnavailable if Redis did not take it all."""
        done = asyncio.get_running_loop().create_future()
        self.submit(commands, _settle, done)
        await done

    def register_script(self, body: str | bytes) -> str:
        """The SHA1 to EVALSHA `body` by; every new connection loads it first."""
        body = body.encode() if isinstance(body, str) else body
        sha = hashlib.sha1(body).hexdigest()
        self.scripts[sha] = body
        return sha

    def script_loads(self) -> list[tuple]:
        return [("SCRIPT", "LOAD", body) for body in self.scripts.values()]


class Sent(Protocol):
    """What a connection's watchdog reads of a write in flight (writer.py, cluster_writer.py)."""

    sent_at: float  # time.monotonic() when it went out


S = TypeVar("S", bound=Sent)


class Connection(Generic[S]):
    """One connection to one Redis: connecting, the watchdog, giving it up.

    A subclass sends (`link.transport.write`, then `_arm`), matches replies
    (`_replies(reader, data)`, called by its `Link`), says what to send first on a new
    connection (`_connected`) and fails its writes (`_fail_all`) when it is dropped.
    Its `in_flight` entries are `Sent` records: each says when it was sent.
    """

    name = "Redis"  # for the logs and the errors
    host: str | None = None  # None: the URL's; else a node of a cluster, with the URL's TLS
    port: int | None = None
    url: str
    options: dict
    timeout_s: float

    # Only read here: a WriteBatcher's own attribute, a cluster _Node's batcher's. Declared
    # for mypy alone: a real property here would refuse WriterBase's assignment.
    if TYPE_CHECKING:
        @property
        def closed(self) -> bool: ...

    def _init_connection(self) -> None:
        self.link: Link | None = None  # the connection in use, once connected
        self.connecting: asyncio.Task | None = None
        self.in_flight: collections.deque[S] = collections.deque()  # sent, oldest first
        self.watchdog: asyncio.TimerHandle | None = None

    def _connect_soon(self) -> None:
        if self.connecting is None:
            self.connecting = asyncio.get_running_loop().create_task(self._connect())

    async def _connect(self) -> None:
        link = Link(self)
        try:
            await open_link(self.url, self.options, link, self.timeout_s, self.host, self.port)
        except (OSError, TimeoutError) as exc:
            self.connecting = None
            self._drop(f"cannot connect to {self.name}: {exc!r}")
            return
        self.connecting = None
        if self.closed:  # stopped while connecting
            if link.transport is not None:
                link.transport.abort()
            self._drop("the server is stopping")
            return
        self.link = link
        self._connected()

    def _arm(self) -> None:
        """Watch the writes just sent: after `timeout_s` without their replies, drop."""
        if self.watchdog is None:
            self.watchdog = asyncio.get_running_loop().call_later(self.timeout_s, self._check_timeout)

    def _check_timeout(self) -> None:
        self.watchdog = None
        if not self.in_flight:
            return
        waited = time.monotonic() - self.in_flight[0].sent_at
        if waited >= self.timeout_s:
            log.warning("%s did not answer for %.1f s: dropping the connection", self.name, waited)
            self._drop(f"{self.name} did not answer within {self.timeout_s:g} s")
        else:
            self.watchdog = asyncio.get_running_loop().call_later(self.timeout_s - waited, self._check_timeout)

    def _unexpected(self, exc: Exception) -> None:
        """Data that is not Redis talking, or a reply for nothing: the connection is unusable."""
        log.error("unexpected data from %s: %r; dropping the connection", self.name, exc)
        self._drop("unexpected data from Redis")

    def _drop(self, reason: str) -> None:
        """Give up the connection: fail what is in flight or queued, connect again when asked."""
        link, self.link = self.link, None
        if self.watchdog is not None:
            self.watchdog.cancel()
            self.watchdog = None
        if link is not None and link.transport is not None:
            link.transport.abort()  # its connection_lost is ignored: it is no longer the link
        self._fail_all(reason)

    # -- the subclass' ---------------------------------------------------------------------

    def _connected(self) -> None:
        raise NotImplementedError

    def _replies(self, reader: hiredis.Reader, data: bytes) -> None:
        raise NotImplementedError

    def _fail_all(self, reason: str) -> None:
        raise NotImplementedError


class Link(asyncio.Protocol):
    """One connection of a `Connection`. Once dropped, what it still receives is ignored."""

    def __init__(self, owner: Connection):
        self.owner = owner
        self.transport: asyncio.Transport | None = None
        self.reader = hiredis.Reader()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = cast(asyncio.Transport, transport)  # a stream's (uvloop's is no subclass of it)

    def data_received(self, data: bytes) -> None:
        if self.owner.link is self:
            self.owner._replies(self.reader, data)

    def connection_lost(self, exc: Exception | None) -> None:
        owner = self.owner
        if owner.link is self:
            owner._drop(f"connection to {owner.name} lost: {exc!r}" if exc else f"connection to {owner.name} closed")


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
