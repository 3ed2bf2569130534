"""deadlines.py: many deadlines on one loop timer, superseded ones skipped."""

from __future__ import annotations

import asyncio

from battlehall.server import deadlines as deadlines_module
from battlehall.server.clock import now_ms
from battlehall.server.deadlines import Deadlines


async def test_deadlines_fire_in_due_order_and_skip_the_unwanted():
    d = Deadlines()
    fired: list[str] = []
    start = now_ms()
    wanted = {"a", "b", "d"}
    for name, after in (("b", 60), ("a", 30), ("c", 45), ("d", 60)):
        d.at(start + after, lambda due, name=name: name in wanted, lambda name=name: fired.append(name))
    await asyncio.sleep(0.15)
    assert fired == ["a", "b", "d"]  # c was no longer wanted; b and d share a due time: set order
    assert len(d) == 0 and d.timer is None
    d.close()


async def test_an_earlier_deadline_rearms_the_timer():
    d = Deadlines()
    fired = []
    d.at(now_ms() + 10_000, lambda due: True, lambda: fired.append("late"))
    d.at(now_ms() + 20, lambda due: True, lambda: fired.append("soon"))
    await asyncio.sleep(0.1)
    assert fired == ["soon"] and len(d) == 1
    d.close()
    assert len(d) == 0


async def test_a_failing_callback_does_not_stop_the_others():
    d = Deadlines()
    fired = []
    d.at(now_ms() + 10, lambda due: True, lambda: 1 / 0)
    d.at(now_ms() + 10, lambda due: True, lambda: fired.append("ok"))
    await asyncio.sleep(0.08)
    assert fired == ["ok"]
    d.close()


async def test_superseded_deadlines_are_dropped_when_the_heap_grows(monkeypatch):
    monkeypatch.setattr(deadlines_module, "MIN_COMPACT", 10)
    d = Deadlines()
    d.compact_at = 10
    current = {}
    far = now_ms() + 60_000
    for i in range(200):  # one prompt per "match", each re-armed 10 times: 9 of 10 superseded
        key = i % 20
        current[key] = far + i
        d.at(far + i, lambda due, key=key: current[key] == due, lambda: None)
    assert len(d) <= 2 * 20 + 10  # rebuilt along the way, not 200
    still_wanted = sorted(entry[0] for entry in d.heap if entry[2](entry[0]))
    assert still_wanted == sorted(current.values())  # every deadline still wanted is kept
    d.close()
