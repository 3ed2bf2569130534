"""deadlines.py: many deadlines on one loop timer, superseded ones skipped."""

from __future__ import annotations

import asyncio

from battlehall.server.clock import now_ms
from battlehall.server.match import deadlines as deadlines_module
from battlehall.server.match.deadlines import Deadlines


class Owner:
    """A deadline owner that wants what `wanted(key, due)` says, and logs what fires."""

    def __init__(self, wanted=lambda key, due: True, fire=None):
        self.wanted = wanted
        self.fire = fire
        self.fired: list = []

    def deadline_wanted(self, key, due):
        return self.wanted(key, due)

    def deadline_due(self, key):
        if self.fire is not None:
            self.fire(key)
        self.fired.append(key)


async def test_deadlines_fire_in_due_order_and_skip_the_unwanted():
    d = Deadlines()
    start = now_ms()
    owner = Owner(wanted=lambda name, due: name in {"a", "b", "d"})
    for name, after in (("b", 60), ("a", 30), ("c", 45), ("d", 60)):
        d.at(start + after, owner, name)
    await asyncio.sleep(0.15)
    assert owner.fired == ["a", "b", "d"]  # c was no longer wanted; b and d share a due time: set order
    assert len(d) == 0 and d.timer is None
    d.close()


async def test_an_earlier_deadline_rearms_the_timer():
    d = Deadlines()
    owner = Owner()
    d.at(now_ms() + 10_000, owner, "late")
    d.at(now_ms() + 20, owner, "soon")
    await asyncio.sleep(0.1)
    assert owner.fired == ["soon"] and len(d) == 1
    d.close()
    assert len(d) == 0


async def test_a_failing_callback_does_not_stop_the_others():
    d = Deadlines()
    failing, owner = Owner(fire=lambda key: 1 / 0), Owner()
    d.at(now_ms() + 10, failing, "boom")
    d.at(now_ms() + 10, owner, "ok")
    await asyncio.sleep(0.08)
    assert owner.fired == ["ok"]
    d.close()


async def test_superseded_deadlines_are_dropped_when_the_heap_grows(monkeypatch):
    monkeypatch.setattr(deadlines_module, "MIN_COMPACT", 10)
    d = Deadlines()
    d.compact_at = 10
    current = {}
    owner = Owner(wanted=lambda key, due: current[key] == due)
    far = now_ms() + 60_000
    for i in range(200):  # one prompt per "match", each re-armed 10 times: 9 of 10 superseded
        key = i % 20
        current[key] = far + i
        d.at(far + i, owner, key)
    assert len(d) <= 2 * 20 + 10  # rebuilt along the way, not 200
    still_wanted = sorted(entry[0] for entry in d.heap if owner.deadline_wanted(entry[3], entry[0]))
    assert still_wanted == sorted(current.values())  # every deadline still wanted is kept
    d.close()


async def test_entries_said_forgotten_are_dropped_once_they_are_half_the_heap():
    # 2,000 seats' away graces, due in a minute; the players of 1,500 of them come back.
    d = Deadlines()
    back: set = set()
    owner = Owner(wanted=lambda seat, due: seat not in back)
    due = now_ms() + 60_000
    for seat in range(2_000):
        d.at(due, owner, seat)
    for seat in range(999):  # not yet half of the heap: nothing rebuilt
        back.add(seat)
        d.forgotten()
    assert len(d) == 2_000
    back.add(999)
    d.forgotten()  # the 1,000th of 2,000: rebuilt from what is still wanted
    assert len(d) == 1_000 and d.forgot == 0
    for seat in range(1_000, 1_500):  # under MIN_COMPACT (1,024) entries' worth: kept as they are
        back.add(seat)
        d.forgotten()
    assert len(d) == 1_000
    assert sorted(entry[3] for entry in d.heap if entry[3] not in back) == list(range(1_500, 2_000))
    d.close()
