"""Match persistence in Redis.

Every key of a match shares the hash tag `{match_id}`, so a match lives in one slot
and its commands work unchanged on Redis Cluster:

- ``bh:{id}:meta``   the create request's settings and the seat tokens (MessagePack)
- ``bh:{id}:log``    a Stream with one entry per answer or timeout, ID ``<first seq>-0``:
  field ``e`` is the log entry (what was answered), ``v`` its event records
- ``bh:{id}:snap``   the latest snapshot: engine state, clock and act ids at some seq
- ``bh:{id}:start``  the snapshot the match started from, with the events of its start

- ``bh:{id}:owner`` the lease of the node that runs it, ``bh:{id}:epoch`` its last
  fencing token, ``bh:{id}:held`` when it last had an owner (lease.py)
- ``bh:{id}:watching`` each node's count of the match's spectators (audience.py)
- ``bh:{id}:rematch``, ``rematch_of``, ``rematch_made`` its rematch (rematch.py)

The pub/sub channel ``bh:{id}:tail`` rings after each log entry of a match whose
spectators are allowed: nodes that mirror it for their spectators read the log then
(subscription.py, `Doorbells`).

``bh:live`` (a sorted set, outside any match's slot) lists the matches in play, and
``bh:beats`` every node's last heartbeat (heartbeat.py).

An answer is recorded by one command, an XADD (inside the fencing script when leases
are on, lease.py, with field ``o`` the lease that wrote it): the entry and the events it produced
land together or not at all, so there is nothing derived to repair after a crash. The
log is kept whole while the match lives (it is the event history for `resume` and the
replay); the snapshot only makes recovery replay less of it.

Writes from all matches are coalesced: whatever the actors submit during one turn of
the event loop goes to Redis in one send (`WriteBatcher`, writer.py).

On a Redis Cluster (`cluster=True`) the reads go through redis-py's `RedisCluster`, which
follows the slots and their MOVED / ASK redirections, and the writes through
`ClusterWriteBatcher` (cluster_writer.py): one send per master per loop turn.

The storage wing is the one that knows redis-py: this module, client.py (its clients,
each failure of Redis raised as `StoreUnavailable`) and the writers' connection core,
store_link.py, which reads URLs with it. Key names, scripts and commands are the wing's
alone: a match's keys are keys.py's, the commands of each write commands.py's, and the
other records each have a module of their own (profiles, ratings, queue, nodes,
bindings, audience, rematch, subscription), made here on the store's client
(`Store.client`, for the wing only). The other wings reach Redis through the store's
typed methods and these records, so they catch `StoreUnavailable` and nothing else
(tests/server/test_redis_boundary.py holds them to it).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Callable, Mapping

import redis  # the sync client of the command line's check (cluster_enabled)
import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff
from redis.exceptions import AuthenticationError, ResponseError

from battlehall.server.records import LoadedMatch
from battlehall.server.storage import lease as leases
from battlehall.server.storage.audience import AudienceRecords
from battlehall.server.storage.bindings import Bindings
from battlehall.server.storage.client import FAILURES, Client, CredentialsRefused, Script, unavailable
from battlehall.server.storage.cluster_writer import ClusterWriteBatcher
from battlehall.server.storage.commands import WriteCommands
from battlehall.server.storage.heartbeat import BEATS, Beats, Heartbeat
from battlehall.server.storage.keys import LIVE, key, pack, unpack
from battlehall.server.storage.nodes import NodeRecords
from battlehall.server.storage.profiles import ProfileRecords
from battlehall.server.storage.queue import QueueRecords
from battlehall.server.storage.ratings import RatingRecords
from battlehall.server.storage.reads import MatchReads
from battlehall.server.storage.rematch import RematchRecords
from battlehall.server.storage.store_link import Fenced, StoreUnavailable, Writer, parse_url
from battlehall.server.storage.subscription import Doorbells
from battlehall.server.storage.writer import WriteBatcher

__all__ = ["LIVE", "Client", "CredentialsRefused", "Fenced", "LoadedMatch", "Script", "Store", "StoreUnavailable", "Writer",
           "cluster_enabled", "key", "pack", "unpack", "url_options"]

PING_TIMEOUT_S = 1.0  # /readyz says "not ready" after this long without an answer

ACQUIRE_SHA, RENEW_SHA, RELEASE_SHA = (leases.sha1(s) for s in (leases.ACQUIRE, leases.RENEW, leases.RELEASE))

log = logging.getLogger("battlehall.store")

# Weakest first, to report a cluster's weakest master (unknown values rank below all).
_STRENGTH = {"no": 0, "yes": 3, "everysec": 1, "always": 2}


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def url_options(url: str) -> dict:
    """A Redis URL's parts as every connection of the server reads them (host, port or
    path, db, username, password, TLS options); ValueError if it is not one."""
    options: dict = parse_url(url)
    return options


def cluster_enabled(url: str, timeout_s: float = 2.0) -> bool | None:
    """Whether the Redis at `url` is a node of a Redis Cluster (INFO cluster); None if it
    does not answer or refuses INFO; CredentialsRefused if it refuses the URL's user or
    password. Blocking: for the command line, before the server starts."""
    try:
        with redis.Redis.from_url(url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s) as r:
            return bool(r.info("cluster").get("cluster_enabled"))
    except AuthenticationError as exc:
        raise CredentialsRefused(str(exc)) from exc
    except FAILURES:
        return None


class Store(WriteCommands, MatchReads):
    def __init__(self, url: str, persist: bool = True, cluster: bool = False):
        self.url = url
        self.persist = persist
        self.cluster = cluster
        self.batcher: Writer
        self.upkeep: ClusterUpkeep | WriteBatcher
        self.pinger: RedisCluster | aioredis.Redis
        raw: RedisCluster | aioredis.Redis
        if cluster:
            raw = RedisCluster.from_url(url, socket_timeout=5, socket_connect_timeout=2)
            self.batcher = ClusterWriteBatcher(url, self._slot_map)
            self.upkeep = ClusterUpkeep(raw, (leases.ACQUIRE, leases.RENEW, leases.RELEASE))
            self.pinger = RedisCluster.from_url(url, socket_timeout=PING_TIMEOUT_S,
                                                socket_connect_timeout=PING_TIMEOUT_S, retry=Retry(NoBackoff(), 0))
        else:
            raw = aioredis.from_url(url, socket_timeout=5, socket_connect_timeout=2,
                                    health_check_interval=0, retry_on_timeout=False)
            self.batcher = WriteBatcher(url)
            # Lease upkeep (renewals, takeover scans) and the spectator counts (audience.py) on a
            # connection of their own: thousands of commands at a time never wait in front of
            # the answers' writes.
            self.upkeep = WriteBatcher(url)
            for script in (leases.ACQUIRE, leases.RENEW, leases.RELEASE):
                self.upkeep.register_script(script)
            # A connection of its own for readiness: a short timeout and no retries, so that a
            # stopped Redis is reported at once, and an abandoned PING spoils no other read.
            self.pinger = aioredis.from_url(url, socket_timeout=PING_TIMEOUT_S, socket_connect_timeout=PING_TIMEOUT_S,
                                            health_check_interval=0, retry=Retry(NoBackoff(), 0))
        # The reads, and the other modules' commands: every failure of Redis is StoreUnavailable.
        self.client = Client(raw)  # for the storage wing only
        assert self.batcher.register_script(leases.FENCED_WRITE) == leases.FENCED_WRITE_SHA
        # The other wings' records, each behind its typed methods.
        self.profiles = ProfileRecords(self.client)
        self.ratings = RatingRecords(self.client)
        self.nodes = NodeRecords(self.client)
        self.bindings = Bindings(self.client)
        self.rematches = RematchRecords(self.client)
        self.audience = AudienceRecords(self.client, self.upkeep)

    def queue_records(self, connections: int | None) -> QueueRecords:
        """The quick-play queue's records: on the store's client (`connections` None: a Redis
        Cluster), else on a pool of that many connections of their own, closed with them."""
        if connections is None:
            return QueueRecords(self.client)
        return QueueRecords(self.pooled_client(connections, 5, socket_timeout=5, socket_connect_timeout=2), own=True)

    def doorbells(self) -> Doorbells:
        """The doorbells of mirrored matches' logs, on a pub/sub connection of their own."""
        return Doorbells(self.own_client(socket_connect_timeout=2, health_check_interval=0))

    def own_client(self, **options: Any) -> Client:
        """A client on connections of its own, not shared with the store's reads (redis-py's
        options: `socket_timeout`, `socket_connect_timeout`, `health_check_interval`...).
        A plain Redis client, also on a cluster."""
        return Client(aioredis.from_url(self.url, **options))

    def pooled_client(self, connections: int, wait_s: float, **options: Any) -> Client:
        """A client whose callers share at most `connections` connections, each waiting up
        to `wait_s` for its turn (then StoreUnavailable)."""
        pool = aioredis.BlockingConnectionPool.from_url(self.url, max_connections=connections, timeout=wait_s,
                                                        **options)
        return Client(aioredis.Redis(connection_pool=pool))

    async def _slot_map(self) -> dict[tuple[int, int], str]:
        """The cluster's slot ranges and the address of each one's master (CLUSTER SLOTS)."""
        found = await self.client.cluster_slots()
        return {slots: f"{node['primary'][0]}:{node['primary'][1]}" for slots, node in found.items()}

    async def close(self) -> None:
        await self.client.aclose()
        await self.pinger.aclose()
        await self.batcher.close()
        await self.upkeep.close()

    async def ping(self) -> bool:
        """Whether Redis answers within about PING_TIMEOUT_S (connecting may take as long again)."""
        try:
            async with asyncio.timeout(2 * PING_TIMEOUT_S):
                if self.cluster:  # every master: each holds the writes of some matches
                    return bool(await self.pinger.ping(target_nodes=RedisCluster.PRIMARIES))
                return bool(await self.pinger.ping())
        except (*FAILURES, TimeoutError):
            return False

    async def durability(self) -> dict[str, str] | None:
        """Redis' `appendonly` and `appendfsync`; None where CONFIG is not allowed.

        StoreUnavailable if Redis fails otherwise, or does not answer in time.
        """
        try:
            async with asyncio.timeout(2 * PING_TIMEOUT_S):
                # redis-py types CONFIG GET's reply as one node's decoded strings; this client's
                # are bytes, and a cluster's come per master: plain dicts, read as they are.
                found: dict = {}
                for name in ("appendonly", "appendfsync"):  # one each: Redis 6 takes one pattern
                    if self.cluster:  # the weakest master's setting is what an answer survives
                        each: dict = await self.pinger.config_get(name, target_nodes=RedisCluster.PRIMARIES)
                        found[name] = min((_text(v.get(name, v.get(name.encode()))) for v in each.values()),
                                          key=lambda v: _STRENGTH.get(v, -1))
                    else:
                        found.update(await self.pinger.config_get(name))
        except ResponseError:  # CONFIG renamed or denied (managed services, ACLs)
            return None
        except (*FAILURES, TimeoutError) as exc:
            raise unavailable(exc) from exc
        return {_text(k): _text(v) for k, v in found.items()}

    async def report_durability(self) -> None:
        """Log what an acknowledged answer survives with the Redis this server writes to."""
        try:
            found = await self.durability()
        except StoreUnavailable as exc:
            log.warning("could not read Redis' persistence settings (%s)", exc)
            return
        if found is None:
            log.info("Redis does not allow CONFIG GET: its own configuration decides what an "
                     "acknowledged answer survives (appendonly, appendfsync)")
        elif found.get("appendonly") != "yes":
            log.warning("Redis runs without its append-only file (appendonly %s): acknowledged answers "
                        "can be lost when Redis restarts", found.get("appendonly"))
        elif found.get("appendfsync") == "always":
            log.info("Redis syncs every write to disk before answering (appendfsync always): "
                     "an acknowledged answer survives a power loss")
        elif found.get("appendfsync") == "everysec":
            log.warning("Redis syncs its append-only file once a second (appendfsync everysec): an acknowledged "
                        "answer survives a crash of Redis or of this server, but a power loss or kernel crash "
                        "can lose about the last second of them")
        else:
            log.warning("Redis leaves syncing to the operating system (appendfsync %s): a power loss or "
                        "kernel crash can lose acknowledged answers of the last 30 s or more", found.get("appendfsync"))

    def unlist(self, match_id: str, callback: Callable[..., None], *args: Any) -> None:
        """Take an ended match out of the live ones (LIVE); then `callback(*args, error)`."""
        self.batcher.submit([("ZREM", LIVE, match_id)], callback, *args)

    async def write(self, commands: list[tuple]) -> None:
        """Write through the batcher; StoreUnavailable if Redis did not take it all."""
        if not self.persist:  # benchmark mode: measure the server without persistence
            return
        await self.batcher.write(commands)

    # -- leases (lease.py) ----------------------------------------------------------

    async def acquire_many(self, match_ids: list[str], node: str, lease_ms: int, now: int,
                           breaking: Mapping[str, str] | None = None,
                           death_ms: int = 0) -> list[tuple[bool, str, int | None]]:
        """Try to take each match's lease: (won, the lease value or the holder's, when the
        match last had an owner if won and known), in one send. A match in `breaking` is
        taken from the holder of that lease value if its heartbeat is older than
        `death_ms` (lease.ACQUIRE)."""
        breaking = breaking or {}
        commands: list[tuple] = []
        for m in match_ids:
            keys = (key(m, "owner"), key(m, "epoch"), key(m, "held"))
            if m not in breaking:
                commands.append(("EVALSHA", ACQUIRE_SHA, 3, *keys, node, lease_ms, now))
            elif self.cluster:  # `bh:beats` is no key of the match's slot (lease.ACQUIRE)
                commands.append(("EVALSHA", ACQUIRE_SHA, 3, *keys, node, lease_ms, now, breaking[m], death_ms))
            else:
                commands.append(("EVALSHA", ACQUIRE_SHA, 4, *keys, BEATS, node, lease_ms, now, breaking[m], death_ms))
        replies = await self.upkeep.call(commands) if commands else []
        return [(bool(won), value.decode(), int(held) if won and held else None) for won, value, held in replies]

    async def renew_many(self, held: list[tuple[str, str]], lease_ms: int, now: int) -> list[bool]:
        """Renew each (match id, lease value), in one send; False where the lease is no longer ours."""
        replies = await self.upkeep.call([
            ("EVALSHA", RENEW_SHA, 2, key(m, "owner"), key(m, "held"), value, lease_ms, now)
            for m, value in held]) if held else []
        return [bool(r) for r in replies]

    async def release(self, match_id: str, value: str, now: int) -> bool:
        reply, = await self.upkeep.call([("EVALSHA", RELEASE_SHA, 2, key(match_id, "owner"),
                                          key(match_id, "held"), value, now)])
        return bool(reply)

    async def owners(self, match_ids: list[str]) -> list[str | None]:
        """The lease value of each match (None: nobody holds it), in one send."""
        replies = await self.upkeep.call([("GET", key(m, "owner")) for m in match_ids]) if match_ids else []
        return [v.decode() if v is not None else None for v in replies]

    def heartbeat_client(self, timeout_s: float) -> Any:
        """A blocking client of its own, for the heartbeat's thread (heartbeat.py): a plain
        Redis client, or on a cluster a cluster client (`bh:beats` is on one master)."""
        if self.cluster:
            return redis.RedisCluster.from_url(self.url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s)
        return redis.Redis.from_url(self.url, socket_timeout=timeout_s, socket_connect_timeout=timeout_s,
                                    health_check_interval=0)

    def heartbeat_thread(self, node: str, every_ms: int, on_beats: Callable[[Beats], None]) -> Heartbeat:
        """This node's heartbeat, to start (heartbeat.py): each reading of every node's beats
        goes to `on_beats`."""
        return Heartbeat(lambda: self.heartbeat_client(max(0.5, 4 * every_ms / 1000)), node, every_ms, on_beats)

    async def beat(self, node: str, at: int) -> None:
        await self.client.set(f"bh:alive:{node}", at, ex=7 * 24 * 3600)

    async def heartbeat(self, node: str) -> int | None:
        raw = await self.client.get(f"bh:alive:{node}")
        return int(raw) if raw else None


class ClusterUpkeep:
    """Lease upkeep on a Redis Cluster: `WriteBatcher.call` through redis-py's cluster
    client, whose pipelines refuse scripts. The commands go concurrently, 500 at a time,
    each to the master of its match; a script missing on a master is loaded there."""

    def __init__(self, cluster: RedisCluster, scripts: tuple[str, ...]):
        self.cluster = cluster
        self.scripts = {leases.sha1(body): cluster.register_script(body) for body in scripts}

    async def call(self, commands: list[tuple]) -> list:
        out: list = []
        try:
            for i in range(0, len(commands), 500):
                out += await asyncio.gather(*(self._one(c) for c in commands[i:i + 500]))
        except FAILURES as exc:
            raise unavailable(exc) from exc
        return out

    async def _one(self, command: tuple) -> Any:
        if command[0] == "EVALSHA":
            numkeys, rest = command[2], command[3:]
            return await self.scripts[command[1]](keys=list(rest[:numkeys]), args=list(rest[numkeys:]))
        return await self.cluster.execute_command(*command)

    async def close(self) -> None:
        pass  # the cluster client is the store's, closed with it
