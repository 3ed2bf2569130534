"""A tournament's judges (docs/tournaments.md, Judges): its organiser names them; a judge's
token opens the live judge's view, log and rewind of that event's games, and nothing of
another event's. Against the real server, its real Redis and real sockets."""

from __future__ import annotations

import time

import httpx
import pytest

from servers import ServerProcess
from tournament_players import make_players, register_all
from wsutil import Raw

UNLIMITED = {"BATTLEHALL_TOURNAMENT_CREATE_PER_MIN": "0", "BATTLEHALL_TOURNAMENT_REGISTER_PER_MIN": "0",
             "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}
CLOCK = {"prompt_ms": 60_000, "bank_ms": 0}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("tournament-judges"), env=UNLIMITED).start()
    yield srv
    srv.stop()


def started_event(base: str, players: list | None = None) -> tuple[dict, list[dict]]:
    """A running 2-player event: its create answer and its first round's tables."""
    created = httpx.post(f"{base}/tournaments", json={"name": "Judged", "ruleset": "duel", "clock": CLOCK},
                         timeout=10).json()
    tid = created["tournament"]
    register_all(base, tid, players or make_players(base, 2, prefix=tid[-4:]))
    r = httpx.post(f"{base}/tournaments/{tid}/start", headers={"Authorization": f"Bearer {created['organiser_token']}"})
    assert r.status_code == 200, r.text
    deadline = time.monotonic() + 15
    while True:
        shown = httpx.get(f"{base}/tournaments/{tid}", timeout=10).json()
        tables = shown["rounds"][0]["tables"] if shown["rounds"] else []
        if tables and all(t["playing"] for t in tables):
            return created, tables
        assert time.monotonic() < deadline, shown
        time.sleep(0.1)


async def test_an_event_s_judge_judges_its_games_and_no_other_s(server):
    base = server.url
    ours, our_tables = started_event(base)
    theirs, their_tables = started_event(base)
    url = f"{base}/tournaments/{ours['tournament']}/judges"
    assert httpx.post(url, json={"name": "jo"}).status_code == 401  # the organiser's, not anyone's
    assert httpx.post(url, json={"name": "jo"}, headers={"Authorization": f"Bearer {theirs['organiser_token']}"}
                      ).status_code == 401
    r = httpx.post(url, json={"name": "jo", "tournament": "t_x"},
                   headers={"Authorization": f"Bearer {ours['organiser_token']}"})
    assert r.status_code == 400 and r.json()["error"]["path"] == "tournament"
    r = httpx.post(url, json={"name": "jo"}, headers={"Authorization": f"Bearer {ours['organiser_token']}"})
    assert r.status_code == 201, r.text
    assert r.json()["tournament"] == ours["tournament"]
    token = r.json()["token"]

    ours_match = our_tables[0]["playing"]["match"]
    theirs_match = their_tables[0]["playing"]["match"]
    sock = await Raw.open(base, ours_match)
    await sock.send({"t": "hello", "token": token, "role": "judge"})
    welcome = await sock.recv()
    assert welcome["role"] == "judge" and len(welcome["views"]) == 2
    await sock.ws.close()
    bearer = {"Authorization": f"Bearer {token}"}
    assert httpx.get(f"{base}/matches/{ours_match}/log", headers=bearer).status_code == 200
    assert httpx.get(f"{base}/matches/{theirs_match}/log", headers=bearer).status_code == 401
    sock = await Raw.open(base, theirs_match)
    await sock.send({"t": "hello", "token": token})
    assert (await sock.recv())["code"] == "unauthorized"
    await sock.ws.close()


async def test_a_rewound_game_s_result_is_the_match_that_goes_on(server):
    base = server.url
    players = make_players(base, 2, prefix="Rw")
    created, tables = started_event(base, players)
    tid = created["tournament"]
    token = httpx.post(f"{base}/tournaments/{tid}/judges", json={"name": "jo"},
                       headers={"Authorization": f"Bearer {created['organiser_token']}"}).json()["token"]
    seats = {}
    for p in players:
        mine = httpx.get(f"{base}/tournaments/{tid}/my", params={"profile": p.profile}, headers=p.auth).json()
        seats[p.profile] = mine["table"]
    old = tables[0]["playing"]["match"]
    for table in seats.values():  # the seat whose prompt is open moves
        sock = await Raw.open(base, old)
        await sock.send({"t": "hello", "token": table["token"]})
        welcome = await sock.recv()
        if welcome["prompts"]:
            mover, prompt = table, welcome["prompts"][0]
            break
        await sock.ws.close()
    await sock.send({"t": "act", "id": 1, "prompt": prompt["id"], "option": "guard"})
    await sock.recv_until(lambda m: m["t"] == "ack")
    r = httpx.post(f"{base}/matches/{old}/rewind", json={"entry": 1, "reason": "wrong button"},
                   headers={"Authorization": f"Bearer {token}"})
    assert r.status_code == 201, r.text
    new = r.json()["match"]
    assert r.json()["rewound_from"]["judge"] == "jo"
    await sock.recv_until(lambda m: m["t"] == "event" and m["kind"] == "match_ended")
    await sock.ws.close()

    # The game goes on in the new match, with the same token; its result is the game's.
    sock = await Raw.open(base, new)
    await sock.send({"t": "hello", "token": mover["token"]})
    assert (await sock.recv())["t"] == "welcome"
    await sock.send({"t": "resign", "id": "r"})
    await sock.recv_until(lambda m: m["t"] == "ack")
    await sock.ws.close()
    deadline = time.monotonic() + 15
    while True:
        shown = httpx.get(f"{base}/tournaments/{tid}", timeout=10).json()
        if shown["status"] == "finished":
            break
        assert time.monotonic() < deadline, shown
        time.sleep(0.2)
    log = httpx.get(f"{base}/tournaments/{tid}/log", timeout=10).json()
    games = [e for e in log["entries"] if e["k"] == "game"]
    assert [g["match"] for g in games] == [new]
    winner = next(p for p in seats if p != next(q for q, t in seats.items() if t is mover))
    assert games[0]["places"][0] == [winner]


def test_an_event_s_tv_channel_follows_its_top_table(server):
    base = server.url
    created, tables = started_event(base, make_players(base, 4, prefix="Tv"))
    tid = created["tournament"]
    found = httpx.get(f"{base}/tv/featured", params={"tournament": tid}).json()
    top = min(tables, key=lambda t: t["table"])
    assert found["tournament"] == tid and found["match"] == top["playing"]["match"]
    assert sorted(found["seats"]) == sorted(httpx.get(f"{base}/matches/{found['match']}").json()["seats"])
    r = httpx.get(f"{base}/tv/featured", params={"tournament": "t_nothing"})
    assert r.status_code == 404 and r.json()["error"]["path"] == "tournament"
