"""Quick play on one node: its matcher, and the wake-ups of the requests waiting on tickets.

A ticket's answer is in Redis (storage/queue.py), so any node can give it. When a ticket is
matched, the matcher publishes its id (`QueueRecords.finished`); each node listens there and
wakes its requests waiting on that ticket at once. They also look again every second,
so an answer whose message was missed (a dropped subscription, a Redis Cluster, where
this node does not subscribe) is given all the same, at most a second late.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import defaultdict

from battlehall.server.players.matcher import Matcher
from battlehall.server.storage.store import StoreUnavailable

log = logging.getLogger("battlehall.quick_play")
RECHECK_S = 1.0
#: Redis connections the queue's requests share on a node: thousands of waiting requests
#: take turns on these instead of each opening its own.
CONNECTIONS = 64


class QuickPlay:
    def __init__(self, hub, settings):
        self.queue = hub.store.queue_records(None if settings.redis_cluster else CONNECTIONS)
        self.matcher = Matcher(hub, settings, self.queue)
        self.cluster = settings.redis_cluster
        self.waiters: dict[str, set[asyncio.Event]] = defaultdict(set)
        self.tasks: list[asyncio.Task] = []

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self.tasks.append(loop.create_task(self.matcher.run()))
        if not self.cluster:
            self.tasks.append(loop.create_task(self.listen()))

    async def close(self) -> None:
        self.tasks[0].cancel()
        await self.matcher.release()
        for task in self.tasks[1:]:
            task.cancel()
        with contextlib.suppress(Exception):
            await self.queue.close()

    async def listen(self) -> None:
        """Wake the requests waiting on each ticket the matcher publishes."""
        while True:
            try:
                finished = await self.queue.finished().open()
                try:
                    while True:
                        message = await finished.next(timeout_s=5.0)
                        if message is not None:
                            for event in self.waiters.get(message.data.decode(), ()):
                                event.set()
                finally:
                    await finished.close()
            except asyncio.CancelledError:
                raise
            except StoreUnavailable as exc:
                log.debug("the quick-play subscription dropped (%r): subscribing again", exc)
                await asyncio.sleep(1)

    async def wait(self, ticket: str, timeout_s: float) -> None:
        """Until the matcher publishes `ticket`, or `timeout_s`, whichever first."""
        event = asyncio.Event()
        self.waiters[ticket].add(event)
        try:
            with contextlib.suppress(TimeoutError):  # asyncio.timeout: it never swallows a cancel (audience.py)
                async with asyncio.timeout(min(timeout_s, RECHECK_S)):
                    await event.wait()
        finally:
            self.waiters[ticket].discard(event)
            if not self.waiters[ticket]:
                del self.waiters[ticket]
