"""The event's rules on a real server: a no-show loses, the round clock ends a round still
playing, check-in has its window and drops who did not check in, a drop is not paired
again, late entry joins the next round."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from battlehall.client import Client
from servers import ServerProcess
from tournament_players import Player, make_players, register_all

CLOCK = {"prompt_ms": 5000, "bank_ms": 5000, "window_min_ms": 0}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    # Away after a second with no socket: a no-show is seen in a test's time.
    srv = ServerProcess(tmp_path_factory.mktemp("tournament-rules"),
                        env={"BATTLEHALL_TOURNAMENT_CREATE_PER_MIN": "0", "BATTLEHALL_TOURNAMENT_REGISTER_PER_MIN": "0",
                             "BATTLEHALL_AWAY_GRACE_S": "1"}).start()
    yield srv
    srv.stop()


def create(base: str, **fields) -> dict:
    r = httpx.post(f"{base}/tournaments", json={"name": "Rules", "ruleset": "duel", "clock": CLOCK, **fields},
                   timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def start(base: str, created: dict) -> None:
    r = httpx.post(f"{base}/tournaments/{created['tournament']}/start",
                   headers={"Authorization": f"Bearer {created['organiser_token']}"}, timeout=10)
    assert r.status_code == 200, r.text


def my(base: str, tid: str, p: Player, **params) -> dict:
    r = httpx.get(f"{base}/tournaments/{tid}/my", params={"profile": p.profile, **params}, headers=p.auth, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()


def log_until(base: str, tid: str, done, within_s: float = 30) -> list[dict]:
    deadline = time.monotonic() + within_s
    while True:
        entries = httpx.get(f"{base}/tournaments/{tid}/log", timeout=10).json()["entries"]
        if done(entries):
            return entries
        assert time.monotonic() < deadline, entries
        time.sleep(0.2)


def test_a_player_who_never_comes_loses_by_no_show(server):
    base = server.url
    created = create(base, rounds=1, no_show_ms=2500)
    tid = created["tournament"]
    here, gone = make_players(base, 2, prefix="NoShow")
    register_all(base, tid, [here, gone])
    start(base, created)
    table = my(base, tid, here, wait_since=0, wait_ms=10000)["table"]
    assert table is not None

    async def play_alone() -> dict | None:  # the present player plays; the other's prompts wait on its clock
        client = Client(base, table["match"], table["token"], on_status=lambda s: None)
        return await asyncio.wait_for(client.run(), 20)
    result = asyncio.run(play_alone())
    assert result is not None and result["reason"] == "aborted"  # ended by the event, at the no-show
    entries = log_until(base, tid, lambda es: es[-1]["k"] == "finished")
    (game,) = [e for e in entries if e["k"] == "game"]
    assert game["places"] == [[here.profile], [gone.profile]]
    summary = httpx.get(f"{base}/matches/{table['match']}", timeout=10).json()
    assert summary["status"] == "finished" and summary["result"]["reason"] == "aborted"


def test_the_round_clock_ends_a_round_still_playing(server):
    base = server.url
    created = create(base, rounds=1, round_ms=2000, no_show_ms=600_000, best_of=3)
    tid = created["tournament"]
    players = make_players(base, 2, prefix="Clock")
    register_all(base, tid, players)
    start(base, created)
    entries = log_until(base, tid, lambda es: es[-1]["k"] == "finished")
    kinds = [e["k"] for e in entries]
    assert kinds[-3:] == ["game", "round_ended", "finished"]
    game = entries[-3]
    assert game["draw"] is True and game["game"] == 1
    match = httpx.get(f"{base}/matches/{game['match']}", timeout=10).json()
    assert match["status"] == "finished"  # ended by the clock, not left playing


def test_check_in_has_its_window_and_the_unchecked_are_not_paired(server):
    base = server.url
    later = create(base, start_at=int(time.time() * 1000) + 3_600_000, check_in_ms=60_000)
    (early,) = make_players(base, 1, prefix="Early")
    register_all(base, later["tournament"], [early])
    r = httpx.post(f"{base}/tournaments/{later['tournament']}/check_in", json={"profile": early.profile},
                   headers=early.auth, timeout=10)
    assert r.status_code == 409 and r.json()["error"]["code"] == "check_in_closed"  # an hour before: not yet

    created = create(base, check_in_ms=600_000, rounds=1)
    tid = created["tournament"]
    a, b, c = make_players(base, 3, prefix="CheckIn")
    register_all(base, tid, [a, b, c])
    for p in (a, b):
        r = httpx.post(f"{base}/tournaments/{tid}/check_in", json={"profile": p.profile}, headers=p.auth, timeout=10)
        assert r.status_code == 200 and r.json()["checked_in"] is True, r.text
    start(base, created)
    entries = log_until(base, tid, lambda es: any(e["k"] == "paired" for e in es))
    (paired,) = [e for e in entries if e["k"] == "paired"]
    assert sorted(paired["tables"][0]["players"]) == sorted([a.profile, b.profile]) and paired["byes"] == []
    assert my(base, tid, c)["dropped"] is True


def test_a_dropped_player_is_not_paired_again_and_late_entry_joins_the_next_round(server):
    base = server.url
    created = create(base, rounds=2, late_entry_rounds=1, round_ms=1500, no_show_ms=600_000)
    tid = created["tournament"]
    a, b, c, d, late = make_players(base, 5, prefix="Late")
    register_all(base, tid, [a, b, c, d])
    start(base, created)
    log_until(base, tid, lambda es: any(e["k"] == "paired" for e in es))
    r = httpx.post(f"{base}/tournaments/{tid}/drop", json={"profile": d.profile}, headers=d.auth, timeout=10)
    assert r.status_code == 200 and r.json()["dropped"] is True
    register_all(base, tid, [late])  # during round 1: joins round 2
    entries = log_until(base, tid, lambda es: es[-1]["k"] == "finished", within_s=40)
    rounds = [e for e in entries if e["k"] == "paired"]
    second = {p for t in rounds[1]["tables"] for p in t["players"]} | set(rounds[1]["byes"])
    assert d.profile not in second and late.profile in second
    r = httpx.post(f"{base}/tournaments/{tid}/register", json={"profile": "p_0000"}, headers=late.auth, timeout=10)
    assert r.status_code == 401  # the profile is not the Bearer's, whatever the event's state


def test_an_event_starts_at_its_start_at_or_is_cancelled_without_players(server):
    base = server.url
    soon = int(time.time() * 1000) + 2500
    full = create(base, start_at=soon, rounds=1)
    empty = create(base, start_at=soon)
    register_all(base, full["tournament"], make_players(base, 2, prefix="OnTime"))
    register_all(base, empty["tournament"], make_players(base, 1, prefix="Alone"))
    entries = log_until(base, full["tournament"], lambda es: any(e["k"] == "paired" for e in es), within_s=15)
    started = next(e for e in entries if e["k"] == "started")
    assert soon <= started["at"] < soon + 3000
    entries = log_until(base, empty["tournament"], lambda es: es[-1]["k"] == "cancelled", within_s=15)
    assert not any(e["k"] == "started" for e in entries)
    listed = httpx.get(f"{base}/tournaments", params={"status": "finished", "limit": 100}, timeout=10).json()
    assert empty["tournament"] in [t["tournament"] for t in listed["tournaments"]]
