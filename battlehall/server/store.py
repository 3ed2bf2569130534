"""Match persistence in Redis.

Every key of a match shares the hash tag `{match_id}`, so a match lives in one slot
and its commands work unchanged on Redis Cluster:

- ``bh:{id}:meta``   the create request's settings and the seat tokens (MessagePack)
- ``bh:{id}:log``    a Stream of answers and timeouts, ID ``<first seq>-0`` each
- ``bh:{id}:snap``   the latest snapshot: engine state + clock at some seq
- ``bh:{id}:events`` a List of every event record, index = seq - 1 (resume, replay)
- ``bh:{id}:acts``   a Hash "seat act-id" -> seq of its ack (duplicate `act` ids)
- ``bh:{id}:start``  the snapshot the match started from (delayed spectator streams
  rebuild from it; their matches keep the whole log)

``bh:live`` (a sorted set, outside any match's slot) lists the matches in play.
The log after the snapshot is the truth; the event list is derived from it and is
repaired from it on recovery.

Writes from all matches are coalesced: whatever the actors submit during one turn of
the event loop goes to Redis in one pipeline (`WriteBatcher`).
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass

import hiredis
import msgpack
import redis.asyncio as aioredis
from redis.exceptions import NoScriptError, RedisError, ResponseError

LIVE = "bh:live"

# Append an answer to the log, its events to the event list, and its act id to the
# acts hash. KEYS: log, events, acts. ARGV: stream id, entry, act key ("" for a
# timeout), ack seq, then the events.
RECORD_ANSWER = """
redis.call('XADD', KEYS[1], ARGV[1], 'e', ARGV[2])
if ARGV[3] ~= '' then redis.call('HSET', KEYS[3], ARGV[3], ARGV[4]) end
if #ARGV > 4 then redis.call('RPUSH', KEYS[2], unpack(ARGV, 5)) end
return 1
"""
# Sent as EVALSHA: EVAL would send the body and make Redis hash it again with every answer.
RECORD_ANSWER_SHA = hashlib.sha1(RECORD_ANSWER.encode()).hexdigest()

pack = msgpack.Packer().pack  # one packer: packb builds a new one per call


def unpack(data: bytes):
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def key(match_id: str, part: str) -> str:
    return f"bh:{{{match_id}}}:{part}"


def _noscript(error: ResponseError) -> bool:
    """An EVALSHA's error when Redis does not have the script (new, restarted or flushed)."""
    return isinstance(error, NoScriptError) or str(error).startswith("NOSCRIPT")


class StoreUnavailable(Exception):
    """Redis could not be reached or refused a write; nothing was acknowledged."""


@dataclass
class LoadedMatch:
    meta: dict
    snapshot: dict
    log: list[dict]       # entries after the snapshot, in order
    event_count: int      # length of the stored event list
    acts: dict[str, int]  # "seat act-id" -> seq


class WriteBatcher:
    """Send every write submitted in one loop turn as one pipeline."""

    def __init__(self, redis: aioredis.Redis, timeout_s: float = 5.0):
        self.redis = redis
        self.timeout_s = timeout_s
        self.pending: list[tuple[list[tuple], asyncio.Future]] = []
        self.flushing = False
        self.flushes = 0
        self.commands = 0
        self.connection = None  # one connection of `redis`'s pool, kept for the batcher

    def submit(self, commands: list[tuple]) -> asyncio.Future:
        future = asyncio.get_running_loop().create_future()
        self.pending.append((commands, future))
        if not self.flushing:
            self.flushing = True
            asyncio.get_running_loop().call_soon(self._start)
        return future

    def _start(self) -> None:
        asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        try:
            while self.pending:
                batch, self.pending = self.pending, []
                try:
                    # One timer per flush (the client has no per-read timeout: at hundreds of
                    # commands per flush, those timers cost more than the commands).
                    async with asyncio.timeout(self.timeout_s):
                        replies = await self._execute([commands for commands, _ in batch])
                except (RedisError, OSError, TimeoutError) as exc:
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(StoreUnavailable(str(exc)))
                    continue
                for (commands, future), mine in zip(batch, replies):
                    error = next((r for r in mine if isinstance(r, Exception)), None)
                    if future.done():
                        continue
                    if error is not None:
                        future.set_exception(StoreUnavailable(str(error)))
                    else:
                        future.set_result(mine)
        finally:
            self.flushing = False
            if self.pending:  # submitted after the last check
                self.flushing = True
                asyncio.get_running_loop().call_soon(self._start)

    async def _execute(self, writes: list[list[tuple]]) -> list[list]:
        """Send the writes in one pipeline; the replies of each write, in order.

        A NOSCRIPT reply (Redis lost its scripts: restart, failover, SCRIPT FLUSH) means
        the script did nothing but the write's later commands (SET snap, XTRIM, EXPIRE,
        ZREM) did. Re-running only the script would not give the same data: its log entry
        would stay below the XTRIM point and, on a match's last answer, the keys it
        creates would miss their EXPIRE. Failing the write would be worse: the snapshot,
        which includes the answer, landed without its log entry, events and act id. So
        load the script and re-send each such write from its script call to its end:
        those later commands are idempotent, and the data ends as after one run in order.
        """
        replies = await self._send(writes)
        for _ in range(2):  # a third NOSCRIPT in a row is reported as a failure
            redo = {}  # write -> index of its first NOSCRIPT reply
            for i, mine in enumerate(replies):
                for k, reply in enumerate(mine):
                    if isinstance(reply, ResponseError) and _noscript(reply):
                        redo[i] = k
                        break
            if not redo:
                break
            again = await self._send([writes[i][k:] for i, k in redo.items()], load=True)
            for (i, k), mine in zip(redo.items(), again):
                replies[i][k:] = mine
        return replies

    async def _send(self, writes: list[list[tuple]], load: bool = False) -> list[list]:
        commands = [command for write in writes for command in write]
        if load:
            commands.insert(0, ("SCRIPT", "LOAD", RECORD_ANSWER))
        self.flushes += 1
        self.commands += len(commands)
        results = await self._round_trip(commands)
        i = 1 if load else 0
        out = []
        for write in writes:
            out.append(results[i:i + len(write)])
            i += len(write)
        return out

    async def _round_trip(self, commands: list[tuple]) -> list:
        """Send the commands at once on the batcher's own connection; their raw replies,
        an error reply as a ResponseError in its place.

        The commands are packed by hiredis (C) and the replies read straight off the
        connection: redis-py's Pipeline packs in Python and wraps every command and
        reply, which cost twice the client CPU per answer (bench/RESULTS.md).
        """
        if self.connection is None:
            self.connection = await self.redis.connection_pool.get_connection()
        connection = self.connection
        try:
            await connection.send_packed_command(b"".join(map(hiredis.pack_command, commands)), check_health=False)
            replies = []
            for _ in commands:
                try:
                    replies.append(await connection.read_response())
                except ResponseError as exc:
                    replies.append(exc)
            return replies
        except BaseException:
            # A round trip cut short (timeout, lost connection) leaves replies unread on
            # the socket: drop it; the next flush connects again.
            await connection.disconnect()
            raise


class Store:
    def __init__(self, url: str, persist: bool = True):
        self.url = url
        self.persist = persist
        self.redis = aioredis.from_url(url, socket_timeout=5, socket_connect_timeout=2,
                                       health_check_interval=0, retry_on_timeout=False)
        writer = aioredis.from_url(url, socket_timeout=None, socket_connect_timeout=2,
                                   health_check_interval=0, retry_on_timeout=False)
        self.batcher = WriteBatcher(writer)

    async def close(self) -> None:
        await self.redis.aclose()
        await self.batcher.redis.aclose()

    async def ping(self) -> bool:
        try:
            return bool(await self.redis.ping())
        except (RedisError, OSError):
            return False

    async def write(self, commands: list[tuple]) -> list:
        """Write through the batcher; StoreUnavailable if Redis did not take it all."""
        if not self.persist:  # benchmark mode: measure the server without persistence
            return []
        return await self.batcher.submit(commands)

    # -- the commands of each write ------------------------------------------------

    @staticmethod
    def create_commands(match_id: str, meta: dict, snapshot: dict, events: list[dict], created_at: int) -> list[tuple]:
        commands = [
            ("SET", key(match_id, "meta"), pack(meta)),
            ("SET", key(match_id, "snap"), pack(snapshot)),
            ("SET", key(match_id, "start"), pack(snapshot)),
        ]
        commands += Store.events_commands(match_id, events)
        commands.append(("ZADD", LIVE, created_at, match_id))
        return commands

    @staticmethod
    def events_commands(match_id: str, events: list[dict]) -> list[tuple]:
        return [("RPUSH", key(match_id, "events"), *[pack(e) for e in events])] if events else []

    @staticmethod
    def entry_commands(match_id: str, entry: dict, events: list[dict], act_key: str | None,
                       snapshot: dict | None, trim: bool = True) -> list[tuple]:
        """One answer (or timeout): its log entry, its events, its act id, maybe a snapshot.

        The first three are one script call rather than three commands: the client's cost
        per command was a tenth of the server's CPU per answer. The commands after the
        script call must be safe to run twice (see `WriteBatcher._execute`).
        """
        commands = [("EVALSHA", RECORD_ANSWER_SHA, 3, key(match_id, "log"), key(match_id, "events"), key(match_id, "acts"),
                     f"{entry['seq']}-0", pack(entry), act_key or "", entry["last_seq"],
                     *[pack(e) for e in events])]
        if snapshot is not None:
            commands += Store.snapshot_commands(match_id, snapshot, trim)
        return commands

    @staticmethod
    def snapshot_commands(match_id: str, snapshot: dict, trim: bool = True) -> list[tuple]:
        commands = [("SET", key(match_id, "snap"), pack(snapshot))]
        if trim:  # the log before a snapshot is no longer needed to recover
            commands.append(("XTRIM", key(match_id, "log"), "MINID", f"{snapshot['seq'] + 1}-0"))
        return commands

    @staticmethod
    def finish_commands(match_id: str, snapshot: dict, retention_s: int, trim: bool = True) -> list[tuple]:
        commands = Store.snapshot_commands(match_id, snapshot, trim)
        for part in ("meta", "log", "snap", "events", "acts", "start"):
            commands.append(("EXPIRE", key(match_id, part), retention_s))
        commands.append(("ZREM", LIVE, match_id))
        return commands

    async def beat(self, node: str, at: int) -> None:
        await self.redis.set(f"bh:alive:{node}", at, ex=7 * 24 * 3600)

    async def heartbeat(self, node: str) -> int | None:
        raw = await self.redis.get(f"bh:alive:{node}")
        return int(raw) if raw else None

    # -- reads ----------------------------------------------------------------------

    async def live_ids(self) -> list[str]:
        return [m.decode() for m in await self.redis.zrange(LIVE, 0, -1)]

    async def meta(self, match_id: str) -> dict | None:
        raw = await self.redis.get(key(match_id, "meta"))
        return unpack(raw) if raw else None

    async def load(self, match_id: str) -> LoadedMatch | None:
        return (await self.load_many([match_id]))[0]

    async def load_many(self, match_ids: list[str]) -> list[LoadedMatch | None]:
        """Everything recovery needs of each match, in two round trips for the lot."""
        pipe = self.redis.pipeline(transaction=False)
        for match_id in match_ids:
            pipe.get(key(match_id, "meta"))
            pipe.get(key(match_id, "snap"))
            pipe.llen(key(match_id, "events"))
            pipe.hgetall(key(match_id, "acts"))
        rows = await pipe.execute()
        found = []
        pipe = self.redis.pipeline(transaction=False)
        for i, match_id in enumerate(match_ids):
            meta, snap, count, acts = rows[4 * i:4 * i + 4]
            if not meta or not snap:
                found.append(None)
                continue
            snapshot = unpack(snap)
            pipe.xrange(key(match_id, "log"), f"{snapshot['seq'] + 1}-0", "+")
            found.append((meta, snapshot, count, acts))
        logs = iter(await pipe.execute()) if len(pipe) else iter(())
        out: list[LoadedMatch | None] = []
        for item in found:
            if item is None:
                out.append(None)
                continue
            meta, snapshot, count, acts = item
            log = [unpack(fields[b"e"]) for _, fields in next(logs)]
            out.append(LoadedMatch(unpack(meta), snapshot, log, count,
                                   {k.decode(): int(v) for k, v in acts.items()}))
        return out

    async def load_from_start(self, match_id: str) -> tuple[dict, list[dict]]:
        """The starting snapshot and the whole log (kept for matches with a stream delay)."""
        start = unpack(await self.redis.get(key(match_id, "start")))
        rows = await self.redis.xrange(key(match_id, "log"), "-", "+")
        return start, [unpack(fields[b"e"]) for _, fields in rows]

    async def events(self, match_id: str, after_seq: int, upto_seq: int = -1) -> list[dict]:
        """Stored event records with seq in (after_seq, upto_seq]; upto -1 means all."""
        stop = -1 if upto_seq < 0 else upto_seq - 1
        return [unpack(r) for r in await self.redis.lrange(key(match_id, "events"), after_seq, stop)]

    async def truncate_events(self, match_id: str, count: int) -> None:
        await self.redis.ltrim(key(match_id, "events"), 0, count - 1)
