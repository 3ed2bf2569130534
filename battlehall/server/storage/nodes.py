"""The nodes' records in Redis (the rules of placing and passing on are node/nodes.py's).

Each node keeps `bh:node:<id>` (JSON: its URL, live matches, sockets, whether it is
draining) with a time to live of one lease, rewritten every renewal period, and its id
in the sorted set `bh:nodes` (by when it last wrote), so the live ones are listed
without a SCAN. `bh:alive:<id>` is the node's heartbeat (store.py).
"""

from __future__ import annotations

import orjson

from battlehall.server.storage.client import Client

NODES = "bh:nodes"
FORGET_MS = 24 * 3600 * 1000  # a node silent this long leaves `bh:nodes`


def node_key(node: str) -> str:
    return f"bh:node:{node}"


class NodeRecords:
    def __init__(self, client: Client):
        self.client = client

    async def publish(self, node: str, record: dict, ttl_ms: int, now: int) -> None:
        pipe = self.client.pipeline(transaction=False)
        pipe.set(node_key(node), orjson.dumps(record), px=ttl_ms)
        pipe.zadd(NODES, {node: now})
        pipe.zremrangebyscore(NODES, 0, now - FORGET_MS)
        await pipe.execute()

    async def withdraw(self, node: str) -> None:
        """A node stopping for good: it is no longer a place for matches or redirects."""
        pipe = self.client.pipeline(transaction=False)
        pipe.delete(node_key(node))
        pipe.zrem(NODES, node)
        await pipe.execute()

    async def live(self) -> dict[str, dict]:
        """Every node whose record has not lapsed: id -> record."""
        ids = [n.decode() for n in await self.client.zrange(NODES, 0, -1)]
        if not ids:
            return {}
        pipe = self.client.pipeline(transaction=False)
        for node in ids:
            pipe.get(node_key(node))
        return {node: orjson.loads(raw) for node, raw in zip(ids, await pipe.execute()) if raw is not None}
