"""How many spectators watch a match, over every node.

Spectators of one match may be on several nodes (mirror.py). Each node keeps one field
of the hash `bh:{id}:watching`: "<count> <ms>", its own spectators of the match and when
it wrote that. It writes the field soon after its count changes (changes within
FLUSH_S go out together) and again every REFRESH_S while the count is not zero; it
removes the field when the count falls to zero. A field older than STALE_MS belongs to
a node that died with spectators: it is not counted. The global count is the sum of
the fresh fields, with this node's own count taken from memory, so a node's own changes
show at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Callable

from redis.exceptions import RedisError

from .clock import now_ms
from .store import key

FLUSH_S = 0.2
REFRESH_S = 10.0
STALE_MS = 30_000
TTL_S = 60  # the hash goes when no node has refreshed it for this long

log = logging.getLogger("battlehall.audience")


def hash_key(match_id: str) -> str:
    return key(match_id, "watching")


class Audience:
    def __init__(self, redis, node: str, local: Callable[[str], int]):
        self.redis = redis
        self.node = node
        self.local = local  # match id -> this node's spectators of it, now
        self.dirty: set[str] = set()
        self.tracked: set[str] = set()  # matches whose field this node keeps
        self.timer: asyncio.TimerHandle | None = None
        self.refresher: asyncio.Task | None = None

    def changed(self, match_id: str) -> None:
        """This node's spectators of the match changed: write its count soon."""
        self.dirty.add(match_id)
        if self.refresher is None:
            self.refresher = asyncio.get_running_loop().create_task(self._refresh())
        if self.timer is None:
            loop = asyncio.get_running_loop()
            self.timer = loop.call_later(FLUSH_S, lambda: loop.create_task(self.flush()))

    async def flush(self) -> None:
        self.timer = None
        ids, self.dirty = self.dirty, set()
        if not ids:
            return
        now = now_ms()
        pipe = self.redis.pipeline(transaction=False)
        for match_id in ids:
            count = self.local(match_id)
            if count:
                pipe.hset(hash_key(match_id), self.node, f"{count} {now}")
                pipe.expire(hash_key(match_id), TTL_S)
                self.tracked.add(match_id)
            else:
                pipe.hdel(hash_key(match_id), self.node)
                self.tracked.discard(match_id)
        try:
            await pipe.execute()
        except (RedisError, OSError) as exc:  # Redis away: the next refresh writes them
            log.debug("writing spectator counts failed: %r", exc)
            self.dirty |= ids

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(REFRESH_S)
            self.dirty |= self.tracked
            await self.flush()

    async def totals(self, match_ids: list[str]) -> list[int]:
        """Each match's spectators on every node; this node's own count alone if Redis does not answer."""
        try:
            pipe = self.redis.pipeline(transaction=False)
            for match_id in match_ids:
                pipe.hgetall(hash_key(match_id))
            rows = await pipe.execute() if match_ids else []
        except (RedisError, OSError):
            return [self.local(m) for m in match_ids]
        fresh_after = now_ms() - STALE_MS
        out = []
        for match_id, fields in zip(match_ids, rows):
            total = self.local(match_id)
            for node, value in fields.items():
                if node.decode() == self.node:
                    continue
                count, _, at = value.decode().partition(" ")
                if int(at) >= fresh_after:
                    total += int(count)
            out.append(total)
        return out

    async def close(self) -> None:
        """Remove this node's fields: its spectators are gone with it."""
        for handle in (self.timer, self.refresher):
            if handle is not None:
                handle.cancel()
        with contextlib.suppress(RedisError, OSError, asyncio.CancelledError):
            pipe = self.redis.pipeline(transaction=False)
            for match_id in self.tracked:
                pipe.hdel(hash_key(match_id), self.node)
            if self.tracked:
                await pipe.execute()
