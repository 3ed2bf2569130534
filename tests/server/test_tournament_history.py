"""A player's history of events (GET /profiles/{id}/tournaments, the player page): every
public event entered, the latest first, with where the player stands."""

from __future__ import annotations

import time

import httpx
import pytest

from servers import ServerProcess
from tournament_players import make_players, register_all

UNLIMITED = {"BATTLEHALL_TOURNAMENT_CREATE_PER_MIN": "0", "BATTLEHALL_TOURNAMENT_REGISTER_PER_MIN": "0"}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("tournament-history"), env=UNLIMITED).start()
    yield srv
    srv.stop()


def event(base: str, name: str, **fields) -> str:
    r = httpx.post(f"{base}/tournaments", json={"name": name, "ruleset": "duel", **fields}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()["tournament"]


def test_a_player_s_events_are_listed_latest_first(server):
    base = server.url
    ana, bo = make_players(base, 2, prefix="Hist")
    first, second, hidden = event(base, "First"), event(base, "Second"), event(base, "Private", public=False)
    register_all(base, first, [ana, bo])
    register_all(base, second, [ana])
    register_all(base, hidden, [ana])
    found = httpx.get(f"{base}/profiles/{ana.profile}/tournaments").json()
    assert [t["tournament"] for t in found["tournaments"]] == [second, first]  # never the private one
    assert found["tournaments"][1]["name"] == "First" and found["tournaments"][1]["players_count"] == 2
    assert [t["tournament"] for t in httpx.get(f"{base}/profiles/{bo.profile}/tournaments").json()["tournaments"]] \
        == [first]
    paged = httpx.get(f"{base}/profiles/{ana.profile}/tournaments", params={"limit": 1}).json()
    assert len(paged["tournaments"]) == 1 and paged["next"] == "1"
    r = httpx.get(f"{base}/profiles/{ana.profile}/tournaments", params={"limit": "0"})
    assert r.status_code == 400 and r.json()["error"]["path"] == "limit"
    assert httpx.get(f"{base}/profiles/nobody/tournaments").json()["tournaments"] == []


def test_an_event_s_caster_link_follows_its_top_table(tmp_path):
    srv = ServerProcess(tmp_path, env={**UNLIMITED, "BATTLEHALL_CASTER_MIN_DELAY_MS": "2000"}).start()
    try:
        base = srv.url
        r = httpx.post(f"{base}/tournaments", json={"name": "Cast", "ruleset": "duel", "caster": {"delay_ms": 500}})
        assert r.status_code == 400 and r.json()["error"]["path"] == "caster.delay_ms"
        created = httpx.post(f"{base}/tournaments", json={"name": "Cast", "ruleset": "duel",
                                                          "caster": {"delay_ms": 2000}}).json()
        tid, cast_token = created["tournament"], created["caster_token"]
        register_all(base, tid, make_players(base, 4, prefix="Cst"))
        assert httpx.post(f"{base}/tournaments/{tid}/start",
                          headers={"Authorization": f"Bearer {created['organiser_token']}"}).status_code == 200
        bearer = {"Authorization": f"Bearer {cast_token}"}
        for _ in range(100):
            found = httpx.get(f"{base}/tournaments/{tid}/cast", headers=bearer).json()
            if found["match"]:
                break
            time.sleep(0.1)
        assert found["delay_ms"] == 2000
        top = httpx.get(f"{base}/tv/featured", params={"tournament": tid}).json()
        assert found["match"] == top["match"]  # the top table
        summary = httpx.get(f"{base}/matches/{found['match']}").json()
        assert summary["caster_settings"] == {"delay_ms": 2000} and found["caster_token"]
        for wrong in ({}, {"Authorization": f"Bearer {created['organiser_token']}"}):
            assert httpx.get(f"{base}/tournaments/{tid}/cast", headers=wrong).status_code == 401
    finally:
        srv.stop()
