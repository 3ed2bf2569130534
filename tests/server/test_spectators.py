"""Watching: tokens and public matches, late joiners and history, counts, caps, stream delay."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import websockets

from battlehall.client import JSON, MSGPACK, Client
from servers import bearer
from wsutil import Raw


def summary(server, match_id):
    return httpx.get(f"{server.url}/matches/{match_id}").json()


async def act(conn, prompt_id, option="guard", act_id=None):
    await conn.send({"t": "act", "id": act_id or prompt_id, "prompt": prompt_id, "option": option})
    return await conn.recv_until(lambda m: m["t"] == "ack")


async def test_late_joiner_gets_view_and_can_ask_for_history(server):
    created = server.create(ruleset="duel", seed=8)
    alice = await Raw.open(server.url, created["match"], JSON)
    welcome = await alice.hello(created["tokens"]["alice"])
    await act(alice, welcome["prompts"][0]["id"])
    watcher = await Raw.open(server.url, created["match"], MSGPACK)
    hello = await watcher.hello(created["spectator_token"], resume=0)
    assert hello["role"] == "spectator" and hello["view"]["guarding"]["alice"] is True
    history = [await watcher.recv() for _ in range(hello["seq"])]
    assert [e["seq"] for e in history] == list(range(1, hello["seq"] + 1))
    assert history[0]["kind"] == "match_started"
    assert all("options" not in e["data"] for e in history)
    assert summary(server, created["match"])["spectators"] == 1
    await watcher.close()
    await asyncio.sleep(0.2)
    assert summary(server, created["match"])["spectators"] == 0
    await alice.close()


async def test_public_matches_and_caps(server):
    private = server.create(ruleset="duel", seed=1)
    conn = await Raw.open(server.url, private["match"], JSON)
    assert (await conn.hello(None))["code"] == "unauthorized"
    public = server.create(ruleset="duel", seed=1, spectators={"public": True, "max": 2})
    watchers = [await Raw.open(server.url, public["match"], JSON) for _ in range(3)]
    await watchers[0].ws.send('{"t":"hello"}')  # no token at all
    assert (await watchers[0].recv())["role"] == "spectator"
    assert (await watchers[1].hello(public["spectator_token"]))["role"] == "spectator"
    refused = await watchers[2].hello(None)
    assert refused["code"] == "full"
    with pytest.raises(websockets.ConnectionClosed):
        await watchers[2].recv()
    closed = server.create(ruleset="duel", seed=1, spectators={"allowed": False})
    conn = await Raw.open(server.url, closed["match"], JSON)
    assert (await conn.hello(closed["spectator_token"]))["code"] == "unauthorized"
    for w in watchers[:2]:
        await w.close()


async def test_stream_delay_shows_spectators_the_past(server):
    delay = 1500
    created = server.create(ruleset="duel", seed=8, spectators={"delay_ms": delay})
    alice = await Raw.open(server.url, created["match"], JSON)
    welcome = await alice.hello(created["tokens"]["alice"])
    early = await Raw.open(server.url, created["match"], JSON)
    early_hello = await early.hello(created["spectator_token"])
    assert early_hello["delay_ms"] == delay
    ack = await act(alice, welcome["prompts"][0]["id"])
    loop = asyncio.get_running_loop()
    acked_at = loop.time()
    # A spectator joining now is shown the state before the answer, not after it.
    late = await Raw.open(server.url, created["match"], JSON)
    late_hello = await late.hello(created["spectator_token"])
    assert late_hello["seq"] < ack["seq"] and late_hello["view"]["guarding"]["alice"] is False
    # The early spectator receives the answer's events only after the delay.
    event = await early.recv_until(lambda m: m["t"] == "event" and m["kind"] == "guard", timeout=5)
    assert loop.time() - acked_at >= (delay - 100) / 1000
    # Prompt deadlines are shifted for spectators by the delay too.
    prompt = await early.recv_until(lambda m: m["t"] == "event" and m["kind"] == "prompt", timeout=5)
    bob = await Raw.open(server.url, created["match"], JSON)
    bob_hello = await bob.hello(created["tokens"]["bob"])
    assert prompt["data"]["deadline"] == bob_hello["prompts"][0]["deadline"] + delay
    assert event["seq"] <= ack["seq"]
    for c in (alice, early, late, bob):
        await c.close()


async def test_windows_stay_open_a_minimum_time_whatever_the_hand(server):
    """A seat that passes at once cannot be told from one that thought about a card."""
    hold = 150
    matches = [server.create(ruleset="spellfire", seed=seed, clock={"window_min_ms": hold}) for seed in (21, 22, 23)]
    bots = [Client(server.url, m["match"], t, seed=i) for m in matches for i, t in enumerate(m["tokens"].values())]
    await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 180)
    events = [{**e, "match": m["match"]} for m in matches
              for e in httpx.get(f"{server.url}/matches/{m['match']}/replay", headers=bearer(m)).json()["events"]]
    opened = {(e["match"], e["data"]["id"]): e for e in events if e["kind"] == "prompt" and "window" in e["data"]}
    assert len(opened) >= 3
    closes = [e for e in events if e["kind"] == "prompt_closed" and (e["match"], e["data"]["id"]) in opened]
    assert closes
    for close in closes:
        if close["data"]["reason"] == "answered":
            assert close["at"] - opened[close["match"], close["data"]["id"]]["at"] >= hold
    # Every seat but the one that played is asked, each time: being asked says nothing.
    windows: dict = {}
    for prompt in opened.values():
        windows.setdefault((prompt["match"], prompt["data"]["window"]), []).append(prompt["data"]["seat"])
    assert all(len(seats) == len(set(seats)) for seats in windows.values())
