"""Several prompts open at once, end to end: welcome, answers, redaction, and SIGKILL.

The vehicle is `duel` with `"simultaneous": true`: each round both seats are prompted
together and neither sees the other's choice until both are in.
"""

from __future__ import annotations

import asyncio

import httpx

from battlehall.client import JSON, MSGPACK, Client
from servers import ServerProcess, bearer
from wsutil import Raw

BODY = {"ruleset": "duel", "options": {"simultaneous": True, "hp": 30}}


async def test_both_seats_are_prompted_together_and_see_only_their_own_choice(server):
    created = server.create(**BODY, seed=4, clock={"prompt_ms": None})
    alice = await Raw.open(server.url, created["match"], JSON)
    bob = await Raw.open(server.url, created["match"], MSGPACK)
    wa = await alice.hello(created["tokens"]["alice"])
    wb = await bob.hello(created["tokens"]["bob"])
    # Each welcome carries that seat's own open prompt, with its options.
    assert [p["seat"] for p in wa["prompts"]] == ["alice"] and wa["prompts"][0]["options"]
    assert [p["seat"] for p in wb["prompts"]] == ["bob"]
    assert sorted(wa["view"]["to_act"]) == ["alice", "bob"]

    await alice.send({"t": "act", "id": 1, "prompt": wa["prompts"][0]["id"], "option": "guard"})
    ack = await alice.recv_until(lambda m: m["t"] == "ack")
    # Bob learns that alice answered, never what: his copy and his view show no move.
    closed = await bob.recv_until(lambda m: m["t"] == "event" and m["kind"] == "prompt_closed")
    assert closed["data"]["seat"] == "alice" and "'guard'" not in str(closed)
    await bob.close()
    bob = await Raw.open(server.url, created["match"], MSGPACK)
    wb = await bob.hello(created["tokens"]["bob"])
    assert wb["view"]["my_move"] is None and wb["view"]["guarding"]["alice"] is False
    assert wb["view"]["to_act"] == ["bob"] and len(wb["prompts"]) == 1
    alice2 = await Raw.open(server.url, created["match"], JSON)
    wa2 = await alice2.hello(created["tokens"]["alice"])
    assert wa2["view"]["my_move"] == "guard" and wa2["prompts"] == [] and wa2["seq"] == ack["seq"]

    await bob.send({"t": "act", "id": 1, "prompt": wb["prompts"][0]["id"], "option": "strike"})
    revealed = await bob.recv_until(lambda m: m["t"] == "event" and m["kind"] == "revealed")
    assert revealed["data"]["moves"] == {"alice": "guard", "bob": "strike"}
    # Then both are prompted again, together.
    opened = []
    while len(opened) < 2:
        m = await alice2.recv_until(lambda m: m["t"] == "event" and m["kind"] == "prompt")
        opened.append(m["data"]["seat"])
    assert sorted(opened) == ["alice", "bob"]
    for ws in (alice, alice2, bob):
        await ws.close()


async def test_several_open_prompts_survive_sigkill(tmp_path):
    """Kill the server while both seats' prompts are open (one already answered this
    round): after the restart the answered choice is still hidden, still counted, and
    the match is played to the end with nothing lost or applied twice."""
    server = ServerProcess(tmp_path).start()
    try:
        created = server.create(**BODY, seed=8, clock={"prompt_ms": None})
        match_id = created["match"]
        alice = await Raw.open(server.url, match_id, JSON)
        wa = await alice.hello(created["tokens"]["alice"])
        await alice.send({"t": "act", "id": "a1", "prompt": wa["prompts"][0]["id"], "option": "strike"})
        ack = await alice.recv_until(lambda m: m["t"] == "ack")
        server.kill()
        await asyncio.sleep(0.3)
        server.start()

        bob = await Raw.open(server.url, match_id, MSGPACK)
        wb = await bob.hello(created["tokens"]["bob"], resume=0)
        assert len(wb["prompts"]) == 1 and wb["view"]["to_act"] == ["bob"]
        history = [await bob.recv() for _ in range(wb["seq"])]
        assert [m["seq"] for m in history] == list(range(1, wb["seq"] + 1))
        assert "strike" not in str([m for m in history if m.get("kind") != "prompt" or m["data"]["seat"] != "bob"])
        await bob.close()
        await alice.close()

        clients = [Client(server.url, match_id, created["tokens"][s], wire=w, seed=i)
                   for i, (s, w) in enumerate((("alice", JSON), ("bob", MSGPACK)))]
        results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients)), 60)
        assert results[0] == results[1]
        replay = httpx.get(f"{server.url}/matches/{match_id}/replay", headers=bearer(created)).json()
        events = replay["events"]
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
        answered = [e["data"]["id"] for e in events if e["kind"] == "prompt_closed" and e["data"]["reason"] == "answered"]
        assert len(answered) == len(set(answered))
        assert answered[0] == wa["prompts"][0]["id"]  # alice's pre-kill answer counted once
        first_reveal = next(e for e in events if e["kind"] == "revealed")
        assert first_reveal["data"]["moves"]["alice"] == "strike" and first_reveal["seq"] > ack["seq"]
        assert events[-1]["kind"] == "match_ended"
    finally:
        server.stop()


async def test_timeouts_of_prompts_open_together(server):
    """Nobody answers: both prompts of a round time out (the default, strike) and the
    bank-less clock makes it quick; each round's two timeouts come before the next."""
    created = server.create(**{**BODY, "options": {"simultaneous": True, "hp": 2}}, seed=2,
                            clock={"prompt_ms": 150, "bank_ms": 0})
    watcher = await Raw.open(server.url, created["match"], JSON)
    await watcher.hello(created["spectator_token"], resume=0)
    ended = await watcher.recv_until(lambda m: m["t"] == "event" and m["kind"] == "match_ended", timeout=20)
    assert ended["data"]["reason"] in ("knockout", "double knockout")
    summary = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()
    closes = [e["data"] for e in summary["events"] if e["kind"] == "prompt_closed"]
    assert closes and all(c["reason"] == "timeout" for c in closes)
    assert len(closes) % 2 == 0
    await watcher.close()
