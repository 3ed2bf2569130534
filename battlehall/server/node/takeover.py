"""Taking over the live matches of dead nodes, and those nobody holds: at once when a
node's heartbeat lapses (liveness.py), every `takeover_scan_ms` otherwise, and at start.

A scan lists `bh:live`, reads the leases of the matches not in memory in pipelines, and
takes those held under this node's name (a restart), and its share of those held by a
dead node (their leases broken, storage/lease.py) or by nobody (their lease lapsed: a node
cut off from Redis, or of a version before heartbeats), so that the surviving nodes split
a dead one's matches.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import TYPE_CHECKING

from battlehall.server.clock import now_ms
from battlehall.server.node.liveness import taker
from battlehall.server.node.loading import Loading
from battlehall.server.node.ownership import Ownership
from battlehall.server.storage.lease import holder

if TYPE_CHECKING:
    from battlehall.server.metrics import Metrics

log = logging.getLogger("battlehall.hub")

OWNERS_BATCH = 1000  # lease reads per pipeline


class Takeover:
    def __init__(self, ownership: Ownership, loading: Loading, metrics: Metrics):
        self.ownership = ownership
        self.loading = loading
        self.store = ownership.store
        self.settings = ownership.settings
        self.metrics = metrics
        self.orphans_seen: set[str] = set()  # live matches to take (unheld, or a dead node's) at the last scan

    async def scan(self) -> int:
        """Take the live matches held under this node's name (a restart), and this node's
        share of those whose holder is dead or whose lease lapsed.

        The share is by rendezvous hashing over the live nodes (liveness.py): disjoint,
        and together whole. A match that was to take already at the previous scan is
        taken by whoever comes first: so one whose taker failed is held again at most a
        scan later. Returns how many it took.
        """
        node = self.settings.node
        dead = self.ownership.liveness.dead
        ids = [m for m in await self.store.live_ids() if not self.loading.busy(m)]
        mine, free = [], []
        breaking: dict[str, str] = {}  # match id -> the dead holder's lease, to break
        for i in range(0, len(ids), OWNERS_BATCH):
            chunk = ids[i:i + OWNERS_BATCH]
            for match_id, lease in zip(chunk, await self.store.owners(chunk)):
                if lease is None:
                    free.append(match_id)
                elif (owner := holder(lease)) == node:
                    mine.append(match_id)
                elif owner in dead:
                    breaking[match_id] = lease
                    free.append(match_id)
        seen, self.orphans_seen = self.orphans_seen, set(free)
        if free:
            takers = await self.takers()
            free = [m for m in free if m in seen or taker(m, takers) == node]
        if not mine and not free:
            return 0
        started = time.perf_counter()
        taken = await self.loading.take(mine + free, {m: breaking[m] for m in free if m in breaking})
        if taken:
            self.metrics.matches_taken_over += taken
            self.metrics.takeover_seconds = time.perf_counter() - started
            log.info("took over %d live matches in %.3f s", taken, self.metrics.takeover_seconds)
        return taken

    async def takers(self) -> list[str]:
        """The nodes that split the matches to take: those beating (liveness.py) and not
        draining; before the first reading of the beats (the recovery at start), those
        whose record was written lately."""
        node = self.settings.node
        records = await self.store.nodes.live()
        if self.ownership.liveness.known:
            return [n for n in self.ownership.liveness.alive
                    if n == node or (n in records and not records[n].get("draining"))]
        fresh = now_ms() - self.settings.lease_ms // 2  # a dead node's record outlives its last renewal
        return [node] + [n for n, r in records.items() if n != node and not r.get("draining") and r.get("at", 0) >= fresh]

    async def watch(self) -> None:
        """Beat (storage/heartbeat.py) and watch the others' beats; take this node's share
        of a dead node's matches as soon as it is seen dead, and every `takeover_scan_ms`
        of the matches nobody holds. Stops beating when cancelled (the server stopping)."""
        liveness = self.ownership.liveness
        heartbeat = self.store.heartbeat_thread(self.settings.node, self.settings.heartbeat_ms, liveness.saw)
        if self.ownership.leased:
            heartbeat.start()
        try:
            while True:
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(self.settings.takeover_scan_ms / 1000):
                        await liveness.died.wait()
                liveness.died.clear()
                if self.ownership.draining or not self.ownership.leased:
                    continue
                try:
                    await self.scan()
                except Exception as exc:  # Redis away: readiness reports it; keep trying
                    log.warning("scanning for matches to take over failed: %r", exc)
        finally:
            # The thread's last beat is read by nobody: no need to wait on the loop for it.
            await asyncio.get_running_loop().run_in_executor(None, heartbeat.stop, True)
