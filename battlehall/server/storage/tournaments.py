"""An event's Redis (docs/tournaments.md): its keys, its creation, the one script every
entry of its log goes through, its reads, its lease and the listing.

Keys of one event carry its hash tag, `bh:t:{t_...}:<part>`, so they live in one slot of
a Redis Cluster, as a match's do: `meta` (the spec, the seed, the organiser token's
hash), `log` (a Stream, entry N has the ID `N-0`: the entry `e` and the lease it was
written under `o`), `seats` (a hash, profile -> its current table with its seat token:
private), `owner`, `epoch`, `held` (the lease, as a match's: lease.py's scripts).
Outside any event's slot: `bh:tlive` (events not ended, for the takeover sweep) and the
listing's three sorted sets (public events by status), changed by separate commands
after the log's entry has landed, as a match leaves `bh:live`.

APPEND checks the position of the entries (the log's length the writer folded), so two
writers never both append after the same entry (the second is `Stale`, folds again and
decides again), and, when a lease is given, that the lease is still the writer's
(`Fenced` otherwise): a node paused past its lease appends nothing after the next owner.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import orjson

from battlehall.server.storage import lease as leases
from battlehall.server.storage.store import LIVE as MATCHES_LIVE
from battlehall.server.storage.store import Fenced, Store, StoreUnavailable

LIVE = "bh:tlive"
LISTS = {"upcoming": "bh:tlist:upcoming", "running": "bh:tlist:running", "finished": "bh:tlist:finished"}
HISTORY_S = 400 * 24 * 3600  # a player's history of events lasts a year past their last entry
PLAYED = "bh:tplayed:"  # + a profile id: the events it entered, by when (a player's history)
MADE = "~made"  # the seats hash's count of writes (no profile id starts with "~")
PARTS = ("log", "owner", "meta", "seats", "epoch", "held")  # APPEND's keys, in order

# KEYS: log, owner, then the event's other keys (meta, seats, epoch, held) for the expiry.
# ARGV: the count of entries the writer folded, its lease ('' for none: a route's entry),
#       the retention in seconds ('' unless the event ends), then each entry (JSON).
# Returns the new count; errors STALE <count> or FENCED, and then appends nothing.
APPEND = """
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local count = 0
if #last > 0 then
  count = tonumber(string.match(last[1][1], '^(%d+)'))
end
if count ~= tonumber(ARGV[1]) then
  return redis.error_reply('STALE ' .. count)
end
if ARGV[2] ~= '' and redis.call('GET', KEYS[2]) ~= ARGV[2] then
  return redis.error_reply('FENCED this node no longer holds the event')
end
for i = 4, #ARGV do
  count = count + 1
  redis.call('XADD', KEYS[1], count .. '-0', 'e', ARGV[i], 'o', ARGV[2])
end
if ARGV[3] ~= '' then
  for i = 1, #KEYS do
    if i ~= 2 then
      redis.call('EXPIRE', KEYS[i], ARGV[3])
    end
  end
end
return count
"""


class Stale(Exception):
    """The log has grown since the writer folded it: fold again, decide again."""

    def __init__(self, count: int):
        super().__init__(f"the log has {count} entries now")
        self.count = count


def tkey(tournament_id: str, part: str) -> str:
    return f"bh:t:{{{tournament_id}}}:{part}"


def organiser_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(slots=True)
class Loaded:
    """An event as Redis has it: its settings and every entry of its log, in order."""
    meta: dict
    entries: list[dict]

    @property
    def version(self) -> int:
        return len(self.entries)


class Tournaments:
    """The events' storage, on the store's clients (every failure is StoreUnavailable)."""

    def __init__(self, store: Store):
        self.store = store
        self.redis = store.client
        self._append = self.redis.register_script(APPEND)
        self._acquire = self.redis.register_script(leases.ACQUIRE)
        self._renew = self.redis.register_script(leases.RENEW)
        self._release = self.redis.register_script(leases.RELEASE)

    # -- creation and the log -----------------------------------------------------------

    async def create(self, tournament_id: str, meta: dict, lease: str, lease_ms: int, listed: bool) -> None:
        """A new event: its settings, and this node's lease on it (token 1)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(tkey(tournament_id, "meta"), orjson.dumps(meta))
            pipe.set(tkey(tournament_id, "epoch"), 1)
            pipe.set(tkey(tournament_id, "held"), meta["created_at"])
            pipe.set(tkey(tournament_id, "owner"), lease, px=lease_ms)
            await pipe.execute()
        async with self.redis.pipeline(transaction=False) as pipe:  # keys of no event's slot
            pipe.zadd(LIVE, {tournament_id: meta["created_at"]})
            if listed:
                pipe.zadd(LISTS["upcoming"], {tournament_id: meta["created_at"]})
            await pipe.execute()

    async def append(self, tournament_id: str, version: int, entries: list[dict], lease: str | None = None,
                     retention_s: int | None = None) -> int:
        """Append `entries` after the first `version` entries; the new count. Stale if the
        log has grown meanwhile, Fenced if `lease` is given and no longer holds the event."""
        keys = [tkey(tournament_id, part) for part in PARTS]
        args = [version, lease or "", retention_s if retention_s is not None else "",
                *(orjson.dumps(e) for e in entries)]
        try:
            return int(await self._append(keys=keys, args=args))
        except StoreUnavailable as exc:
            text = str(exc)
            if text.startswith("STALE "):
                raise Stale(int(text.split()[1])) from None
            if text.startswith("FENCED"):
                raise Fenced(text) from None
            raise

    async def load(self, tournament_id: str) -> Loaded | None:
        """The event's settings and whole log; None for no such event."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(tkey(tournament_id, "meta"))
            pipe.xrange(tkey(tournament_id, "log"))
            meta, rows = await pipe.execute()
        if meta is None:
            return None
        return Loaded(orjson.loads(meta), [orjson.loads(fields[b"e"]) for _, fields in rows])

    async def entries_after(self, tournament_id: str, version: int) -> list[dict]:
        """The entries after the first `version`, in order."""
        rows = await self.redis.xrange(tkey(tournament_id, "log"), f"{version + 1}-0")
        return [orjson.loads(fields[b"e"]) for _, fields in rows]

    async def version(self, tournament_id: str) -> int:
        return int(await self.redis.xlen(tkey(tournament_id, "log")))

    # -- seats: each player's current table, with its seat token -------------------------

    async def set_seats(self, tournament_id: str, tables: dict[str, dict]) -> None:
        """Each player's current table; `MADE` counts the writes (a player's entry changes
        without the log growing: its long poll reads this too)."""
        if tables:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.hset(tkey(tournament_id, "seats"), mapping={p: orjson.dumps(t) for p, t in tables.items()})
                pipe.hincrby(tkey(tournament_id, "seats"), MADE, 1)
                await pipe.execute()

    async def seat(self, tournament_id: str, profile: str) -> tuple[dict | None, int]:
        """The player's current table (None: none yet), and the count of tables made so far."""
        raw, made = await self.redis.hmget(tkey(tournament_id, "seats"), [profile, MADE])
        return (orjson.loads(raw) if raw is not None else None), int(made or 0)

    async def seats_of(self, tournament_id: str, profiles: list[str]) -> list[dict | None]:
        """Each player's current table, in one read."""
        if not profiles:
            return []
        raws = await self.redis.hmget(tkey(tournament_id, "seats"), profiles)
        return [orjson.loads(raw) if raw is not None else None for raw in raws]

    # -- status: the listing and the takeover's list --------------------------------------

    async def moved(self, tournament_id: str, status: str, at: int, listed: bool) -> None:
        """The event is now `status` (registering, running, finished, cancelled): its
        place in the listing, and off the takeover's list once it has ended."""
        shown = {"registering": "upcoming", "running": "running"}.get(status, "finished")
        async with self.redis.pipeline(transaction=False) as pipe:
            for name, key in LISTS.items():
                if name != shown:
                    pipe.zrem(key, tournament_id)
            if listed:
                pipe.zadd(LISTS[shown], {tournament_id: at})
            if shown == "finished":
                pipe.zrem(LIVE, tournament_id)
            await pipe.execute()

    async def listing(self, status: str | None, offset: int, limit: int) -> tuple[list[str], bool]:
        """A page of public event ids (upcoming: oldest first; others: newest first), and
        whether more follow."""
        if status is None:
            scored: list[tuple[float, str]] = []
            for key in LISTS.values():
                scored += [(score, i.decode()) for i, score in await self.redis.zrange(key, 0, -1, withscores=True)]
            page = [i for _, i in sorted(scored, reverse=True)][offset:offset + limit + 1]  # latest change first
        elif status == "upcoming":
            page = [i.decode() for i in await self.redis.zrange(LISTS[status], offset, offset + limit)]
        else:
            page = [i.decode() for i in await self.redis.zrevrange(LISTS[status], offset, offset + limit)]
        return page[:limit], len(page) > limit

    async def entered(self, profile: str, tournament_id: str, at: int) -> None:
        """The profile entered the event: in its history (kept while it plays now and then)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zadd(PLAYED + profile, {tournament_id: at})
            pipe.expire(PLAYED + profile, HISTORY_S)
            await pipe.execute()

    async def entered_by(self, profile: str, offset: int, limit: int) -> tuple[list[str], bool]:
        """A page of the events the profile entered, the latest first, and whether more follow."""
        page = [i.decode() for i in await self.redis.zrevrange(PLAYED + profile, offset, offset + limit)]
        return page[:limit], len(page) > limit

    async def forget_entered(self, profile: str, tournament_ids: list[str]) -> None:
        """Events gone past their retention leave the profile's history."""
        if tournament_ids:
            await self.redis.zrem(PLAYED + profile, *tournament_ids)

    async def unlist(self, tournament_ids: list[str]) -> None:
        """Events past their retention: out of the listing."""
        if tournament_ids:
            async with self.redis.pipeline(transaction=False) as pipe:
                for key in LISTS.values():
                    pipe.zrem(key, *tournament_ids)
                await pipe.execute()

    async def live_flags(self, match_ids: list[str]) -> list[bool]:
        """Whether each match is still live (in `bh:live`), in one round trip."""
        if not match_ids:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                pipe.zscore(MATCHES_LIVE, match_id)
            return [score is not None for score in await pipe.execute()]

    async def live_ids(self) -> list[str]:
        return [i.decode() for i in await self.redis.zrange(LIVE, 0, -1)]

    # -- leases ---------------------------------------------------------------------------

    async def acquire(self, tournament_id: str, node: str, lease_ms: int, now: int) -> str | None:
        """This node's new lease value on the event, or None when another node holds it."""
        won, value, _ = await self._acquire(
            keys=[tkey(tournament_id, "owner"), tkey(tournament_id, "epoch"), tkey(tournament_id, "held")],
            args=[node, lease_ms, now])
        return value.decode() if won else None

    async def renew(self, held: list[tuple[str, str]], lease_ms: int, now: int) -> list[bool]:
        """Renew each (event, lease value); False where it is no longer ours."""
        out = []
        for tournament_id, value in held:
            out.append(bool(await self._renew(keys=[tkey(tournament_id, "owner"), tkey(tournament_id, "held")],
                                              args=[value, lease_ms, now])))
        return out

    async def release(self, tournament_id: str, value: str, now: int) -> bool:
        """Give the event up (this node stops): another node takes it at its next sweep."""
        return bool(await self._release(keys=[tkey(tournament_id, "owner"), tkey(tournament_id, "held")],
                                        args=[value, now]))

    async def owners(self, tournament_ids: list[str]) -> list[str | None]:
        if not tournament_ids:
            return []
        values = await self.redis.mget([tkey(t, "owner") for t in tournament_ids]) if not self.store.cluster else \
            [await self.redis.get(tkey(t, "owner")) for t in tournament_ids]
        return [v.decode() if v is not None else None for v in values]
