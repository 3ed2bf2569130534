"""Names that cannot be told apart (docs/protocol.md "Display names"): names that show
nothing are refused, every name is answered with its profile's tag, no two profiles hold
look-alike names with one tag, and renames are rate-limited: against a real server
process and its real Redis."""

from __future__ import annotations

import hashlib
import time

import httpx
import jwt
import pytest
import redis.asyncio as aioredis

from battlehall.engine.ruleset import make_result
from battlehall.server.http.state import RENAME_BURST
from battlehall.server.players.names import skeleton
from battlehall.server.players.profiles import NameTaken, Profiles
from battlehall.server.players.ratings import settle
from battlehall.server.storage import profiles as keys
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.profiles import ProfileRecords
from battlehall.server.storage.ratings import RatingRecords
from battlehall.server.storage.store import key, pack
from players import guest
from servers import ServerProcess

JWT_KEY = "t" * 48
CYRILLIC_ALICE = "\u0410lice"  # a Cyrillic capital A


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("tags-redis")).start()
    yield redis.url
    redis.stop()


@pytest.fixture(scope="module")
def srv(tmp_path_factory, redis_url):
    server = ServerProcess(tmp_path_factory.mktemp("tags"), redis_url=redis_url,
                           env={"BATTLEHALL_JWT_KEY": JWT_KEY, "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}).start()
    yield server
    server.stop()



def rename(srv, made: dict, name: str) -> httpx.Response:
    return httpx.patch(f"{srv.url}/profiles/{made['profile']}", json={"name": name},
                       headers={"Authorization": f"Bearer {made['secret']}"})


def token(sub: str, name: str) -> str:
    return jwt.encode({"sub": sub, "name": name, "exp": int(time.time()) + 300}, JWT_KEY, algorithm="HS256")


async def forged_guest(redis_url: str, profile_id: str, name: str) -> dict:
    """A guest profile with the id chosen (so with the tag chosen), as create_guest writes one."""
    secret = "s" * 32
    r = aioredis.from_url(redis_url)
    try:
        assert await Profiles(ProfileRecords(r)).take_name(profile_id, name)
        await r.hset(keys.profile_key(profile_id), mapping={
            "name": name, "secret": hashlib.sha256(secret.encode()).digest(), "kind": "guest", "created_at": 1})
    finally:
        await r.aclose()
    return {"profile": profile_id, "secret": secret}


@pytest.mark.parametrize("char", ["\u034f", "\ufe0f", "\U000e0100", "\u17b4", "\u17b5", "\u3164", "\u115f",
                                  "\u1160", "\uffa0", "\u180b"])
def test_names_with_characters_that_show_nothing_are_refused_with_the_field_path(srv, char):
    for name in (f"Al{char}ice", char * 3, f"{char}Bo"):
        r = httpx.post(f"{srv.url}/profiles", json={"name": name})
        assert r.status_code == 400, (name, r.text)
        error = r.json()["error"]
        assert error["code"] == "bad_name" and error["path"] == "name"
        assert f"U+{ord(char):04X}" in error["message"] and "show nothing" in error["message"]
    made = guest(srv, "Visible")
    r = rename(srv, made, f"Vis{char}ible")
    assert r.status_code == 400 and r.json()["error"]["path"] == "name"
    assert httpx.get(f"{srv.url}/profiles/{made['profile']}").json()["name"] == "Visible"


def test_a_token_whose_name_shows_nothing_is_refused(srv):
    r = httpx.post(f"{srv.url}/profiles", headers={"Authorization": f"Bearer {token('blank', chr(0x3164) * 2)}"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "token_invalid"


def test_look_alike_names_are_one_skeleton():
    assert skeleton(CYRILLIC_ALICE) == skeleton("Alice") == skeleton("AIice")
    assert skeleton("Alice") != skeleton("Alise")


async def test_same_and_look_alike_names_are_answered_with_distinct_tags_everywhere(srv, redis_url):
    alices = [guest(srv, "Alice"), guest(srv, "Alice"), guest(srv, CYRILLIC_ALICE), guest(srv, "AIice")]
    tags = [made["tag"] for made in alices]
    assert tags == [made["profile"][2:6] for made in alices] and len(set(tags)) == 4
    for made in alices:
        assert httpx.get(f"{srv.url}/profiles/{made['profile']}").json()["tag"] == made["tag"]
    r = aioredis.from_url(redis_url)
    try:
        for n, (a, b) in enumerate([(alices[0], alices[1]), (alices[2], alices[3])]):
            match_id = f"m_tags{n:012d}"
            for seq, seat in enumerate(["a", "b", "a", "b"], 1):
                entry = {"seq": seq, "last_seq": seq, "at": seq, "seat": seat, "prompt": f"p{seq}",
                         "option": "strike", "args": {}, "act": seq}
                await r.xadd(key(match_id, "log"), {"e": pack(entry), "v": pack([])}, id=f"{seq}-0")
            meta = {"ruleset": "demigod", "seats": ["a", "b"], "rated": True,
                    "profiles": {"a": a["profile"], "b": b["profile"]}}
            assert await settle(RatingRecords(r), match_id, meta, make_result("fell", [["a"], ["b"]]), 60)
    finally:
        await r.aclose()
    board = httpx.get(f"{srv.url}/leaderboard/demigod", params={"limit": 100}).json()["players"]
    assert sorted((row["profile"], row["tag"]) for row in board) == sorted((m["profile"], m["tag"]) for m in alices)
    players = httpx.get(f"{srv.url}/profiles/{alices[0]['profile']}").json()["recent_matches"][0]["players"]
    assert [(p["name"], p["tag"]) for p in players] == [("Alice", tags[0]), ("Alice", tags[1])]


async def test_a_name_like_another_with_the_same_tag_is_refused(srv, redis_url):
    alice = guest(srv, "Alice Tagged")
    twin = await forged_guest(redis_url, f"p_{alice['tag']}000000000077", "Bob Tagged")
    for look_alike in ("Alice Tagged", "\u0410lice Tagged", "AIice Tagged"):
        r = rename(srv, twin, look_alike)
        assert r.status_code == 400, r.text
        error = r.json()["error"]
        assert error["code"] == "bad_name" and error["path"] == "name" and "same tag" in error["message"]
    assert httpx.get(f"{srv.url}/profiles/{twin['profile']}").json()["name"] == "Bob Tagged"
    assert rename(srv, twin, "Alice Other").status_code == 200
    # A name once held stays its profile's: an old match's "Alice Tagged#tag" is never another player's.
    assert rename(srv, alice, "Alice Renamed").status_code == 200
    assert rename(srv, twin, "Alice Tagged").status_code == 400
    assert rename(srv, alice, "Alice Tagged").status_code == 200


async def test_a_new_profile_draws_another_id_when_its_tag_holds_a_look_alike(redis_url, monkeypatch):
    r = aioredis.from_url(redis_url)
    try:
        profiles = Profiles(ProfileRecords(r))
        held = await forged_guest(redis_url, "p_abcd000000000001", "Carol Drawn")
        drawn = iter(["p_abcd000000000002", "p_abcd000000000003", "p_9999000000000004"])
        monkeypatch.setattr("battlehall.server.players.profiles._new_id", lambda: next(drawn))
        profile_id, _ = await profiles.create_guest("\u0421arol Drawn")  # a Cyrillic C
        assert profile_id == "p_9999000000000004" and profile_id != held["profile"]
        monkeypatch.setattr("battlehall.server.players.profiles._new_id", lambda: "p_abcd000000000005")
        with pytest.raises(NameTaken):
            await profiles.create_guest("Carol Drawn")
        assert not await r.exists(keys.profile_key("p_abcd000000000005"))
    finally:
        await r.aclose()


async def test_a_tokens_name_like_another_with_the_same_tag_is_refused(srv, redis_url):
    made = httpx.post(f"{srv.url}/profiles", headers={"Authorization": f"Bearer {token('dave-1', 'Dave Vouched')}"})
    assert made.status_code == 200 and made.json()["tag"] == made.json()["profile"][2:6]
    await forged_guest(redis_url, f"p_{made.json()['tag']}000000000088", "Erin Vouched")
    r = httpx.post(f"{srv.url}/profiles", headers={"Authorization": f"Bearer {token('dave-1', 'Erin Vouched')}"})
    assert r.status_code == 401, r.text
    assert r.json()["error"]["code"] == "token_invalid" and "same tag" in r.json()["error"]["message"]
    assert httpx.get(f"{srv.url}/profiles/{made.json()['profile']}").json()["name"] == "Dave Vouched"


def test_renames_are_rate_limited_per_profile(srv):
    made, other = guest(srv, "Quick Renamer"), guest(srv, "Slow Renamer")
    codes = [rename(srv, made, f"Renamed {n}").status_code for n in range(RENAME_BURST)]
    assert codes == [200] * RENAME_BURST
    r = rename(srv, made, "One Too Many")
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited", r.text
    assert int(r.headers["Retry-After"]) >= 1
    assert httpx.get(f"{srv.url}/profiles/{made['profile']}").json()["name"] == f"Renamed {RENAME_BURST - 1}"
    # Another profile's renames are its own, and a wrong secret spends none of them.
    for _ in range(RENAME_BURST + 1):
        assert httpx.patch(f"{srv.url}/profiles/{other['profile']}", json={"name": "Mallory"},
                           headers={"Authorization": "Bearer not-it"}).status_code == 401
    assert rename(srv, other, "Slow Renamed").status_code == 200
