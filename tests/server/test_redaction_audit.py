"""Redaction audit: no viewer ever receives what another seat hides.

What is hidden from a viewer, at any moment, is what its ruleset's `secrets(state,
viewer)` says (spellfire: the cards in another seat's hand, every draw pile, the
random generator). The audit checks every string and integer in every message a viewer
gets, after decoding it from both wire encodings. A ruleset declaring hidden information
must name secrets for most of the messages it sends (an audit against nothing checks
nothing); one declaring perfect information has none (tests/engine/test_declarations.py).

Part 1 runs thousands of random matches of every registered ruleset, at every seat
count it takes, through the server's own message builders (MatchState,
fanout.event_message, the welcome's view and prompts).
Part 2 plays matches over real sockets against the real server, bots and a spectator
recording every message, and re-simulates each match from its replay to know, at each
seq, what was hidden.
The caster is a viewer too (server/node/caster.py): it may see every seat's hidden cards, but
nothing newer than its delay. Both parts check it, for every ruleset and seat count: the
caster's own messages built from a replica that is the delay behind the live match, and
a caster socket on a real server whose every message is timed against the log's `at`.
"""

from __future__ import annotations

import asyncio
import os
import random

import httpx
import pytest

from battlehall.client import JSON, MSGPACK, Client
from battlehall.client import decode as client_decode
from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer
from battlehall.server import codec
from battlehall.server.clock import Clock
from battlehall.server.match.fanout import event_message
from battlehall.server.match.match_state import MatchState
from leaks import atoms
from rulesets import case_ids, cases
from rulesets import seats as seat_names
from servers import bearer


def hidden_from(state: dict, viewer: str | None, ruleset=None) -> set:
    """What `viewer` must never be told, in this state: what its ruleset declares."""
    ruleset = ruleset or get_ruleset("spellfire")
    return set(ruleset.secrets(state, viewer))




def check(message: dict, secret: set, where: str, wires=(codec.JSON, codec.MSGPACK)) -> None:
    """No atom of the message, as sent in each encoding and decoded by a client, is a secret."""
    for decoded in [message] + [client_decode(w, codec.encode(w, message)) for w in wires]:
        leaked = [a for a in atoms(decoded, []) if a in secret]
        assert not leaked, f"{where}: {leaked} leaked in {decoded}"


def viewers(seats):
    return list(seats) + [None]


# Two-seat matches in the suite; `make audit` runs many more (BATTLEHALL_AUDIT_MATCHES).
AUDIT_MATCHES = int(os.environ.get("BATTLEHALL_AUDIT_MATCHES", "150"))


@pytest.mark.timeout(0 if "BATTLEHALL_AUDIT_MATCHES" in os.environ else 900)
@pytest.mark.parametrize(("name", "n"), cases(), ids=case_ids())
def test_random_matches_leak_nothing(name, n):
    ruleset = get_ruleset(name)
    # Hundreds of two-seat matches; fewer, much longer, with more seats.
    matches = AUDIT_MATCHES if n == 2 else max(10, AUDIT_MATCHES // 50)
    messages = guarded = 0  # guarded: messages checked against at least one secret
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
                    guarded += bool(secret)
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
    if ruleset.declaration.information == "hidden":
        assert guarded > messages // 2, f"{name} declares hidden information: {guarded} of {messages} checked against secrets"
    else:
        assert guarded == 0


async def test_messages_over_real_sockets_leak_nothing(server):
    ruleset = get_ruleset("spellfire")
    for seed in (3, 4, 5):
        created = server.create(ruleset="spellfire", seed=seed, clock={"window_min_ms": 0})
        received: dict = {}

        def recorder(who, received=received):
            received[who] = []
            return received[who].append

        seats = list(created["tokens"])
        bots = [Client(server.url, created["match"], created["tokens"][s], wire=(JSON, MSGPACK)[i], seed=seed + i,
                       on_message=recorder(s)) for i, s in enumerate(seats)]
        watcher = Client(server.url, created["match"], created["spectator_token"], on_message=recorder(None))
        await asyncio.wait_for(asyncio.gather(*(c.run() for c in bots + [watcher])), 120)
        replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()
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


# -- the caster: every seat's hidden cards, never newer than the caster delay ----------------

CASTER_DELAY = 1000  # ms, in the simulated matches of part 1


def known_to_seats(ruleset, state: dict, records: list[dict]) -> set:
    """Every atom some seat was shown: its view of `state` and its copy of each record."""
    out: list = []
    for seat in state["seats"]:
        atoms(ruleset.view(state, seat), out)
        for record in records:
            atoms(ruleset.redact(record, seat)["data"], out)
    return set(out)


def caster_secrets(ruleset, live: dict, replica: dict, known: set) -> set:
    """What a caster, shown the match as of `replica` (the delay ago) while it is at `live`,
    must not be told: what no seat could see then (a deck, the generator), and what is
    hidden from some seat now that no seat had been shown by then (a card drawn since)."""
    seats = live["seats"]
    from_all = set.intersection(*(set(ruleset.secrets(replica, s)) for s in seats))
    newer = set().union(*(set(ruleset.secrets(live, s)) for s in seats)) - known
    return from_all | newer


@pytest.mark.parametrize(("name", "n"), cases(), ids=case_ids())
def test_a_caster_is_told_nothing_newer_than_its_delay(name, n):
    """Part 1 for the caster, through the server's own caster messages (caster.py): a
    replica advanced by each log entry once it is CASTER_DELAY old, as the caster's feed
    does, while the live match runs on; each message the caster gets is checked against
    what it must not know at that moment."""
    from battlehall.server.node import caster

    ruleset = get_ruleset(name)
    matches = max(4, AUDIT_MATCHES // 10) if n == 2 else max(2, AUDIT_MATCHES // 100)
    seats = seat_names(n)
    messages = guarded = 0
    for seed in range(matches):
        rng = random.Random(seed)
        clock = {"prompt_ms": 1000, "bank_ms": 0}
        state, events = ruleset.start(seats, seed)
        live = MatchState({"ruleset": name, "seats": seats}, state, Clock.new(clock, seats), 0)
        opening = live.stamp(events, 0)
        copy = msgpack_copy(state)
        replica = MatchState({"ruleset": name, "seats": seats}, copy, Clock.new(clock, seats), live.seq)
        pending: list[dict] = []
        known: set = set()
        opened = False
        at = 0
        while True:
            # What the caster is shown by now: the start, then each entry CASTER_DELAY old.
            sent: list[dict] = []
            if not opened and at >= CASTER_DELAY:
                opened = True
                known |= known_to_seats(ruleset, replica.state, opening)
                sent += [caster.event_message(ruleset, r, CASTER_DELAY) for r in opening]
            while opened and pending and pending[0]["at"] + CASTER_DELAY <= at:
                records = replica.apply(pending.pop(0))
                known |= known_to_seats(ruleset, replica.state, records)
                sent += [caster.event_message(ruleset, r, CASTER_DELAY) for r in records]
            if rng.random() < 0.2:  # a caster's welcome or view
                sent.append({"t": "view", **caster.view_fields(ruleset, replica.state if opened else None,
                                                                replica.seq, CASTER_DELAY)})
            secret = caster_secrets(ruleset, live.state, replica.state, known)
            shown_upto = replica.seq if opened else 0
            for message in sent:
                assert message["seq"] <= shown_upto
                check(message, secret, f"caster of {name} seed {seed} at {at} ms, seq {message['seq']}", ())
                messages += 1
                guarded += bool(secret)
            if live.over and not pending and opened:
                break
            if not live.over:
                prompt = rng.choice(ruleset.prompts(live.state))
                option, args = random_answer(rng, prompt)
                entry = {"at": at, "seat": prompt["seat"], "prompt": prompt["id"], "option": option, "args": args}
                live.apply(entry)
                pending.append(entry)
            at += rng.randrange(0, CASTER_DELAY // 2)
    assert messages > 100
    if ruleset.declaration.information == "hidden":
        assert guarded > messages // 2, f"{name}: {guarded} of {messages} caster messages checked against secrets"


def msgpack_copy(value):
    """An independent copy of plain match data (the replica's own state)."""
    import msgpack

    return msgpack.unpackb(msgpack.packb(value), raw=False, strict_map_key=False)


# Part 2 for the caster: real sockets, a server whose smallest caster delay is short.
SOCKET_CASTER_DELAY = 400


@pytest.fixture(scope="module")
def casting_server(tmp_path_factory):
    from servers import ServerProcess

    srv = ServerProcess(tmp_path_factory.mktemp("casting"),
                        env={"BATTLEHALL_CASTER_MIN_DELAY_MS": str(SOCKET_CASTER_DELAY),
                             "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}).start()
    yield srv
    srv.stop()


@pytest.mark.timeout(300)
@pytest.mark.parametrize(("name", "n"), cases(), ids=case_ids())
async def test_a_caster_socket_gets_nothing_newer_than_its_delay(casting_server, name, n):
    """Every message a caster socket gets (its welcome, every event) holds nothing that
    happened less than the delay before it arrived, by the log's own times (`at`); its
    events are the replay's, every seat's hidden part included."""
    import time

    server = casting_server
    created = server.create(ruleset=name, seats=seat_names(n), seed=n, caster={"delay_ms": SOCKET_CASTER_DELAY},
                            clock={"window_min_ms": 0})
    got: list[tuple[int, dict]] = []

    def record(message):
        got.append((int(time.time() * 1000), message))

    caster_client = Client(server.url, created["match"], created["caster_token"], wire=MSGPACK, on_message=record)
    bots = [Client(server.url, created["match"], created["tokens"][s], wire=(JSON, MSGPACK)[i % 2], seed=i)
            for i, s in enumerate(seat_names(n))]
    await asyncio.wait_for(asyncio.gather(*(c.run() for c in bots + [caster_client])), 240)
    replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()
    at_of = {e["seq"]: e["at"] for e in replay["events"]}
    checked = 0
    for arrived, message in got:
        if message["t"] == "event":
            assert message["at"] + SOCKET_CASTER_DELAY <= arrived, f"event {message['seq']} too fresh"
        elif message["t"] in ("welcome", "view") and message["seq"]:
            assert at_of[message["seq"]] + SOCKET_CASTER_DELAY <= arrived, f"{message['t']} {message['seq']} too fresh"
        else:
            continue
        checked += 1
    events = [m for _, m in got if m["t"] == "event"]
    assert [(e["seq"], e.get("private")) for e in events] == [(e["seq"], e.get("private")) for e in replay["events"]]
    assert checked >= len(replay["events"])
