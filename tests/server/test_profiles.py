"""Player profiles, seats bound to them, ratings settled once, leaderboards and operator
tokens: against a real server process and its real Redis."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import httpx
import jwt
import orjson
import pytest
import redis.asyncio as aioredis

from battlehall.client import Client
from battlehall.engine.ruleset import make_result
from battlehall.server.players.player_rating import DEFAULT_RATING, rating
from battlehall.server.players.profiles import Profiles
from battlehall.server.players.ratings import settle
from battlehall.server.storage import profiles as keys
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.profiles import ProfileRecords
from battlehall.server.storage.ratings import RatingRecords
from locked_redis import BATTLEHALL_ACL, LockedRedis
from players import guest, played_log
from servers import ServerProcess, free_port

JWT_KEY = "k" * 48
API_KEY = "profiles-op-key"
#: A rated POST /matches is the operator's (docs/protocol.md "Binding seats to profiles").
AS_OPERATOR = {"Authorization": f"Bearer {API_KEY}"}


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("profiles-redis")).start()
    yield redis.url
    redis.stop()


@pytest.fixture(scope="module")
def srv(tmp_path_factory, redis_url):
    server = ServerProcess(tmp_path_factory.mktemp("profiles"), redis_url=redis_url,
                           env={"BATTLEHALL_JWT_KEY": JWT_KEY, "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0",
                                "BATTLEHALL_API_KEY": API_KEY}).start()
    yield server
    server.stop()



def token(sub: str, name: str, key: str = JWT_KEY, algorithm: str = "HS256", exp_in: int = 300) -> str:
    return jwt.encode({"sub": sub, "name": name, "exp": int(time.time()) + exp_in}, key, algorithm=algorithm)


def test_a_guest_profile_is_made_read_and_renamed_with_its_secret(srv):
    made = guest(srv, "Zoe\u0308 Ann")
    assert made["name"] == "Zo\u00eb Ann" and made["kind"] == "guest" and len(made["secret"]) >= 32
    url = f"{srv.url}/profiles/{made['profile']}"
    shown = httpx.get(url).json()
    assert shown["name"] == "Zo\u00eb Ann" and shown["ratings"] == {} and shown["recent_matches"] == []
    assert "secret" not in shown
    assert httpx.patch(url, json={"name": "Mallory"}).status_code == 401
    wrong = httpx.patch(url, json={"name": "Mallory"}, headers={"Authorization": "Bearer not-it"})
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "unauthorized"
    assert httpx.get(url).json()["name"] == "Zo\u00eb Ann"
    renamed = httpx.patch(url, json={"name": "Ann B"}, headers={"Authorization": f"Bearer {made['secret']}"})
    assert renamed.status_code == 200 and renamed.json()["name"] == "Ann B"
    assert httpx.get(url).json()["name"] == "Ann B"
    assert httpx.get(f"{srv.url}/profiles/p_0000000000000000").status_code == 404
    assert httpx.patch(f"{srv.url}/profiles/p_0000000000000000", json={"name": "xx"},
                       headers={"Authorization": "Bearer x"}).status_code == 404


@pytest.mark.parametrize("body, path", [
    ({"name": "x" * 25}, "name"), ({"name": "a"}, "name"), ({"name": "ann\u0000"}, "name"),
    ({"name": "ann\u202e"}, "name"), ({"name": " ann"}, "name"), ({"name": 5}, "name"), ({}, "name"),
    ({"name": "ann", "admin": True}, "admin"),
])
def test_bad_names_are_refused_with_the_field_path(srv, body, path):
    r = httpx.post(f"{srv.url}/profiles", json=body)
    assert r.status_code == 400 and r.json()["error"]["path"] == path, r.text
    made = guest(srv, "Renamer")
    r = httpx.patch(f"{srv.url}/profiles/{made['profile']}", json=body,
                    headers={"Authorization": f"Bearer {made['secret']}"})
    assert r.status_code == 400 and r.json()["error"]["path"] == path
    assert httpx.get(f"{srv.url}/profiles/{made['profile']}").json()["name"] == "Renamer"


def test_profile_creation_is_rate_limited_per_address(tmp_path, redis_url):
    server = ServerProcess(tmp_path, redis_url=redis_url,
                           env={"BATTLEHALL_PROFILE_PER_MIN": "1", "BATTLEHALL_PROFILE_BURST": "2"}).start()
    try:
        codes = [httpx.post(f"{server.url}/profiles", json={"name": "Spam"}).status_code for _ in range(3)]
        assert codes == [201, 201, 429]
        r = httpx.post(f"{server.url}/profiles", json={"name": "Spam"})
        assert r.json()["error"]["code"] == "rate_limited" and int(r.headers["Retry-After"]) >= 1
    finally:
        server.stop()


def test_binding_seats_is_checked(srv):
    ann, bo = guest(srv, "Ann"), guest(srv, "Bo")
    def create(headers=AS_OPERATOR, **extra):
        return httpx.post(f"{srv.url}/matches", json={"ruleset": "duel", "seats": ["alice", "bob"], **extra},
                          headers=headers)
    bind = {"alice": {"profile": ann["profile"], "secret": ann["secret"]}}
    cases = [
        ({"profiles": bind, "rated": True}, 400, "profiles"),  # rated: every seat bound
        ({"profiles": {**bind, "carol": {"profile": bo["profile"], "secret": bo["secret"]}}}, 400, "profiles.carol"),
        ({"profiles": {**bind, "bob": bind["alice"]}}, 400, "profiles.bob"),  # one profile, two seats
        ({"profiles": {"alice": {"profile": ann["profile"], "secret": bo["secret"]}}}, 401, "profiles.alice.secret"),
        ({"profiles": {"alice": {"profile": ann["profile"]}}}, 400, "profiles.alice"),
        ({"profiles": [], "rated": False}, 400, "profiles"),
        ({"profiles": bind, "rated": "yes"}, 400, "rated"),
    ]
    for extra, status, path in cases:
        r = create(**extra)
        assert r.status_code == status and r.json()["error"]["path"] == path, (extra, r.text)
    r = create(profiles=bind)
    assert r.status_code == 201 and r.json()["profiles"] == {"alice": ann["profile"]} and r.json()["rated"] is False


async def play_bound(srv, players: dict, rated: bool = True, seed: int = 3) -> dict:
    body = {"ruleset": "duel", "seats": list(players), "seed": seed, "rated": rated,
            "profiles": {seat: ({"token": p} if isinstance(p, str) else {"profile": p["profile"], "secret": p["secret"]})
                         for seat, p in players.items()}}
    r = httpx.post(f"{srv.url}/matches", json=body, headers=AS_OPERATOR)
    assert r.status_code == 201, r.text
    created = r.json()
    clients = [Client(srv.url, created["match"], t, seed=i) for i, t in enumerate(created["tokens"].values())]
    results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 60)
    return {**created, "result": results[0]}


async def settled(srv, profile_id: str, ruleset: str, matches: int, timeout: float = 10) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        shown = httpx.get(f"{srv.url}/profiles/{profile_id}").json()
        if shown["ratings"].get(ruleset, {}).get("matches", 0) >= matches:
            return shown
        assert time.monotonic() < deadline, shown
        await asyncio.sleep(0.1)


async def test_a_rated_duel_moves_both_ratings_once_even_across_a_restart(srv, redis_url):
    ann, bo = guest(srv, "Ann Rated"), guest(srv, "Bo Rated")
    played = await play_bound(srv, {"alice": ann, "bob": bo})
    winner = played["result"]["winner"]
    won, lost = (ann, bo) if winner == "alice" else (bo, ann)
    shown_won = await settled(srv, won["profile"], "duel", 1)
    shown_lost = await settled(srv, lost["profile"], "duel", 1)
    assert shown_won["ratings"]["duel"]["rating"] > shown_lost["ratings"]["duel"]["rating"]
    assert shown_won["ratings"]["duel"]["mu"] > 25 > shown_lost["ratings"]["duel"]["mu"]
    assert [h["match"] for h in shown_won["history"]["duel"]] == [played["match"]]
    recent = shown_lost["recent_matches"][0]
    assert recent["match"] == played["match"] and recent["rated"] and not recent["won"]
    assert recent["replay"] == f"/replay/{played['match']}"
    assert {p["name"] for p in recent["players"]} == {"Ann Rated", "Bo Rated"}
    board = httpx.get(f"{srv.url}/leaderboard/duel", params={"limit": 100}).json()
    ranks = {row["profile"]: row["rank"] for row in board["players"]}
    assert ranks[won["profile"]] < ranks[lost["profile"]]

    # A restart: the sweep runs at start, and loading the ended match runs the end hook again.
    srv.stop()
    srv.start()
    late = Client(srv.url, played["match"], played["tokens"]["alice"], seed=9)
    assert await asyncio.wait_for(late.run(), 30) == played["result"]
    await asyncio.sleep(1.0)
    for profile, before in ((won, shown_won), (lost, shown_lost)):
        after = httpx.get(f"{srv.url}/profiles/{profile['profile']}").json()
        assert after["ratings"] == before["ratings"] and len(after["history"]["duel"]) == 1
        assert len(after["recent_matches"]) == 1
    r = aioredis.from_url(redis_url)
    try:
        assert await r.exists(keys.done_key(played["match"]))
        assert await r.zscore(keys.PENDING, played["match"]) is None
    finally:
        await r.aclose()


async def test_an_unrated_bound_match_is_recorded_but_not_rated(srv):
    ann, bo = guest(srv, "Ann Casual"), guest(srv, "Bo Casual")
    played = await play_bound(srv, {"alice": ann, "bob": bo}, rated=False)
    deadline = time.monotonic() + 10
    while not (shown := httpx.get(f"{srv.url}/profiles/{ann['profile']}").json())["recent_matches"]:
        assert time.monotonic() < deadline
        await asyncio.sleep(0.1)
    assert shown["recent_matches"][0]["match"] == played["match"] and not shown["recent_matches"][0]["rated"]
    assert shown["ratings"] == {}


async def test_an_aborted_rated_match_is_not_rated(tmp_path, redis_url):
    server = ServerProcess(tmp_path, redis_url=redis_url, env={"BATTLEHALL_API_KEY": "op-key"}).start()
    try:
        ann, bo = guest(server, "Ann Abort"), guest(server, "Bo Abort")
        key = {"Authorization": "Bearer op-key"}
        body = {"ruleset": "duel", "seats": ["alice", "bob"], "rated": True,
                "profiles": {"alice": {"profile": ann["profile"], "secret": ann["secret"]},
                             "bob": {"profile": bo["profile"], "secret": bo["secret"]}}}
        created = httpx.post(f"{server.url}/matches", json=body, headers=key).json()
        assert httpx.post(f"{server.url}/matches/{created['match']}/abort", headers=key).status_code == 200
        deadline = time.monotonic() + 10
        while not (shown := httpx.get(f"{server.url}/profiles/{ann['profile']}").json())["recent_matches"]:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.1)
        assert shown["recent_matches"][0]["reason"] == "aborted" and shown["ratings"] == {}
    finally:
        server.stop()


async def test_settling_one_match_twice_at_once_rates_it_once(srv, redis_url):
    """The hook and the sweep (or two nodes) racing: one Lua script wins, the other sees it done."""
    ann, bo = guest(srv, "Ann Race"), guest(srv, "Bo Race")
    meta = {"ruleset": "hourglass", "seats": ["a", "b"], "rated": True,
            "profiles": {"a": ann["profile"], "b": bo["profile"]}}
    result = make_result("fell", [["a"], ["b"]])
    r = aioredis.from_url(redis_url)
    try:
        for n in range(3):
            await played_log(r, f"m_race000000000{n}", ["a", "b"])
        outcomes = await asyncio.gather(*(settle(RatingRecords(r), "m_race0000000000", meta, result, 60) for _ in range(4)))
        assert sorted(outcomes) == [False, False, False, True]
        # A second match of the same players, settled at the same time as a third: both count.
        await asyncio.gather(settle(RatingRecords(r), "m_race0000000001", meta, result, 60),
                             settle(RatingRecords(r), "m_race0000000002", meta, make_result("fell", [["b"], ["a"]]), 60))
    finally:
        await r.aclose()
    shown = httpx.get(f"{srv.url}/profiles/{ann['profile']}").json()
    assert shown["ratings"]["hourglass"]["matches"] == 3 and len(shown["history"]["hourglass"]) == 3


async def test_the_leaderboard_is_paged_and_checks_its_query(srv, redis_url):
    # Two rated players of its own: the test must not rely on others of the module having
    # run first on the same worker.
    cy, di = guest(srv, "Cy Pages"), guest(srv, "Di Pages")
    meta = {"ruleset": "hourglass", "seats": ["a", "b"], "rated": True,
            "profiles": {"a": cy["profile"], "b": di["profile"]}}
    r = aioredis.from_url(redis_url)
    try:
        await played_log(r, "m_pages000000000", ["a", "b"])
        assert await settle(RatingRecords(r), "m_pages000000000", meta, make_result("fell", [["a"], ["b"]]), 60)
    finally:
        await r.aclose()
    first = httpx.get(f"{srv.url}/leaderboard/hourglass", params={"limit": 1}).json()
    assert first["total"] >= 2 and len(first["players"]) == 1 and first["next"] == "1"
    second = httpx.get(f"{srv.url}/leaderboard/hourglass", params={"limit": 1, "cursor": first["next"]}).json()
    assert second["players"][0]["rank"] == 2
    assert first["players"][0]["rating"] >= second["players"][0]["rating"]
    for params, path in (({"limit": 0}, "limit"), ({"limit": "x"}, "limit"), ({"cursor": "-1"}, "cursor")):
        r = httpx.get(f"{srv.url}/leaderboard/duel", params=params)
        assert r.status_code == 400 and r.json()["error"]["path"] == path
    assert httpx.get(f"{srv.url}/leaderboard/chess").status_code == 404


async def test_an_operators_token_names_its_player(srv):
    made = httpx.post(f"{srv.url}/profiles", headers={"Authorization": f"Bearer {token('user-42', 'Vouched Val')}"})
    assert made.status_code == 200 and made.json()["kind"] == "vouched" and "secret" not in made.json()
    again = httpx.post(f"{srv.url}/profiles", headers={"Authorization": f"Bearer {token('user-42', 'Val Renamed')}"})
    assert again.json()["profile"] == made.json()["profile"]  # one profile per sub; its name follows the token
    assert httpx.get(f"{srv.url}/profiles/{made.json()['profile']}").json()["name"] == "Val Renamed"
    other = guest(srv, "Guest Gil")
    played = await play_bound(srv, {"alice": token("user-42", "Val Renamed"), "bob": other})
    assert played["profiles"]["alice"] == made.json()["profile"]
    await settled(srv, made.json()["profile"], "duel", 1)


@pytest.mark.parametrize("bad, code", [
    (lambda: token("u", "Eve", exp_in=-10), "token_expired"),
    (lambda: token("u", "Eve", key="w" * 48), "token_signature"),
    (lambda: token("u", "Eve", algorithm="HS512", key="k" * 64), "token_algorithm"),
    (lambda: jwt.encode({"sub": "u", "name": "Eve", "exp": int(time.time()) + 60}, None, algorithm="none"),
     "token_algorithm"),
    (lambda: "not.a.jwt", "token_invalid"),
    (lambda: jwt.encode({"sub": "u", "exp": int(time.time()) + 60}, JWT_KEY, algorithm="HS256"), "token_invalid"),
    (lambda: token("u", "<script>"), "token_invalid"),
])
def test_bad_tokens_are_refused_with_clear_codes(srv, bad, code):
    r = httpx.post(f"{srv.url}/profiles", headers={"Authorization": f"Bearer {bad()}"})
    assert r.status_code == 401 and r.json()["error"]["code"] == code, r.text
    assert r.headers["WWW-Authenticate"] == "Bearer"
    other = guest(srv, "Guest Tok")
    r = httpx.post(f"{srv.url}/matches", json={"ruleset": "duel", "seats": ["alice", "bob"],
                                                 "profiles": {"alice": {"token": bad()}}}, headers=AS_OPERATOR)
    assert r.status_code == 401 and r.json()["error"] == {**r.json()["error"], "code": code,
                                                           "path": "profiles.alice.token"}
    del other


def test_a_server_without_a_key_takes_no_tokens(tmp_path, redis_url):
    server = ServerProcess(tmp_path, redis_url=redis_url).start()
    try:
        r = httpx.post(f"{server.url}/profiles", headers={"Authorization": f"Bearer {token('u', 'Eve')}"})
        assert r.status_code == 401 and r.json()["error"]["code"] == "token_not_accepted"
    finally:
        server.stop()


async def test_profiles_and_ratings_need_no_more_than_the_documented_acl(tmp_path):
    """docs/operations.md's ACL line is what a locked-down Redis allows: players too."""
    locked = LockedRedis(tmp_path / "redis", password="admin-pass",
                         users={"battlehall": f"{BATTLEHALL_ACL} >node-pass"}).start()
    server = ServerProcess(tmp_path, redis_url=locked.url("battlehall", "node-pass"),
                           env={"BATTLEHALL_JWT_KEY": JWT_KEY, "BATTLEHALL_API_KEY": API_KEY}).start()
    try:
        ann, bo = guest(server, "Ann Acl"), guest(server, "Bo Acl")
        await play_bound(server, {"alice": ann, "bob": bo})
        await settled(server, ann["profile"], "duel", 1)
        assert len(httpx.get(f"{server.url}/leaderboard/duel").json()["players"]) == 2
        assert httpx.patch(f"{server.url}/profiles/{ann['profile']}", json={"name": "Ann Acl B"},
                           headers={"Authorization": f"Bearer {ann['secret']}"}).status_code == 200
        assert httpx.post(f"{server.url}/profiles",
                          headers={"Authorization": f"Bearer {token('acl', 'Val Acl')}"}).status_code == 200
        with locked.admin() as admin:
            refused = [entry for entry in admin.acl_log() if entry["object"] != "client"]
            assert refused == [], refused
    finally:
        server.stop()
        locked.stop()


@pytest.mark.parametrize("env, says", [
    ({"BATTLEHALL_JWT_KEY": "short"}, "BATTLEHALL_JWT_KEY must be at least 32 bytes"),
    ({"BATTLEHALL_PROFILE_PER_MIN": "lots"}, "BATTLEHALL_PROFILE_PER_MIN must be a number"),
    ({"BATTLEHALL_PROFILE_BURST": "0"}, "BATTLEHALL_PROFILE_BURST must be at least 1"),
])
def test_serve_refuses_bad_player_settings_in_one_line(tmp_path, env, says):
    done = subprocess.run([sys.executable, "-m", "battlehall", "serve", "--port", str(free_port()),
                           "--data-dir", str(tmp_path)], env={**os.environ, **env},
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and says in done.stderr and "Traceback" not in done.stderr, done.stderr


async def test_a_match_whose_end_was_never_settled_is_rated_by_the_next_start(srv, redis_url):
    """The node died between a rated match's end and its ratings: Redis holds the ended match,
    still pending, and no ratings. The sweep at the next start rates it, once."""
    ann, bo = guest(srv, "Ann Sweep"), guest(srv, "Bo Sweep")
    played = await play_bound(srv, {"alice": ann, "bob": bo})
    await settled(srv, ann["profile"], "duel", 1)
    await settled(srv, bo["profile"], "duel", 1)
    srv.stop()
    r = aioredis.from_url(redis_url)
    try:  # back to the state of a crash right after the end was written
        for profile in (ann["profile"], bo["profile"]):
            await r.delete(keys.ratings_key(profile), keys.history_key(profile, "duel"), keys.recent_key(profile))
            await r.zrem(keys.leaderboard_key("duel"), profile)
        await r.delete(keys.done_key(played["match"]))
        await r.zadd(keys.PENDING, {played["match"]: 0})
        srv.start()
        for profile in (ann["profile"], bo["profile"]):
            shown = await settled(srv, profile, "duel", 1)
            assert len(shown["history"]["duel"]) == 1 and shown["recent_matches"][0]["match"] == played["match"]
        assert await r.zscore(keys.PENDING, played["match"]) is None
    finally:
        await r.aclose()


def test_the_player_pages_carry_the_content_security_policy(srv):
    made = guest(srv, "Page Csp")
    for path in (f"/player/{made['profile']}", "/leaderboard/duel"):
        r = httpx.get(srv.url + path, headers={"Accept": "text/html"})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
        assert "script-src 'self'" in r.headers["content-security-policy"] and "<script" in r.text
    # The same leaderboard path answers JSON to anything else, and says it varies with Accept.
    r = httpx.get(srv.url + "/leaderboard/duel")
    assert r.headers["content-type"] == "application/json" and r.headers["vary"] == "Accept"


async def test_quick_play_pairs_a_player_by_the_profiles_skill_in_the_ruleset(redis_url):
    """player_rating.rating: a profile's `mu` in the ruleset; a new player's without one."""
    r = aioredis.from_url(redis_url)
    try:
        profile, _ = await Profiles(ProfileRecords(r)).create_guest("Pairing Pat")
        await r.hset(keys.ratings_key(profile), "duel", orjson.dumps({"mu": 31.5, "sigma": 6.0, "rating": 13.5,
                                                                      "matches": 3}))
        assert await rating(ProfileRecords(r), profile, "duel") == 31.5
        assert await rating(ProfileRecords(r), profile, "spellfire") == DEFAULT_RATING  # not rated in that ruleset yet
        assert await rating(ProfileRecords(r), None, "duel") == DEFAULT_RATING
        assert await rating(ProfileRecords(r), "not a profile id", "duel") == DEFAULT_RATING
    finally:
        await r.aclose()
