"""Redaction audit: no viewer ever receives what another seat hides.

What is hidden from a viewer, at any moment, is what its ruleset's `secrets(state,
viewer)` says (spellfire: the cards in another seat's hand, every draw pile, the
random generator). The audit checks every string and integer in every message a viewer
gets, after decoding it from both wire encodings.

Part 1 runs thousands of random matches of every registered ruleset, at every seat
count it takes, through the server's own message builders (MatchState,
fanout.event_message, the welcome's view and prompts).
Part 2 plays matches over real sockets against the real server, bots and a spectator
recording every message, and re-simulates each match from its replay to know, at each
seq, what was hidden.
"""

from __future__ import annotations

import asyncio
import os
import random

import httpx
import pytest

from battlehall.client import JSON, MSGPACK, Client
from rulesets import case_ids, cases, seats as seat_names

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer
from battlehall.server import codec
from battlehall.server.match_state import MatchState
from battlehall.server.clock import Clock
from battlehall.server.fanout import event_message
from leaks import atoms


def hidden_from(state: dict, viewer: str | None, ruleset=None) -> set:
    """What `viewer` must never be told, in this state: what its ruleset declares."""
    ruleset = ruleset or get_ruleset("spellfire")
    return set(ruleset.secrets(state, viewer))




def check(message: dict, secret: set, where: str, wires=(codec.JSON, codec.MSGPACK)) -> None:
    """No atom of the message, as sent in each encoding and decoded again, is a secret."""
    for decoded in [message] + [codec.decode(w, codec.encode(w, message)) for w in wires]:
        leaked = [a for a in atoms(decoded, []) if a in secret]
        assert not leaked, f"{where}: {leaked} leaked in {decoded}"


def viewers(seats):
    return list(seats) + [None]


# Two-seat matches in the suite; `make audit` runs many more (BATTLEHALL_AUDIT_MATCHES).
AUDIT_MATCHES = int(os.environ.get("BATTLEHALL_AUDIT_MATCHES", "500"))


@pytest.mark.timeout(0 if "BATTLEHALL_AUDIT_MATCHES" in os.environ else 900)
@pytest.mark.parametrize(("name", "n"), cases(), ids=case_ids())
def test_random_matches_leak_nothing(name, n):
    ruleset = get_ruleset(name)
    # Hundreds of two-seat matches; fewer, much longer, with more seats.
    matches = AUDIT_MATCHES if n == 2 else max(10, AUDIT_MATCHES // 50)
    messages = 0
    seats = seat_names(n)
    for seed in range(matches):
        rng = random.Random(seed)
        state, events = ruleset.start(seats, seed)
        core = MatchState({"ruleset": name, "seats": seats}, state, Clock.new({"prompt_ms": 1000, "bank_ms": 0}, seats), 0)
        at = 0
        records = core.stamp(events, at)
        while True:
            for viewer in viewers(seats):
                secret = hidden_from(core.state, viewer, ruleset)
                for record in records:
                    # Both encodings for a sample (they carry the same maps; test_codec checks that).
                    wires = (codec.JSON, codec.MSGPACK) if messages % 16 == 0 else ()
                    check(event_message(ruleset, record, viewer), secret, f"{name} seed {seed} seq {record['seq']}", wires)
                    messages += 1
                if rng.random() < 0.05:  # a (re)joining socket's welcome
                    welcome = {"t": "welcome", "seq": core.seq, "view": ruleset.view(core.state, viewer),
                               "prompts": core.prompts_for(viewer)}
                    check(welcome, secret, f"{name} seed {seed} welcome")
            if core.over:
                break
            prompt = rng.choice(ruleset.prompts(core.state))
            at += 10
            if rng.random() < 0.1:
                entry = {"at": at, "timeout": True, "prompt": prompt["id"]}
            else:
                option, args = random_answer(rng, prompt)
                entry = {"at": at, "seat": prompt["seat"], "prompt": prompt["id"], "option": option, "args": args}
            records = core.apply(entry)
    assert messages > 5_000


async def test_messages_over_real_sockets_leak_nothing(server):
    ruleset = get_ruleset("spellfire")
    for seed in (3, 4, 5):
        created = server.create(ruleset="spellfire", seed=seed, clock={"window_min_ms": 0})
        received: dict = {}

        def recorder(who):
            received[who] = []
            return received[who].append

        seats = list(created["tokens"])
        bots = [Client(server.url, created["match"], created["tokens"][s], wire=(JSON, MSGPACK)[i], seed=seed + i,
                       on_message=recorder(s)) for i, s in enumerate(seats)]
        watcher = Client(server.url, created["match"], created["spectator_token"], on_message=recorder(None))
        await asyncio.wait_for(asyncio.gather(*(c.run() for c in bots + [watcher])), 120)
        replay = httpx.get(f"{server.url}/matches/{created['match']}/replay").json()
        # Re-simulate the match from the seed its replay reveals and the bots' answers, to
        # know what was hidden after each answer (each answer's events start with its
        # prompt_closed). The seed was told to nobody before.
        assert "seed" not in created
        answers = {pid: (bot.seat, act["option"], act["args"]) for bot in bots for pid, act in bot.answers.items()}
        state, _ = ruleset.start(seats, int(replay["seed"]))
        seed_secrets = {str(replay["seed"]), int(replay["seed"])}
        secrets_at = {0: {v: hidden_from(state, v) | seed_secrets for v in viewers(seats)}}
        for event in replay["events"]:
            if event["kind"] != "prompt_closed" or event["data"]["reason"] == "cancelled":
                continue
            pid = event["data"]["id"]
            if event["data"]["reason"] == "answered":
                seat, option, args = answers[pid]
                ruleset.answer(state, seat, pid, option, args)
            else:
                ruleset.expire(state, pid)
            secrets_at[event["seq"]] = {v: hidden_from(state, v) | seed_secrets for v in viewers(seats)}
        assert state["result"] == replay["result"]
        marks = sorted(secrets_at)
        checked = 0
        for who, messages in received.items():
            for message in messages:
                if "seq" in message:
                    mark = max(m for m in marks if m <= message["seq"])
                    check(message, secrets_at[mark][who], f"socket of {who}, {message['t']} {message['seq']}")
                    checked += 1
        assert checked > 3 * len(replay["events"]) * 0.9
