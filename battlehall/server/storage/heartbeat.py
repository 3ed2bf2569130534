"""The nodes' heartbeats: `bh:beats`, a sorted set of node id -> the time of its last beat,
by Redis' own clock (one clock for every node: no skew between machines decides a death).

Each node beats every `heartbeat_ms` from a thread of its own, on a blocking connection of
its own: a beat is one script that records this node's beat and answers every node's last
one, so writing and watching cost one round trip a beat. The thread keeps beating while
the event loop is busy (loading thousands of matches, a long garbage collection), so a busy
node is never taken for a dead one; a node killed, or paused (SIGSTOP) as a whole, stops.
What a node does with the beats it reads is node/liveness.py's. A node stopping for good
takes its beat out of the set; one silent for a day leaves it anyway.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from battlehall.server.storage.client import FAILURES

BEATS = "bh:beats"  # outside any match's slot
FORGET_MS = 24 * 3600 * 1000  # a node silent this long leaves `bh:beats`

# KEYS: beats. ARGV: node, forget ms. Records the node's beat at Redis' time; returns that
# time and every node's last beat (ZRANGE WITHSCORES: id, score, id, score...).
# replicate_commands: Redis 6 refuses writes after TIME otherwise (Redis 7 always does so).
BEAT = """
redis.replicate_commands()
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
return {now, redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')}
"""

log = logging.getLogger("battlehall.store")


@dataclass(slots=True, frozen=True)
class Beats:
    """One reading of `bh:beats`."""
    now_ms: int  # Redis' clock at the reading
    last: dict[str, int]  # each node's last beat, by Redis' clock

    def silent_ms(self, node: str) -> int | None:
        """How long the node has not beaten; None if it never did (or left the set)."""
        at = self.last.get(node)
        return None if at is None else self.now_ms - at


def parse(reply: list) -> Beats:
    now, flat = reply
    text = [v.decode() if isinstance(v, bytes) else str(v) for v in flat]
    return Beats(int(now), {text[i]: int(float(text[i + 1])) for i in range(0, len(text), 2)})


class Heartbeat:
    """This node's beat, on a thread: every `every_ms`, one BEAT; each reading is handed to
    `on_beats` on the event loop that started it. `connect` makes the blocking redis-py
    client of the thread's own (Store.heartbeat_client), in the thread, again until it
    works: a cluster's client reads the slots when it is made, and Redis may be away."""

    def __init__(self, connect: Callable[[], Any], node: str, every_ms: int, on_beats: Callable[[Beats], None]):
        self.connect = connect
        self.client: Any = None
        self.script: Any = None
        self.node = node
        self.every_s = every_ms / 1000
        self.on_beats = on_beats
        self.stopping = threading.Event()
        self.thread: threading.Thread | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.thread = threading.Thread(target=self._run, name=f"heartbeat {self.node}", daemon=True)
        self.thread.start()

    def stop(self, forget: bool = False) -> None:
        """Stop beating; with `forget`, take this node out of `bh:beats` (it stops for good:
        nobody should take it for dead and look for its matches)."""
        self.stopping.set()
        if self.thread is not None:
            self.thread.join(2 * self.every_s + 1)
        if self.client is None:
            return
        try:
            if forget:
                self.client.zrem(BEATS, self.node)
        except FAILURES as exc:
            log.debug("could not take this node's beat out: %r", exc)
        finally:
            self.client.close()

    def beat(self) -> Beats:
        """One beat (blocking): this node's recorded, everyone's read."""
        if self.client is None:
            self.client = self.connect()
            self.script = self.client.register_script(BEAT)
        return parse(self.script(keys=[BEATS], args=[self.node, FORGET_MS]))

    def _run(self) -> None:
        assert self.loop is not None
        while not self.stopping.is_set():
            started = time.monotonic()
            try:
                beats = self.beat()
            except Exception as exc:  # Redis away (or a cluster's slots unread): readiness reports it; keep trying
                log.debug("heartbeat failed: %r", exc)
            else:
                try:
                    self.loop.call_soon_threadsafe(self.on_beats, beats)
                except RuntimeError:  # the loop closed under us: the server is stopping
                    return
            self.stopping.wait(max(0.0, self.every_s - (time.monotonic() - started)))
