"""The ratings' reads and their one write, the SETTLE script (the rules are
players/ratings.py's; the keys storage/profiles.py's).

Settling a match is one Lua script: it checks that the match was not settled
(`done:<match>`) and that nobody's rating moved since it was read, then writes the
ratings, the leaderboard, the histories and recent matches, and marks the match done,
all at once.
"""

from __future__ import annotations

from dataclasses import dataclass

from battlehall.server.storage import profiles as profile_keys
from battlehall.server.storage.client import Client
from battlehall.server.storage.keys import LIVE, key, unpack
from battlehall.server.storage.profiles import PENDING, text

# KEYS: done mark, pending, leaderboard, then per player: ratings, history, recent; then,
# when rated, one "met" sorted set per pair of players.
# ARGV: match id, ruleset, done ttl, rated (1/0), number of players, the time (ms), the
# oldest meeting kept (ms), the met sets' ttl, then per player: profile id, rating read
# ("" for none), new rating, shown rating, history entry, recent entry.
SETTLE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 0
end
local players = tonumber(ARGV[5])
local rate = ARGV[4] == '1'
if rate then
  for i = 0, players - 1 do
    local current = redis.call('HGET', KEYS[4 + 3 * i], ARGV[2]) or ''
    if current ~= ARGV[10 + 6 * i] then return -1 end
  end
  for k = 4 + 3 * players, #KEYS do
    redis.call('ZADD', KEYS[k], ARGV[6], ARGV[1])
    redis.call('ZREMRANGEBYSCORE', KEYS[k], '-inf', '(' .. ARGV[7])
    redis.call('EXPIRE', KEYS[k], ARGV[8])
  end
end
for i = 0, players - 1 do
  local a = 9 + 6 * i
  if rate then
    redis.call('HSET', KEYS[4 + 3 * i], ARGV[2], ARGV[a + 2])
    redis.call('ZADD', KEYS[3], ARGV[a + 3], ARGV[a])
    redis.call('LPUSH', KEYS[5 + 3 * i], ARGV[a + 4])
    redis.call('LTRIM', KEYS[5 + 3 * i], 0, %(history)d - 1)
  end
  redis.call('LPUSH', KEYS[6 + 3 * i], ARGV[a + 5])
  redis.call('LTRIM', KEYS[6 + 3 * i], 0, %(recent)d - 1)
end
redis.call('SET', KEYS[1], '1', 'EX', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
""" % {"history": profile_keys.HISTORY_KEPT, "recent": profile_keys.RECENT_KEPT}


@dataclass(frozen=True, slots=True)
class SeatRead:
    """What settling reads of a bound seat's profile before it rates."""
    rating: bytes | None  # the stored rating JSON in the ruleset, exactly as stored (the script compares it)
    name: str | None


@dataclass(frozen=True, slots=True)
class PlayerWrite:
    """One player's part of a settle: what was read, and what is written (JSON, encoded)."""
    profile: str
    read: bytes | None
    recent: bytes
    rating: bytes = b""  # the rating after the match, when rated
    shown: float = 0  # its displayed rating, the leaderboard's score
    history: bytes = b""


@dataclass(frozen=True, slots=True)
class Settlement:
    """One match's settle: its players in seat order, and when rated the pairs that met."""
    match_id: str
    ruleset: str
    done_ttl_s: int
    rated: bool
    at: int  # ms: when it ended
    pair_window_s: int
    players: list[PlayerWrite]
    pairs: list[tuple[str, str]]


@dataclass(frozen=True, slots=True)
class LogEntry:
    seq: int  # the first seq of the entry (its stream ID)
    entry: dict


class RatingRecords:
    """The ratings' reads and writes on one Redis client."""

    def __init__(self, client: Client):
        self.client = client
        self._settle = client.register_script(SETTLE)  # EVALSHA, loaded again on NOSCRIPT

    async def settled(self, match_id: str) -> bool:
        return bool(await self.client.exists(profile_keys.done_key(match_id)))

    async def drop_pending(self, match_id: str) -> None:
        await self.client.zrem(PENDING, match_id)

    async def pending(self) -> list[str]:
        """The bound matches not settled yet, oldest first."""
        return [text(m) for m in await self.client.zrange(PENDING, 0, -1)]

    async def not_live(self, match_ids: list[str]) -> list[str]:
        """Those of the matches that are no longer in play."""
        scores = await self.client.zmscore(LIVE, match_ids)
        return [m for m, score in zip(match_ids, scores) if score is None]

    async def log_page(self, match_id: str, first_seq: int, count: int) -> list[LogEntry]:
        """Up to `count` log entries of the match from the one starting at `first_seq` on."""
        rows = await self.client.xrange(key(match_id, "log"), f"{first_seq}-0", "+", count=count)
        return [LogEntry(int(stream_id.split(b"-")[0]), unpack(fields[b"e"])) for stream_id, fields in rows]

    async def meetings(self, ruleset: str, pairs: list[tuple[str, str]], since: int) -> list[int]:
        """How many rated matches each pair of profiles played together in the ruleset since `since` (ms)."""
        pipe = self.client.pipeline(transaction=False)
        for a, b in pairs:
            pipe.zcount(profile_keys.met_key(ruleset, a, b), since, "+inf")
        return [int(n) for n in await pipe.execute()] if pairs else []

    async def seats(self, ruleset: str, profile_ids: list[str]) -> list[SeatRead]:
        pipe = self.client.pipeline(transaction=False)
        for profile_id in profile_ids:
            pipe.hget(profile_keys.ratings_key(profile_id), ruleset)
            pipe.hget(profile_keys.profile_key(profile_id), "name")
        found = await pipe.execute() if profile_ids else []
        return [SeatRead(found[2 * i], text(found[2 * i + 1]) if found[2 * i + 1] is not None else None)
                for i in range(len(profile_ids))]

    async def settle(self, s: Settlement) -> int:
        """Run SETTLE: 1 settled now, 0 settled already, -1 a rating moved since it was read."""
        script_keys = [profile_keys.done_key(s.match_id), PENDING, profile_keys.leaderboard_key(s.ruleset)]
        args: list[str | bytes | int | float] = [
            s.match_id, s.ruleset, s.done_ttl_s, 1 if s.rated else 0, len(s.players), s.at,
            s.at - s.pair_window_s * 1000, s.pair_window_s]
        for p in s.players:
            script_keys += [profile_keys.ratings_key(p.profile), profile_keys.history_key(p.profile, s.ruleset),
                            profile_keys.recent_key(p.profile)]
            args += [p.profile, p.read or b"", p.rating, p.shown, p.history, p.recent]
        if s.rated:
            script_keys += [profile_keys.met_key(s.ruleset, a, b) for a, b in s.pairs]
        return int(await self._settle(keys=script_keys, args=args))
