"""The wire encodings and the prompt clock, without sockets."""

from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from battlehall.server import codec, errors
from battlehall.server.clock import Clock

plain = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=30)


def depth(value) -> int:
    """Levels of maps and lists, the value itself the first."""
    if isinstance(value, dict):
        return 1 + max(map(depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(depth, value), default=0)
    return 0


@settings(deadline=None)  # CI machines are noisy; time is not what this test checks
@given(st.dictionaries(st.text(max_size=10), plain, max_size=6))
def test_both_encodings_carry_the_same_maps(body):
    message = {**body, "t": "event"}
    assume(depth(message) <= codec.MAX_DEPTH)  # deeper is refused: the next test
    assert codec.decode(codec.JSON, codec.encode(codec.JSON, message)) == message
    assert codec.decode(codec.MSGPACK, codec.encode(codec.MSGPACK, message)) == message


@pytest.mark.parametrize("wire, frame", [
    (codec.JSON, b"[1, 2]"), (codec.JSON, b'{"t": 5}'), (codec.JSON, b"\xff"),
    (codec.MSGPACK, b"\x93\x01\x02\x03"), (codec.MSGPACK, b"\x81\x01\x02"), (codec.MSGPACK, "text"),
])
def test_undecodable_frames_are_decode_errors(wire, frame):
    with pytest.raises(errors.WireError):
        codec.decode(wire, frame)


@pytest.mark.parametrize("wire", [codec.JSON, codec.MSGPACK])
@pytest.mark.parametrize("message, code, act_id", [
    ({"t": "act", "id": 1, "args": {"a": [[[[[[[1]]]]]]]}}, "bad_args", 1),  # 9 levels
    ({"t": "act", "id": 2, "args": {"a": [0] * 1_000}}, "bad_args", 2),
    ({"t": "act", "id": 3, "args": {"a": "x" * 1_025}}, "bad_args", 3),
    ({"t": "act", "id": 4, "args": {"x" * 1_025: 1}}, "bad_args", 4),
    ({"t": "act", "id": 5, "prompt": [[[[[[[[1]]]]]]]]}, "bad_message", 5),
    ({"t": "act", "id": "i" * 65, "args": [[[[[[[[1]]]]]]]]}, "bad_args", None),  # an id too long is not echoed
    ({"t": "ping", "args": [[[[[[[[1]]]]]]]]}, "bad_message", None),  # `args` of no act
    ({"t": "hello", "token": "x" * 1_025}, "bad_message", None),
])
def test_messages_past_the_limits_are_refused(wire, message, code, act_id):
    with pytest.raises(errors.WireError) as refused:
        codec.decode(wire, codec.encode(wire, message))
    assert (refused.value.code, refused.value.id) == (code, act_id)
    assert len(str(refused.value)) < 200


@pytest.mark.parametrize("wire", [codec.JSON, codec.MSGPACK])
def test_messages_at_the_limits_are_read(wire):
    # 8 levels; 18 values besides `extra`'s (4 field names, 2 argument names, 12 others)
    message = {"t": "act", "id": "i" * 64, "args": {"a": [[[[[[1]]]]]], "b": "x" * 1_024},
               "extra": [0] * (codec.MAX_VALUES - 18)}
    assert codec.decode(wire, codec.encode(wire, message)) == message
    message["extra"].append(0)
    with pytest.raises(errors.WireError):
        codec.decode(wire, codec.encode(wire, message))


def test_subprotocol_choice():
    assert codec.choose_subprotocol(["x", codec.MSGPACK, codec.JSON]) == codec.MSGPACK
    assert codec.choose_subprotocol(["x"]) is None


def test_clock_spends_the_bank_after_the_deadline_then_expires():
    clock = Clock.new({"prompt_ms": 1000, "bank_ms": 500}, ["a", "b"])
    assert clock.open("p1", "a", 10_000) == {"deadline": 11_000, "bank_ms": 500}
    assert clock.expires_at("p1") == 11_500
    clock.close("p1", 11_200)  # answered 200 ms into the bank
    assert clock.data["banks"] == {"a": 300, "b": 500}
    clock.open("p2", "a", 20_000)
    clock.close("p2", 20_999)  # in time: the bank is untouched
    assert clock.data["banks"]["a"] == 300
    clock.open("p3", "a", 30_000)
    clock.close("p3", 32_000)  # far over: the bank is empty, never negative
    assert clock.data["banks"]["a"] == 0


def test_clock_shift_pauses_open_prompts():
    clock = Clock.new({"prompt_ms": 1000, "bank_ms": 0}, ["a"])
    clock.open("p1", "a", 0)
    clock.shift(5000)
    assert clock.expires_at("p1") == 6000 and clock.info("p1")["deadline"] == 6000


def test_untimed_clock_never_expires():
    clock = Clock.new({"prompt_ms": None, "bank_ms": 0}, ["a"])
    assert clock.open("p1", "a", 0) == {}
    assert clock.expires_at("p1") is None
