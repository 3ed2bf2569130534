"""battlehall.client.Client against the real server: it never waits on an answer that will not come."""

from __future__ import annotations

import asyncio
import os
import signal

import httpx

from battlehall.client import Client
from servers import ServerProcess, bearer


def answered_prompts(server, created: dict) -> list[str]:
    replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created), timeout=10).json()
    return [e["data"]["id"] for e in replay["events"]
            if e["kind"] == "prompt_closed" and e["data"]["reason"] == "answered"]


async def test_a_long_match_past_the_rate_limit_finishes(tmp_path):
    # 5 messages/s per socket (bursts of 10): bots that answer at once go past it many times.
    server = ServerProcess(tmp_path, env={"BATTLEHALL_RATE_PER_S": "5"}).start()
    try:
        created = server.create(ruleset="duel", seed=4, options={"hp": 40})
        bots = [Client(server.url, created["match"], token, seed=i) for i, token in enumerate(created["tokens"].values())]
        results = await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 120)
        assert results[0] == results[1] and results[0]["reason"] == "knockout"
        refused = {e["id"] for b in bots for e in b.errors if e["code"] == "rate_limited"}
        assert refused  # the limit was really reached ...
        assert {e["code"] for b in bots for e in b.errors} == {"rate_limited"}
        acked = {act_id for b in bots for act_id in b.acked}
        assert refused & acked  # ... and a refused act was sent again with its id, and applied
        answered = answered_prompts(server, created)
        assert len(answered) == len(set(answered)) > 40  # nothing applied twice
    finally:
        server.stop()


async def test_an_act_with_no_answer_is_sent_again_with_the_same_id(tmp_path):
    server = ServerProcess(tmp_path).start()
    loop = asyncio.get_running_loop()
    try:
        created = server.create(ruleset="duel", seed=5, options={"hp": 6})
        frozen = []

        def freeze_then_answer(prompt):
            # The server stops just before this act reaches it, for longer than the ack timeout.
            if not frozen:
                os.kill(server.proc.pid, signal.SIGSTOP)
                frozen.append(prompt["id"])
                loop.call_later(1.0, os.kill, server.proc.pid, signal.SIGCONT)
            return "strike", {}

        alice = Client(server.url, created["match"], created["tokens"]["alice"], choose=freeze_then_answer,
                       ack_timeout_s=0.3)
        bob = Client(server.url, created["match"], created["tokens"]["bob"], seed=1)
        await asyncio.wait_for(asyncio.gather(alice.run(), bob.run()), 60)
        assert alice.resent >= 1 and not alice.errors
        first_act = alice.answers[frozen[0]]["id"]
        assert first_act in alice.acked
        answered = answered_prompts(server, created)
        assert answered.count(frozen[0]) == 1 and len(answered) == len(set(answered))
    finally:
        os.kill(server.proc.pid, signal.SIGCONT)
        server.stop()


async def test_an_act_refused_for_good_is_dropped_and_play_goes_on(server):
    # alice only ever sends illegal answers: each prompt gets a bounded number of tries, then
    # its deadline plays the default; the match still ends and the client with it.
    created = server.create(ruleset="duel", seed=6, options={"hp": 4}, clock={"prompt_ms": 200, "bank_ms": 0})
    alice = Client(server.url, created["match"], created["tokens"]["alice"], choose=lambda prompt: ("fireball", {}))
    bob = Client(server.url, created["match"], created["tokens"]["bob"], seed=2)
    results = await asyncio.wait_for(asyncio.gather(alice.run(), bob.run()), 60)
    assert results[0] == results[1] is not None
    codes = [e["code"] for e in alice.errors]
    assert codes and set(codes) == {"illegal_option"}
    per_prompt = {}
    for act_id in (e["id"] for e in alice.errors):
        per_prompt[alice.sent[act_id]] = per_prompt.get(alice.sent[act_id], 0) + 1
    assert max(per_prompt.values()) == 3  # one answer and two fresh ones, then left to the deadline
    replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created), timeout=10).json()
    timed_out = {e["data"]["id"] for e in replay["events"] if e["kind"] == "prompt_closed" and e["data"]["reason"] == "timeout"}
    assert set(per_prompt) <= timed_out


async def test_a_client_joining_a_finished_match_stops_at_once(server):
    created = server.create(ruleset="duel", seed=8, options={"hp": 3})
    bots = [Client(server.url, created["match"], t, seed=i) for i, t in enumerate(created["tokens"].values())]
    results = await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 60)
    late = Client(server.url, created["match"], created["tokens"]["alice"])
    assert await asyncio.wait_for(late.run(), 10) == results[0]
