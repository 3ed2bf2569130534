"""How many spectators watch a match, over every node.

Spectators of one match may be on several nodes (mirror.py). Each node keeps one field
of the hash `bh:{id}:watching`: "<count> <ms>", its own spectators of the match and when
it wrote that. It writes the field soon after its count changes (changes within
FLUSH_S go out together) and again every REFRESH_S while the count is not zero; it
removes the field when the count falls to zero. A field older than STALE_MS belongs to
a node that died with spectators: it is not counted. The global count is the sum of
the fresh fields, with this node's own count taken from memory, so a node's own changes
show at once.

A spectator's `hello` reads nothing from Redis for this (a socket joining a match in
memory makes no Redis round trip): the `spectators.max` check adds this node's count
to the other nodes' as last read. A node reads them for every match it has spectators
of every READ_S (with its writes, in one send), so the cap holds over all nodes to
within about a second.

**Viewers.** Sockets are not people: one client can open a hundred spectator sockets
without a token. So each node also writes how many distinct viewers its spectator
sockets are (`viewer_of`: one per client address, an IPv6 client per /64), in the
field `<node> viewers` of the same hash and the same HSET, and the TV ranks by their
sum over the nodes (tv.py). A viewer watching on two nodes counts on each: the sum of
the nodes' distinct counts, not the distinct count over all nodes, which would mean
writing every address to Redis. That field's value is "<viewers> 0": stamped as of the
epoch, so that a node of an earlier version, which reads every field as a count, takes
it for a dead node's; its freshness is that of its node's count. A node of an earlier
version writes no such field: its spectators count as one viewer each.

The hash's keys and commands are the storage wing's (storage/audience.py,
`Store.audience`): with matches coming and going, a node writes counts five times a
second, so they go on the store's upkeep connection, in one send with the reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import sys
import time
from typing import Callable

from battlehall.server.clock import now_ms
from battlehall.server.storage.audience import VIEWERS, NodeCount
from battlehall.server.storage.store import StoreUnavailable

FLUSH_S = 0.2
READ_S = 1.0
REFRESH_S = 10.0
STALE_MS = 30_000
IPV6_VIEWER_PREFIX = 64  # an IPv6 client is one viewer per /64: one host is given a /64 and may use any of it

log = logging.getLogger("battlehall.audience")


def viewer_of(address: str | None) -> str | None:
    """Who a spectator socket from `address` (limits.peer_address) counts as: the address,
    an IPv6 one by its /64 (one machine is given a /64 and may send from any address of
    it), an IPv4-mapped one as the IPv4 address. None (no IP address: a Unix socket) is
    one viewer too. Interned: the sockets of one client share one string."""
    if address is None:
        return None
    try:
        ip = ipaddress.ip_address(address.partition("%")[0])  # without an IPv6 scope (fe80::1%eth0)
    except ValueError:
        return sys.intern(address)
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return sys.intern(str(ip.ipv4_mapped))
        return sys.intern(str(ipaddress.IPv6Network((ip, IPV6_VIEWER_PREFIX), strict=False)))
    return sys.intern(str(ip))


class Audience:
    def __init__(self, store, node: str, local: Callable[[str], int],
                 local_viewers: Callable[[str], int] | None = None):
        self.records = store.audience  # the counts in Redis (storage/audience.py)
        self.node = node
        self.local = local  # match id -> this node's spectators of it, now
        self.local_viewers = local_viewers or local  # ... and the distinct viewers they are (each one by default)
        self.dirty: set[str] = set()
        self.tracked: set[str] = set()  # matches whose field this node keeps
        self.others: dict[str, int] = {}  # tracked match -> the other nodes' spectators, as last read
        self.read_at = 0.0  # time.monotonic() of the next read of the other nodes' counts
        self.wake = asyncio.Event()
        self.writer: asyncio.Task | None = None  # one task for the node's life, started on first use
        self.closing = False

    def changed(self, match_id: str) -> None:
        """This node's spectators of the match changed: write its count soon."""
        self.dirty.add(match_id)
        self.wake.set()
        if self.writer is None:
            self.writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        """Write what changed, FLUSH_S after the first change, and every REFRESH_S all of it
        again; read the other nodes' counts at least every READ_S."""
        refreshed = time.monotonic()
        # Until close(), not only until cancelled: a cancel that a library call swallows (it
        # was seen once under load: the task "cancelling" yet waiting on its event again) would
        # otherwise leave close() waiting for ever.
        while not self.closing:
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for swallows a cancel that
            # comes as the event is set, and close() then waited on this loop for ever.
            # Wake when the next read is due at the latest: a change flushed between two
            # reads must not push the read back by another READ_S.
            due = self.read_at - time.monotonic() if self.tracked else READ_S
            try:
                async with asyncio.timeout(min(READ_S, max(due, 0.0))):
                    await self.wake.wait()
                await asyncio.sleep(FLUSH_S)  # changes close together go out together
            except TimeoutError:
                pass
            self.wake.clear()
            if time.monotonic() - refreshed >= REFRESH_S:
                refreshed = time.monotonic()
                self.dirty |= self.tracked
            await self.flush()

    def count(self, match_id: str) -> int:
        """The match's spectators on every node, without a Redis read (as of the last one)."""
        return self.local(match_id) + self.others.get(match_id, 0)

    async def flush(self) -> None:
        """Write this node's count of each changed match; every READ_S, read the other
        nodes' counts of every match this node has spectators of."""
        ids, self.dirty = list(self.dirty), set()
        now = now_ms()
        counts: list[NodeCount] = []
        for match_id in ids:
            count = self.local(match_id)
            counts.append(NodeCount(match_id, count, self.local_viewers(match_id) if count else 0, now))
            if count:
                self.tracked.add(match_id)
            else:
                self.tracked.discard(match_id)
                self.others.pop(match_id, None)
        reads = list(self.tracked) if time.monotonic() >= self.read_at else []
        if not counts and not reads:
            return
        if reads:  # the next read READ_S from now, whether or not Redis answers this one
            self.read_at = time.monotonic() + READ_S
        try:
            found = await self.records.write(self.node, counts, reads)
        except StoreUnavailable as exc:  # Redis away: the next round writes them
            log.debug("writing spectator counts failed: %r", exc)
            self.dirty |= set(ids)
            return
        for match_id, fields in zip(reads, found):
            if match_id in self.tracked:
                self.others[match_id] = self._others(fields, now)[0]

    def _others(self, fields: dict[bytes, bytes], now: int) -> tuple[int, int]:
        """The other nodes' fresh counts in one match's hash: their spectators, and the
        viewers those are (a node that wrote no viewers: one per spectator)."""
        counts: dict[str, int] = {}
        viewers: dict[str, int] = {}
        for name, value in fields.items():
            field, (count, _, at) = name.decode(), value.decode().partition(" ")
            if field.endswith(VIEWERS):
                viewers[field[:-len(VIEWERS)]] = int(count)
            elif field != self.node and int(at) >= now - STALE_MS:
                counts[field] = int(count)
        return sum(counts.values()), sum(min(viewers.get(node, count), count) for node, count in counts.items())

    async def tallies(self, match_ids: list[str]) -> list[tuple[int, int]]:
        """Each match's spectators and viewers on every node; this node's own alone if
        Redis does not answer."""
        try:
            rows = await self.records.fields(match_ids)
        except StoreUnavailable:
            return [(self.local(m), self.local_viewers(m)) for m in match_ids]
        now = now_ms()
        out = []
        for match_id, fields in zip(match_ids, rows):
            others, other_viewers = self._others(fields, now)
            if match_id in self.tracked:
                self.others[match_id] = others
            mine = self.local(match_id)
            out.append((mine + others, (self.local_viewers(match_id) if mine else 0) + other_viewers))
        return out

    async def totals(self, match_ids: list[str]) -> list[int]:
        """Each match's spectators on every node; this node's own count alone if Redis does not answer."""
        return [spectators for spectators, _ in await self.tallies(match_ids)]

    async def close(self) -> None:
        """Remove this node's fields: its spectators are gone with it."""
        if self.writer is not None:
            self.closing = True
            self.wake.set()
            self.writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.writer
        if self.tracked:
            with contextlib.suppress(StoreUnavailable):
                await self.records.remove(self.node, list(self.tracked))
