"""Tournaments over real HTTP and Redis (docs/tournaments.md): an 8-player Swiss of duel
played to the end by players who are told their tables and play them, each game once."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from collections import Counter

import httpx
import pytest

from servers import ServerProcess
from tournament_players import make_players, play_event, register_all

CLOCK = {"prompt_ms": 5000, "bank_ms": 5000, "window_min_ms": 0}
UNLIMITED = {"BATTLEHALL_TOURNAMENT_CREATE_PER_MIN": "0", "BATTLEHALL_TOURNAMENT_REGISTER_PER_MIN": "0",
             "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A server of this module's own: every event here is made from 127.0.0.1, with no budget."""
    srv = ServerProcess(tmp_path_factory.mktemp("tournaments"), env=UNLIMITED).start()
    yield srv
    srv.stop()


def create_event(base: str, **fields) -> dict:
    body = {"name": "Test Swiss", "ruleset": "duel", "clock": CLOCK, **fields}
    r = httpx.post(f"{base}/tournaments", json=body, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def test_an_eight_player_swiss_is_played_to_the_end(server, tmp_path):
    base = server.url
    created = create_event(base)
    tid = created["tournament"]
    assert created["status"] == "registering" and len(created["seed_commitment"]) == 64
    players = make_players(base, 8)
    register_all(base, tid, players)
    shown = httpx.get(f"{base}/tournaments/{tid}", timeout=10).json()
    assert shown["status"] == "registering" and len(shown["players"]) == 8

    r = httpx.post(f"{base}/tournaments/{tid}/start", headers={"Authorization": f"Bearer {created['organiser_token']}"},
                   timeout=10)
    assert r.status_code == 200, r.text

    async def everyone() -> list[dict]:
        return await asyncio.gather(*(play_event([base], tid, p) for p in players))
    shown = httpx.get(f"{base}/tournaments/{tid}", params={"wait_since": 9, "wait_ms": 10000}, timeout=20).json()
    deadline = time.monotonic() + 10
    while not all(t["playing"] for t in shown["rounds"][0]["tables"]):  # every game of round 1 made
        assert time.monotonic() < deadline, shown["rounds"]
        time.sleep(0.1)
        shown = httpx.get(f"{base}/tournaments/{tid}", timeout=10).json()
    for table in shown["rounds"][0]["tables"]:
        assert table["playing"]["game"] == 1
        assert httpx.get(f"{base}/matches/{table['playing']['match']}", timeout=10).json()["status"] == "live"
    ends = asyncio.run(everyone())
    assert {e["status"] for e in ends} == {"finished"}

    log = httpx.get(f"{base}/tournaments/{tid}/log", timeout=10).json()
    entries = log["entries"]
    paired = [e for e in entries if e["k"] == "paired"]
    assert [e["round"] for e in paired] == [1, 2, 3]  # ceil(log2(8)) rounds, each paired once
    results = [e for e in entries if e["k"] == "game"]
    assert len(results) == 12  # 4 tables a round, best of one
    assert max(Counter((e["round"], e["table"], e["game"]) for e in results).values()) == 1
    assert len({e["match"] for e in results}) == 12  # a match per game, never one twice
    assert entries[-1]["k"] == "finished" and log["seed"] is not None
    # every match played is one of the results, and its result is the one entered
    played = {m for p in players for m in p.played}
    assert played == {e["match"] for e in results}
    for e in results[:3]:
        summary = httpx.get(f"{base}/matches/{e['match']}", timeout=10).json()
        assert summary["status"] == "finished"
        assert summary["label"]["tournament"] == tid
    final = httpx.get(f"{base}/tournaments/{tid}", timeout=10).json()
    assert final["status"] == "finished"
    assert len(final["standings"]) == 8
    assert sorted(s["rank"] for s in final["standings"])[0] == 1
    check_with_verify(base, tid, log, tmp_path)


def verify(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "battlehall", "verify", *args], capture_output=True, text=True,
                          timeout=60)


def check_with_verify(base: str, tid: str, log: dict, tmp_path) -> None:
    """`battlehall verify` finds the event sound, and a tampered log not."""
    done = verify(f"{base}/tournaments/{tid}", "--matches")
    assert done.returncode == 0, done.stderr
    assert "3 rounds paired" in done.stdout and "12 games" in done.stdout
    tampered = json.loads(json.dumps(log))
    second = [e for e in tampered["entries"] if e["k"] == "paired"][1]
    first, other = second["tables"][0]["players"][0], second["tables"][1]["players"][0]
    second["tables"][0]["players"][0], second["tables"][1]["players"][0] = other, first
    saved = tmp_path / "tampered.json"
    saved.write_text(json.dumps(tampered))
    refused = verify(str(saved))
    assert refused.returncode == 1 and "pairing is not the one" in refused.stderr
    doubled = json.loads(json.dumps(log))
    doubled["entries"].insert(-1, next(e for e in doubled["entries"] if e["k"] == "game"))
    saved.write_text(json.dumps(doubled))
    assert verify(str(saved)).returncode == 1


@pytest.mark.parametrize("body, path", [
    ({"name": "x", "ruleset": "duel", "best_of": 4}, "best_of"),
    ({"name": "x", "ruleset": "nope"}, "ruleset"),
    ({"name": "x", "ruleset": "duel", "format": "ladder"}, "format"),
    ({"name": "x", "ruleset": "duel", "start_at": 1000}, "start_at"),
    ({"name": "x", "ruleset": "duel", "max_players": 5000}, "max_players"),
    ({"name": "x", "ruleset": "duel", "table_size": 4}, "table_size"),
    ({"name": "x", "ruleset": "duel", "rated": True}, "rated"),
    ({"name": "x", "ruleset": "duel", "colour": "red"}, "colour"),
    ({"name": "x", "ruleset": "duel", "tiebreaks": ["omw", "luck"]}, "tiebreaks[1]"),
    ({"name": "x", "ruleset": "duel", "clock": {"prompt_ms": None}}, "clock.prompt_ms"),
    ({"name": "x", "ruleset": "duel", "clock": {"bank_ms": -1}}, "clock.bank_ms"),
    ({"name": "x", "ruleset": "duel", "options": {"nope": 1}}, "options.nope"),
    ({"name": "x", "ruleset": "duel", "organiser": 5}, "organiser"),
])
def test_bad_bodies_are_refused_naming_the_field(server, body, path):
    r = httpx.post(f"{server.url}/tournaments", json=body, timeout=10)
    assert r.status_code == 400, r.text
    assert r.json()["error"]["code"] == "bad_request"
    assert r.json()["error"]["path"] == path


def test_not_json_is_refused(server):
    r = httpx.post(f"{server.url}/tournaments", content=b"{", timeout=10)
    assert r.status_code == 400 and r.json()["error"]["path"] == ""


def test_each_refusal_has_its_code_and_changes_nothing(server):
    base = server.url
    created = create_event(base, max_players=2)
    tid = created["tournament"]
    organiser = {"Authorization": f"Bearer {created['organiser_token']}"}
    a, b, c = make_players(base, 3, prefix="Refused")

    def post(path: str, player, body=None, headers=None):
        return httpx.post(f"{base}/tournaments/{tid}/{path}", json=body if body is not None else
                          {"profile": player.profile}, headers=headers if headers is not None else player.auth,
                          timeout=10)

    def code(r) -> str:
        return r.json()["error"]["code"]

    assert code(r := post("start", a, headers=organiser)) == "not_enough_players" and r.status_code == 409
    assert post("register", a).status_code == 200
    assert code(post("register", a)) == "already_registered"
    assert post("register", b).status_code == 200
    assert code(post("register", c)) == "tournament_full"
    assert code(post("check_in", a)) == "check_in_closed"  # no check-in in this event
    assert code(post("drop", c)) == "not_registered"
    # someone else's drop: the profile is not proven by the Bearer
    r = post("drop", b, headers=a.auth)
    assert r.status_code == 401 and r.json()["error"]["path"] == "profile"
    r = post("register", c, body={"profile": c.profile, "extra": 1})
    assert r.status_code == 400 and r.json()["error"]["path"] == "extra"
    assert code(post("start", a, headers=a.auth)) == "unauthorized"  # not the organiser's token
    version = httpx.get(f"{base}/tournaments/{tid}", timeout=10).json()["version"]
    assert version == 2  # two registrations: nothing refused was entered
    assert post("drop", b).status_code == 200
    assert code(post("drop", b)) == "already_dropped"
    assert post("cancel", a, headers=organiser).status_code == 200
    assert code(post("cancel", a, headers=organiser)) == "already_finished"
    assert code(post("register", c)) == "registration_closed"
    assert httpx.get(f"{base}/tournaments/nope", timeout=10).status_code == 404


def test_the_listing_and_the_long_poll(server):
    base = server.url
    tid = create_event(base, name="Listed")["tournament"]
    r = httpx.get(f"{base}/tournaments", params={"status": "upcoming", "limit": 100}, timeout=10)
    assert r.status_code == 200
    assert tid in [t["tournament"] for t in r.json()["tournaments"]]
    assert httpx.get(f"{base}/tournaments", params={"status": "soon"}, timeout=10).json()["error"]["path"] == "status"
    assert httpx.get(f"{base}/tournaments", params={"limit": "0"}, timeout=10).json()["error"]["path"] == "limit"
    (p,) = make_players(base, 1, prefix="Waiter")

    async def wait_and_register() -> dict:
        async with httpx.AsyncClient(timeout=30) as http:
            waiting = asyncio.ensure_future(http.get(f"{base}/tournaments/{tid}",
                                                     params={"wait_since": 0, "wait_ms": 10000}))
            await asyncio.sleep(0.5)
            assert not waiting.done()
            await http.post(f"{base}/tournaments/{tid}/register", json={"profile": p.profile}, headers=p.auth)
            return (await asyncio.wait_for(waiting, 5)).json()
    shown = asyncio.run(wait_and_register())
    assert shown["version"] == 1 and shown["players"][0]["player"] == p.profile


def test_creations_and_registrations_count_against_the_address(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_TOURNAMENT_CREATE_BURST": "2",
                                       "BATTLEHALL_TOURNAMENT_REGISTER_BURST": "1"}).start()
    try:
        tid = create_event(srv.url)["tournament"]
        create_event(srv.url)
        r = httpx.post(f"{srv.url}/tournaments", json={"name": "third", "ruleset": "duel"}, timeout=10)
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
        assert int(r.headers["retry-after"]) >= 1
        a, b = make_players(srv.url, 2, prefix="Budget")
        register_all(srv.url, tid, [a])
        r = httpx.post(f"{srv.url}/tournaments/{tid}/register", json={"profile": b.profile}, headers=b.auth, timeout=10)
        assert r.status_code == 429
        assert len(httpx.get(f"{srv.url}/tournaments/{tid}", timeout=10).json()["players"]) == 1
    finally:
        srv.stop()


def test_on_a_keyed_server_the_key_or_a_proven_organiser_creates(tmp_path):
    srv = ServerProcess(tmp_path, args=("--api-key", "k" * 32),
                        env={**UNLIMITED, "BATTLEHALL_PLAYER_TOURNAMENTS": "1"}).start()
    try:
        body = {"name": "Keyed", "ruleset": "duel"}
        (ann,) = make_players(srv.url, 1, prefix="Organiser")
        r = httpx.post(f"{srv.url}/tournaments", json=body, timeout=10)
        assert r.status_code == 400 and r.json()["error"]["path"] == "organiser"  # a player's names its organiser
        r = httpx.post(f"{srv.url}/tournaments", json={**body, "organiser": ann.profile}, timeout=10)
        assert r.status_code == 401 and r.json()["error"]["path"] == "organiser"  # not proven
        r = httpx.post(f"{srv.url}/tournaments", json={**body, "organiser": ann.profile, "rated": True},
                       headers=ann.auth, timeout=10)
        assert r.status_code == 400 and r.json()["error"]["path"] == "rated"  # rated: the operator's alone
        r = httpx.post(f"{srv.url}/tournaments", json={**body, "organiser": ann.profile}, headers=ann.auth, timeout=10)
        assert r.status_code == 201, r.text
        shown = httpx.get(f"{srv.url}/tournaments/{r.json()['tournament']}", timeout=10).json()
        assert shown["organiser"]["profile"] == ann.profile and shown["organiser"]["name"] == ann.name
        r = httpx.post(f"{srv.url}/tournaments", json={**body, "rated": True},
                       headers={"Authorization": "Bearer " + "k" * 32}, timeout=10)
        assert r.status_code == 201 and httpx.get(f"{srv.url}/tournaments/{r.json()['tournament']}",
                                                  timeout=10).json()["spec"]["rated"] is True
    finally:
        srv.stop()
