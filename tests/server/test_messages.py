"""What sessions and operators submit to a match (messages.py), as the actor turns each
into its core's input: a real hub on a real Redis, connections with no socket."""

from __future__ import annotations

import asyncio

import msgpack
import pytest

from battlehall.server.match import messages
from battlehall.server.match.connection import RateLimiter
from battlehall.server.transport.session import Session
from hub_parts import connection, duel, hub_on, received, redis_server, redis_url  # noqa: F401 (fixtures)


async def settled() -> None:
    """Until the writes submitted so far have landed and their replies have been handled."""
    for _ in range(5):
        await asyncio.sleep(0.02)


async def joined(actor, conn, resume: int | None = None):
    reply = asyncio.get_running_loop().create_future()
    actor.submit(messages.Join(conn, resume, reply))
    return await asyncio.wait_for(reply, 5)


async def test_each_session_message_reaches_the_core_as_its_input(redis_url):
    async with hub_on(redis_url) as hub:
        created = await hub.create(duel(clock={"prompt_ms": None}))
        actor = await hub.actor(created["match"])
        alice, bob, watcher = connection("alice"), connection("bob"), connection(None, "spectator")
        for conn in (alice, bob, watcher):
            assert await joined(actor, conn) is None
        welcome = received(alice)[0]
        assert welcome["t"] == "welcome" and welcome["seat"] == "alice"
        prompt = next(p for p in welcome["prompts"] if p["seat"] == "alice")

        actor.submit(messages.Act(alice, {"t": "act", "id": 7, "prompt": prompt["id"], "option": "guard"}))
        await settled()
        assert {"t": "ack", "id": 7, "seq": received(alice)[-1]["seq"]} == received(alice)[-1]
        assert actor.core.seq == received(alice)[-1]["seq"]  # its seat is the socket's: alice's answer

        actor.submit(messages.Stops(bob, "pass_until_my_turn"))
        actor.submit(messages.View(watcher))
        await settled()
        assert received(watcher)[-1]["t"] == "view" and received(watcher)[-1]["seq"] == actor.core.seq
        assert received(bob)[-1] == {"t": "stops", "mode": "pass_until_my_turn"}  # bob's, told to bob's sockets
        assert actor.core.stops.mode("bob") == "pass_until_my_turn" and actor.core.stops.mode("alice") == "ask"

        actor.submit(messages.ClaimWin(alice, "c1"))  # nobody is away: refused, with its id
        await settled()
        assert received(alice)[-1]["code"] == "no_claim" and received(alice)[-1]["id"] == "c1"

        actor.submit(messages.Leave(watcher))
        actor.submit(messages.Resign(bob, "r1"))
        await settled()
        assert received(bob)[-1] == {"t": "ack", "id": "r1", "seq": actor.core.seq}
        assert actor.core.over and actor.core.state["result"]["winners"] == ["alice"]
        assert not any(m.get("kind") == "match_ended" for m in received(watcher))  # it had left


async def test_an_operator_s_abort_is_handled_in_order_and_answered(redis_url):
    async with hub_on(redis_url) as hub:
        created = await hub.create(duel())
        actor = await hub.actor(created["match"])
        done = asyncio.get_running_loop().create_future()
        actor.submit(messages.Abort(done))
        await asyncio.wait_for(done, 5)
        assert actor.core.over and actor.core.state["result"]["reason"] == "aborted"


def test_something_else_is_not_a_message():
    with pytest.raises(TypeError):
        from battlehall.server.match.actor import MatchActor
        MatchActor.submit(object.__new__(MatchActor), ("act", None, {}))


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
        assert received(alice)[-1] == {"t": "ack", "id": "a", "seq": hub.actors[created["match"]].core.seq}
        session.leave()
        await settled()
        assert hub.actors[created["match"]].conns == []
