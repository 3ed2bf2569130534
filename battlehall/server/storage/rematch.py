"""A match's rematch in Redis (the rules: http/rematch.py). Under the match's hash tag, so
any node answers: `bh:{id}:rematch` a hash of seat -> 1 (the offers), `bh:{id}:rematch_of`
the new match's id (SET NX: however many last acceptances arrive at once, one makes the
match), `bh:{id}:rematch_made` the new match with each old seat's new token."""

from __future__ import annotations

from dataclasses import dataclass

from battlehall.server.storage.client import Client
from battlehall.server.storage.keys import key

MAKING = b"making"  # `rematch_of` while its match is being made


@dataclass(frozen=True, slots=True)
class Offered:
    offered: set[str]  # the seats that offered so far
    made: bool  # whether the rematch was made already


@dataclass(frozen=True, slots=True)
class Offers:
    offered: set[str]  # the seats that offered
    made: dict[str, str]  # the new match: match, ws, ws_url, token:<seat>...; {} until made


class RematchRecords:
    def __init__(self, client: Client):
        self.client = client

    async def offer(self, match_id: str, seat: str, ttl_s: int) -> Offered:
        """Record the seat's offer (the offers expire after `ttl_s`)."""
        offers_key = key(match_id, "rematch")
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.hset(offers_key, seat, 1)
            pipe.expire(offers_key, ttl_s)
            pipe.hkeys(offers_key)
            pipe.exists(key(match_id, "rematch_made"))
            _, _, offered, made = await pipe.execute()
        return Offered({s.decode() for s in offered}, bool(made))

    async def withdraw(self, match_id: str, seat: str) -> None:
        await self.client.hdel(key(match_id, "rematch"), seat)

    async def claim(self, match_id: str, claim_s: int) -> bool:
        """Claim the making of the rematch for `claim_s`: False if another acceptance holds it."""
        return bool(await self.client.set(key(match_id, "rematch_of"), MAKING, nx=True, ex=claim_s))

    async def unclaim(self, match_id: str) -> None:
        await self.client.delete(key(match_id, "rematch_of"))

    async def made(self, match_id: str, new_match: str, made: dict[str, str], ttl_s: int) -> None:
        """Record the rematch made: `made` its fields (see `Offers.made`)."""
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.hset(key(match_id, "rematch_made"), mapping=made)
            pipe.expire(key(match_id, "rematch_made"), ttl_s)
            pipe.set(key(match_id, "rematch_of"), new_match, ex=ttl_s)
            await pipe.execute()

    async def is_made(self, match_id: str) -> bool:
        return bool(await self.client.exists(key(match_id, "rematch_made")))

    async def offers(self, match_id: str) -> Offers:
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.hkeys(key(match_id, "rematch"))
            pipe.hgetall(key(match_id, "rematch_made"))
            offered, made = await pipe.execute()
        return Offers({s.decode() for s in offered}, {k.decode(): v.decode() for k, v in made.items()})
