"""Pausing and resuming a match's clocks, and time added to a seat, in the match's core
with a controlled clock: each a log entry, replayed exactly."""

from __future__ import annotations

import pytest

from battlehall.engine import get_ruleset
from battlehall.engine.errors import BadSeat, MatchOver
from battlehall.server.clock import Clock
from battlehall.server.errors import MatchPaused, NotPaused
from battlehall.server.match.effects import Arm, Reject, Resolve, Send, Write
from battlehall.server.match.inputs import Abort, Act, Expire, Judge, WriteDone
from battlehall.server.match.match_core import MatchCore
from battlehall.server.match.match_state import MatchState
from battlehall.server.storage.store import LoadedMatch, pack, unpack
from core_peers import Peer, Reply

NOW = 1_000_000
SEATS = ["alice", "bob"]
CLOCK = {"prompt_ms": 1000, "bank_ms": 2000, "window_min_ms": 0}
PAUSE = {"action": "pause", "by": "operator"}
RESUME = {"action": "resume", "by": "operator"}


def of(effects: list, kind) -> list:
    return [e for e in effects if isinstance(e, kind)]


def started() -> tuple[MatchCore, dict, list]:
    """A duel with 1 s prompts and a 2 s bank, its start snapshot, and a list for its log."""
    options = {"simultaneous": False}
    state, events = get_ruleset("duel").start(SEATS, 3, options)
    meta = {"ruleset": "duel", "seats": SEATS, "options": options, "clock": CLOCK,
            "spectators": {"delay_ms": 0, "allowed": True}}
    match = MatchState(meta, state, Clock.new(CLOCK, SEATS), 0)
    match.stamp(events, NOW)
    start = unpack(pack(match.snapshot()))
    core = MatchCore("m1", match, snapshot_every=1000)
    core.start(NOW)
    return core, start, []


def judged(core: MatchCore, log: list, action: dict, at: int) -> list:
    """Submit a judge's action at `at` and land its write; the effects after the write."""
    reply = Reply()
    effects = core.receive(Judge(reply, action), at)
    for write in of(effects, Write):
        log += [unpack(pack(entry)) for entry, _ in write.entries]
    done = core.receive(WriteDone(), at)
    return effects + done


def open_prompt(core: MatchCore) -> dict:
    return core.ruleset.prompts(core.state)[0]


def test_a_pause_stops_every_deadline_and_refuses_answers_and_a_resume_gives_the_time_back():
    core, start, log = started()
    prompt = open_prompt(core)
    assert core.timers[prompt["id"]] == NOW + 3000  # its second, then the bank's two
    effects = judged(core, log, PAUSE, NOW + 400)
    assert [e.value for e in of(effects, Resolve)] == [True]
    assert log[-1]["judge"] == PAUSE and core.clock.paused == NOW + 400
    assert of(effects, Arm) == []  # nothing runs
    assert core.receive(Expire(prompt["id"]), NOW + 3000) == []  # the timer armed before: nothing is due
    refused = core.receive(Act(Peer(prompt["seat"]), prompt["seat"], "a1", prompt["id"], "guard", {}), NOW + 5000)
    assert [e.message["code"] for e in of(refused, Send)] == ["match_paused"]
    effects = judged(core, log, RESUME, NOW + 60_400)  # a minute paused
    assert Arm(prompt["id"], NOW + 63_000) in effects  # the deadline and bank, a minute later
    assert core.clock.info(prompt["id"])["deadline"] == NOW + 61_000


def test_a_pause_is_refused_twice_a_resume_when_running_and_both_after_the_end():
    core, start, log = started()
    refused = core.receive(Judge(Reply(), RESUME), NOW)
    assert [type(e.error) for e in of(refused, Reject)] == [NotPaused]
    judged(core, log, PAUSE, NOW + 1)
    refused = core.receive(Judge(Reply(), PAUSE), NOW + 2)
    assert [type(e.error) for e in of(refused, Reject)] == [MatchPaused]
    core.receive(Abort(Reply()), NOW + 3)
    core.receive(WriteDone(), NOW + 3)
    refused = core.receive(Judge(Reply(), RESUME), NOW + 4)
    assert [type(e.error) for e in of(refused, Reject)] == [MatchOver]


def test_time_added_goes_to_the_seat_s_bank_and_moves_its_expiry():
    core, start, log = started()
    prompt = open_prompt(core)
    effects = judged(core, log, {"action": "add_time", "by": "operator", "seat": prompt["seat"], "ms": 5000}, NOW + 10)
    assert core.clock.data["banks"][prompt["seat"]] == 7000
    assert Arm(prompt["id"], NOW + 8000) in effects
    refused = core.receive(Judge(Reply(), {"action": "add_time", "by": "operator", "seat": "carol", "ms": 1}), NOW)
    assert [type(e.error) for e in of(refused, Reject)] == [BadSeat]


def test_the_log_replays_a_pause_a_resume_and_time_added_exactly():
    core, start, log = started()
    judged(core, log, PAUSE, NOW + 100)
    judged(core, log, RESUME, NOW + 5100)
    judged(core, log, {"action": "add_time", "by": "operator", "seat": "bob", "ms": 1500}, NOW + 5200)
    judged(core, log, PAUSE, NOW + 5300)
    again = MatchState.from_loaded(LoadedMatch(core.meta, unpack(pack(start)), unpack(pack(log))))
    assert again.clock.data == core.clock.data and again.clock.paused == NOW + 5300
    assert again.state == core.state and again.seq == core.seq


@pytest.mark.parametrize("downtime", [0, 30_000])
def test_a_match_paused_when_its_node_died_stays_paused_and_the_downtime_is_not_given_twice(downtime):
    core, start, log = started()
    prompt = open_prompt(core)
    judged(core, log, PAUSE, NOW + 500)
    again = MatchState.from_loaded(LoadedMatch(core.meta, unpack(pack(start)), unpack(pack(log))))
    again.clock.shift(downtime)  # what the loading does for the time no server ran
    assert again.clock.expires_at(prompt["id"]) is None
    back = MatchCore("m1", again, snapshot_every=1000)
    back.start(NOW + 500 + downtime)
    judged(back, log, RESUME, NOW + 500 + downtime + 10_000)  # paused 10 s, as seen from the match
    assert back.clock.info(prompt["id"])["deadline"] == NOW + 1000 + downtime + 10_000
