"""What makes a result count (ratings.unrated_reason, docs/protocol.md "Ratings"): a match
made rated by quick play or the operator, that both sides really played, between profiles
that have not met too often that day, settled only once its end is public. Against real
servers and a real Redis."""

from __future__ import annotations

import asyncio
import time

import httpx
import orjson
import pytest
import redis.asyncio as aioredis

from battlehall.client import Client
from battlehall.engine.ruleset import make_result
from battlehall.server.players.rating_view import PROVISIONAL_MATCHES, display
from battlehall.server.players.ratings import MIN_OWN_ANSWERS, PAIR_LIMIT, settle
from battlehall.server.storage import profiles as keys
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.ratings import RatingRecords
from players import guest, own, write_log
from queue_client import wait_matched
from servers import ServerProcess
from wsutil import Raw

API_KEY = "rating-rules-key"
AS_OPERATOR = {"Authorization": f"Bearer {API_KEY}"}


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("rating-rules-redis")).start()
    yield redis.url
    redis.stop()


@pytest.fixture(scope="module")
def keyless(tmp_path_factory, redis_url):
    server = ServerProcess(tmp_path_factory.mktemp("keyless"), redis_url=redis_url,
                           env={"BATTLEHALL_QUEUE_JOIN_PER_MIN": "0"}).start()
    yield server
    server.stop()



def meta_of(profiles: dict, made_by: str = "quick_play") -> dict:
    return {"ruleset": "duel", "seats": list(profiles), "rated": True, "profiles": profiles, "made_by": made_by,
            "spectators": {"delay_ms": 0}}


async def recent(redis, profile: str) -> dict:
    return orjson.loads((await redis.lrange(keys.recent_key(profile), 0, 0))[0])


async def test_a_seat_that_did_not_answer_twice_itself_rates_nobody(keyless, redis_url):
    ann, bo = guest(keyless, "Ann Short"), guest(keyless, "Bo Short")
    meta = meta_of({"a": ann["profile"], "b": bo["profile"]})
    result = make_result("fell", [["a"], ["b"]])
    r = aioredis.from_url(redis_url)
    try:
        # a answered twice; b once by itself, the rest a timeout, an automatic pass and a bot.
        await write_log(r, "m_short000000000", [
            own("a", 1), own("b", 2), own("a", 3),
            {"timeout": True, "prompt": "p4"},
            {"seat": "b", "prompt": "p5", "option": "pass", "args": {}},  # its stops passed it
            {"seat": "b", "prompt": "p6", "option": "strike", "args": {}, "bot": "greedy"},
            {"resign": "b", "act": 7}])
        assert await settle(RatingRecords(r), "m_short000000000", meta, result, 60)
        for profile in (ann["profile"], bo["profile"]):
            shown = await recent(r, profile)
            assert shown["rated"] is False and shown["unrated_reason"] == "too_short", shown
            assert await r.hget(keys.ratings_key(profile), "duel") is None
        # The same players, each with MIN_OWN_ANSWERS of their own: rated.
        await write_log(r, "m_short000000001", [own(s, n) for n in range(1, MIN_OWN_ANSWERS + 1) for s in "ab"])
        assert await settle(RatingRecords(r), "m_short000000001", meta, result, 60)
        assert (await recent(r, ann["profile"]))["rated"] is True
        assert "unrated_reason" not in await recent(r, ann["profile"])
    finally:
        await r.aclose()


async def test_the_same_two_profiles_stop_moving_ratings_past_the_daily_limit(keyless, redis_url):
    cy, di, ed = guest(keyless, "Cy Farm"), guest(keyless, "Di Farm"), guest(keyless, "Ed Fair")
    played = [own(s, n) for n in (1, 2) for s in "ab"]
    r = aioredis.from_url(redis_url)
    try:
        for n in range(PAIR_LIMIT + 1):
            match_id = f"m_farm{n:012d}"
            await write_log(r, match_id, played)
            assert await settle(RatingRecords(r), match_id, meta_of({"a": cy["profile"], "b": di["profile"]}),
                                make_result("fell", [["a"], ["b"]]), 60)
            shown = await recent(r, cy["profile"])
            if n < PAIR_LIMIT:
                assert shown["rated"] is True, (n, shown)
            else:
                assert shown["rated"] is False and shown["unrated_reason"] == "repeated_opponents", shown
        moved = await r.hget(keys.ratings_key(cy["profile"]), "duel")
        assert orjson.loads(moved)["matches"] == PAIR_LIMIT
        # Another opponent is another pair: rated.
        await write_log(r, "m_fair000000000", played)
        assert await settle(RatingRecords(r), "m_fair000000000", meta_of({"a": cy["profile"], "b": ed["profile"]}),
                            make_result("fell", [["a"], ["b"]]), 60)
        assert (await recent(r, ed["profile"]))["rated"] is True
        # A match the operator made (an event's best of five, say) is not limited.
        await write_log(r, "m_oper000000000", played)
        assert await settle(RatingRecords(r), "m_oper000000000", meta_of({"a": cy["profile"], "b": di["profile"]}, "operator"),
                            make_result("fell", [["b"], ["a"]]), 60)
        assert (await recent(r, di["profile"]))["rated"] is True
        assert 0 < await r.ttl(keys.met_key("duel", *sorted([cy["profile"], di["profile"]]))) <= 86_400
    finally:
        await r.aclose()


def test_one_caller_proving_every_seat_does_not_make_a_rated_match(keyless):
    ann, bo = guest(keyless, "Ann One"), guest(keyless, "Bo One")
    body = {"ruleset": "duel", "seats": ["alice", "bob"], "rated": True,
            "profiles": {"alice": {"profile": ann["profile"], "secret": ann["secret"]},
                         "bob": {"profile": bo["profile"], "secret": bo["secret"]}}}
    refused = httpx.post(f"{keyless.url}/matches", json=body)
    assert refused.status_code == 400 and refused.json()["error"]["path"] == "rated", refused.text
    unrated = httpx.post(f"{keyless.url}/matches", json={**body, "rated": False})
    assert unrated.status_code == 201 and unrated.json()["rated"] is False


async def test_a_quick_play_match_resigned_at_once_is_not_rated(keyless):
    fay, gus = guest(keyless, "Fay Quit"), guest(keyless, "Gus Quit")
    async with httpx.AsyncClient(timeout=30) as http:
        tickets = []
        for who in (fay, gus):
            joined = await http.post(f"{keyless.url}/queue", json={"ruleset": "duel", "profile": who["profile"]},
                                     headers={"Authorization": f"Bearer {who['secret']}"})
            assert joined.status_code == 201, joined.text
            tickets.append(joined.json()["ticket"])
        got = [await wait_matched(http, keyless.url, t) for t in tickets]
    assert all(g["rated"] for g in got)  # made rated: every seat bound
    conn = await Raw.open(keyless.url, got[0]["match"])
    assert (await conn.hello(got[0]["token"]))["t"] == "welcome"
    await conn.send({"t": "resign", "id": 1})
    await conn.recv_until(lambda m: m["t"] == "event" and m["kind"] == "match_ended")
    await conn.close()
    for who in (fay, gus):
        deadline = time.monotonic() + 10
        while not (shown := httpx.get(f"{keyless.url}/profiles/{who['profile']}").json())["recent_matches"]:
            assert time.monotonic() < deadline, shown
            await asyncio.sleep(0.1)
        assert shown["recent_matches"][0]["unrated_reason"] == "too_short" and shown["ratings"] == {}


async def test_a_delayed_matchs_result_reaches_profiles_and_the_leaderboard_once_its_end_is_public(
        tmp_path, redis_url):
    server = ServerProcess(tmp_path, redis_url=redis_url, env={"BATTLEHALL_API_KEY": API_KEY}).start()
    try:
        hal, ida = guest(server, "Hal Delay"), guest(server, "Ida Delay")
        delay_ms = 3000
        body = {"ruleset": "duel", "seats": ["alice", "bob"], "seed": 5, "rated": True,
                "spectators": {"public": True, "delay_ms": delay_ms},
                "profiles": {"alice": {"profile": hal["profile"], "secret": hal["secret"]},
                             "bob": {"profile": ida["profile"], "secret": ida["secret"]}}}
        created = httpx.post(f"{server.url}/matches", json=body, headers=AS_OPERATOR).json()
        bots = [Client(server.url, created["match"], t, seed=i) for i, t in enumerate(created["tokens"].values())]
        await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 60)
        ended = time.monotonic()

        def told() -> bool:
            shown = [httpx.get(f"{server.url}/profiles/{p['profile']}").json() for p in (hal, ida)]
            board = {row["profile"] for row in httpx.get(f"{server.url}/leaderboard/duel").json()["players"]}
            return any(s["recent_matches"] or s["ratings"] for s in shown) or bool(board & {hal["profile"],
                                                                                          ida["profile"]})
        while time.monotonic() - ended < delay_ms / 1000 - 1.0:  # inside the delay: nothing tells the result
            assert httpx.get(f"{server.url}/matches/{created['match']}").json()["status"] == "live"
            assert not told()
            await asyncio.sleep(0.3)
        deadline = time.monotonic() + 15
        while not told():
            assert time.monotonic() < deadline, "the result never reached the profiles"
            await asyncio.sleep(0.1)
        assert httpx.get(f"{server.url}/matches/{created['match']}").json()["status"] == "finished"
        for who in (hal, ida):
            deadline = time.monotonic() + 5
            while "duel" not in (shown := httpx.get(f"{server.url}/profiles/{who['profile']}").json())["ratings"]:
                assert time.monotonic() < deadline, shown
                await asyncio.sleep(0.1)
            assert shown["recent_matches"][0]["rated"] is True
    finally:
        server.stop()


async def test_a_new_players_readable_rating_is_provisional_and_never_negative_through_losses(keyless, redis_url):
    """`display` is the conservative rating on an Elo-like scale (1500 new), never below 0,
    `provisional` until PROVISIONAL_MATCHES rated matches, on the profile, its history and
    recent matches, and the leaderboard rows."""
    assert display(0.0) == 1500 and display(-1.83) == 1463 and display(-1000.0) == 0
    loser = guest(keyless, "Lu Loses")
    played = [own(s, n) for n in (1, 2) for s in "ab"]
    r = aioredis.from_url(redis_url)
    try:
        for n in range(PROVISIONAL_MATCHES + 2):
            winner = guest(keyless, f"Wi Wins {n}")
            match_id = f"m_lose{n:012d}"
            await write_log(r, match_id, played)
            assert await settle(RatingRecords(r), match_id, meta_of({"a": winner["profile"], "b": loser["profile"]}),
                                make_result("fell", [["a"], ["b"]]), 60)
            shown = httpx.get(f"{keyless.url}/profiles/{loser['profile']}").json()
            rating = shown["ratings"]["duel"]
            assert rating["matches"] == n + 1 and rating["rating"] < 0  # the raw rating fell below zero
            assert rating["display"] == display(rating["rating"]) and 0 < rating["display"] < 1500, rating
            assert rating["provisional"] is (n + 1 < PROVISIONAL_MATCHES), rating
            last = shown["recent_matches"][0]
            assert last["display_after"] == rating["display"] < last["display_before"], last
            assert shown["history"]["duel"][0]["display"] == rating["display"]
            if n == 0:
                assert last["display_before"] == 1500
        board = httpx.get(f"{keyless.url}/leaderboard/duel", params={"limit": 100}).json()["players"]
        row = next(p for p in board if p["profile"] == loser["profile"])
        assert row["display"] == rating["display"] and row["provisional"] is False
        assert all(p["display"] >= 0 and isinstance(p["provisional"], bool) for p in board)
        assert [p["display"] for p in board] == sorted((p["display"] for p in board), reverse=True)
    finally:
        await r.aclose()
