"""Whole hourglass matches over real sockets: three or four bots and a spectator, with Bandits,
against the real server and its real Redis; then every message each of them received is
checked against what was hidden from it at that moment (the ruleset's `secrets`)."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from battlehall.client import JSON, MSGPACK, Client
from battlehall.engine import get_ruleset
from leaks import atoms
from servers import bearer


@pytest.mark.parametrize("n", [3, 4])
async def test_players_with_bandits_over_real_sockets(server, n):
    ruleset = get_ruleset("hourglass")
    seats = ["alice", "bob", "carol", "dave"][:n]
    created = server.create(ruleset="hourglass", seed=10 + n, seats=seats, clock={"window_min_ms": 0},
                            options={"bandits": 3})
    received: dict = {}

    def recorder(who):
        received[who] = []
        return received[who].append

    bots = [Client(server.url, created["match"], created["tokens"][s], wire=(JSON, MSGPACK)[i % 2], seed=i,
                   on_message=recorder(s)) for i, s in enumerate(seats)]
    watcher = Client(server.url, created["match"], created["spectator_token"], wire=MSGPACK, on_message=recorder(None))
    results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in bots + [watcher])), 240)
    assert all(r == results[0] for r in results) and results[0]["reason"] == "battles_resolved"
    assert sorted(results[0]["tiles"]) == ["crossroads", "old-mill", "riverbank", "watchtower"]
    assert not any(c.errors for c in bots)

    replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()
    kinds = [e["kind"] for e in replay["events"]]
    assert "cards_revealed" in kinds and "attack" in kinds and "battle_ended" in kinds
    bandits_placed = [e for e in replay["events"] if e["kind"] == "card_placed" and e["data"]["side"] == "bandits"]
    assert bandits_placed  # the Bandits played their own cards, decided by the server
    # several Defenders placed face down at once: prompts of two seats open together
    open_now, most = set(), 0
    for e in replay["events"]:
        if e["kind"] == "prompt" and e["data"].get("seat"):
            open_now.add(e["data"]["id"])
        elif e["kind"] == "prompt_closed":
            open_now.discard(e["data"]["id"])
        most = max(most, len(open_now))
    assert most >= 2

    # Re-simulate from the seed and the bots' answers, to know what was hidden at each seq.
    answers = {pid: (bot.seat, act["option"], act["args"]) for bot in bots for pid, act in bot.answers.items()}
    state, _ = ruleset.start(seats, int(replay["seed"]), {"bandits": 3})  # the seed, revealed at the end
    viewers = seats + [None]
    secrets_at = {0: {v: set(ruleset.secrets(state, v)) for v in viewers}}
    for event in replay["events"]:
        if event["kind"] != "prompt_closed" or event["data"]["reason"] == "cancelled":
            continue
        pid = event["data"]["id"]
        if event["data"]["reason"] == "answered":
            seat, option, args = answers[pid]
            ruleset.answer(state, seat, pid, option, args)
        else:
            ruleset.expire(state, pid)
        secrets_at[event["seq"]] = {v: set(ruleset.secrets(state, v)) for v in viewers}
    assert state["result"] == replay["result"]
    marks = sorted(secrets_at)
    checked = 0
    for who, messages in received.items():
        for message in messages:
            if "seq" in message:
                mark = max(m for m in marks if m <= message["seq"])
                leaked = [a for a in atoms(message, []) if a in secrets_at[mark][who]]
                assert not leaked, (who, message)
                checked += 1
    assert checked > 3 * len(replay["events"])
    # no face-down card of another seat shows in a spectator's or player's copy before the reveal
    for who, messages in received.items():
        for message in messages:
            if message.get("kind") == "card_placed" and message["data"]["face"] == "down":
                if who == message["data"]["side"]:  # its owner's copy names it
                    assert message["data"]["card"].startswith(f"{who}#")
                else:
                    assert message["data"]["card"] is None and "kind" not in message["data"]


def test_rulesets_lists_hourglass_and_a_bad_setup_is_a_400_naming_its_field(server):
    described = {r["name"]: r for r in httpx.get(server.url + "/rulesets").json()["rulesets"]}
    hourglass = described["hourglass"]
    assert hourglass["seats"] == {"min": 2, "max": 4}
    assert hourglass["options"]["bandits"]["default"] == 2 and hourglass["card_sets"][0]["id"] == "default"
    assert [d["id"] for d in hourglass["card_sets"][0]["decks"]] == ["standard", "bandit"]
    bad = {"ruleset": "hourglass", "seats": ["alice", "bob"],
           "setup": {"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": "many"}}]}}
    r = httpx.post(server.url + "/matches", json=bad)
    assert r.status_code == 400 and r.json()["error"]["path"] == "setup.battles[0].knights.bob"
    r = httpx.post(server.url + "/matches", json={"ruleset": "hourglass", "seats": ["a", "b", "c", "d", "e"]})
    assert r.status_code == 400 and r.json()["error"]["path"] == "seats"
