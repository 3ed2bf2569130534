"""Taking over the live matches nobody holds: every `takeover_scan_ms`, and at start.

A scan lists `bh:live`, reads the leases of the matches not in memory in pipelines, and
takes those held under this node's name (a restart) and its share of the unheld ones
(their node died or was paused), so that the surviving nodes split a dead one's matches.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import time
from typing import TYPE_CHECKING

from battlehall.server.clock import now_ms
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
        self.orphans_seen: set[str] = set()  # live matches nobody held at the last scan

    async def scan(self) -> int:
        """Take the live matches whose lease lapsed (their node died or was paused) or is
        held under this node's name (a restart).

        The latter all; of the former, this node's share (their number over the live
        nodes, picked at random) so that the surviving nodes split a dead one's matches,
        and every one that was already without a lease at the previous scan. So a match
        is held again at most two scans after its lease lapsed. Returns how many it took.
        """
        node = self.settings.node
        ids = [m for m in await self.store.live_ids() if not self.loading.busy(m)]
        mine, orphans = [], []
        for i in range(0, len(ids), OWNERS_BATCH):
            chunk = ids[i:i + OWNERS_BATCH]
            for match_id, lease in zip(chunk, await self.store.owners(chunk)):
                if lease is None:
                    orphans.append(match_id)
                elif holder(lease) == node:
                    mine.append(match_id)
        seen, self.orphans_seen = self.orphans_seen, set(orphans)
        if orphans:
            # Nodes that renewed lately: a dead node's record outlives its last renewal.
            fresh = now_ms() - self.settings.lease_ms // 2
            live = await self.store.nodes.live()
            others = sum(1 for n, r in live.items()
                         if n != node and not r.get("draining") and r.get("at", 0) >= fresh)
            waited = [m for m in orphans if m in seen]
            new = [m for m in orphans if m not in seen]
            random.shuffle(new)
            orphans = waited + new[:math.ceil(len(new) / (others + 1))]
        if not mine and not orphans:
            return 0
        started = time.perf_counter()
        taken = await self.loading.take(mine + orphans)
        if taken:
            self.metrics.matches_taken_over += taken
            self.metrics.takeover_seconds = time.perf_counter() - started
            log.info("took over %d live matches in %.3f s", taken, self.metrics.takeover_seconds)
        return taken

    async def watch(self) -> None:
        """Every `takeover_scan_ms`, take this node's share of the live matches nobody holds."""
        while True:
            await asyncio.sleep(self.settings.takeover_scan_ms / 1000)
            if self.ownership.draining or not self.ownership.leased:
                continue
            try:
                await self.scan()
            except Exception as exc:  # Redis away: readiness reports it; keep trying
                log.warning("scanning for matches to take over failed: %r", exc)
