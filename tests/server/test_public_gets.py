"""What the public HTTP routes tell about a match: nothing of a private one, a delayed one
only as of its delay; and what one address may create, and how long a match nobody
plays stays live. Real servers, their real Redis, real sockets."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time

import httpx

from battlehall.client import Client
from battlehall.verify import verify
from servers import ServerProcess
from wsutil import Raw


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


async def play_out(url: str, created: dict) -> None:
    bots = [Client(url, created["match"], t, seed=i) for i, t in enumerate(created["tokens"].values())]
    await asyncio.gather(*(b.run() for b in bots))


def listed(url: str, **params) -> list[dict]:
    """Every match of the listing, following its pages."""
    out, cursor = [], None
    while True:
        page = httpx.get(url + "/matches", params={**params, **({"cursor": cursor} if cursor else {})}).json()
        out += page["matches"]
        cursor = page["next"]
        if cursor is None:
            return out


async def test_a_delayed_match_is_public_only_as_of_its_delay(server):
    delay_ms = 4000
    created = server.create(ruleset="duel", seed=3, spectators={"public": True, "delay_ms": delay_ms})
    match = created["match"]
    started = httpx.get(f"{server.url}/matches/{match}").json()
    await play_out(server.url, created)
    ended = time.monotonic()
    owner = bearer(created["tokens"]["alice"])
    # Within the delay: live, no result, the seq of the start, and in the listing.
    summary = httpx.get(f"{server.url}/matches/{match}").json()
    assert (summary["status"], summary["result"], summary["seq"]) == ("live", None, started["seq"])
    assert match in [m["match"] for m in listed(server.url, ruleset="duel")]
    for path in ("replay", "replay/steps"):
        refused = httpx.get(f"{server.url}/matches/{match}/{path}", headers=owner)
        assert refused.status_code == 409 and refused.json()["error"]["code"] == "match_live"
        assert "seed" not in refused.text and "events" not in refused.text
    assert time.monotonic() - ended < delay_ms / 1000, "the checks took longer than the delay"
    # After it: the end, the result, the replay.
    await asyncio.sleep(delay_ms / 1000 + 0.3)
    summary = httpx.get(f"{server.url}/matches/{match}").json()
    assert summary["status"] == "finished" and summary["result"] is not None and summary["seq"] > started["seq"]
    replay = httpx.get(f"{server.url}/matches/{match}/replay")
    assert replay.status_code == 200 and verify(replay.json()) == []
    assert match not in [m["match"] for m in listed(server.url, ruleset="duel")]


async def test_a_private_match_is_listed_to_nobody_and_its_replay_needs_a_token(server):
    created = server.create(ruleset="duel", seed=5, label={"secret": "private-label-5f2c"})
    match = created["match"]
    assert match not in [m["match"] for m in listed(server.url)]
    assert "private-label-5f2c" not in httpx.get(server.url + "/matches", params={"limit": 100}).text
    await play_out(server.url, created)
    for path in ("replay", "replay/steps"):
        url = f"{server.url}/matches/{match}/{path}"
        for headers in ({}, bearer("not-a-token"), {"Authorization": created["spectator_token"]}):
            refused = httpx.get(url, headers=headers)
            assert refused.status_code == 401 and refused.json()["error"]["code"] == "unauthorized", refused.text
            assert refused.headers["www-authenticate"] == "Bearer" and "seed" not in refused.text
        for token in (created["tokens"]["alice"], created["tokens"]["bob"], created["spectator_token"]):
            assert httpx.get(url, headers=bearer(token)).status_code == 200
    replay = httpx.get(f"{server.url}/matches/{match}/replay", headers=bearer(created["tokens"]["bob"])).json()
    assert verify(replay) == []
    # `battlehall verify` reads it with a token too, and says why not without one.
    url = f"{server.url}/matches/{match}/replay"
    done = subprocess.run([sys.executable, "-m", "battlehall", "verify", url, "--token", created["tokens"]["alice"]],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "verified" in done.stdout, done.stderr
    done = subprocess.run([sys.executable, "-m", "battlehall", "verify", url], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "401" in done.stderr and "Traceback" not in done.stderr
    # A public match's replay is anyone's.
    public = server.create(ruleset="duel", seed=6, spectators={"public": True})
    await play_out(server.url, public)
    assert httpx.get(f"{server.url}/matches/{public['match']}/replay").status_code == 200


def test_the_listing_comes_in_pages_newest_first(tmp_path):
    srv = ServerProcess(tmp_path).start()
    try:
        ids = [srv.create(ruleset="duel", spectators={"public": True})["match"] for _ in range(5)]
        srv.create(ruleset="hourglass", seats=["a", "b", "c"], spectators={"public": True})
        srv.create(ruleset="duel")  # private: never listed
        first = httpx.get(srv.url + "/matches", params={"limit": 2, "ruleset": "duel"}).json()
        assert [m["match"] for m in first["matches"]] == ids[::-1][:2] and first["next"]
        assert [m["match"] for m in listed(srv.url, limit=2, ruleset="duel")] == ids[::-1]
        assert len(listed(srv.url, limit=3)) == 6
        assert listed(srv.url, status="finished") == []
        for params, path in (({"limit": 0}, "limit"), ({"limit": 101}, "limit"), ({"limit": "x"}, "limit"),
                             ({"cursor": "junk"}, "cursor"), ({"status": "over"}, "status"),
                             ({"ruleset": "chess"}, "ruleset")):
            r = httpx.get(srv.url + "/matches", params=params)
            assert r.status_code == 400 and r.json()["error"]["code"] == "bad_request", r.text
            assert r.json()["error"]["path"] == path
    finally:
        srv.stop()


def test_creation_is_limited_per_address(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_CREATE_PER_MIN": "6", "BATTLEHALL_CREATE_BURST": "3"}).start()
    try:
        body = {"ruleset": "duel", "seats": ["a", "b"]}
        assert [httpx.post(srv.url + "/matches", json=body).status_code for _ in range(3)] == [201] * 3
        refused = httpx.post(srv.url + "/matches", json=body)
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited"
        assert 1 <= int(refused.headers["retry-after"]) <= 10
        time.sleep(int(refused.headers["retry-after"]))
        assert httpx.post(srv.url + "/matches", json=body).status_code == 201  # a token came back
    finally:
        srv.stop()


def test_creates_with_the_api_key_are_not_limited(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_CREATE_PER_MIN": "1", "BATTLEHALL_CREATE_BURST": "1",
                                       "BATTLEHALL_API_KEY": "sesame"}).start()
    try:
        body = {"ruleset": "duel", "seats": ["a", "b"]}
        codes = [httpx.post(srv.url + "/matches", json=body, headers=bearer("sesame")).status_code for _ in range(4)]
        assert codes == [201] * 4
    finally:
        srv.stop()


async def test_a_match_nobody_plays_ends_abandoned_and_stays_ended(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_ABANDON_S": "1.5"}).start()
    try:
        idle = srv.create(ruleset="duel", clock={"prompt_ms": None})
        watched = srv.create(ruleset="duel", clock={"prompt_ms": None})
        sock = await Raw.open(srv.url, watched["match"])
        await sock.hello(watched["tokens"]["alice"])
        deadline = time.monotonic() + 15
        while httpx.get(f"{srv.url}/matches/{idle['match']}").json()["status"] == "live":
            assert time.monotonic() < deadline, "the idle match was never ended"
            await asyncio.sleep(0.2)
        summary = httpx.get(f"{srv.url}/matches/{idle['match']}").json()
        assert summary["result"]["reason"] == "abandoned" and summary["result"]["winners"] == []
        assert httpx.get(f"{srv.url}/matches/{watched['match']}").json()["status"] == "live"  # a socket is on it
        replay = httpx.get(f"{srv.url}/matches/{idle['match']}/replay", headers=bearer(idle["spectator_token"])).json()
        assert replay["log"][-1]["abort"] is True and replay["log"][-1]["reason"] == "abandoned"
        assert verify(replay) == []
        await sock.close()
        # Recorded like an abort: a restart keeps it ended; the match left alone is ended too.
        srv.kill()
        srv.start()
        assert httpx.get(f"{srv.url}/matches/{idle['match']}").json()["result"]["reason"] == "abandoned"
        deadline = time.monotonic() + 15
        while httpx.get(f"{srv.url}/matches/{watched['match']}").json()["status"] == "live":
            assert time.monotonic() < deadline, "the match left after the restart was never ended"
            await asyncio.sleep(0.2)
    finally:
        srv.stop()
