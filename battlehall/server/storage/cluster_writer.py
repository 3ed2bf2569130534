"""Writes to a Redis Cluster: writer.py's batcher, with one connection per master.

Each command goes to the master serving the hash slot of its first key (for EVAL and
EVALSHA, the first key after numkeys); a match's keys share its hash tag, so all of a
match's commands go to one master. What the actors submit in one loop turn still goes
out as one send per master, and replies are still matched in order, per connection. A
write's callback runs once, when every one of its commands has its final reply, on
whichever masters they went to.

The slot map comes from `CLUSTER SLOTS` (read through redis-py) and follows the cluster:

- `MOVED <slot> <node>`: the slot now lives on that node. The map learns it at once, a
  full refresh is started, and the command is sent to the new node.
- `ASK <slot> <node>`: the slot is migrating and this key has already left: `ASKING` and
  the command go to the named node, for this command only.
- `TRYAGAIN` (a command with several keys, some migrated, some not): sent again after a
  short wait, doubled each time.
- `NOSCRIPT` for an `EVALSHA` of a script registered with `register_script`:
  `SCRIPT LOAD` on that node, then the `EVALSHA` again.

Each of these replies means the command did not run, so sending it again can never
apply it twice. Nothing else is ever sent again: a lost connection or a node that does
not answer within `timeout_s` fails every write with a command in flight there
(`StoreUnavailable`, nothing acknowledged), and no command of a failed write is
redirected afterwards. Such a write may still have landed; the actor then rebuilds
from Redis and finds it (as on a single Redis), and an answer's `XADD` carries its seq
as explicit ID, so even a stray second copy would be refused by Redis ("equal or
smaller than the target stream top item"), never appended twice.

Each master's connection, its watchdog and its failures are the core's (`Connection`,
store_link.py), as under writer.py; routing and redirections are this module's.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any, Awaitable, Callable, NamedTuple

import hiredis

from battlehall.server.storage.store_link import (
    REDIS_CLUSTER_HASH_SLOTS,
    Connection,
    StoreUnavailable,
    WriterBase,
    _call,
    _error,
    key_slot,
    setup_commands,
)

log = logging.getLogger("battlehall.store")

MAX_REDIRECTS = 8  # per command: a slot that keeps moving fails the write
TRYAGAIN_DELAY_S = 0.02  # doubled on each redirection: TRYAGAINs alone wait ~5 s in all
_SETUP = object()  # the "write" of AUTH on a new connection: a refusal drops it

SlotMap = Callable[[], Awaitable[dict[tuple[int, int], str]]]  # (first, last) slot -> "host:port"


class _Write:
    """One submitted write: its commands may be answered by several masters."""

    __slots__ = ("callback", "args", "due", "error", "done")

    def __init__(self, callback: Callable, args: tuple, due: int):
        self.callback = callback
        self.args = args
        self.due = due  # commands without their final reply yet
        self.error: object = None  # the first error reply (or its text)
        self.done = False  # called back (or failed): never again


class _Routed(NamedTuple):
    """A command routed to a master, not yet sent."""
    write: Any  # a _Write; None: ignore the reply; _SETUP: AUTH on a new connection
    command: tuple
    redirects: int


class _Sent:
    """A command in flight on a master's connection."""

    __slots__ = ("write", "command", "redirects", "sent_at", "last")

    def __init__(self, routed: _Routed, sent_at: float):
        self.write, self.command, self.redirects = routed
        self.sent_at = sent_at
        self.last = False  # the last command of its send: its reply times the round trip


class _Node(Connection[_Sent]):
    """A master and the connection to it."""

    host: str  # a node's own, always (Connection's None is the URL's)
    port: int

    def __init__(self, batcher: ClusterWriteBatcher, addr: str):
        self.batcher = batcher
        self.addr = addr
        self.name = f"Redis node {addr}"
        host, port = addr.rsplit(":", 1)
        self.host, self.port = host.strip("[]"), int(port)
        self.url, self.options, self.timeout_s = batcher.url, batcher.options, batcher.timeout_s
        self._init_connection()
        self.outbox: list[_Routed] = []  # routed, not yet sent

    @property
    def closed(self) -> bool:
        return self.batcher.closed

    def _connected(self) -> None:
        # AUTH first; the registered scripts are loaded ahead of the writes that use them.
        first = [_Routed(_SETUP, command, 0) for command in setup_commands(self.options) if command[0] == "AUTH"]
        first += [_Routed(None, command, 0) for command in self.batcher.script_loads()]
        self.outbox[:0] = first
        self.batcher._flush(self)

    def _replies(self, reader: hiredis.Reader, data: bytes) -> None:
        batcher, in_flight = self.batcher, self.in_flight
        reader.feed(data)
        try:
            while (reply := reader.gets()) is not False:
                sent = in_flight.popleft()
                write, command, redirects = sent.write, sent.command, sent.redirects
                if sent.last:
                    batcher.latency.observe(time.monotonic() - sent.sent_at)
                if write is None:  # ASKING or SCRIPT LOAD: what follows tells
                    continue
                if write is _SETUP:
                    if isinstance(reply, hiredis.ReplyError):
                        log.error("Redis node %s refused AUTH: %s", self.addr, reply)
                        self._drop(f"Redis node {self.addr} refused AUTH: {reply}")
                        return
                    continue
                if isinstance(reply, hiredis.ReplyError):
                    if batcher._redirect(self, write, command, redirects, str(reply)):
                        continue
                    batcher._answered(write, reply)
                else:
                    batcher._answered(write, None)
                if self.link is None:  # a callback gave the connection up
                    return
        except (hiredis.ProtocolError, IndexError) as exc:
            self._unexpected(exc)
            return
        if not in_flight and self.watchdog is not None:
            self.watchdog.cancel()
            self.watchdog = None

    def _drop(self, reason: str, refresh: bool = True) -> None:
        """Give the connection up: fail every write with a command in flight or queued here."""
        Connection._drop(self, reason)
        if refresh:
            self.batcher._refresh()  # a master that went away may have a successor

    def _fail_all(self, reason: str) -> None:
        failed = [e.write for e in self.in_flight] + [e.write for e in self.outbox]
        self.in_flight.clear()
        self.outbox = []
        self.batcher._fail(failed, reason)


class ClusterWriteBatcher(WriterBase):
    """WriteBatcher's interface (submit, write, close, the counters) for a Redis Cluster."""

    def __init__(self, url: str, slot_map: SlotMap, timeout_s: float = 5.0):
        super().__init__(url, timeout_s)
        self.slot_map = slot_map
        # The master of each slot: empty until the map is first read, all of them after.
        self.slots: list[str | None] = []
        self.nodes: dict[str, _Node] = {}
        self.refreshing: asyncio.Task | None = None
        self.queued: list[tuple[list[tuple], _Write]] = []  # submitted before the map is known
        self.dirty: dict[_Node, None] = {}  # nodes with something to send, in order
        self.send_scheduled = False
        # flushes: one per master per loop turn; redirections: MOVED, ASK, TRYAGAIN, NOSCRIPT
        # followed; scripts: sent again to a node that answers NOSCRIPT.

    # -- what the store calls ------------------------------------------------------------

    def submit(self, commands: list[tuple], callback: Callable[..., None], *args: object) -> None:
        """Write `commands`; then `callback(*args, error)`, error None or StoreUnavailable."""
        self.queued.append((commands, _Write(callback, args, len(commands))))
        self._schedule()

    async def close(self) -> None:
        self.closed = True
        if self.refreshing is not None:
            self.refreshing.cancel()
        for node in list(self.nodes.values()):
            if node.connecting is not None:
                node.connecting.cancel()
            node._drop("the server is stopping", refresh=False)
        self._fail_queued("the server is stopping")

    # -- routing -------------------------------------------------------------------------

    def _schedule(self) -> None:
        if not self.send_scheduled:
            self.send_scheduled = True
            asyncio.get_running_loop().call_soon(self._send)

    def _send(self) -> None:
        self.send_scheduled = False
        if self.queued:
            if self.closed:
                self._fail_queued("the server is stopping")
            elif not self.slots:
                self._refresh()  # sent once the map is known
            else:
                batch, self.queued = self.queued, []
                for commands, write in batch:
                    for command in commands:
                        self._route(write, command, 0)
        dirty, self.dirty = self.dirty, {}
        for node in dirty:
            self._flush(node)

    def _route(self, write: _Write, command: tuple, redirects: int, addr: str | None = None,
               asking: bool = False) -> None:
        """Put `command` in the outbox of the master of its slot (or of `addr`)."""
        if addr is None:
            key = _first_key(command)
            slot = 0 if key is None else key_slot(key.encode() if isinstance(key, str) else key)
            addr = self.slots[slot]
            if addr is None:
                self._answered(write, f"CLUSTERDOWN no Redis node serves hash slot {slot}")
                return
        node = self.nodes.get(addr)
        if node is None:
            node = self.nodes[addr] = _Node(self, addr)
        if asking:
            node.outbox.append(_Routed(None, ("ASKING",), 0))
        node.outbox.append(_Routed(write, command, redirects))
        self.dirty[node] = None

    def _flush(self, node: _Node) -> None:
        if not node.outbox:
            return
        if node.link is None:
            node._connect_soon()
            return  # sent once connected
        entries, node.outbox = node.outbox, []
        sent_at = time.monotonic()
        node.in_flight.extend(_Sent(entry, sent_at) for entry in entries)
        node.in_flight[-1].last = True
        self.flushes += 1
        self.commands += len(entries)
        transport = node.link.transport
        assert transport is not None  # a link is in use only once connected (Connection._connect)
        transport.write(b"".join([hiredis.pack_command(e.command) for e in entries]))
        node._arm()

    # -- the slot map --------------------------------------------------------------------

    def _refresh(self) -> None:
        """Read the slot map again, unless that is under way."""
        if self.refreshing is None and not self.closed:
            self.refreshing = asyncio.get_running_loop().create_task(self._read_slots())

    async def _read_slots(self) -> None:
        try:
            async with asyncio.timeout(self.timeout_s):
                found = await self.slot_map()
        except Exception as exc:
            self.refreshing = None
            log.warning("could not read the Redis Cluster's slots: %r", exc)
            if not self.slots:
                self._fail_queued(f"cannot read the Redis Cluster's slots: {exc!r}")
            return
        slots: list[str | None] = [None] * REDIS_CLUSTER_HASH_SLOTS
        for (first, last), addr in found.items():
            slots[first:last + 1] = [addr] * (last - first + 1)
        self.slots = slots
        self.refreshing = None
        masters = set(found.values())
        for addr in [a for a, n in self.nodes.items()
                     if a not in masters and not n.in_flight and not n.outbox and n.connecting is None]:
            self.nodes.pop(addr)._drop("no longer a master", refresh=False)  # idle: nothing fails
        if self.queued:
            self._schedule()

    # -- replies -------------------------------------------------------------------------

    def _answered(self, write: _Write, error: object) -> None:
        """One command of `write` has its final reply (`error`: None, or an error reply or its
        text); the last one calls the write back."""
        if error is not None and write.error is None:
            write.error = error
        write.due -= 1
        if write.due == 0 and not write.done:
            write.done = True
            _call(write.callback, write.args, None if write.error is None else _error(write.error))

    def _redirect(self, node: _Node, write: _Write, command: tuple, redirects: int, message: str) -> bool:
        """Send a command the cluster did not run where it says; False: it is an error."""
        kind = message.split(" ", 1)[0]
        if write.done or self.closed or redirects >= MAX_REDIRECTS:
            return False
        if kind in ("MOVED", "ASK"):
            _, slot, addr = message.split(" ")
            if addr.startswith(":"):  # the node did not announce its host: the one we asked
                addr = node.host + addr
            if kind == "MOVED":
                self.slots[int(slot)] = addr
                self._refresh()  # other slots may have moved too
            self._route(write, command, redirects + 1, addr, asking=kind == "ASK")
        elif kind == "TRYAGAIN":
            asyncio.get_running_loop().call_later(TRYAGAIN_DELAY_S * 2 ** redirects, self._again, write, command,
                                                  redirects + 1)
        elif kind == "NOSCRIPT" and str(command[0]).upper() == "EVALSHA" and command[1] in self.scripts:
            node.outbox.append(_Routed(None, ("SCRIPT", "LOAD", self.scripts[command[1]]), 0))
            self._route(write, command, redirects + 1, node.addr)
        else:
            return False
        self.redirections[kind] += 1
        self._schedule()
        return True

    def _again(self, write: _Write, command: tuple, redirects: int) -> None:
        if write.done:
            return
        if self.closed:
            self._answered(write, "the server is stopping")
            return
        self._route(write, command, redirects)
        self._schedule()

    # -- failures ------------------------------------------------------------------------

    def _fail_queued(self, reason: str) -> None:
        failed = [write for _, write in self.queued]
        self.queued = []
        self._fail(failed, reason)

    @staticmethod
    def _fail(writes: list, reason: str) -> None:
        for write in writes:
            if isinstance(write, _Write) and not write.done:
                write.done = True
                _call(write.callback, write.args, StoreUnavailable(reason))


def _first_key(command: tuple) -> Any:
    """The key a command is routed by: the first argument, or EVAL's first key."""
    name = command[0]
    if name in ("EVALSHA", "EVAL", "evalsha", "eval"):
        return command[3] if int(command[2]) > 0 else None
    return command[1] if len(command) > 1 else None
