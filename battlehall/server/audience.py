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

Writes and reads go on the store's upkeep connection (`Store.upkeep`, raw commands):
with matches coming and going, a node writes counts five times a second, and through
redis-py's pipelines the writes and the reads of a hundred watched matches cost the
server about 4 % of its CPU under a duel load with spectators.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Callable

from .clock import now_ms
from .store import StoreUnavailable, key

FLUSH_S = 0.2
READ_S = 1.0
REFRESH_S = 10.0
STALE_MS = 30_000
TTL_S = 60  # the hash goes when no node has refreshed it for this long

log = logging.getLogger("battlehall.audience")


def hash_key(match_id: str) -> str:
    return key(match_id, "watching")


def as_fields(reply) -> dict:
    """An HGETALL reply as a map: a raw connection gives a flat list of fields and values
    (RESP2), redis-py's cluster client a dict."""
    if isinstance(reply, dict):
        return reply
    return dict(zip(reply[::2], reply[1::2]))


class Audience:
    def __init__(self, store, node: str, local: Callable[[str], int]):
        self.redis = store.redis  # the public summaries' reads (totals), shared with the node's other reads
        self.upkeep = store.upkeep  # the writer task's writes and reads: raw commands, one send each
        self.node = node
        self.local = local  # match id -> this node's spectators of it, now
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
        commands: list[tuple] = []
        for match_id in ids:
            count = self.local(match_id)
            if count:
                commands += [("HSET", hash_key(match_id), self.node, f"{count} {now}"),
                             ("EXPIRE", hash_key(match_id), TTL_S)]
                self.tracked.add(match_id)
            else:
                commands.append(("HDEL", hash_key(match_id), self.node))
                self.tracked.discard(match_id)
                self.others.pop(match_id, None)
        reads = list(self.tracked) if time.monotonic() >= self.read_at else []
        commands += [("HGETALL", hash_key(match_id)) for match_id in reads]
        if not commands:
            return
        if reads:  # the next read READ_S from now, whether or not Redis answers this one
            self.read_at = time.monotonic() + READ_S
        try:
            replies = await self.upkeep.call(commands)
        except StoreUnavailable as exc:  # Redis away: the next round writes them
            log.debug("writing spectator counts failed: %r", exc)
            self.dirty |= set(ids)
            return
        for match_id, fields in zip(reads, replies[len(replies) - len(reads):]):
            if match_id in self.tracked:
                self.others[match_id] = self._others(as_fields(fields), now)

    def _others(self, fields: dict, now: int) -> int:
        """The other nodes' fresh counts in one match's hash."""
        total = 0
        for node, value in fields.items():
            if node.decode() == self.node:
                continue
            count, _, at = value.decode().partition(" ")
            if int(at) >= now - STALE_MS:
                total += int(count)
        return total

    async def totals(self, match_ids: list[str]) -> list[int]:
        """Each match's spectators on every node; this node's own count alone if Redis does not answer."""
        try:
            pipe = self.redis.pipeline(transaction=False)
            for match_id in match_ids:
                pipe.hgetall(hash_key(match_id))
            rows = await pipe.execute() if match_ids else []
        except StoreUnavailable:
            return [self.local(m) for m in match_ids]
        now = now_ms()
        out = []
        for match_id, fields in zip(match_ids, rows):
            others = self._others(fields, now)
            if match_id in self.tracked:
                self.others[match_id] = others
            out.append(self.local(match_id) + others)
        return out

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
                await self.upkeep.call([("HDEL", hash_key(match_id), self.node) for match_id in self.tracked])
