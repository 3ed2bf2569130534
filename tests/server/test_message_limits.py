"""Values of any depth and size, in every field a client sends, over real sockets in JSON
and MessagePack: each is refused with `bad_args` (an act's `args`) or `bad_message`
(anywhere else), in a short error, and the match is unchanged (docs/protocol.md, Limits).

Act arguments nested 1,000 deep once overflowed the recursion limit while the error text
was built: the answer was `internal`, with a traceback logged for each frame.
"""

from __future__ import annotations

import asyncio

import httpx
import msgpack
import orjson
import pytest

from battlehall.client import JSON, MSGPACK
from battlehall.server import codec
from servers import ServerProcess
from wsutil import Raw

PLACEHOLDER = "__value__"
#: An error message never echoes a value at length: its longest fixed text and an act id fit.
LONGEST_ERROR = 300


def deep(shape: str, depth: int, binary: bool) -> bytes:
    """A value `depth` maps and lists deep, encoded by hand (the encoders stop far sooner)."""
    if binary:
        opener = {"list": b"\x91", "map": b"\x81\xa1k", "mixed": b"\x91\x81\xa1k"}[shape]
        return opener * (depth if shape != "mixed" else depth // 2) + b"\xc0"
    opener, closer = {"list": (b"[", b"]"), "map": (b'{"k":', b"}"), "mixed": (b'[{"k":', b"}]")}[shape]
    times = depth if shape != "mixed" else depth // 2
    return opener * times + b"null" + closer * times


def frame(message: dict, where: tuple[str, ...], value: bytes, binary: bool) -> bytes | str:
    """The message with the raw encoded `value` at the path `where` (a field, or a field's field)."""
    message = orjson.loads(orjson.dumps(message))
    target = message
    for key in where[:-1]:
        target = target.setdefault(key, {})
    target[where[-1]] = PLACEHOLDER
    if binary:
        return msgpack.packb(message).replace(msgpack.packb(PLACEHOLDER), value)
    return orjson.dumps(message).replace(orjson.dumps(PLACEHOLDER), value).decode()


def wide(binary: bool) -> bytes:
    """A flat list of more values than a message may hold, well inside the size limit."""
    count = 5_000
    return msgpack.packb([0] * count) if binary else orjson.dumps([0] * count)


def long_text(binary: bool) -> bytes:
    text = "x" * 20_000
    return msgpack.packb(text) if binary else orjson.dumps(text)


@pytest.fixture(scope="module")
def limits_server(tmp_path_factory):
    # No rate limit to speak of: each test sends many refused messages in a row.
    srv = ServerProcess(tmp_path_factory.mktemp("limits"), env={"BATTLEHALL_RATE_PER_S": "100000"}).start()
    yield srv
    srv.stop()


def server_log(server: ServerProcess) -> str:
    return (server.data_dir / f"server-{server.port}.log").read_text()


async def answer(conn: Raw) -> dict:
    return await conn.recv_until(lambda m: m["t"] in ("ack", "error", "pong", "view"), timeout=10)


def values(binary: bool) -> list[tuple[str, bytes]]:
    """Every too-large value: nestings past the limit, to the parsers' own depth and beyond."""
    out = [(f"{shape} {depth} deep", deep(shape, depth, binary))
           for shape in ("list", "map", "mixed") for depth in (codec.MAX_DEPTH, 1_000, 3_000)]
    return out + [("5,000 values", wide(binary)), ("a 20,000-character string", long_text(binary))]


@pytest.mark.parametrize("wire", [JSON, MSGPACK])
async def test_arguments_nested_1000_deep_are_bad_args(limits_server, wire):
    """The defect itself: a 2 KB frame was answered `internal`, with a traceback logged."""
    binary = wire == MSGPACK
    created = limits_server.create(ruleset="hourglass", seed=4)  # its first option takes a `tile`
    alice = await Raw.open(limits_server.url, created["match"], wire)
    welcome = await alice.hello(created["tokens"]["alice"])
    prompt = welcome["prompts"][0]
    act = {"t": "act", "id": 1, "prompt": prompt["id"], "option": prompt["options"][0]["id"]}
    assert list(prompt["options"][0]["args"]) == ["tile"]
    for shape in ("list", "map", "mixed"):
        await alice.ws.send(frame(act, ("args", "tile"), deep(shape, 1_000, binary), binary))
        error = await answer(alice)
        assert (error["t"], error["code"], error["id"]) == ("error", "bad_args", 1), (shape, error)
        assert len(error["message"]) <= LONGEST_ERROR, error
    await alice.close()
    assert "Traceback" not in server_log(limits_server)


@pytest.mark.parametrize("wire", [JSON, MSGPACK])
async def test_too_large_values_in_an_act_are_refused_and_change_nothing(limits_server, wire):
    binary = wire == MSGPACK
    created = limits_server.create(ruleset="hourglass", seed=5)
    alice = await Raw.open(limits_server.url, created["match"], wire)
    welcome = await alice.hello(created["tokens"]["alice"])
    prompt, option = welcome["prompts"][0], welcome["prompts"][0]["options"][0]
    before = httpx.get(f"{limits_server.url}/matches/{created['match']}").json()["seq"]
    legal = {name: values[0] for name, values in option["args"].items()}
    act = {"t": "act", "id": "a1", "prompt": prompt["id"], "option": option["id"], "args": legal}
    # Where the value goes, and what the answer is: (code, whether the act's id is echoed).
    places = {("args",): ("bad_args", True), ("args", "tile"): ("bad_args", True),
              ("prompt",): ("bad_message", True), ("option",): ("bad_message", True),
              ("extra",): ("bad_message", True), ("id",): ("bad_message", False)}
    count = 0
    for name, value in values(binary):
        past_parser = "3000 deep" in name.replace(",", "")
        for where, (code, with_id) in places.items():
            await alice.ws.send(frame(act, where, value, binary))
            error = await answer(alice)
            count += 1
            context = (name, where, error)
            assert error["t"] == "error", context
            assert len(error["message"]) <= LONGEST_ERROR, context
            if past_parser:  # not decoded at all: nothing says it was an act
                assert (error["code"], error.get("id")) == ("bad_message", None), context
            else:
                assert error["code"] == code, context
                assert error.get("id") == ("a1" if with_id else None), context
    # A long prompt, option or id, alone: refused, and never echoed.
    for field in ("prompt", "option", "id", "t"):
        await alice.send({**act, field: "p" * 1_000})
        error = await answer(alice)
        assert error["t"] == "error" and error["code"] == "bad_message", (field, error)
        assert len(error["message"]) <= LONGEST_ERROR and "p" * 100 not in error["message"], (field, error)
    assert httpx.get(f"{limits_server.url}/matches/{created['match']}").json()["seq"] == before
    await alice.send(act)
    ack = await answer(alice)
    assert ack["t"] == "ack" and ack["id"] == "a1", ack
    await alice.close()
    assert count == len(values(binary)) * len(places)
    assert "Traceback" not in server_log(limits_server)


@pytest.mark.parametrize("wire", [JSON, MSGPACK])
async def test_too_large_values_in_ping_and_view_are_bad_messages(limits_server, wire):
    binary = wire == MSGPACK
    created = limits_server.create(ruleset="duel", seed=6)
    alice = await Raw.open(limits_server.url, created["match"], wire)
    await alice.hello(created["tokens"]["alice"])
    for name, value in values(binary):
        for message in ({"t": "ping"}, {"t": "view"}):
            await alice.ws.send(frame(message, ("extra",), value, binary))
            error = await answer(alice)
            assert (error["t"], error["code"]) == ("error", "bad_message"), (name, message, error)
            assert "id" not in error and len(error["message"]) <= LONGEST_ERROR, (name, error)
    await alice.send({"t": "ping"})
    assert (await answer(alice))["t"] == "pong"
    await alice.close()
    assert "Traceback" not in server_log(limits_server)


@pytest.mark.parametrize("wire", [JSON, MSGPACK])
@pytest.mark.parametrize("field", ["token", "resume", "batch", "extra"])
async def test_too_large_values_in_hello_are_refused_and_close(limits_server, wire, field):
    binary = wire == MSGPACK
    created = limits_server.create(ruleset="duel", seed=7)
    for name, value in values(binary):
        conn = await Raw.open(limits_server.url, created["match"], wire)
        hello = {"t": "hello", "token": created["tokens"]["alice"]}
        await conn.ws.send(frame(hello, (field,), value, binary))
        error = await conn.recv(10)
        assert (error["t"], error["code"]) == ("error", "bad_message"), (name, error)
        assert len(error["message"]) <= LONGEST_ERROR, (name, error)
        await asyncio.wait_for(conn.ws.wait_closed(), 10)
        assert conn.ws.close_code == 1008, name
    welcome = await (await Raw.open(limits_server.url, created["match"], wire)).hello(created["tokens"]["alice"])
    assert welcome["t"] == "welcome", welcome
    assert "Traceback" not in server_log(limits_server)


@pytest.mark.parametrize("wire", [JSON, MSGPACK])
async def test_values_within_the_limits_are_read(limits_server, wire):
    """Up to the limits, nothing is refused for its size: a deep, long but legal-sized
    extra field is ignored and the act is applied."""
    binary = wire == MSGPACK
    created = limits_server.create(ruleset="duel", seed=8)
    alice = await Raw.open(limits_server.url, created["match"], wire)
    welcome = await alice.hello(created["tokens"]["alice"])
    act = {"t": "act", "id": "x" * codec.MAX_ACT_ID, "prompt": welcome["prompts"][0]["id"], "option": "guard",
           "args": {}}
    extra = deep("list", codec.MAX_DEPTH - 1, binary)  # the message map is the first level
    await alice.ws.send(frame(act, ("extra",), extra, binary))
    ack = await answer(alice)
    assert ack["t"] == "ack" and ack["id"] == act["id"], ack
    await alice.send({"t": "ping", "extra": ["y" * codec.MAX_STRING] * 10})
    assert (await answer(alice))["t"] == "pong"
    await alice.close()
