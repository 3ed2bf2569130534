"""`GET /tv/featured`: the live public match with the most distinct viewers, for the TV pages;
and BATTLEHALL_FRAME_ANCESTORS, which lets other sites frame the pages that only show a
match. A server of this module's own: the suite's shared server holds other tests' matches."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time

import httpx
import pytest

from battlehall.client import JSON, Client
from servers import ServerProcess
from wsutil import Raw

EMBEDDERS = "https://casters.example.org https://*.stream.example:8443"


@pytest.fixture(scope="module")
def tv_server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("tv"),
                        env={"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0", "BATTLEHALL_FRAME_ANCESTORS": EMBEDDERS}).start()
    yield srv
    srv.stop()


def featured(srv: ServerProcess, ruleset: str | None = None) -> str | None:
    r = httpx.get(f"{srv.url}/tv/featured", params={"ruleset": ruleset} if ruleset else None, timeout=5)
    assert r.status_code == 200, r.text
    return r.json()["match"]


def becomes(srv: ServerProcess, want: str | None, ruleset: str | None = None, timeout: float = 8) -> None:
    """The featured match is `want` within `timeout` (spectator counts reach Redis within
    a fraction of a second; answers are kept for a second)."""
    deadline = time.monotonic() + timeout
    while (got := featured(srv, ruleset)) != want:
        assert time.monotonic() < deadline, f"featured {got}, wanted {want}"
        time.sleep(0.2)


async def watch(srv: ServerProcess, match_id: str, sources: list[str], token: str | None = None) -> list[Raw]:
    """A spectator socket from each of `sources`, the client addresses they are sent from
    (on loopback any 127.x.y.z is one's own)."""
    out = []
    for source in sources:
        conn = await Raw.open(srv.url, match_id, JSON, local_addr=(source, 0))
        assert (await conn.hello(token))["role"] == "spectator"
        out.append(conn)
    return out


def addresses(n: int, first: int = 2) -> list[str]:
    """`n` distinct loopback addresses: `n` viewers."""
    return [f"127.0.0.{first + i}" for i in range(n)]


async def test_featured_is_the_most_watched_live_public_match(tv_server):
    srv = tv_server
    assert featured(srv) is None  # nothing live yet
    private = srv.create(ruleset="duel", seed=1)
    closed = srv.create(ruleset="duel", seed=2, spectators={"public": True, "allowed": False})
    full = srv.create(ruleset="duel", seed=3, spectators={"public": True, "max": 1})
    older = srv.create(ruleset="duel", seed=4, spectators={"public": True})
    newer = srv.create(ruleset="duel", seed=5, options={"hp": 3}, spectators={"public": True})
    spellfire = srv.create(ruleset="spellfire", seed=6, spectators={"public": True})
    sockets = await watch(srv, full["match"], addresses(1))  # the most watched, but no room for the TV
    becomes(srv, older["match"], "duel")  # all else equal: the one created first
    sockets += await watch(srv, newer["match"], addresses(2)) + await watch(srv, older["match"], addresses(1))
    sockets += await watch(srv, private["match"], addresses(3), private["spectator_token"])  # private: never
    becomes(srv, newer["match"], "duel")
    becomes(srv, newer["match"])  # over every ruleset
    becomes(srv, spellfire["match"], "spellfire")
    answer = httpx.get(f"{srv.url}/tv/featured?ruleset=duel").json()
    assert answer == {"match": newer["match"], "ruleset": "duel", "seats": ["alice", "bob"], "spectators": 2,
                      "viewers": 2, "delay_ms": 0, "created_at": answer["created_at"]}
    assert closed["match"] not in {featured(srv, "duel"), featured(srv)}
    # The featured match ends: the next one is featured.
    bots = [Client(srv.url, newer["match"], token, seed=i, on_status=lambda _: None)
            for i, token in enumerate(newer["tokens"].values())]
    await asyncio.wait_for(asyncio.gather(*(bot.run() for bot in bots)), 60)
    becomes(srv, older["match"], "duel")
    for conn in sockets:
        await conn.close()


async def test_many_sockets_of_one_client_are_one_viewer(tv_server):
    """One client's 30 idle spectator sockets on its own match do not outrank a match that
    3 clients watch: the TV counts viewers, not sockets."""
    srv = tv_server
    real = srv.create(ruleset="hourglass", seed=1, spectators={"public": True})
    spam = srv.create(ruleset="hourglass", seats=["visit.scam.example", "free.coins.now"], seed=2,
                      spectators={"public": True})
    sockets = await watch(srv, real["match"], addresses(3, first=20))
    becomes(srv, real["match"], "hourglass")
    sockets += await watch(srv, spam["match"], ["127.0.0.30"] * 30)
    await until_watched(srv, spam["match"], 30)  # its count is in: the TV has seen it
    assert httpx.get(f"{srv.url}/matches/{spam['match']}").json()["viewers"] == 1
    time.sleep(1.2)  # past the TV's cached answer (a second), which could predate the 30
    becomes(srv, real["match"], "hourglass")
    answer = httpx.get(f"{srv.url}/tv/featured?ruleset=hourglass").json()
    assert (answer["match"], answer["spectators"], answer["viewers"]) == (real["match"], 3, 3)
    # A fourth client, of the spam match: 2 viewers against 3, still the real match.
    sockets += await watch(srv, spam["match"], ["127.0.0.31"])
    await until_watched(srv, spam["match"], 31)
    assert httpx.get(f"{srv.url}/matches/{spam['match']}").json()["viewers"] == 2
    becomes(srv, real["match"], "hourglass")
    for conn in sockets:
        await conn.close()


async def until_watched(srv: ServerProcess, match_id: str, spectators: int, timeout: float = 8) -> None:
    """The match's summary counts `spectators` within `timeout`."""
    deadline = time.monotonic() + timeout
    while (got := httpx.get(f"{srv.url}/matches/{match_id}", timeout=5).json()["spectators"]) != spectators:
        assert time.monotonic() < deadline, f"{got} spectators, wanted {spectators}"
        await asyncio.sleep(0.1)


def test_featured_names_an_unknown_ruleset(tv_server):
    r = httpx.get(f"{tv_server.url}/tv/featured?ruleset=chess")
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "bad_request" and error["path"] == "ruleset" and "chess" in error["message"]


def frame_ancestors(url: str) -> str:
    policy = dict(part.strip().split(" ", 1) for part in httpx.get(url).headers["content-security-policy"].split(";"))
    return policy["frame-ancestors"]


@pytest.mark.parametrize("path", ["/watch/m_0123456789abcdef", "/tv", "/tv/duel", "/replay/m_0123456789abcdef"])
def test_frame_ancestors_lets_the_named_sites_frame_the_pages_that_show_a_match(tv_server, server, path):
    assert frame_ancestors(tv_server.url + path) == EMBEDDERS
    assert frame_ancestors(server.url + path) == "'none'"  # the default, as before the setting


@pytest.mark.parametrize("path", ["/", "/play/m_0123456789abcdef", "/operator"])
def test_frame_ancestors_never_opens_the_pages_that_act(tv_server, path):
    assert frame_ancestors(tv_server.url + path) == "'none'"


@pytest.mark.parametrize("value", ["https://a.example; script-src *", "'none' https://a.example", "a.example,b.example",
                                   "'unsafe-inline'"])
def test_a_bad_frame_ancestors_setting_stops_the_server_at_start(tmp_path, value):
    env = {**os.environ, "BATTLEHALL_FRAME_ANCESTORS": value}
    done = subprocess.run([sys.executable, "-m", "battlehall", "serve", "--data-dir", str(tmp_path), "--port", "0"],
                          env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 2
    assert "BATTLEHALL_FRAME_ANCESTORS" in done.stderr and "Traceback" not in done.stderr
