"""An operator pauses a live match's clocks over the API: every seat and spectator is
told, no deadline runs, answers wait; the node is killed (SIGKILL) and restarted, and the
match comes back still paused; resumed, its prompt has its time again. Bad requests are
refused with their codes, nothing changed."""

from __future__ import annotations

import asyncio

import httpx

from battlehall.client import MSGPACK
from servers import ServerProcess
from wsutil import Raw

KEY = "judge-test-key"
AUTH = {"Authorization": f"Bearer {KEY}"}


def post(server: ServerProcess, path: str, body: dict | None = None) -> httpx.Response:
    return httpx.post(server.url + path, headers=AUTH, json=body, timeout=10)


async def judge_events(sock: Raw, seconds: float) -> list[dict]:
    """What a socket is sent within `seconds`."""
    got = []
    try:
        while True:
            got.append(await sock.recv(seconds))
    except (asyncio.TimeoutError, TimeoutError):
        return got


async def test_a_paused_match_survives_sigkill_of_its_node_paused_and_resumes_with_its_time(tmp_path):
    server = ServerProcess(tmp_path, env={"BATTLEHALL_API_KEY": KEY}).start()
    try:
        created = httpx.post(server.url + "/matches", headers=AUTH, timeout=10, json={
            "ruleset": "duel", "seats": ["alice", "bob"], "clock": {"prompt_ms": 2000, "bank_ms": 0}}).json()
        match = created["match"]
        alice = await Raw.open(server.url, match, MSGPACK)
        welcome = await alice.hello(created["tokens"]["alice"])
        spectator = await Raw.open(server.url, match, MSGPACK)
        await spectator.hello(created["spectator_token"])
        prompt = next(p for p in welcome["prompts"])  # alice strikes first
        answer = post(server, f"/matches/{match}/pause")
        assert answer.status_code == 200 and answer.json()["paused"] is True
        for sock in (alice, spectator):  # every seat and spectator is told
            told = await sock.recv_until(lambda m: m["t"] == "event" and m["kind"] == "judge")
            assert told["data"] == {"action": "pause", "by": "operator"}
        assert post(server, f"/matches/{match}/pause").json()["error"]["code"] == "match_paused"
        await alice.send({"t": "act", "id": 1, "prompt": prompt["id"], "option": "guard"})
        refused = await alice.recv_until(lambda m: m["t"] == "error")
        assert refused["code"] == "match_paused"
        # Past its 2 s: nothing timed out.
        assert not [m for m in await judge_events(alice, 2.5) if m.get("kind") == "prompt_closed"]

        server.kill()  # SIGKILL: the node dies with the match paused
        server.start()
        again = await Raw.open(server.url, match, MSGPACK)
        welcome = await again.hello(created["tokens"]["alice"])
        assert welcome["paused"] and [p["id"] for p in welcome["prompts"]] == [prompt["id"]]
        assert not [m for m in await judge_events(again, 2.5) if m.get("kind") == "prompt_closed"]

        assert post(server, f"/matches/{match}/time", {"seat": "carol", "ms": 1000}).json()["error"]["path"] == "seat"
        assert post(server, f"/matches/{match}/time", {"seat": "alice", "ms": 10**9}).json()["error"]["path"] == "ms"
        assert post(server, f"/matches/{match}/resume").json()["paused"] is False
        # Resumed: the prompt has what was left of its 2 s, then times out.
        closed = await again.recv_until(lambda m: m["t"] == "event" and m["kind"] == "prompt_closed", timeout=5)
        assert closed["data"]["id"] == prompt["id"] and closed["data"]["reason"] == "timeout"
        assert post(server, f"/matches/{match}/resume").json()["error"]["code"] == "not_paused"
        assert post(server, f"/matches/{match}/abort").status_code == 200
        assert post(server, f"/matches/{match}/pause").json()["error"]["code"] == "match_over"
        replay = httpx.get(f"{server.url}/matches/{match}/replay", headers=AUTH, timeout=10).json()
        assert "log" in replay, replay
        log = replay["log"]
        assert [e["judge"]["action"] for e in log if "judge" in e] == ["pause", "resume"]
        for sock in (alice, spectator, again):
            await sock.close()
    finally:
        server.stop()
