"""Player profiles' keys in Redis and their commands (the rules are players/profiles.py's).

Every key shares the hash tag `{profiles}`, so that a rating update touching several
players and the leaderboard is one script on one Redis Cluster slot (ratings.py):

    bh:{profiles}:p:<id>            hash: name, secret (SHA-256 of it), kind, created_at, sub
    bh:{profiles}:r:<id>            hash: ruleset -> rating JSON {mu, sigma, rating, matches}
    bh:{profiles}:h:<id>:<ruleset>  list: rating history, newest first (HISTORY_KEPT)
    bh:{profiles}:m:<id>            list: recent matches, newest first (RECENT_KEPT)
    bh:{profiles}:lb:<ruleset>      sorted set: id -> displayed rating (the leaderboard)
    bh:{profiles}:sub:<sha256(sub)> the profile of an operator's player (vouch.py)
    bh:{profiles}:done:<match>      a bound match already settled (ratings.py)
    bh:{profiles}:pending           sorted set: bound matches not settled yet, by creation time
    bh:{profiles}:met:<ruleset>:<a>:<b>  sorted set: the rated matches of profiles a < b
                                    together, by end time, for a day (ratings.PAIR_LIMIT)
    bh:{profiles}:sk:<sha256(skeleton)>  hash: tag -> the profile that took a name of this
                                    confusable skeleton (names.skeleton) with this tag
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any, Mapping

import orjson

from battlehall.server.storage.client import Client

PREFIX = "bh:{profiles}:"
PENDING = PREFIX + "pending"
HISTORY_KEPT = 100
RECENT_KEPT = 50

#: Take a (skeleton, tag) for a profile unless another holds it: 1 if it is the profile's.
#: A script, not HSETNX: one step, with the commands the documented ACL already allows.
TAKE_NAME = """
local holder = redis.call('HGET', KEYS[1], ARGV[1])
if not holder then
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  return 1
end
if holder == ARGV[2] then return 1 end
return 0
"""


def profile_key(profile_id: str) -> str:
    return f"{PREFIX}p:{profile_id}"


def ratings_key(profile_id: str) -> str:
    return f"{PREFIX}r:{profile_id}"


def history_key(profile_id: str, ruleset: str) -> str:
    return f"{PREFIX}h:{profile_id}:{ruleset}"


def recent_key(profile_id: str) -> str:
    return f"{PREFIX}m:{profile_id}"


def leaderboard_key(ruleset: str) -> str:
    return f"{PREFIX}lb:{ruleset}"


def done_key(match_id: str) -> str:
    return f"{PREFIX}done:{match_id}"


def met_key(ruleset: str, a: str, b: str) -> str:
    """The rated matches two profiles played together (`a` < `b`), by when they ended."""
    return f"{PREFIX}met:{ruleset}:{a}:{b}"


def skeleton_key(skeleton: str) -> str:
    """The tags taken with names of this skeleton (hashed: a skeleton is any length of any script)."""
    return f"{PREFIX}sk:{hashlib.sha256(skeleton.encode()).hexdigest()}"


def sub_key(sub: str) -> str:
    return f"{PREFIX}sub:{hashlib.sha256(sub.encode()).hexdigest()}"


def text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


@dataclass(frozen=True, slots=True)
class ProfileCard:
    """A profile's own fields that anyone may see."""
    name: str
    kind: str
    created_at: int


@dataclass(frozen=True, slots=True)
class ProfileLists:
    """A profile's rating history per ruleset and its recent matches, newest first (stored JSON, parsed)."""
    history: dict[str, list[dict]]
    recent: list[dict]


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    profile: str
    score: float  # the displayed rating the leaderboard ranks by
    name: str | None
    rating: dict | None  # the stored rating JSON, parsed; None if the profile has none in the ruleset


class ProfileRecords:
    """The profiles' reads and writes on one Redis client (the store's, or quick play's own)."""

    def __init__(self, client: Client):
        self.client = client
        self._take_name = client.register_script(TAKE_NAME)

    async def take_name(self, skeleton: str, tag: str, profile_id: str) -> bool:
        """Take (skeleton, tag) for the profile: True if it is now the profile's."""
        return bool(await self._take_name(keys=[skeleton_key(skeleton)], args=[tag, profile_id]) == 1)

    async def create(self, profile_id: str, fields: Mapping[str, str | bytes | int]) -> None:
        await self.client.hset(profile_key(profile_id), mapping=dict(fields))

    async def of_sub(self, sub: str) -> str | None:
        """The profile made for an operator's player, if any."""
        found = await self.client.get(sub_key(sub))
        return text(found) if found is not None else None

    async def claim_sub(self, sub: str, profile_id: str) -> bool:
        """Make `profile_id` the operator's player's profile unless one already is (SET NX)."""
        return bool(await self.client.set(sub_key(sub), profile_id, nx=True))

    async def name(self, profile_id: str) -> str | None:
        found = await self.client.hget(profile_key(profile_id), "name")
        return text(found) if found is not None else None

    async def secret_digest(self, profile_id: str) -> bytes | None:
        found: bytes | None = await self.client.hget(profile_key(profile_id), "secret")
        return found

    async def exists(self, profile_id: str) -> bool:
        return bool(await self.client.exists(profile_key(profile_id)))

    async def set_name(self, profile_id: str, name: str) -> None:
        await self.client.hset(profile_key(profile_id), "name", name)

    async def names(self, profile_ids: list[str]) -> list[str | None]:
        if not profile_ids:
            return []
        pipe = self.client.pipeline(transaction=False)
        for profile_id in profile_ids:
            pipe.hget(profile_key(profile_id), "name")
        return [text(n) if n is not None else None for n in await pipe.execute()]

    async def ratings(self, profile_id: str) -> dict[str, dict]:
        """Ruleset -> the stored rating JSON, parsed, by ruleset name."""
        raw: dict[Any, bytes] = await self.client.hgetall(ratings_key(profile_id))
        return {text(k): orjson.loads(v) for k, v in sorted(raw.items())}

    async def card(self, profile_id: str) -> ProfileCard | None:
        found = await self.client.hmget(profile_key(profile_id), ["name", "kind", "created_at"])
        if found[0] is None:
            return None
        return ProfileCard(text(found[0]), text(found[1]), int(found[2]))

    async def lists(self, profile_id: str, rulesets: list[str]) -> ProfileLists:
        pipe = self.client.pipeline(transaction=False)
        for ruleset in rulesets:
            pipe.lrange(history_key(profile_id, ruleset), 0, HISTORY_KEPT - 1)
        pipe.lrange(recent_key(profile_id), 0, RECENT_KEPT - 1)
        found = await pipe.execute()
        return ProfileLists({ruleset: [orjson.loads(h) for h in found[i]] for i, ruleset in enumerate(rulesets)},
                            [orjson.loads(m) for m in found[-1]])

    async def leaderboard(self, ruleset: str, offset: int, limit: int) -> tuple[list[LeaderboardRow], int]:
        """One page of the ruleset's leaderboard, best first, and its total size."""
        key = leaderboard_key(ruleset)
        pipe = self.client.pipeline(transaction=False)
        pipe.zrevrange(key, offset, offset + limit - 1, withscores=True)
        pipe.zcard(key)
        page, total = await pipe.execute()
        ids = [text(member) for member, _ in page]
        pipe = self.client.pipeline(transaction=False)
        for profile_id in ids:
            pipe.hget(profile_key(profile_id), "name")
            pipe.hget(ratings_key(profile_id), ruleset)
        found = await pipe.execute() if ids else []
        rows = []
        for i, profile_id in enumerate(ids):
            name, rating = found[2 * i], found[2 * i + 1]
            rows.append(LeaderboardRow(profile_id, float(page[i][1]), text(name) if name is not None else None,
                                       orjson.loads(rating) if rating is not None else None))
        return rows, int(total)

    async def mark_pending(self, match_id: str) -> None:
        """A match with profiles bound to its seats: settled at its end (ratings.py)."""
        await self.client.zadd(PENDING, {match_id: 0})
