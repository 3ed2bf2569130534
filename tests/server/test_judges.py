"""Judges (docs/protocol.md, Judging): the operator names them; a judge token opens a live
view of every seat of the matches it may judge, their log, and their rewind, and nothing
else. Against the real server, its real Redis and real sockets."""

from __future__ import annotations

import httpx
import pytest

from servers import ServerProcess
from wsutil import Raw

KEY = "sesame"
AUTH = {"Authorization": f"Bearer {KEY}"}


@pytest.fixture(scope="module")
def keyed(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("judges"), env={"BATTLEHALL_API_KEY": KEY}).start()
    yield srv
    srv.stop()


def create(srv: ServerProcess, **body) -> dict:
    body = {"ruleset": "hourglass", "seats": ["alice", "bob"], "clock": {"prompt_ms": None}, **body}
    r = httpx.post(srv.url + "/matches", json=body, headers=AUTH, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def judge(srv: ServerProcess, **body) -> str:
    r = httpx.post(srv.url + "/judges", json={"name": "jo", **body}, headers=AUTH)
    assert r.status_code == 201, r.text
    assert r.json()["name"] == "jo" and r.json()["tournament"] == body.get("tournament")
    return r.json()["token"]


async def test_a_judge_sees_every_seat_live_and_the_log(keyed):
    created = create(keyed)
    match = created["match"]
    token = judge(keyed)
    sock = await Raw.open(keyed.url, match)
    await sock.send({"t": "hello", "token": token, "role": "judge"})
    welcome = await sock.recv()
    assert welcome["t"] == "welcome" and welcome["role"] == "judge" and welcome["delay_ms"] == 0
    assert set(welcome["views"]) == {"alice", "bob"}  # every seat's hand
    assert welcome["views"]["alice"] != welcome["views"]["bob"]

    alice = await Raw.open(keyed.url, match)
    await alice.send({"t": "hello", "token": created["tokens"]["alice"]})
    prompt = next(p for p in (await alice.recv())["prompts"] if p["seat"] == "alice")
    option = prompt["options"][0]
    args = {name: values[0] for name, values in (option.get("args") or {}).items()}
    await alice.send({"t": "act", "id": 1, "prompt": prompt["id"], "option": option["id"], "args": args})
    await alice.recv_until(lambda m: m["t"] == "ack")
    seen = await sock.recv_until(lambda m: m["t"] == "event", timeout=3)  # live: no delay
    assert seen["seq"] > welcome["seq"]

    await sock.send({"t": "act", "id": 2, "prompt": prompt["id"], "option": option["id"]})
    refused = await sock.recv_until(lambda m: m["t"] == "error")
    assert refused["code"] == "spectator"  # a judge watches; it never plays a seat

    log = httpx.get(f"{keyed.url}/matches/{match}/log", headers={"Authorization": f"Bearer {token}"})
    assert log.status_code == 200 and log.json()["judge"] == "jo"
    assert log.json()["log"][0]["seat"] == "alice" and "seed" not in log.json()
    for s in (sock, alice):
        await s.ws.close()


async def test_a_tournament_judge_opens_only_its_tournament_s_matches(keyed):
    theirs = create(keyed, label={"tournament": "t_1"})
    other = create(keyed, label={"tournament": "t_2"})
    token = judge(keyed, tournament="t_1")
    bearer = {"Authorization": f"Bearer {token}"}
    sock = await Raw.open(keyed.url, theirs["match"])
    await sock.send({"t": "hello", "token": token})
    assert (await sock.recv())["role"] == "judge"
    await sock.ws.close()

    sock = await Raw.open(keyed.url, other["match"])
    await sock.send({"t": "hello", "token": token})
    assert (await sock.recv())["code"] == "unauthorized"
    await sock.ws.close()
    assert httpx.get(f"{keyed.url}/matches/{other['match']}/log", headers=bearer).status_code == 401
    r = httpx.post(f"{keyed.url}/matches/{other['match']}/rewind", json={"entry": 1}, headers=bearer)
    assert r.status_code == 401
    # Nor any operator route: a judge token is not the key.
    assert httpx.post(f"{keyed.url}/matches/{theirs['match']}/abort", headers=bearer).status_code == 401
    assert httpx.post(f"{keyed.url}/judges", json={"name": "me"}, headers=bearer).status_code == 401
    assert httpx.get(f"{keyed.url}/matches/{theirs['match']}/replay", headers=bearer).status_code == 401
    for created in (theirs, other):
        assert httpx.get(f"{keyed.url}/matches/{created['match']}").json()["status"] == "live"


def test_naming_a_judge_needs_the_key_and_a_good_body(keyed):
    assert httpx.post(f"{keyed.url}/judges", json={"name": "jo"}).status_code == 401
    for body, path in (({}, "name"), ({"name": ""}, "name"), ({"name": "x" * 33}, "name"),
                       ({"name": "jo", "tournament": 3}, "tournament"), ({"name": "jo", "ttl_s": 5}, "ttl_s"),
                       ({"name": "jo", "ttl_s": True}, "ttl_s"), ([], "")):
        r = httpx.post(f"{keyed.url}/judges", json=body, headers=AUTH)
        assert r.status_code == 400 and r.json()["error"]["path"] == path, (body, r.text)
    # A made-up token is no judge's.
    created = create(keyed)
    r = httpx.get(f"{keyed.url}/matches/{created['match']}/log", headers={"Authorization": "Bearer " + "0" * 32})
    assert r.status_code == 401
