"""The wire encodings and the prompt clock, without sockets."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from battlehall.server import codec
from battlehall.server.clock import Clock

plain = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**63 - 1) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=30)


@settings(deadline=None)  # CI machines are noisy; time is not what this test checks
@given(st.dictionaries(st.text(max_size=10), plain, max_size=6))
def test_both_encodings_carry_the_same_maps(body):
    message = {**body, "t": "event"}
    assert codec.decode(codec.JSON, codec.encode(codec.JSON, message)) == message
    assert codec.decode(codec.MSGPACK, codec.encode(codec.MSGPACK, message)) == message


@pytest.mark.parametrize("wire, frame", [
    (codec.JSON, b"[1, 2]"), (codec.JSON, b'{"t": 5}'), (codec.JSON, b"\xff"),
    (codec.MSGPACK, b"\x93\x01\x02\x03"), (codec.MSGPACK, b"\x81\x01\x02"), (codec.MSGPACK, "text"),
])
def test_undecodable_frames_are_decode_errors(wire, frame):
    with pytest.raises(codec.DecodeError):
        codec.decode(wire, frame)


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
