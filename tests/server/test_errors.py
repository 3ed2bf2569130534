"""Every error path of docs/protocol.md over a real socket: a clear error, the match unchanged."""

from __future__ import annotations

import httpx
import msgpack
import pytest
import websockets

from battlehall.client import JSON, MSGPACK
from wsutil import Raw


async def duel(server, **body):
    created = server.create(ruleset="duel", seed=9, **body)
    alice = await Raw.open(server.url, created["match"], JSON)
    welcome = await alice.hello(created["tokens"]["alice"])
    return created, alice, welcome


def summary(server, match_id):
    return httpx.get(f"{server.url}/matches/{match_id}").json()


async def expect_error(conn, code, act_id=None):
    message = await conn.recv_until(lambda m: m["t"] == "error")
    assert message["code"] == code, message
    assert message["message"]
    if act_id is not None:
        assert message["id"] == act_id
    return message


async def test_engine_errors_change_nothing(server):
    created, alice, welcome = await duel(server)
    prompt = welcome["prompts"][0]
    before = summary(server, created["match"])
    await alice.send({"t": "act", "id": 1, "prompt": "p999", "option": "strike"})
    await expect_error(alice, "unknown_prompt", 1)
    await alice.send({"t": "act", "id": 2, "prompt": prompt["id"], "option": "fireball"})
    await expect_error(alice, "illegal_option", 2)
    await alice.send({"t": "act", "id": 3, "prompt": prompt["id"], "option": "strike", "args": {"x": 1}})
    await expect_error(alice, "bad_args", 3)
    await alice.send({"t": "act", "id": 4, "prompt": prompt["id"], "option": "strike", "args": [1]})
    await expect_error(alice, "bad_args", 4)
    bob = await Raw.open(server.url, created["match"], MSGPACK)
    await bob.hello(created["tokens"]["bob"])
    await bob.send({"t": "act", "id": "b1", "prompt": prompt["id"], "option": "strike"})
    await expect_error(bob, "not_your_prompt", "b1")
    assert summary(server, created["match"])["seq"] == before["seq"]
    # ... and the connection still works: a legal answer is acknowledged.
    await alice.send({"t": "act", "id": 5, "prompt": prompt["id"], "option": "guard"})
    ack = await alice.recv_until(lambda m: m["t"] == "ack")
    assert ack["id"] == 5 and ack["seq"] > before["seq"]
    await alice.close(), await bob.close()


async def test_resent_act_gets_the_same_ack_and_is_applied_once(server):
    created, alice, welcome = await duel(server)
    act = {"t": "act", "id": "same", "prompt": welcome["prompts"][0]["id"], "option": "guard"}
    await alice.send(act)
    first = await alice.recv_until(lambda m: m["t"] == "ack")
    seq = summary(server, created["match"])["seq"]
    await alice.send(act)
    second = await alice.recv_until(lambda m: m["t"] == "ack")
    assert first == second
    assert summary(server, created["match"])["seq"] == seq
    await alice.close()


async def test_bad_messages(server):
    created, alice, welcome = await duel(server)
    await alice.ws.send("{not json")
    await expect_error(alice, "bad_message")
    await alice.send({"no": "type"})
    await expect_error(alice, "bad_message")
    await alice.send({"t": "dance"})
    await expect_error(alice, "bad_message")
    await alice.send({"t": "act", "prompt": "p1", "option": "strike"})  # no id
    await expect_error(alice, "bad_message")
    await alice.send({"t": "act", "id": "z", "prompt": 5, "option": "strike"})
    await expect_error(alice, "bad_message", "z")
    await alice.send({"t": "hello", "token": created["tokens"]["alice"]})
    await expect_error(alice, "bad_message")
    await alice.send({"t": "ping"})
    pong = await alice.recv_until(lambda m: m["t"] == "pong")
    assert pong["now"] >= welcome["now"]
    # MessagePack connection sent a text frame
    mp = await Raw.open(server.url, created["match"], MSGPACK)
    await mp.hello(created["tokens"]["bob"])
    await mp.ws.send("text")
    await expect_error(mp, "bad_message")
    await mp.ws.send(b"\xc1")  # never-used MessagePack byte
    await expect_error(mp, "bad_message")
    assert summary(server, created["match"])["seq"] == welcome["seq"]
    await alice.close(), await mp.close()


@pytest.mark.parametrize("args", [
    {"x": 1, b"x": 2},  # string and bytes keys side by side
    {b"x": 1},
    {"x": {"deep": [{b"k": 1}]}},
    {"x": b"bytes"},
    {"x": msgpack.ExtType(5, b"z")},
    {"x": float("nan")},
    {"x": [float("inf")]},
], ids=["mixed-keys", "bytes-key", "nested-bytes-key", "bytes-value", "ext", "nan", "inf"])
async def test_msgpack_that_json_cannot_say_is_a_bad_message(server, args):
    created = server.create(ruleset="duel", seed=9)
    alice = await Raw.open(server.url, created["match"], MSGPACK)
    welcome = await alice.hello(created["tokens"]["alice"])
    prompt = welcome["prompts"][0]["id"]
    before = summary(server, created["match"])
    await alice.send({"t": "act", "id": 1, "prompt": prompt, "option": "strike", "args": args})
    await expect_error(alice, "bad_message")
    assert summary(server, created["match"]) == before
    # The same socket plays on, on the same match.
    await alice.send({"t": "act", "id": 2, "prompt": prompt, "option": "guard"})
    ack = await alice.recv_until(lambda m: m["t"] == "ack")
    assert ack["id"] == 2 and ack["seq"] > before["seq"]
    await alice.close()


async def refused(server, match_id, token) -> tuple[dict, int]:
    """The error a hello gets, and the close code that follows it."""
    conn = await Raw.open(server.url, match_id, JSON)
    await conn.send({"t": "hello", "token": token})
    error = await conn.recv()
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await conn.recv()
    return error, closed.value.rcvd.code


async def test_unauthorized_closes_4001(server):
    created = server.create(ruleset="duel", seed=1)
    for token in ("wrong", None, created["tokens"]["alice"][:-1], 7):
        error, code = await refused(server, created["match"], token)
        assert error == {"t": "error", "code": "unauthorized", "message": "bad token"}
        assert code == 4001


async def test_a_match_that_does_not_exist_is_not_found_4004(server):
    created = server.create(ruleset="duel", seed=1)
    # Whatever the token (even a real token of another match), the answer is the same:
    # it says only that no match has this id, which is no secret.
    for token in ("x", None, created["tokens"]["alice"], created["spectator_token"]):
        error, code = await refused(server, "m_nonexistent", token)
        assert error == {"t": "error", "code": "not_found", "message": "no such match"}
        assert code == 4004


async def test_hello_must_come_first_and_in_time(server):
    created = server.create(ruleset="duel", seed=1)
    conn = await Raw.open(server.url, created["match"], JSON)
    await conn.send({"t": "ping"})
    assert (await conn.recv())["code"] == "bad_message"
    with pytest.raises(websockets.ConnectionClosed) as closed:
        await conn.recv()
    assert closed.value.rcvd.code == 1008
    quiet = await Raw.open(server.url, created["match"], JSON)  # the test server allows 1 s
    assert (await quiet.recv(5))["code"] == "bad_message"


async def test_bad_hello_fields_are_refused(server):
    created = server.create(ruleset="duel", seed=1)
    before = summary(server, created["match"])
    for field, value in (("resume", -1), ("resume", "7"), ("batch", "yes"), ("batch", 1)):
        conn = await Raw.open(server.url, created["match"], JSON)
        await conn.send({"t": "hello", "token": created["tokens"]["alice"], field: value})
        error = await conn.recv()
        assert error["code"] == "bad_message" and field in error["message"], error
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await conn.recv()
        assert closed.value.rcvd.code == 1008
    assert summary(server, created["match"]) == before


async def test_spectator_cannot_act(server):
    created, alice, welcome = await duel(server)
    watcher = await Raw.open(server.url, created["match"], JSON)
    assert (await watcher.hello(created["spectator_token"]))["role"] == "spectator"
    await watcher.send({"t": "act", "id": "s", "prompt": welcome["prompts"][0]["id"], "option": "strike"})
    await expect_error(watcher, "spectator", "s")
    await watcher.close(), await alice.close()


async def test_match_over(server):
    created, alice, welcome = await duel(server, options={"hp": 1})
    bob = await Raw.open(server.url, created["match"], JSON)
    await bob.hello(created["tokens"]["bob"])
    await alice.send({"t": "act", "id": 1, "prompt": welcome["prompts"][0]["id"], "option": "strike"})
    ended = await alice.recv_until(lambda m: m.get("kind") == "match_ended")
    assert ended["data"]["winner"] == "alice"
    await bob.send({"t": "act", "id": 1, "prompt": welcome["prompts"][0]["id"], "option": "strike"})
    await expect_error(bob, "match_over", 1)
    await alice.close(), await bob.close()


async def test_flooding_is_rate_limited_then_closed(server):
    created, alice, welcome = await duel(server)
    for _ in range(400):
        await alice.send({"t": "ping"})
    codes = []
    with pytest.raises(websockets.ConnectionClosed) as closed:
        while True:
            message = await alice.recv()
            if message["t"] == "error":
                codes.append(message["code"])
    assert "rate_limited" in codes
    assert closed.value.rcvd.code == 1008


async def test_oversized_frame_closes_1009(server):
    created, alice, welcome = await duel(server)
    with pytest.raises(websockets.ConnectionClosed) as closed:
        # the server may close before the client has finished sending: then send raises
        await alice.ws.send(b"x" * (1 << 20))
        await alice.recv()
    assert closed.value.rcvd.code == 1009
    # The match lives on: a new connection of the same seat plays.
    again = await Raw.open(server.url, created["match"], JSON)
    welcome2 = await again.hello(created["tokens"]["alice"])
    assert welcome2["prompts"] == welcome["prompts"]
    await again.close()


@pytest.mark.parametrize("path", ["/ws", "/ws/", "/ws/m_1/extra", "/matches", "/nope"])
async def test_websockets_on_other_paths_are_refused(server, path):
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with websockets.connect(server.url.replace("http", "ws") + path, open_timeout=5):
            pass
    assert refused.value.response.status_code == 403
