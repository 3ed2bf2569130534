"""The spectator counts in Redis (what they mean and when they are written: node/audience.py).

Each node keeps fields of the hash `bh:{id}:watching`: `<node>` = "<count> <ms>", its own
spectators of the match and when it wrote that, and `<node> viewers` = "<viewers> 0", the
distinct viewers they are. The hash goes when no node has refreshed it for TTL_S.

Writes and the nodes' own reads go on the store's upkeep connection (`Store.upkeep`, raw
commands, one send each): through redis-py's pipelines the writes and the reads of a
hundred watched matches cost the server about 4 % of its CPU under a duel load with
spectators. The public summaries' reads go on the store's client.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from battlehall.server.storage.client import Client
from battlehall.server.storage.keys import key

TTL_S = 60  # the hash goes when no node has refreshed it for this long
VIEWERS = " viewers"  # the field `<node> viewers`: the node's distinct viewers of the match


def hash_key(match_id: str) -> str:
    return key(match_id, "watching")


def as_fields(reply: Any) -> dict[bytes, bytes]:
    """An HGETALL reply as a map: a raw connection gives a flat list of fields and values
    (RESP2), redis-py's cluster client a dict."""
    if isinstance(reply, dict):
        return reply
    return dict(zip(reply[::2], reply[1::2]))


class Upkeep(Protocol):
    """The store's upkeep connection: raw commands, one send, the replies in order."""

    async def call(self, commands: list[tuple]) -> list: ...


@dataclass(frozen=True, slots=True)
class NodeCount:
    """This node's spectators of a match and the viewers they are, as of `at` (ms); 0: none."""
    match_id: str
    spectators: int
    viewers: int
    at: int


class AudienceRecords:
    def __init__(self, client: Client, upkeep: Upkeep):
        self.client = client
        self.upkeep = upkeep

    async def write(self, node: str, counts: list[NodeCount], reads: list[str]) -> list[dict[bytes, bytes]]:
        """Write the node's counts (removing its fields where 0), and read every field of
        the `reads` matches, in one send; the fields read, in order."""
        commands: list[tuple] = []
        for c in counts:
            if c.spectators:
                commands += [("HSET", hash_key(c.match_id), node, f"{c.spectators} {c.at}",
                              node + VIEWERS, f"{c.viewers} 0"),
                             ("EXPIRE", hash_key(c.match_id), TTL_S)]
            else:
                commands.append(("HDEL", hash_key(c.match_id), node, node + VIEWERS))
        commands += [("HGETALL", hash_key(match_id)) for match_id in reads]
        if not commands:
            return []
        replies = await self.upkeep.call(commands)
        return [as_fields(fields) for fields in replies[len(replies) - len(reads):]] if reads else []

    async def fields(self, match_ids: list[str]) -> list[dict[bytes, bytes]]:
        """Every node's fields of each match, on the store's client."""
        if not match_ids:
            return []
        pipe = self.client.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.hgetall(hash_key(match_id))
        return [as_fields(fields) for fields in await pipe.execute()]

    async def remove(self, node: str, match_ids: list[str]) -> None:
        """Remove the node's fields of these matches."""
        if match_ids:
            await self.upkeep.call([("HDEL", hash_key(match_id), node, node + VIEWERS) for match_id in match_ids])
