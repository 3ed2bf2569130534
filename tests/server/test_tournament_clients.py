"""The events' API from the clients: Python's TournamentClient plays a 4-player event to
its end, and the JS library's TournamentApi (under Node) creates, registers, starts,
waits and is refused with the documented codes, against a real server."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from battlehall.tournament_client import TournamentClient, TournamentRefused
from servers import ServerProcess
from tournament_players import make_players

ROOT = Path(__file__).resolve().parents[2]
LIBRARY = ROOT / "battlehall" / "web" / "static" / "battlehall.js"
CLOCK = {"prompt_ms": 5000, "bank_ms": 5000, "window_min_ms": 0}


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("tournament-clients"),
                        env={"BATTLEHALL_TOURNAMENT_CREATE_PER_MIN": "0",
                             "BATTLEHALL_TOURNAMENT_REGISTER_PER_MIN": "0"}).start()
    yield srv
    srv.stop()


def test_the_python_client_takes_players_through_an_event(server):
    players = make_players(server.url, 4, prefix="Py")

    async def run() -> tuple[dict, dict, str]:
        async with TournamentClient(server.url) as api:
            created = await api.create({"name": "Py Cup", "ruleset": "duel", "clock": CLOCK,
                                        "format": "round_robin"})
            tid = created["tournament"]
            for p in players:
                entry = await api.register(tid, p.profile, p.secret)
                assert entry["registered"] and entry["table"] is None
            with pytest.raises(TournamentRefused) as refused:
                await api.register(tid, players[0].profile, players[0].secret)
            assert refused.value.status == 409 and refused.value.code == "already_registered"
            await api.start(tid, created["organiser_token"])
            ends = await asyncio.gather(*(api.play(tid, p.profile, p.secret, give_up_s=180) for p in players))
            assert {e["status"] for e in ends} == {"finished"}
            return await api.get(tid), await api.log(tid), tid
    shown, log, tid = asyncio.run(run())
    assert shown["status"] == "finished" and len(shown["standings"]) == 4
    assert [e["round"] for e in log["entries"] if e["k"] == "paired"] == [1, 2, 3]  # everyone meets everyone
    assert len([e for e in log["entries"] if e["k"] == "game"]) == 6
    assert log["seed"] and len(log["seed_commitment"]) == 64
    assert tid in [t["tournament"] for t in httpx.get(f"{server.url}/tournaments?status=finished&limit=100").json()
                   ["tournaments"]]


SCRIPT = """
import assert from "node:assert/strict";
import { TournamentApi, request } from "%(library)s";
const base = process.env.BASE;
const [ann, bo] = JSON.parse(process.env.PLAYERS);
const api = new TournamentApi(base);
const made = await api.create({ name: "JS Cup", ruleset: "duel", clock: %(clock)s });
assert.equal(made.status, "registering");
const id = made.tournament;
const waiting = api.get(id, { waitSince: 0, waitMs: 10000 });
const entry = await api.register(id, ann.profile, ann.secret);
assert.equal(entry.registered, true);
assert.equal((await waiting).version, 1);
await assert.rejects(api.register(id, ann.profile, ann.secret), (e) => e.code === "already_registered" && e.status === 409);
await assert.rejects(api.drop(id, bo.profile, ann.secret), (e) => e.status === 401 && e.path === "profile");
await assert.rejects(api.create({ name: "x", ruleset: "duel", best_of: 4 }), (e) => e.code === "bad_request" && e.path === "best_of");
await api.register(id, bo.profile, bo.secret);
await assert.rejects(api.start(id, "not-the-token"), (e) => e.status === 401);
const started = await api.start(id, made.organiser_token);
assert.equal(started.status, "running");
let mine = await api.my(id, ann.profile, ann.secret);
if (!mine.table) mine = await api.my(id, ann.profile, ann.secret, { waitSince: mine.version, waitMs: 10000 });
assert.ok(mine.table && mine.table.play.startsWith(`/play/${mine.table.match}#token=`));
const listed = await api.list({ status: "running", limit: 100 });
assert.ok(listed.tournaments.some((t) => t.tournament === id));
const log = await api.log(id);
assert.equal(log.seed, null);
assert.ok(log.entries.some((e) => e.k === "paired"));
const cancelled = await api.cancel(id, made.organiser_token);
assert.equal(cancelled.status, "cancelled");
console.log("js ok");
"""


def test_the_js_library(server, tmp_path):
    node = shutil.which("node")
    assert node, "Node.js 20+ is needed for the client library's tests"
    players = make_players(server.url, 2, prefix="Js")
    script = tmp_path / "tournaments.mjs"
    script.write_text(SCRIPT % {"library": LIBRARY.as_uri(), "clock": json.dumps(CLOCK)})
    env = {**os.environ, "BASE": server.url,
           "PLAYERS": json.dumps([{"profile": p.profile, "secret": p.secret} for p in players])}
    run = subprocess.run([node, str(script)], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "js ok" in run.stdout
