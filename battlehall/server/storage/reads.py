"""The reads of a match's keys: whether it is live, loading it back (recovery, mirrors,
delayed spectators), its log and events in ranges; and deleting it. Methods of the store
(store.py), through its `client`."""

from __future__ import annotations

from typing import Any

from battlehall.server.records import LoadedMatch
from battlehall.server.storage.keys import LIVE, PARTS, key, unpack

LOG_PAGE = 1000  # log entries per read when a whole log is read (load_from_start)


def entry_field(fields: Any) -> bytes:
    """A log stream entry's packed `e` field: from hiredis' flat [field, value, ...] list,
    or redis-py's dict (a cluster's pipeline parses its replies)."""
    found = fields if isinstance(fields, dict) else dict(zip(fields[::2], fields[1::2]))
    entry: bytes = found[b"e"]
    return entry


class MatchReads:
    client: Any  # the store's Client (store.py): redis-py's commands, each failure as StoreUnavailable
    upkeep: Any  # the store's own connection (writer.py): raw commands sent at once, replies in order
    cluster: bool

    async def read_many(self, commands: list[tuple]) -> list:
        """The replies of many reads, in one send. Through hiredis on the upkeep
        connection: a recovery's tens of thousands of reads cost a fraction of the CPU they
        did through redis-py's pipeline (packing and parsing one command at a time). On a
        cluster, redis-py's pipeline, which routes each command to its key's master."""
        if not commands:
            return []
        replies: list
        if not self.cluster:
            replies = await self.upkeep.call(commands)
            return replies
        pipe = self.client.pipeline(transaction=False)
        for command in commands:
            pipe.execute_command(*command)
        replies = await pipe.execute()
        return replies

    async def delete(self, match_id: str) -> bool:
        """Remove every key of a match; False if it had none."""
        removed = await self.client.delete(*(key(match_id, part) for part in PARTS))
        await self.client.zrem(LIVE, match_id)
        return int(removed) > 0

    async def is_live(self, match_id: str) -> bool:
        return await self.client.zscore(LIVE, match_id) is not None

    async def exists(self, match_id: str) -> bool:
        return bool(await self.client.exists(key(match_id, "meta")))

    async def live_ids(self) -> list[str]:
        return [m.decode() for m in await self.client.zrange(LIVE, 0, -1)]

    async def load(self, match_id: str) -> LoadedMatch | None:
        return (await self.load_many([match_id]))[0]

    async def load_many(self, match_ids: list[str]) -> list[LoadedMatch | None]:
        """Everything recovery needs of each match, in two round trips for the lot; each
        snapshot decoded once."""
        rows = await self.read_many([("GET", key(m, part)) for m in match_ids for part in ("meta", "snap")])
        found: list[tuple[bytes, dict] | None] = []
        reads = []
        for i, match_id in enumerate(match_ids):
            meta, snap = rows[2 * i], rows[2 * i + 1]
            if not meta or not snap:
                found.append(None)
                continue
            snapshot = unpack(snap)
            reads.append(("XRANGE", key(match_id, "log"), f"{snapshot['seq'] + 1}-0", "+"))
            found.append((meta, snapshot))
        logs = iter(await self.read_many(reads))
        out: list[LoadedMatch | None] = []
        for item in found:
            if item is None:
                out.append(None)
                continue
            meta, snapshot = item
            out.append(LoadedMatch(unpack(meta), snapshot, [unpack(entry_field(fields)) for _, fields in next(logs)]))
        return out

    async def load_from_start(self, match_id: str) -> tuple[dict, list[dict]]:
        """The starting snapshot and the whole log (delayed spectator streams replay it).

        The log is read LOG_PAGE entries at a time: a long match's (10,000 entries and
        more) read and decoded at once kept the event loop for tens of milliseconds. Its
        entries are only ever appended, so the pages make one prefix of it."""
        start = unpack(await self.client.get(key(match_id, "start")))
        entries, first = [], "-"
        while True:
            rows = await self.client.xrange(key(match_id, "log"), first, "+", count=LOG_PAGE)
            entries += [unpack(fields[b"e"]) for _, fields in rows]
            if len(rows) < LOG_PAGE:
                return start, entries
            first = f"{int(rows[-1][0].split(b'-')[0]) + 1}-0"  # ids are "<seq>-0" (record)

    async def entries_after(self, match_id: str, seq: int) -> list[dict]:
        """The log entries after `seq`, in order (a mirror catching up, mirror.py)."""
        rows = await self.client.xrange(key(match_id, "log"), f"{seq + 1}-0", "+")
        return [unpack(fields[b"e"]) for _, fields in rows]

    async def last_entry(self, match_id: str) -> dict | None:
        """The match's last log entry; None if its log is empty."""
        rows = await self.client.xrevrange(key(match_id, "log"), "+", "-", count=1)
        return unpack(rows[0][1][b"e"]) if rows else None

    async def last_entries(self, match_ids: list[str]) -> list[dict | None]:
        """Each match's last log entry (None: its log is empty), in one round trip: a
        takeover's thousands of loads read them at once, not one connection each."""
        rows = await self.read_many([("XREVRANGE", key(m, "log"), "+", "-", "COUNT", 1) for m in match_ids])
        return [unpack(entry_field(found[0][1])) if found else None for found in rows]

    async def meta(self, match_id: str) -> dict | None:
        """The match's settings and tokens, or None if there is no such match: what
        checking a `hello` needs, without loading the match."""
        raw = await self.client.get(key(match_id, "meta"))
        return unpack(raw) if raw is not None else None

    async def events(self, match_id: str, after_seq: int, upto_seq: int = -1,
                     limit: int | None = None) -> list[dict]:
        """Stored event records with seq in (after_seq, upto_seq]; upto -1 means all.

        With `limit`, at most that many log entries are read (plus the start's events
        when the range begins among them): one page of a long history. A page ends at
        the end of an entry, so the next one starts after its last seq.
        """
        upto = upto_seq if upto_seq >= 0 else float("inf")
        # The log entry holding seq after_seq + 1 starts at or before it: the last entry up
        # to that ID, then everything after it (up to the entry that starts at upto).
        log = key(match_id, "log")
        before = await self.client.xrevrange(log, f"{after_seq + 1}-0", "-", count=1)
        wanted = []
        if before:  # the start's events all come before this entry
            first = before[0][0]
        else:
            raw = await self.client.get(key(match_id, "start"))
            if raw is None:
                return []
            wanted = [r for r in unpack(raw).get("events", []) if after_seq < r["seq"] <= upto]
            first = "-"
        last = f"{upto_seq}-0" if upto_seq >= 0 else "+"
        for _, fields in await self.client.xrange(log, first, last, count=limit):
            wanted += [r for r in unpack(fields[b"v"]) if after_seq < r["seq"] <= upto]
        return wanted
