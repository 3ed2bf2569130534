"""A delayed match's public view (public.as_of_delay) against a real Redis: the same answer
as walking the log back from its newest entry, for every cutoff, at a cost that does not
grow with the log: one round trip, and a few entries read in Redis, for thousands of
entries inside the delay. On a single Redis and on a 3-master Redis Cluster."""

from __future__ import annotations

import math
import random

import pytest
import redis.asyncio as aioredis
from redis.crc import key_slot

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer
from battlehall.server.clock import Clock
from battlehall.server.match.match_state import MatchState
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.public import as_of_delay
from battlehall.server.storage.store import Store, key, unpack
from redis_cluster import LocalCluster

DELAY = 60_000
CREATED = 1_000


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    yield redis.url
    redis.stop()


@pytest.fixture
async def store(redis_url):
    s = Store(redis_url)
    yield s
    await s.close()


def summary(match_id: str, seq: int, status: str = "live", delay: int = DELAY) -> dict:
    """What hub.summaries gives as_of_delay: the fields it reads and those it replaces."""
    return {"match": match_id, "created_at": CREATED, "seq": seq, "status": status,
            "result": {"winner": "alice"} if status == "finished" else None,
            "spectator_settings": {"allowed": True, "public": True, "delay_ms": delay}}


async def newest_first(store: Store, match_id: str) -> list[dict]:
    """The match's whole log as Redis holds it, newest entry first."""
    return [unpack(fields[b"e"]) for _, fields in await store.client.xrevrange(key(match_id, "log"), "+", "-")]


def walked_back(entries: list[dict], shown: dict, now: int) -> dict:
    """The view as walking the log back from its newest entry gives it (what as_of_delay
    answered when it read the log so): the last entry at or before the cutoff."""
    cutoff = now - shown["spectator_settings"]["delay_ms"]
    if not entries:
        return shown if shown["created_at"] <= cutoff else {**shown, "status": "live", "result": None}
    if entries[0]["at"] <= cutoff:
        return shown
    old = next((e for e in entries if e["at"] <= cutoff), None)
    return {**shown, "status": "live", "result": None,
            "seq": old["last_seq"] if old else entries[-1]["seq"] - 1}


async def write_log(store: Store, match_id: str, count: int, seed: int, start_seq: int = 4) -> list[dict]:
    """`count` entries of one to four seqs each, as the server appends them without leases
    (Store.write_commands: an XADD each), `at` growing by 0 to 3 ms (equal times too), with
    event records of about the size of a Spellfire answer's."""
    rng, seq, at, entries = random.Random(seed), start_seq + 1, 10_000, []
    commands: list[tuple] = []
    for n in range(count):
        span = rng.randint(1, 4)
        entry = {"at": at, "seat": "alice", "prompt": f"p{n}", "option": "play", "args": {"card": n},
                 "act": n, "seq": seq, "last_seq": seq + span - 1}
        events = [{"seq": s, "at": at, "kind": "card_played", "data": {"card": n, "text": "x" * 120}}
                  for s in range(seq, seq + span)]
        commands += Store.write_commands(match_id, [(entry, events)], None, False, 60, None)
        entries.append(entry)
        seq += span
        at += rng.randint(0, 3)
    for i in range(0, len(commands), 500):
        await store.write(commands[i:i + 500])
    return entries


def cutoffs(entries: list[dict]) -> list[int]:
    """Every cutoff that can change the answer: each entry's time, and one ms either side."""
    return sorted({e["at"] + d for e in entries for d in (-1, 0, 1)})


async def test_a_delayed_view_is_the_last_entry_at_or_before_the_cutoff(store):
    entries = await write_log(store, "m_delayed_all", 300, seed=1)
    stored = await newest_first(store, "m_delayed_all")
    assert stored == entries[::-1]
    for status in ("live", "finished"):
        shown = summary("m_delayed_all", entries[-1]["last_seq"], status)
        for cutoff in cutoffs(entries):
            now = cutoff + DELAY
            assert await as_of_delay(store, shown, now) == walked_back(stored, shown, now), (status, cutoff)
    # The boundaries, as the docstring says them: before any entry is old enough, the start's
    # seq; an entry recorded at the cutoff is old enough; the last one old enough, the match
    # as it is now (finished, with its result).
    shown = summary("m_delayed_all", entries[-1]["last_seq"], "finished")
    first, middle, last = entries[0], entries[150], entries[-1]
    assert await as_of_delay(store, shown, first["at"] - 1 + DELAY) == {**shown, "status": "live", "result": None,
                                                                        "seq": 4}
    later = next(e for e in entries if e["at"] > middle["at"])
    at_middle = await as_of_delay(store, shown, middle["at"] + DELAY)
    assert at_middle["seq"] == entries[entries.index(later) - 1]["last_seq"] and at_middle["status"] == "live"
    assert await as_of_delay(store, shown, last["at"] + DELAY) is shown
    # No delay: the summary as it is, whatever the log.
    undelayed = summary("m_delayed_all", 1, "finished", delay=0)
    assert await as_of_delay(store, undelayed, first["at"]) is undelayed


async def test_a_delayed_match_with_no_entry_yet_is_as_it_started(store):
    for status in ("live", "finished"):  # a match may end at its creation (an abort)
        shown = summary("m_delayed_empty", 3, status)
        assert await as_of_delay(store, shown, CREATED + DELAY) is shown
        before = await as_of_delay(store, shown, CREATED + DELAY - 1)
        assert before == {**shown, "status": "live", "result": None} == walked_back([], shown, CREATED + DELAY - 1)
    assert await newest_first(store, "m_delayed_empty") == []


async def test_the_entries_of_a_played_match_are_read_as_the_server_wrote_them(store):
    """Entries of a Spellfire match committed by the server's own core, fenced by a lease:
    their `args` and fields decode in Redis as in Python."""
    match_id, seats = "m_delayed_played", ["alice", "bob"]
    state, events = get_ruleset("spellfire").start(seats, 7)
    meta = {"ruleset": "spellfire", "seats": seats, "spectators": {"delay_ms": DELAY}}
    core = MatchState(meta, state, Clock.new({"prompt_ms": None, "bank_ms": 0}, seats), 0)
    started = core.stamp(events, CREATED)
    await store.write(Store.create_commands(match_id, meta, core.snapshot(), started, CREATED, "1 n1", 60_000))
    rng, entries = random.Random(7), []
    while not core.over and len(entries) < 120:
        prompt = rng.choice(core.ruleset.prompts(core.state))
        option, args = random_answer(rng, prompt)
        entry = {"at": 2_000 + 5 * len(entries) // 2, "seat": prompt["seat"], "prompt": prompt["id"],
                 "option": option, "args": args, "act": len(entries)}
        records = core.commit(entry)
        await store.write(Store.write_commands(match_id, [(entry, records)], None, False, 60, "1 n1"))
        entries.append(entry)
    assert len(entries) > 50 and core.seq > len(entries) + len(started) > len(entries)
    stored = await newest_first(store, match_id)
    assert stored == entries[::-1]
    shown = summary(match_id, core.seq)
    for cutoff in [CREATED, *cutoffs(entries)]:
        now = cutoff + DELAY
        assert await as_of_delay(store, shown, now) == walked_back(stored, shown, now), cutoff


async def stream_reads(redis_url: str, store: Store, shown: dict, now: int) -> tuple[dict, list[dict]]:
    """as_of_delay's answer, and every command Redis ran for it (MONITOR): those the server
    sent and those its scripts ran ("lua")."""
    watcher, marker = aioredis.from_url(redis_url), aioredis.from_url(redis_url)
    await marker.ping()  # connected before the watching starts: its HELLO is not counted
    seen: list[dict] = []
    async with watcher.monitor() as monitor:
        answer = await as_of_delay(store, shown, now)
        await marker.echo("as_of_delay done")  # after every command of the read
        while (command := await monitor.next_command())["command"] != "ECHO as_of_delay done":
            seen.append(command)
    await watcher.aclose()
    await marker.aclose()
    return answer, seen


async def test_a_delayed_read_costs_one_round_trip_whatever_the_length_of_the_log(redis_url, store):
    """A read of a match with 30 or 4,000 entries inside its delay: one round trip, and
    about log2 of its seqs entries read, inside Redis or out. (Walked back 64 entries a
    round trip, 4,000 entries were 63 round trips and every entry inside the delay read.)"""
    for count in (30, 4_000):
        match_id = f"m_delayed_long_{count}"
        entries = await write_log(store, match_id, count, seed=count)
        stored = await newest_first(store, match_id)
        span = entries[-1]["last_seq"] - entries[0]["seq"] + 1
        shown = summary(match_id, entries[-1]["last_seq"])
        await as_of_delay(store, shown, entries[0]["at"] + DELAY)  # the script loaded once, for the store
        for cutoff in (entries[1]["at"], entries[count // 2]["at"], entries[-1]["at"] - 1):
            now = cutoff + DELAY  # the newest entry, and most of the log, inside the delay
            answer, seen = await stream_reads(redis_url, store, shown, now)
            assert answer == walked_back(stored, shown, now) and answer["seq"] < shown["seq"]
            sent = [c["command"] for c in seen if c["client_type"] != "lua"]
            assert len(sent) == 1, sent  # one round trip
            reads = [c["command"].split() for c in seen if c["command"].split()[0] in ("XRANGE", "XREVRANGE")]
            assert all(r[-2] == "COUNT" for r in reads), reads  # none reads the log to its end
            read = sum(int(r[-1]) for r in reads)
            assert read <= math.ceil(math.log2(span)) + 2, (count, read)  # entries read, in Redis or out


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = LocalCluster(tmp_path_factory.mktemp("cluster")).start()
    yield c
    c.stop()


async def test_a_delayed_read_on_a_cluster_reads_the_log_on_its_own_master(cluster):
    """Matches whose slots are on each of the three masters: the script is loaded where it
    is run (NOSCRIPT on a master that never ran it) and answers as on one Redis."""
    store = Store(cluster.url, cluster=True)
    try:
        masters: dict[int, str] = {}
        n = 0
        while len(masters) < 3:
            match_id = f"m_delayed_cluster_{n}"
            masters.setdefault(cluster.port_of_slot(key_slot(key(match_id, "log").encode())), match_id)
            n += 1
        for match_id in masters.values():
            entries = await write_log(store, match_id, 200, seed=len(match_id))
            stored = await newest_first(store, match_id)
            assert stored == entries[::-1]
            shown = summary(match_id, entries[-1]["last_seq"], "finished")
            for cutoff in cutoffs(entries)[::7] + [entries[0]["at"] - 1, entries[-1]["at"]]:
                now = cutoff + DELAY
                assert await as_of_delay(store, shown, now) == walked_back(stored, shown, now), (match_id, cutoff)
    finally:
        await store.close()

