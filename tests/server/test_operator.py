"""An operator's abort and delete of a match (API-key protected), against the real
server, its real Redis and real sockets."""

from __future__ import annotations

import time

import httpx
import pytest

from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.verify import verify
from servers import ServerProcess, free_port
from wsutil import Raw

# Nobody won, nobody drew: every seat shares the one place.
ABORTED = {"winners": [], "ranking": [["alice", "bob"]], "draw": False, "reason": "aborted", "winner": None}

KEY = "sesame"
AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture(scope="module")
def keyed(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("keyed"), env={"BATTLEHALL_API_KEY": KEY}).start()
    yield srv
    srv.stop()


def create(srv: ServerProcess, **body) -> dict:
    body.setdefault("ruleset", "duel")
    body.setdefault("seats", ["alice", "bob"])
    r = httpx.post(srv.url + "/matches", json=body, headers=AUTH, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def live_ids(srv: ServerProcess) -> list[str]:
    """Every live match (the operator's list: `GET /matches` lists public matches only)."""
    return [m["match"] for m in httpx.get(srv.url + "/operator/matches", headers=AUTH).json()["matches"]
            if m["status"] == "live"]


async def test_abort_ends_the_match_for_its_sockets(keyed):
    created = create(keyed, clock={"prompt_ms": None}, spectators={"delay_ms": 300})
    match = created["match"]
    alice = await Raw.open(keyed.url, match)
    await alice.send({"t": "hello", "token": created["tokens"]["alice"]})
    welcome = await alice.recv()
    assert welcome["t"] == "welcome" and welcome["prompts"]
    watcher = await Raw.open(keyed.url, match)
    await watcher.send({"t": "hello", "token": created["spectator_token"]})
    assert (await watcher.recv())["t"] == "welcome"

    # The scheme is case-insensitive (RFC 7235).
    r = httpx.post(f"{keyed.url}/matches/{match}/abort", headers={"Authorization": f"bearer {KEY}"})
    assert r.status_code == 200, r.text
    assert r.json()["status"] == "finished" and r.json()["result"] == ABORTED

    closed = await alice.recv_until(lambda m: m["t"] == "event")
    assert closed["kind"] == "prompt_closed" and closed["data"]["reason"] == "cancelled"
    ended = await alice.recv_until(lambda m: m["t"] == "event" and m["kind"] == "match_ended")
    assert ended["data"] == ABORTED
    # The delayed spectator sees the end too, its delay later.
    seen = await watcher.recv_until(lambda m: m["t"] == "event" and m["kind"] == "match_ended")
    assert seen["seq"] == ended["seq"]

    await alice.send({"t": "act", "id": "late", "prompt": welcome["prompts"][0]["id"], "option": "strike"})
    refused = await alice.recv_until(lambda m: m["t"] == "error")
    assert refused["code"] == "match_over"
    assert match not in live_ids(keyed)
    replay = httpx.get(f"{keyed.url}/matches/{match}/replay", headers=AUTH).json()  # the key opens any replay
    assert replay["events"][-1]["kind"] == "match_ended"
    assert replay["log"][-1]["abort"] is True and verify(replay) == []  # the abort re-runs too
    again = httpx.post(f"{keyed.url}/matches/{match}/abort", headers=AUTH)
    assert again.status_code == 409 and again.json()["error"]["code"] == "match_over"
    await alice.ws.close()
    await watcher.ws.close()


def test_operator_routes_need_the_key(keyed):
    match = create(keyed)["match"]
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": f"Basic {KEY}"},
                    {"Authorization": KEY}, {"Authorization": "Bearer"}):
        for method, path in (("POST", f"/matches/{match}/abort"), ("DELETE", f"/matches/{match}")):
            r = httpx.request(method, keyed.url + path, headers=headers)
            assert r.status_code == 401, (method, headers, r.text)
            assert r.json()["error"]["code"] == "unauthorized"
            assert r.headers["www-authenticate"] == "Bearer"
    assert match in live_ids(keyed)  # nothing happened to it


def test_operator_routes_are_refused_without_an_api_key(server):
    match = server.create(ruleset="duel")["match"]
    for method, path in (("POST", f"/matches/{match}/abort"), ("DELETE", f"/matches/{match}")):
        r = httpx.request(method, server.url + path, headers={"Authorization": "Bearer anything"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "forbidden"
    assert httpx.get(f"{server.url}/matches/{match}").json()["status"] == "live"


async def test_delete_refuses_a_live_match_and_removes_an_ended_one(keyed):
    created = create(keyed)
    match = created["match"]
    r = httpx.delete(f"{keyed.url}/matches/{match}", headers=AUTH)
    assert r.status_code == 409 and r.json()["error"]["code"] == "match_live"
    assert match in live_ids(keyed)

    bob = await Raw.open(keyed.url, match)
    await bob.send({"t": "hello", "token": created["tokens"]["bob"]})
    assert (await bob.recv())["t"] == "welcome"
    assert httpx.post(f"{keyed.url}/matches/{match}/abort", headers=AUTH).status_code == 200
    r = httpx.delete(f"{keyed.url}/matches/{match}", headers=AUTH)
    assert r.status_code == 204
    await bob.recv_until(lambda m: m["t"] == "event" and m["kind"] == "match_ended")
    await bob.ws.wait_closed()
    assert bob.ws.close_code == 1001  # the match is gone from memory too
    assert httpx.get(f"{keyed.url}/matches/{match}").status_code == 404
    assert httpx.get(f"{keyed.url}/matches/{match}/replay", headers=AUTH).status_code == 404
    assert httpx.delete(f"{keyed.url}/matches/{match}", headers=AUTH).status_code == 404
    assert httpx.post(f"{keyed.url}/matches/{match}/abort", headers=AUTH).status_code == 404
    assert httpx.post(f"{keyed.url}/matches/m_nope/abort", headers=AUTH).status_code == 404


def test_an_abort_is_final_after_a_restart(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_API_KEY": KEY}).start()
    try:
        aborted, other = create(srv)["match"], create(srv)["match"]
        assert httpx.post(f"{srv.url}/matches/{aborted}/abort", headers=AUTH).status_code == 200
        srv.kill()  # SIGKILL, server and Redis: only what was durable remains
        srv.start()
        assert live_ids(srv) == [other]
        summary = httpx.get(f"{srv.url}/matches/{aborted}").json()
        assert summary["status"] == "finished" and summary["result"]["reason"] == "aborted"
        assert "battlehall_matches_recovered_total 1" in httpx.get(srv.url + "/metrics", headers=AUTH).text
    finally:
        srv.stop()


def test_an_abort_redis_did_not_take_is_refused_and_changes_nothing(tmp_path):
    redis = EmbeddedRedis(tmp_path / "redis", port=free_port()).start()
    srv = ServerProcess(tmp_path, redis_url=redis.url, env={"BATTLEHALL_API_KEY": KEY}).start()
    try:
        match = create(srv)["match"]
        redis.stop()
        r = httpx.post(f"{srv.url}/matches/{match}/abort", headers=AUTH, timeout=30)
        assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable"
        # Whatever fails meanwhile answers in the error form, never in plain text.
        r = httpx.get(f"{srv.url}/matches", timeout=30)
        assert r.status_code >= 500 and r.json()["error"]["code"] and r.json()["error"]["message"]
        redis.start()
        deadline = time.monotonic() + 20
        while httpx.get(srv.url + "/readyz").status_code != 200:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert httpx.get(f"{srv.url}/matches/{match}").json()["status"] == "live"
        r = httpx.post(f"{srv.url}/matches/{match}/abort", headers=AUTH, timeout=30)
        assert r.status_code == 200 and r.json()["result"]["reason"] == "aborted"
    finally:
        srv.stop()
        redis.stop()


async def test_operator_listing_shows_sockets_spectators_and_clocks(keyed, server):
    created = create(keyed, clock={"prompt_ms": 60_000, "bank_ms": 5_000})
    match = created["match"]
    assert httpx.get(f"{keyed.url}/operator/matches").status_code == 401
    assert httpx.get(f"{keyed.url}/operator/matches", headers={"Authorization": "Bearer nope"}).status_code == 401
    assert httpx.get(f"{server.url}/operator/matches").status_code == 403  # a server without a key
    alice = [await Raw.open(keyed.url, match) for _ in range(2)]
    for conn in alice:
        assert (await conn.hello(created["tokens"]["alice"]))["t"] == "welcome"
    watcher = await Raw.open(keyed.url, match)
    assert (await watcher.hello(created["spectator_token"]))["role"] == "spectator"
    listed = httpx.get(f"{keyed.url}/operator/matches", headers=AUTH).json()
    mine = next(m for m in listed["matches"] if m["match"] == match)
    assert mine["status"] == "live" and mine["in_memory"] is True
    assert mine["sockets"] == {"alice": 2, "bob": 0} and mine["spectators"] == 1
    assert mine["banks_ms"] == {"alice": 5_000, "bob": 5_000}
    [prompt] = mine["prompts"]
    assert set(prompt) == {"id", "seat", "kind", "deadline", "bank_ms"}  # no text, options or default
    assert 0 < prompt["deadline"] - listed["now"] <= 60_000
    for conn in (*alice, watcher):
        await conn.close()
