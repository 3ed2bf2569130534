"""Fault tests that really kill things: the server by SIGKILL, Redis by stopping it.

Bots play through the fault. Afterwards every acknowledged answer is in the match
exactly once, every client saw every event once and in order, and the matches end.
"""

from __future__ import annotations

import asyncio
import time

import httpx

from battlehall.client import JSON, MSGPACK, Client
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from servers import ServerProcess, bearer, free_port


def check_match(server, clients):
    """No acknowledged answer lost or doubled; every client's stream gapless and true."""
    match_id = clients[0].url.rsplit("/", 1)[1]
    token = clients[0].token  # a seat's token opens the replay of a private match
    replay = httpx.get(f"{server.url}/matches/{match_id}/replay", headers={"Authorization": f"Bearer {token}"},
                       timeout=10).json()
    events = replay["events"]
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    answered = [e["data"]["id"] for e in events if e["kind"] == "prompt_closed" and e["data"]["reason"] == "answered"]
    assert len(answered) == len(set(answered))  # nothing applied twice
    by_seq = {e["seq"]: e for e in events}
    for client in clients:
        for act_id, seq in client.acked.items():
            prompt = client.sent[act_id]
            assert prompt in answered, f"acknowledged answer {act_id} to {prompt} was lost"
            closing = [e for e in events if e["kind"] == "prompt_closed" and e["data"]["id"] == prompt]
            assert closing[0]["seq"] <= seq
        seqs = [e["seq"] for e in client.events]
        assert seqs == list(range(seqs[0], seqs[-1] + 1)), "a client missed or repeated an event"
        for e in client.events:
            assert e["kind"] == by_seq[e["seq"]]["kind"]
    assert events[-1]["kind"] == "match_ended"
    return replay


async def start_bots(server, count, think_s, **body):
    games = []
    for i in range(count):
        created = server.create(ruleset="duel", seed=i, options={"hp": 60}, **body)
        clients = [Client(server.url, created["match"], token, wire=(JSON, MSGPACK)[j], seed=i * 2 + j,
                          think_s=think_s, give_up_s=60)
                   for j, token in enumerate(created["tokens"].values())]
        games.append(clients)
    tasks = [asyncio.ensure_future(asyncio.gather(*(c.run() for c in g))) for g in games]
    return games, tasks


async def test_sigkill_mid_match_loses_nothing(tmp_path):
    server = ServerProcess(tmp_path).start()
    try:
        games, tasks = await start_bots(server, 4, think_s=0.01)
        await asyncio.sleep(0.8)
        acked_before = sum(len(c.acked) for g in games for c in g)
        server.kill()  # SIGKILL the server; its private Redis gets SIGTERM from the kernel
        assert acked_before > 10
        await asyncio.sleep(0.5)
        server.start()
        results = await asyncio.wait_for(asyncio.gather(*tasks), 90)
        assert all(r[0] == r[1] for r in results)
        assert sum(c.reconnects for g in games for c in g) >= 8  # every bot came back by itself
        for g in games:
            check_match(server, g)
        metrics = httpx.get(server.url + "/metrics").text
        assert "battlehall_matches_recovered_total 4" in metrics
    finally:
        server.stop()


async def test_clock_is_paused_while_no_server_runs(tmp_path):
    server = ServerProcess(tmp_path).start()
    try:
        created = server.create(ruleset="duel", seed=1, clock={"prompt_ms": 3000, "bank_ms": 0})
        time.sleep(1.2)  # the heartbeat has been written at least once
        server.kill()
        time.sleep(4)  # longer than the prompt's whole time
        server.start()
        summary = httpx.get(f"{server.url}/matches/{created['match']}").json()
        # The prompt did not time out on restart: it got back the time it had left.
        assert summary["seq"] == 2 and summary["status"] == "live"
        from wsutil import Raw
        conn = await Raw.open(server.url, created["match"], JSON)
        welcome = await conn.hello(created["tokens"]["alice"])
        remaining = welcome["prompts"][0]["deadline"] - welcome["now"]
        assert 0 < remaining <= 3000
        closed = await conn.recv_until(lambda m: m.get("kind") == "prompt_closed", timeout=6)
        assert closed["data"]["reason"] == "timeout"
        await conn.close()
    finally:
        server.stop()


async def test_redis_stop_and_restart(tmp_path):
    port = free_port()
    redis = EmbeddedRedis(tmp_path / "redis", port=port).start()
    server = ServerProcess(tmp_path, redis_url=redis.url).start()
    try:
        games, tasks = await start_bots(server, 3, think_s=0.01)
        await asyncio.sleep(0.5)
        redis.stop()
        t0 = time.monotonic()
        while httpx.get(server.url + "/readyz").status_code != 503:
            assert time.monotonic() - t0 < 5
            await asyncio.sleep(0.05)
        await asyncio.sleep(1.0)
        codes = {e.get("code") for g in games for c in g for e in c.errors}
        assert "unavailable" in codes
        assert all(not t.done() for t in tasks)  # connections stayed open, bots still waiting
        redis.start()
        results = await asyncio.wait_for(asyncio.gather(*tasks), 90)
        assert all(r[0] == r[1] for r in results)
        assert httpx.get(server.url + "/readyz").status_code == 200
        for g in games:
            check_match(server, g)
    finally:
        server.stop()
        redis.stop()


async def test_finished_matches_expire_after_the_retention_period(tmp_path):
    # Long enough to outlast a restart on a busy machine, short enough for a test.
    server = ServerProcess(tmp_path, env={"BATTLEHALL_RETENTION_S": "8"}).start()
    try:
        created = server.create(ruleset="duel", seed=3, options={"hp": 3})
        bots = [Client(server.url, created["match"], t, seed=i) for i, t in enumerate(created["tokens"].values())]
        await asyncio.gather(*(b.run() for b in bots))
        replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created))
        assert replay.status_code == 200 and replay.json()["events"][-1]["kind"] == "match_ended"
        server.kill()  # a fresh process: nothing of the match left in memory, only Redis
        server.start()
        assert httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).status_code == 200
        deadline = time.monotonic() + 30
        while httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).status_code == 200:
            assert time.monotonic() < deadline, "the finished match outlived its retention period"
            await asyncio.sleep(0.5)
        assert httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).status_code == 404
    finally:
        server.stop()


async def test_resent_act_after_a_restart_gets_its_first_ack(tmp_path):
    from wsutil import Raw

    server = ServerProcess(tmp_path).start()
    try:
        created = server.create(ruleset="duel", seed=5)
        conn = await Raw.open(server.url, created["match"], JSON)
        welcome = await conn.hello(created["tokens"]["alice"])
        act = {"t": "act", "id": "once", "prompt": welcome["prompts"][0]["id"], "option": "guard"}
        await conn.send(act)
        first = await conn.recv_until(lambda m: m["t"] == "ack")
        server.kill()
        server.start()
        again = await Raw.open(server.url, created["match"], JSON)
        welcome2 = await again.hello(created["tokens"]["alice"], resume=first["seq"])
        assert welcome2["seq"] == first["seq"]
        await again.send(act)
        # The same ack; its clock record (docs/protocol.md, Lag) only from the process that took it.
        assert await again.recv_until(lambda m: m["t"] == "ack") == {k: v for k, v in first.items() if k != "clock"}
        summary = httpx.get(f"{server.url}/matches/{created['match']}").json()
        assert summary["seq"] == first["seq"]  # not applied a second time
        await again.close()
    finally:
        server.stop()


async def test_reads_answer_503_while_redis_is_down(tmp_path):
    """A list, a summary or a replay that needs Redis answers 503 `unavailable` while it
    is down, as a create does, not a 500; and the same reads work once it is back."""
    port = free_port()
    redis = EmbeddedRedis(tmp_path / "redis", port=port).start()
    server = ServerProcess(tmp_path, redis_url=redis.url).start()
    try:
        created = server.create(ruleset="duel", seed=1, spectators={"public": True})  # listed
        redis.stop()
        for path in ("/matches", "/matches/m_0000000000000000", "/matches/m_0000000000000000/replay"):
            r = httpx.get(server.url + path, timeout=30)
            assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable", (path, r.text)
        redis = EmbeddedRedis(tmp_path / "redis", port=port).start()
        deadline = time.monotonic() + 20
        while httpx.get(server.url + "/matches", timeout=30).status_code != 200:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.2)
        listed = httpx.get(server.url + "/matches").json()["matches"]
        assert [m["match"] for m in listed] == [created["match"]]
    finally:
        server.stop()
        redis.stop()
