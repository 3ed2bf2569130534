"""What idle matches share: the empty tables (empty.py) and settings alike (alike.py)."""

import copy

import msgpack
import pytest

from battlehall.server.clock import Clock
from battlehall.server.empty import EMPTY
from battlehall.server.match.alike import share_settings
from battlehall.server.match.stops import PASS_UNTIL_MY_TURN, Stops


def test_the_shared_empty_table_reads_as_empty_and_refuses_every_write():
    assert EMPTY == {} and EMPTY.get("a") is None and EMPTY.pop("a", 7) == 7 and "a" not in EMPTY
    for write in (lambda: EMPTY.__setitem__("a", 1), lambda: EMPTY.setdefault("a", 1), lambda: EMPTY.update(a=1)):
        with pytest.raises(TypeError):
            write()
    assert EMPTY == {}
    mine = copy.deepcopy(EMPTY)
    mine["a"] = 1  # a copy is a plain dict of its own
    assert type(mine) is dict and EMPTY == {} and msgpack.unpackb(msgpack.packb(EMPTY)) == {}


def test_a_clock_and_stops_get_tables_of_their_own_when_first_written():
    clocks = [Clock.new({"prompt_ms": 1_000, "bank_ms": 500}, ["a", "b"]) for _ in range(2)]
    assert clocks[0].data["charged"] is EMPTY and clocks[0].data["lag"] is EMPTY
    clocks[0].open("p1", "a", 0)
    clocks[0].close("p1", 1_200, lag_ms=100)
    assert clocks[0].data["charged"] == {"a": 1_100} and clocks[0].data["lag"] == {"a": 100}
    assert clocks[1].data["charged"] == {} and clocks[1].data["lag"] == {} and EMPTY == {}
    stops = [Stops(), Stops()]
    stops[0].set("a", PASS_UNTIL_MY_TURN)
    assert stops[0].mode("a") == PASS_UNTIL_MY_TURN and stops[1].mode("a") == "ask" and EMPTY == {}


def test_settings_alike_are_one_object_and_settings_that_differ_are_not():
    def meta(clock, made_from="10.0.0.7"):
        return share_settings({"seats": ["a", "b"], "clock": clock, "tokens": {"a": "x"}, "when_away": "nothing",
                               "made_from": "".join(made_from)})  # a string of its own, as parsed

    one, two = meta({"prompt_ms": 1_000, "bank_ms": 5}), meta({"prompt_ms": 1_000, "bank_ms": 5})
    assert one["clock"] is two["clock"] and one["seats"] is two["seats"] and one["tokens"] is not two["tokens"]
    assert one["made_from"] is two["made_from"]  # the address that made both (a lobby's)
    assert meta({"prompt_ms": 1_000, "bank_ms": 5}, "10.0.0.8")["made_from"] == "10.0.0.8"
    assert one == two
    # 1.0 is not 1, and a key order a client sees is kept.
    assert meta({"prompt_ms": 1_000.0, "bank_ms": 5})["clock"] is not one["clock"]
    reordered = meta({"bank_ms": 5, "prompt_ms": 1_000})["clock"]
    assert reordered is not one["clock"] and list(reordered) == ["bank_ms", "prompt_ms"]
