"""The quick-play queue in Redis: who waits for a match of which ruleset and seat count
(the rules of pairing and forming are the players wing's: players/queue.py, matcher.py).

One pool per (ruleset, seat count), `<ruleset>:<seats>`, in three keys:

- `bh:{queue}:wait:<pool>`, a sorted set of tickets by join time (ms): who waits, oldest first;
- `bh:{queue}:info:<pool>`, a hash ticket -> JSON {rating, name, joined, profile}: what pairing
  and the match need (`profile`: the proven profile id, or null; never its secret);
- `bh:{queue}:beat:<pool>`, a sorted set of tickets by their last heartbeat (ms): a ticket
  whose heartbeat is older than `TICKET_EXPIRY_MS` is dropped by the matcher.

Each ticket also has `bh:{queue}:t:<ticket>`, a hash any node reads to answer its holder:
`state` (waiting, forming, matched, left, expired, failed), `pool`, `joined`, and once
matched `result` (JSON: the match and this ticket's seat and token).

A group being made into a match is in `bh:{queue}:forming` (group id -> JSON {pool, at,
entries}) from the moment it leaves the wait set until the match is made: its tickets
are in no pool then, so no other group can take them. If the node forming it dies, the
group goes back to the queue after players/queue.py's FORMING_TIMEOUT_MS (REQUEUE);
COMPLETE and REQUEUE both begin by deleting the forming record, so exactly one of them
happens.

Every key carries the hash tag `{queue}`: each script runs on one slot of a Redis Cluster.

`bh:{queue}:matcher` is the matcher's lease (SET NX PX, renewed by RENEW): the one node
holding it matches (`MatcherLease`). A ticket whose state becomes final is published on
`CHANNEL` (`QueueRecords.finished`).
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass

import orjson

from battlehall.server.storage.client import Client
from battlehall.server.storage.profiles import ProfileRecords
from battlehall.server.storage.subscription import Subscription

PREFIX = "bh:{queue}"
FORMING = f"{PREFIX}:forming"
MATCHER_LEASE = f"{PREFIX}:matcher"
#: Published with a ticket id when its state becomes final (matched, failed).
CHANNEL = "bh:queue:done"
#: A waiting ticket whose holder has not been heard from for this long leaves the queue.
TICKET_EXPIRY_MS = 10_000
#: How long a ticket's answer (its match, its seat token) stays readable.
RESULT_TTL_MS = 10 * 60_000
WAITING, FORMING_STATE, MATCHED, LEFT, EXPIRED, FAILED = "waiting", "forming", "matched", "left", "expired", "failed"


def pool_name(ruleset: str, seats: int) -> str:
    return f"{ruleset}:{seats}"


def wait_key(pool: str) -> str:
    return f"{PREFIX}:wait:{pool}"


def info_key(pool: str) -> str:
    return f"{PREFIX}:info:{pool}"


def beat_key(pool: str) -> str:
    return f"{PREFIX}:beat:{pool}"


def ticket_key(ticket: str) -> str:
    return f"{PREFIX}:t:{ticket}"


def pool_keys(pool: str) -> list[str]:
    return [wait_key(pool), info_key(pool), beat_key(pool)]


def new_ticket() -> str:
    # Unguessable: whoever holds a ticket may read its seat token.
    return "q_" + secrets.token_hex(16)


@dataclass(frozen=True, slots=True)
class Entry:
    """One waiting ticket, as pairing sees it."""
    ticket: str
    joined: int  # ms
    rating: float
    name: str
    profile: str | None = None  # proven at join (player_api.prove_profile); the seat is bound to it


# KEYS: wait, info, beat, ticket. ARGV: ticket, now, info JSON, pool, ttl ms.
JOIN = """
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('HSET', KEYS[4], 'state', 'waiting', 'pool', ARGV[4], 'joined', ARGV[2])
redis.call('PEXPIRE', KEYS[4], ARGV[5])
return 1
"""

# KEYS: wait, info, beat, ticket. ARGV: ticket. 1 if it left, 0 if it was not waiting.
LEAVE = """
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[4], 'state', 'left')
return 1
"""

# KEYS: wait, info, beat. ARGV: cutoff ms. The tickets whose last heartbeat is older, removed.
PRUNE = """
local gone = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[1])
for _, ticket in ipairs(gone) do
  redis.call('ZREM', KEYS[1], ticket)
  redis.call('HDEL', KEYS[2], ticket)
  redis.call('ZREM', KEYS[3], ticket)
end
return gone
"""

# KEYS: wait, info, beat, forming, lease, ticket keys... ARGV: lease value, group, now, pool,
# tickets... Takes the group out of the queue into `forming`, all or nothing, and only
# while this node holds the matcher's lease. 1 if taken, 0 if not.
TAKE = """
if redis.call('GET', KEYS[5]) ~= ARGV[1] then
  return 0
end
local n = #ARGV - 4
for i = 1, n do
  if not redis.call('ZSCORE', KEYS[1], ARGV[4 + i]) then
    return 0
  end
end
local entries = {}
for i = 1, n do
  local ticket = ARGV[4 + i]
  entries[i] = {ticket, redis.call('HGET', KEYS[2], ticket)}
  redis.call('ZREM', KEYS[1], ticket)
  redis.call('HDEL', KEYS[2], ticket)
  redis.call('ZREM', KEYS[3], ticket)
  redis.call('HSET', KEYS[5 + i], 'state', 'forming')
end
redis.call('HSET', KEYS[4], ARGV[2], cjson.encode({pool = ARGV[4], at = tonumber(ARGV[3]), entries = entries}))
return 1
"""

# KEYS: forming, ticket keys... ARGV: group, state, ttl ms, channel, one result per ticket.
# Ends a forming group with each ticket's result; 0 if the group is no longer forming
# (it went back to the queue: the match just made must be given up).
COMPLETE = """
if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then
  return 0
end
for i = 2, #KEYS do
  redis.call('HSET', KEYS[i], 'state', ARGV[2], 'result', ARGV[4 + i - 1])
  redis.call('PEXPIRE', KEYS[i], ARGV[3])
  -- the ticket id is the key's tail (new_ticket: 34 characters)
  redis.call('PUBLISH', ARGV[4], string.sub(KEYS[i], -34))
end
return 1
"""

# KEYS: forming, wait, info, beat, ticket keys... ARGV: group, now. Puts a forming group back
# in its pool, each ticket with its first join time (it keeps its place). 0 if not forming.
REQUEUE = """
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then
  return 0
end
redis.call('HDEL', KEYS[1], ARGV[1])
local group = cjson.decode(raw)
for i, entry in ipairs(group.entries) do
  local ticket, info = entry[1], entry[2]
  if info then
    redis.call('ZADD', KEYS[2], cjson.decode(info).joined, ticket)
    redis.call('HSET', KEYS[3], ticket, info)
    redis.call('ZADD', KEYS[4], ARGV[2], ticket)
    redis.call('HSET', KEYS[4 + i], 'state', 'waiting')
  end
end
return 1
"""


# KEYS: lease. ARGV: value, lease ms. 1 if still ours (renewed), else 0.
RENEW = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
return 0
"""


def info_json(rating: float, name: str, joined: int, profile: str | None = None) -> bytes:
    return orjson.dumps({"rating": rating, "name": name, "joined": joined, "profile": profile})


def entries(waiting: list[tuple[bytes, float]], infos: dict[bytes, bytes]) -> list[Entry]:
    """The pool's waiting tickets (ZRANGE ... WITHSCORES and HGETALL of info), oldest first."""
    out = []
    for ticket, _ in waiting:
        raw = infos.get(ticket)
        if raw is None:  # joined between the two reads: next pass
            continue
        info = orjson.loads(raw)
        out.append(Entry(ticket.decode(), int(info["joined"]), float(info["rating"]), info["name"],
                         info.get("profile")))
    return out


class QueueRecords:
    """The queue's reads and writes for one node (every node has one), on one Redis client:
    the store's, or a pool of its own (`own`: closed with it)."""

    def __init__(self, client: Client, own: bool = False):
        self.client = client
        self.own = own
        self.profiles = ProfileRecords(client)  # the joins' ratings and proofs, on the same connections
        self._scripts = {name: client.register_script(text) for name, text in
                         (("join", JOIN), ("leave", LEAVE), ("prune", PRUNE), ("take", TAKE),
                          ("complete", COMPLETE), ("requeue", REQUEUE), ("renew", RENEW))}

    async def close(self) -> None:
        if self.own:
            await self.client.aclose()

    async def join(self, pool: str, rating: float, name: str, now: int, profile: str | None = None) -> str:
        ticket = new_ticket()
        await self._scripts["join"](keys=[*pool_keys(pool), ticket_key(ticket)],
                                    args=[ticket, now, info_json(rating, name, now, profile), pool, RESULT_TTL_MS])
        return ticket

    async def leave(self, pool: str, ticket: str) -> bool:
        return bool(await self._scripts["leave"](keys=[*pool_keys(pool), ticket_key(ticket)], args=[ticket]))

    async def status(self, ticket: str) -> dict[str, str] | None:
        found: dict[bytes, bytes] = await self.client.hgetall(ticket_key(ticket))
        raw = {k.decode(): v.decode() for k, v in found.items()}
        return raw if "pool" in raw and "joined" in raw else None  # a part written after it expired: gone

    async def heartbeat(self, pool: str, ticket: str, now: int) -> None:
        """The ticket's holder is still there (only a waiting ticket is in `beat`: XX)."""
        pipe = self.client.pipeline(transaction=False)
        pipe.zadd(beat_key(pool), {ticket: now}, xx=True)
        pipe.pexpire(ticket_key(ticket), RESULT_TTL_MS)
        await pipe.execute()

    async def prune(self, pool: str, now: int) -> list[str]:
        gone = [t.decode() for t in await self._scripts["prune"](keys=pool_keys(pool), args=[now - TICKET_EXPIRY_MS])]
        if gone:
            pipe = self.client.pipeline(transaction=False)
            for ticket in gone:
                pipe.hset(ticket_key(ticket), "state", EXPIRED)
            await pipe.execute()
        return gone

    async def sizes(self, pools: list[str]) -> list[int]:
        pipe = self.client.pipeline(transaction=False)
        for pool in pools:
            pipe.zcard(wait_key(pool))
        return [int(n) for n in await pipe.execute()]

    async def waiting(self, pool: str) -> list[Entry]:
        pipe = self.client.pipeline(transaction=False)
        pipe.zrange(wait_key(pool), 0, -1, withscores=True)
        pipe.hgetall(info_key(pool))
        waiting, infos = await pipe.execute()
        return entries(waiting, infos)

    async def take(self, lease: str, pool: str, groups: dict[str, list[str]], now: int) -> list[bool]:
        """Take each group (id -> tickets) out of the pool, all at once: whether each was.
        (Concurrent calls, not a pipeline: redis-py refuses scripts in a cluster pipeline.)"""
        async def one(group: str, tickets: list[str]) -> bool:
            keys = [*pool_keys(pool), FORMING, MATCHER_LEASE, *(ticket_key(t) for t in tickets)]
            return bool(await self._scripts["take"](keys=keys, args=[lease, group, now, pool, *tickets]))
        return list(await asyncio.gather(*(one(g, t) for g, t in groups.items())))

    async def complete(self, group: str, results: dict[str, dict], state: str = MATCHED) -> bool:
        tickets = list(results)
        keys = [FORMING, *(ticket_key(t) for t in tickets)]
        args = [group, state, RESULT_TTL_MS, CHANNEL, *(orjson.dumps(results[t]) for t in tickets)]
        return bool(await self._scripts["complete"](keys=keys, args=args))

    async def forming(self) -> dict[str, dict]:
        found: dict[bytes, bytes] = await self.client.hgetall(FORMING)
        return {g.decode(): orjson.loads(raw) for g, raw in found.items()}

    async def requeue(self, group: str, pool: str, tickets: list[str], now: int) -> bool:
        """Put a forming group back in its pool (`tickets` in the order it was taken)."""
        keys = [FORMING, *pool_keys(pool), *(ticket_key(t) for t in tickets)]
        return bool(await self._scripts["requeue"](keys=keys, args=[group, now]))

    def finished(self) -> Subscription:
        """A subscription to the tickets whose state became final (matched, failed): each
        message's data is a ticket id. Not on a Redis Cluster (quick_play.py polls there)."""
        return Subscription(self.client, CHANNEL)

    def matcher_lease(self, value: str, lease_ms: int) -> MatcherLease:
        return MatcherLease(self, value, lease_ms)


class MatcherLease:
    """The matcher's lease, `value` this run's (a restart is a new holder)."""

    def __init__(self, records: QueueRecords, value: str, lease_ms: int):
        self.client = records.client
        self._renew = records._scripts["renew"]
        self.value = value
        self.lease_ms = lease_ms

    async def take(self) -> bool:
        """Take the lease if nobody holds it."""
        return bool(await self.client.set(MATCHER_LEASE, self.value, nx=True, px=self.lease_ms))

    async def renew(self) -> bool:
        """Renew the lease: False if it is no longer this run's."""
        return bool(await self._renew(keys=[MATCHER_LEASE], args=[self.value, self.lease_ms]))

    async def release(self) -> None:
        """Give the lease up if it is still this run's."""
        if await self.client.get(MATCHER_LEASE) == self.value.encode():
            await self.client.delete(MATCHER_LEASE)
