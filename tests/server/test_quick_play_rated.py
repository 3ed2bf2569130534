"""Rated quick play against a real server and its real Redis: a join's `profile` is proven
by its secret (or a player token) as Bearer, the match binds each seat to it, and a match
whose every seat is bound is rated once at its end."""

from __future__ import annotations

import asyncio
import time

import httpx
import jwt
import pytest

from battlehall.client import Client
from players import guest
from servers import ServerProcess

JWT_KEY = "q" * 48


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    server = ServerProcess(tmp_path_factory.mktemp("quick-rated"),
                           env={"BATTLEHALL_JWT_KEY": JWT_KEY, "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0",
                                "BATTLEHALL_QUEUE_JOIN_PER_MIN": "0"}).start()
    yield server
    server.stop()



def join(srv, proof: str | None = None, **body) -> httpx.Response:
    headers = {"authorization": f"Bearer {proof}"} if proof is not None else {}
    return httpx.post(f"{srv.url}/queue", json={"ruleset": "duel", "seats": 2, **body}, headers=headers)


async def matched(srv, tickets: list[str]) -> list[dict]:
    async def one(http, ticket):
        deadline = time.monotonic() + 15
        while True:
            status = (await http.get(f"{srv.url}/queue/{ticket}", params={"wait_ms": 2000})).json()
            if status["state"] not in ("waiting", "forming"):
                return status
            assert time.monotonic() < deadline, status
    async with httpx.AsyncClient(timeout=30) as http:
        got = await asyncio.gather(*(one(http, t) for t in tickets))
    assert [g["state"] for g in got] == ["matched"] * len(tickets) and len({g["match"] for g in got}) == 1
    return got


async def play(srv, got: list[dict]) -> dict:
    bots = [Client(srv.url, g["match"], g["token"], seed=i) for i, g in enumerate(got)]
    results = await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 60)
    assert results[0] is not None and results[0]["reason"] != "aborted"
    return results[0]


async def shown_once_recorded(srv, profile_id: str) -> dict:
    deadline = time.monotonic() + 10
    while not (shown := httpx.get(f"{srv.url}/profiles/{profile_id}").json())["recent_matches"]:
        assert time.monotonic() < deadline, shown
        await asyncio.sleep(0.1)
    return shown


async def test_two_guests_matched_in_quick_play_are_rated_once_at_the_end(srv):
    ann, bo = guest(srv, "Ann Quick"), guest(srv, "Bo Quick")
    tickets = []
    for who in (ann, bo):
        r = join(srv, who["secret"], profile=who["profile"], name=who["name"].replace(" ", "_"))
        assert r.status_code == 201, r.text
        tickets.append(r.json()["ticket"])
    got = await matched(srv, tickets)
    assert all(g["rated"] for g in got)
    result = await play(srv, got)
    seat_of = {ann["profile"]: got[0]["seat"], bo["profile"]: got[1]["seat"]}
    for who in (ann, bo):
        shown = await shown_once_recorded(srv, who["profile"])
        duel = shown["ratings"]["duel"]
        assert duel["matches"] == 1 and [h["match"] for h in shown["history"]["duel"]] == [got[0]["match"]]
        assert (duel["mu"] > 25) == (seat_of[who["profile"]] == result["winner"])  # the winner went up
        assert shown["recent_matches"][0]["rated"]
    await asyncio.sleep(1.0)  # settled once: nothing more happens later
    for who in (ann, bo):
        shown = httpx.get(f"{srv.url}/profiles/{who['profile']}").json()
        assert shown["ratings"]["duel"]["matches"] == 1 and len(shown["history"]["duel"]) == 1


async def test_a_player_without_a_profile_makes_the_quick_play_match_unrated(srv):
    cy = guest(srv, "Cy Quick")
    with_profile = join(srv, cy["secret"], profile=cy["profile"])
    without = join(srv)
    assert with_profile.status_code == 201 and without.status_code == 201
    got = await matched(srv, [with_profile.json()["ticket"], without.json()["ticket"]])
    assert not any(g["rated"] for g in got)
    await play(srv, got)
    shown = await shown_once_recorded(srv, cy["profile"])  # bound, so recorded; but not rated
    assert shown["recent_matches"][0]["match"] == got[0]["match"] and not shown["recent_matches"][0]["rated"]
    assert shown["ratings"] == {}


def test_a_profile_must_be_proven_by_its_secret(srv):
    dee, eve = guest(srv, "Dee Quick"), guest(srv, "Eve Quick")
    for proof in (None, "wrong", eve["secret"]):
        r = join(srv, proof, profile=dee["profile"])
        assert r.status_code == 401, r.text
        assert r.json()["error"]["code"] == "unauthorized" and r.json()["error"]["path"] == "profile"
        assert r.headers["www-authenticate"] == "Bearer"
    r = join(srv, "x", profile="p_nosuchprofile00")
    assert r.status_code == 401 and r.json()["error"]["path"] == "profile"


def test_an_operators_player_token_proves_its_own_profile_only(srv):
    def token(sub: str, key: str = JWT_KEY) -> str:
        return jwt.encode({"sub": sub, "name": "Op Player", "exp": int(time.time()) + 300}, key, algorithm="HS256")

    mine = httpx.post(f"{srv.url}/profiles", headers={"authorization": f"Bearer {token('op-1')}"}).json()["profile"]
    r = join(srv, token("op-1"), profile=mine)
    assert r.status_code == 201, r.text
    assert httpx.delete(f"{srv.url}/queue/{r.json()['ticket']}").json()["state"] == "left"
    other = join(srv, token("op-2"), profile=mine)  # a real token, but another player's
    assert other.status_code == 401 and other.json()["error"]["code"] == "unauthorized"
    forged = join(srv, token("op-1", key="z" * 48), profile=mine)
    assert forged.status_code == 401 and forged.json()["error"]["code"].startswith("token_")
    assert forged.json()["error"]["path"] == "profile"


def test_a_group_is_rated_only_when_every_seat_has_a_profile_of_its_own():
    from battlehall.server.players.matcher import binding
    from battlehall.server.players.queue import Entry

    def group(*profiles):
        return [Entry(f"q_{i}", 0, 25.0, "p", profile) for i, profile in enumerate(profiles)]

    assert binding(group("p_a", "p_b"), ["x", "y"]) == {"profiles": {"x": "p_a", "y": "p_b"}, "rated": True}
    assert binding(group("p_a", None), ["x", "y"]) == {"profiles": {"x": "p_a"}, "rated": False}
    assert binding(group(None, None), ["x", "y"]) == {}
    # one player queued twice: neither seat is theirs to rate
    assert binding(group("p_a", "p_a", "p_c"), ["x", "y", "z"]) == {"profiles": {"z": "p_c"}, "rated": False}
