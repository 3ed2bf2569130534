"""Player profiles in Redis: guest profiles (a display name and a secret the browser keeps)
and profiles vouched for by an operator's token (vouch.py), their ratings per ruleset,
rating history and recent matches.

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

Only the SHA-256 of a secret is kept: a copy of Redis does not let anyone rename a player.

Names are not unique: every name is shown with its profile's **tag**, the first
TAG_LENGTH hex digits of the profile id ("Alice#4f2a"), which stays the same through
renames and needs no lookup wherever a profile id is at hand. What makes two players
told apart is that no two profiles hold names of one skeleton with one tag: a profile
takes a name's (skeleton, tag) when it first takes the name, and keeps it, so that an old
match's "Alice#4f2a" is never another player's. A guest or a new vouched profile whose
name's pair is taken is given another id; a rename to one is refused (`NameTaken`).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import TypeGuard

import orjson

from battlehall.server import errors
from battlehall.server.clock import now_ms
from battlehall.server.players import names
from battlehall.server.players.rating_view import readable
from battlehall.server.players.vouch import Vouched

PREFIX = "bh:{profiles}:"
PENDING = PREFIX + "pending"
HISTORY_KEPT = 100
RECENT_KEPT = 50
PROFILE_ID = re.compile(r"^p_[0-9a-f]{16}$")
TAG_LENGTH = 4
#: Ids drawn for a new profile before its name is refused: each is taken with a chance of
#: (profiles holding a name of that skeleton) / 16**TAG_LENGTH.
NEW_ID_TRIES = 8


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
#: Why a name is refused when NameTaken, after "a display name ".
TAKEN = "looks like another player's name with the same tag: choose another name"


class NameTaken(ValueError):
    """Another profile with the same tag holds a name that looks like this one."""


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


def skeleton_key(name: str) -> str:
    """The tags taken with names that look like `name` (hashed: a skeleton is any length of any script)."""
    return f"{PREFIX}sk:{hashlib.sha256(names.skeleton(name).encode()).hexdigest()}"


def tag(profile_id: str) -> str:
    """What a profile's name is shown with, to tell it from another's that looks the same."""
    return profile_id[2:2 + TAG_LENGTH]


def _new_id() -> str:
    return "p_" + secrets.token_hex(8)


def _sub_key(sub: str) -> str:
    return f"{PREFIX}sub:{hashlib.sha256(sub.encode()).hexdigest()}"


def _digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else value


def is_profile_id(value: object) -> TypeGuard[str]:
    return isinstance(value, str) and PROFILE_ID.match(value) is not None


class Profiles:
    """Profiles on one Redis client (the store's: `Store.redis`)."""

    def __init__(self, redis):
        self.redis = redis

    async def take_name(self, profile_id: str, name: str) -> bool:
        """Take the (skeleton, tag) of `name` for the profile: True if it is now the profile's,
        False if another profile holds it. Never given back (see the module's docstring)."""
        taken = await self.redis.register_script(TAKE_NAME)(keys=[skeleton_key(name)],
                                                            args=[tag(profile_id), profile_id])
        return taken == 1

    async def _new_id_for(self, name: str) -> str:
        """A new profile id that has taken `name`; NameTaken when NEW_ID_TRIES ids could not."""
        for _ in range(NEW_ID_TRIES):
            profile_id = _new_id()
            if await self.take_name(profile_id, name):
                return profile_id
        raise NameTaken(name)

    async def create_guest(self, name: str) -> tuple[str, str]:
        """A new guest profile for a validated name: (its id, its secret)."""
        profile_id = await self._new_id_for(name)
        secret = secrets.token_urlsafe(24)
        await self.redis.hset(profile_key(profile_id), mapping={
            "name": name, "secret": _digest(secret), "kind": "guest", "created_at": now_ms()})
        return profile_id, secret

    async def vouched(self, player: Vouched) -> str:
        """The profile of an operator's player, made on first use; renamed when the token's name
        changed. errors.TokenInvalid if that name looks like another player's with the same tag:
        the token's name is refused as a bad one is (vouch.py)."""
        key = _sub_key(player.sub)
        try:
            existing = await self.redis.get(key)
            profile_id = _text(existing) if existing is not None else await self._new_id_for(player.name)
            if existing is None and await self.redis.set(key, profile_id, nx=True):
                await self.redis.hset(profile_key(profile_id), mapping={
                    "name": player.name, "kind": "vouched", "sub": player.sub, "created_at": now_ms()})
                return profile_id
            profile_id = _text(await self.redis.get(key))
            if _text(await self.redis.hget(profile_key(profile_id), "name")) != player.name:
                await self.rename(profile_id, player.name)
            return profile_id
        except NameTaken:
            raise errors.TokenInvalid(f"the token's name {TAKEN}") from None

    async def check_secret(self, profile_id: object, secret: object) -> bool:
        """True if `secret` is the guest profile's own."""
        if not is_profile_id(profile_id) or not isinstance(secret, str) or len(secret) > 256:
            return False
        stored = await self.redis.hget(profile_key(profile_id), "secret")
        return stored is not None and hmac.compare_digest(stored, _digest(secret))

    async def exists(self, profile_id: str) -> bool:
        return is_profile_id(profile_id) and bool(await self.redis.exists(profile_key(profile_id)))

    async def rename(self, profile_id: str, name: str) -> None:
        """Rename to a validated name; NameTaken if another profile with this tag holds one like it."""
        if not await self.take_name(profile_id, name):
            raise NameTaken(name)
        await self.redis.hset(profile_key(profile_id), "name", name)

    async def names(self, profile_ids: list[str]) -> list[str | None]:
        if not profile_ids:
            return []
        pipe = self.redis.pipeline(transaction=False)
        for profile_id in profile_ids:
            pipe.hget(profile_key(profile_id), "name")
        return [_text(n) if n is not None else None for n in await pipe.execute()]

    async def ratings(self, profile_id: str) -> dict[str, dict]:
        raw = await self.redis.hgetall(ratings_key(profile_id))
        return {_text(k): readable(orjson.loads(v)) for k, v in sorted(raw.items())}

    async def public(self, profile_id: str) -> dict | None:
        """What anyone may see of a profile: name, kind, ratings, history per ruleset, recent matches."""
        if not is_profile_id(profile_id):
            return None
        found = await self.redis.hmget(profile_key(profile_id), ["name", "kind", "created_at"])
        if found[0] is None:
            return None
        ratings = await self.ratings(profile_id)
        pipe = self.redis.pipeline(transaction=False)
        for ruleset in ratings:
            pipe.lrange(history_key(profile_id, ruleset), 0, HISTORY_KEPT - 1)
        pipe.lrange(recent_key(profile_id), 0, RECENT_KEPT - 1)
        lists = await pipe.execute()
        history = {ruleset: [readable(orjson.loads(h)) for h in lists[i]] for i, ruleset in enumerate(ratings)}
        recent = [readable(orjson.loads(m)) for m in lists[-1]]
        for match in recent:
            match["replay"] = f"/replay/{match['match']}"
            for player in match.get("players", ()):
                player["tag"] = tag(player["profile"]) if is_profile_id(player.get("profile")) else None
        return {"profile": profile_id, "name": _text(found[0]), "tag": tag(profile_id), "kind": _text(found[1]),
                "created_at": int(found[2]), "ratings": ratings, "history": history, "recent_matches": recent}

    async def leaderboard(self, ruleset: str, offset: int, limit: int) -> tuple[list[dict], int]:
        """One page of the ruleset's leaderboard, best first, and its total size."""
        key = leaderboard_key(ruleset)
        pipe = self.redis.pipeline(transaction=False)
        pipe.zrevrange(key, offset, offset + limit - 1, withscores=True)
        pipe.zcard(key)
        page, total = await pipe.execute()
        ids = [_text(member) for member, _ in page]
        pipe = self.redis.pipeline(transaction=False)
        for profile_id in ids:
            pipe.hget(profile_key(profile_id), "name")
            pipe.hget(ratings_key(profile_id), ruleset)
        found = await pipe.execute() if ids else []
        rows = []
        for i, profile_id in enumerate(ids):
            name, rating = found[2 * i], found[2 * i + 1]
            rows.append({"rank": offset + i + 1, "profile": profile_id,
                         "name": _text(name) if name is not None else None, "tag": tag(profile_id),
                         **readable(orjson.loads(rating) if rating is not None else {"rating": page[i][1]})})
        return rows, total

