"""Pub/sub, as the other wings hear it: a subscription whose messages are typed, on a
connection of its own. The quick-play queue's finished tickets (queue.py) and the
doorbells of the match logs a node mirrors (`Doorbells`) come this way."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from battlehall.server.storage.client import Client, PubSub
from battlehall.server.storage.keys import key


@dataclass(frozen=True, slots=True)
class Message:
    channel: str
    data: bytes


class Subscription:
    """A pub/sub connection of `client`'s, subscribed to `channels` on `open`."""

    def __init__(self, client: Client, *channels: str):
        self.channels = channels
        self.pubsub: PubSub = client.pubsub(ignore_subscribe_messages=True)

    async def open(self) -> Subscription:
        if self.channels:
            await self.pubsub.subscribe(*self.channels)
        return self

    async def subscribe(self, channel: str) -> None:
        await self.pubsub.subscribe(channel)

    async def unsubscribe(self, channel: str) -> None:
        await self.pubsub.unsubscribe(channel)

    async def next(self, timeout_s: float) -> Message | None:
        """The next message, or None after `timeout_s` without one. StoreUnavailable if the
        connection failed (redis-py subscribes again on the next read)."""
        found = await self.pubsub.get_message(timeout=timeout_s)
        if found is None or found["type"] != "message":
            return None
        channel = found["channel"]
        return Message(channel.decode() if isinstance(channel, bytes) else channel, found["data"])

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.pubsub.aclose()


def tail_channel(match_id: str) -> str:
    """The doorbell of a match's log: in the match's hash tag, like its keys (commands.py rings it)."""
    return key(match_id, "tail")


class Doorbells:
    """The doorbells of the matches a node mirrors, on one pub/sub connection of its own:
    which match's log was written to."""

    def __init__(self, client: Client):
        self.client = client  # the connection's own client: closed with it
        self.subscription = Subscription(client)

    async def add(self, match_id: str) -> None:
        await self.subscription.subscribe(tail_channel(match_id))

    async def remove(self, match_id: str) -> None:
        await self.subscription.unsubscribe(tail_channel(match_id))

    async def next(self, timeout_s: float) -> str | None:
        """The match whose doorbell rang next; None after `timeout_s` without one."""
        message = await self.subscription.next(timeout_s)
        if message is None:
            return None
        return message.channel.partition("{")[2].rpartition("}")[0]

    async def close(self) -> None:
        await self.subscription.close()
        await self.client.aclose()
