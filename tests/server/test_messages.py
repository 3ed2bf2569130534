"""What sessions and operators submit to a match: the core's own inputs (inputs.py), which a
session builds from each wire message (the seat is its socket's) and the actor only
carries. A real hub on a real Redis, sessions and connections with no socket."""

from __future__ import annotations

import asyncio

import msgpack

from battlehall.server.match import inputs
from battlehall.server.match.connection import RateLimiter
from battlehall.server.transport.session import Session
from hub_parts import connection, duel, hub_on, received, redis_server, redis_url  # noqa: F401 (fixtures)


async def settled() -> None:
    """Until the writes submitted so far have landed and their replies have been handled."""
    for _ in range(5):
        await asyncio.sleep(0.02)


async def joined(actor, conn, resume: int | None = None):
    reply = asyncio.get_running_loop().create_future()
    actor.submit(inputs.Join(conn, resume, reply))
    return await asyncio.wait_for(reply, 5)


async def said_hello(hub, match_id: str, conn, token: str) -> Session:
    session = Session(hub.sessions, conn, match_id, RateLimiter(50))
    session.receive(msgpack.packb({"t": "hello", "token": token}), False)
    await asyncio.wait_for(session.joining, 5)
    return session


def say(session: Session, message: dict) -> None:
    session.receive(msgpack.packb(message), False)


async def test_each_session_message_reaches_the_core_as_its_input(redis_url):
    async with hub_on(redis_url) as hub:
        created = await hub.create(duel(clock={"prompt_ms": None}, spectators={"allowed": True, "public": True}))
        match_id = created["match"]
        alice, bob, watcher = connection(), connection(), connection()
        sessions = {"alice": await said_hello(hub, match_id, alice, created["tokens"]["alice"]),
                    "bob": await said_hello(hub, match_id, bob, created["tokens"]["bob"]),
                    "watcher": await said_hello(hub, match_id, watcher, created["spectator_token"])}
        actor = hub.actors[match_id]
        await settled()
        welcome = received(alice)[0]
        assert welcome["t"] == "welcome" and welcome["seat"] == "alice"
        prompt = next(p for p in welcome["prompts"] if p["seat"] == "alice")

        say(sessions["alice"], {"t": "act", "id": 7, "prompt": prompt["id"], "option": "guard"})
        await settled()
        ack = received(alice)[-1]
        assert {"t": "ack", "id": 7, "seq": ack["seq"]} == {k: ack[k] for k in ("t", "id", "seq")} and "clock" in ack
        assert actor.core.seq == received(alice)[-1]["seq"]  # its seat is the socket's: alice's answer
        assert "alice 7" in actor.core.match.acts and "bob 7" not in actor.core.match.acts

        say(sessions["bob"], {"t": "stops", "mode": "pass_until_my_turn"})
        say(sessions["watcher"], {"t": "view"})
        await settled()
        assert received(watcher)[-1]["t"] == "view" and received(watcher)[-1]["seq"] == actor.core.seq
        assert received(bob)[-1] == {"t": "stops", "mode": "pass_until_my_turn"}  # bob's, told to bob's sockets
        assert actor.core.stops.mode("bob") == "pass_until_my_turn" and actor.core.stops.mode("alice") == "ask"

        say(sessions["alice"], {"t": "claim_win", "id": "c1"})  # nobody is away: refused, with its id
        await settled()
        assert received(alice)[-1]["code"] == "no_claim" and received(alice)[-1]["id"] == "c1"

        sessions["watcher"].leave()
        say(sessions["bob"], {"t": "resign", "id": "r1"})
        await settled()
        assert received(bob)[-1] == {"t": "ack", "id": "r1", "seq": actor.core.seq}
        assert actor.core.over and actor.core.state["result"]["winners"] == ["alice"]
        assert not any(m.get("kind") == "match_ended" for m in received(watcher))  # it had left
        assert watcher not in actor.conns


async def test_the_actor_carries_an_input_as_it_was_built(redis_url):
    """An input built elsewhere (here, as a session would) is the core's as it is: its seat
    is the one given, the actor adds nothing."""
    async with hub_on(redis_url) as hub:
        created = await hub.create(duel(clock={"prompt_ms": None}))
        actor = await hub.actor(created["match"])
        alice = connection("alice")
        assert await joined(actor, alice) is None
        prompt = next(p for p in received(alice)[0]["prompts"] if p["seat"] == "alice")
        actor.submit(inputs.Act(alice, "alice", "x", prompt["id"], "guard", {}))
        await settled()
        assert {k: received(alice)[-1][k] for k in ("t", "id", "seq")} == {"t": "ack", "id": "x", "seq": actor.core.seq}


async def test_an_operator_s_abort_is_handled_in_order_and_answered(redis_url):
    async with hub_on(redis_url) as hub:
        created = await hub.create(duel())
        actor = await hub.actor(created["match"])
        done = asyncio.get_running_loop().create_future()
        actor.submit(inputs.Abort(done))
        await asyncio.wait_for(done, 5)
        assert actor.core.over and actor.core.state["result"]["reason"] == "aborted"


async def test_something_else_is_not_an_input_and_changes_nothing(redis_url, caplog):
    async with hub_on(redis_url) as hub:
        actor = await hub.actor((await hub.create(duel()))["match"])
        seq, state = actor.core.seq, repr(actor.core.state)
        actor.submit(("act", None, {}))  # type: ignore[arg-type]
        await settled()
        assert "not an input of a match" in caplog.text
        assert actor.core.seq == seq and repr(actor.core.state) == state


async def test_a_session_reaches_its_match_through_the_session_services_alone(redis_url):
    """A session is given `SessionServices` (session.py), not the hub: hello, then an act."""
    async with hub_on(redis_url) as hub:
        created = await hub.create(duel(clock={"prompt_ms": None}))
        alice = connection()
        session = Session(hub.sessions, alice, created["match"], RateLimiter(50))
        session.receive(msgpack.packb({"t": "hello", "token": created["tokens"]["alice"]}), False)
        await asyncio.wait_for(session.joining, 5)
        await settled()
        welcome = received(alice)[0]
        assert welcome["t"] == "welcome" and alice.seat == "alice" and alice.role == "player"
        prompt = next(p for p in welcome["prompts"] if p["seat"] == "alice")
        session.receive(msgpack.packb({"t": "act", "id": "a", "prompt": prompt["id"], "option": "guard"}), False)
        await settled()
        ack = received(alice)[-1]
        assert {k: ack[k] for k in ("t", "id", "seq")} == {"t": "ack", "id": "a", "seq": hub.actors[created["match"]].core.seq}
        session.leave()
        await settled()
        assert hub.actors[created["match"]].conns == []
