"""An event's storage on a real Redis: every entry goes through one script that checks the
log's position (two writers never both append after the same entry) and, for the runner's
entries, the lease (a node past its lease appends nothing); a result is entered once."""

from __future__ import annotations

import pytest

from battlehall.server.errors import Fenced
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.store import Store
from battlehall.server.storage.tournaments import LISTS, LIVE, Stale, Tournaments, tkey
from battlehall.server.tournaments.folding import Folded


@pytest.fixture
async def storage(tmp_path):
    redis = EmbeddedRedis(tmp_path / "redis").start()
    store = Store(redis.url)
    yield Tournaments(store)
    await store.close()
    redis.stop()


META = {"tournament": "t_00", "spec": {"name": "S", "ruleset": "duel"}, "seed": "ab", "seed_commitment": "c",
        "organiser_hash": "h", "organiser": None, "created_at": 1000, "made_by": "player", "expire_at": 2000}


def registered(player: str) -> dict:
    return {"k": "registered", "player": player, "name": player, "rating": 25.0, "at": 1}


async def test_entries_land_only_after_the_log_the_writer_folded(storage):
    await storage.create("t_00", META, "1 n0", 5000, listed=True)
    assert await storage.append("t_00", 0, [registered("p_a")]) == 1
    with pytest.raises(Stale) as stale:  # another writer folded the same empty log
        await storage.append("t_00", 0, [registered("p_b")])
    assert stale.value.count == 1
    assert await storage.append("t_00", 1, [registered("p_b"), registered("p_c")]) == 3
    loaded = await storage.load("t_00")
    assert loaded is not None and [e["player"] for e in loaded.entries] == ["p_a", "p_b", "p_c"]
    assert [e["player"] for e in await storage.entries_after("t_00", 1)] == ["p_b", "p_c"]
    assert await storage.version("t_00") == 3
    folded = Folded.of("t_00", loaded)
    assert folded.version == 3 and set(folded.names) == {"p_a", "p_b", "p_c"}


async def test_a_lease_lost_appends_nothing_and_the_new_holder_goes_on(storage):
    await storage.create("t_01", {**META, "tournament": "t_01"}, "1 n0", 5000, listed=False)
    assert await storage.append("t_01", 0, [registered("p_a")], lease="1 n0") == 1
    await storage.redis.delete(tkey("t_01", "owner"))  # n0 paused past its lease
    lease = await storage.acquire("t_01", "n1", 5000, 10)
    assert lease == "2 n1"
    assert await storage.acquire("t_01", "n2", 5000, 10) is None  # held: nobody else takes it
    with pytest.raises(Fenced):
        await storage.append("t_01", 1, [registered("p_b")], lease="1 n0")
    assert await storage.version("t_01") == 1
    assert await storage.append("t_01", 1, [registered("p_b")], lease=lease) == 2
    assert await storage.renew([("t_01", lease), ("t_01", "1 n0")], 5000, 20) == [True, False]


async def test_the_listing_follows_the_status_and_an_ended_event_leaves_the_sweep(storage):
    await storage.create("t_02", {**META, "tournament": "t_02"}, "1 n0", 5000, listed=True)
    assert "t_02" in await storage.live_ids()
    assert await storage.listing("upcoming", 0, 10) == (["t_02"], False)
    await storage.moved("t_02", "running", 3000, True)
    assert await storage.listing("upcoming", 0, 10) == ([], False)
    assert await storage.listing("running", 0, 10) == (["t_02"], False)
    await storage.moved("t_02", "finished", 4000, True)
    assert await storage.listing(None, 0, 10) == (["t_02"], False)
    assert "t_02" not in await storage.live_ids()
    assert await storage.redis.zscore(LIVE, "t_02") is None
    assert await storage.redis.zscore(LISTS["finished"], "t_02") == 4000


async def test_an_ending_entry_gives_the_events_keys_their_retention(storage):
    await storage.create("t_03", {**META, "tournament": "t_03"}, "1 n0", 5000, listed=False)
    await storage.set_seats("t_03", {"p_a": {"match": "m_1", "token": "x"}})
    await storage.append("t_03", 0, [{"k": "cancelled", "at": 5}], lease="1 n0", retention_s=60)
    for part in ("meta", "log", "seats"):
        assert 0 < await storage.redis.ttl(tkey("t_03", part)) <= 60
    table, made = await storage.seat("t_03", "p_a")
    assert table == {"match": "m_1", "token": "x"} and made == 1
