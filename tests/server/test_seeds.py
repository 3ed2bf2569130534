"""The seed behind the hidden cards: secret until the end unless made public, committed to
from the start, revealed by the replay, and enough to re-run the match exactly."""

from __future__ import annotations

import asyncio
import hashlib
import json
import subprocess
import sys

import httpx
import pytest

from battlehall.client import Client
from battlehall.engine import get_ruleset
from battlehall.verify import verify
from servers import bearer
from wsutil import Raw

SEATS = ["alice", "bob"]
SHORT = {"options": {"turn_limit": 4}, "clock": {"window_min_ms": 0}}


async def hands(server, created) -> dict:
    """Each seat's opening hand (instance ids), as its own welcome shows it."""
    out = {}
    for seat in SEATS:
        conn = await Raw.open(server.url, created["match"])
        welcome = await conn.hello(created["tokens"][seat])
        out[seat] = [c["card"] for c in welcome["view"]["players"][seat]["hand"]]
        await conn.close()
    return out


def dealt(seed: int) -> dict:
    state, _ = get_ruleset("spellfire").start(SEATS, seed)
    return {seat: state["players"][seat]["hand"] for seat in SEATS}


async def finish(server, created) -> dict:
    bots = [Client(server.url, created["match"], created["tokens"][s], seed=i) for i, s in enumerate(SEATS)]
    await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 120)
    return httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()


@pytest.mark.parametrize("given", [None, 7], ids=["server-chosen", "client-given"])
async def test_a_private_seed_gives_no_card_away(server, given):
    body = {"seed": given} if given is not None else {}
    created = server.create(ruleset="spellfire", **body, **SHORT)
    assert "seed" not in created and created["seed_public"] is False
    commitment = created["seed_commitment"]
    summary = httpx.get(f"{server.url}/matches/{created['match']}").json()
    assert "seed" not in summary and summary["seed_commitment"] == commitment
    assert httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).status_code == 409
    real = await hands(server, created)
    # Neither the seed a client gave nor any small seed deals this match: re-running the
    # engine on what a client knows does not show the opponent's hand (nor its own).
    for seed in ([given] if given is not None else []) + list(range(300)):
        deal = dealt(seed)
        assert deal["bob"] != real["bob"] and deal["alice"] != real["alice"], seed
    replay = await finish(server, created)
    seed = int(replay["seed"])
    assert seed != given and seed.bit_length() > 128  # 256 secret bits (fails with odds 2**-128)
    assert hashlib.sha256(str(seed).encode()).hexdigest() == commitment == replay["seed_commitment"]
    assert dealt(seed) == real  # the revealed seed is the one that dealt the cards
    assert verify(replay) == []


async def test_a_public_seed_is_shown_and_deals_the_same_every_time(server):
    first = server.create(ruleset="spellfire", seed=7, seed_public=True)
    second = server.create(ruleset="spellfire", seed=7, seed_public=True)
    assert first["seed"] == 7 and first["seed_public"] is True
    assert first["seed_commitment"] == hashlib.sha256(b"7").hexdigest()
    assert httpx.get(f"{server.url}/matches/{first['match']}").json()["seed"] == 7
    assert await hands(server, first) == await hands(server, second) == dealt(7)


async def test_replay_reruns_exactly_with_timeouts_and_detects_tampering(server, tmp_path):
    # Nobody answers: every prompt times out, so the log is all timeouts, and prompt
    # events carry deadlines that the check leaves out.
    created = server.create(ruleset="duel", options={"hp": 3}, clock={"prompt_ms": 100, "bank_ms": 0})
    url = f"{server.url}/matches/{created['match']}/replay"
    for _ in range(100):
        replay = httpx.get(url, headers=bearer(created)).json()
        if replay.get("status") == "finished":
            break
        await asyncio.sleep(0.1)
    assert replay["log"] and all(entry["timeout"] for entry in replay["log"])
    assert verify(replay) == []
    saved = tmp_path / "replay.json"
    saved.write_text(json.dumps(replay))
    done = subprocess.run([sys.executable, "-m", "battlehall", "verify", str(saved)], capture_output=True, text=True)
    assert done.returncode == 0 and "verified" in done.stdout, done.stderr
    # Any other seed, or an event that is not what the seed gives, fails the check.
    other = dict(replay, seed=str(int(replay["seed"]) + 1))
    assert any("commitment" in p for p in verify(other))
    events = [dict(e) for e in replay["events"]]
    strike = next(e for e in events if e["kind"] == "strike")
    strike["data"] = {**strike["data"], "roll": 1 if strike["data"]["roll"] != 1 else 2}
    assert any(f"event {strike['seq']} differs" in p for p in verify(dict(replay, events=events)))
    saved.write_text(json.dumps(other))
    refused = subprocess.run([sys.executable, "-m", "battlehall", "verify", str(saved)], capture_output=True, text=True)
    assert refused.returncode == 1 and "commitment" in refused.stderr


@pytest.mark.parametrize("body, path", [
    ({"seed_public": True}, "seed_public"),
    ({"seed": 7, "seed_public": "yes"}, "seed_public"),
])
def test_bad_seed_fields(server, body, path):
    r = httpx.post(f"{server.url}/matches", json={"ruleset": "duel", "seats": SEATS, **body})
    assert r.status_code == 400 and r.json()["error"]["path"] == path
