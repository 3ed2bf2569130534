"""Lag credited to late answers, in the match's core with a controlled clock: the grace a
measured seat gets, its bounds, the rule that ends it, and the clock record replay keeps."""

from __future__ import annotations

from battlehall.engine import get_ruleset
from battlehall.server.clock import LAG_CAP_MS, LAG_QUOTA_MS, Clock
from battlehall.server.match.effects import Arm, Send, Write
from battlehall.server.match.inputs import Act, Expire, Join, Lag, Leave, WriteDone
from battlehall.server.match.match_core import MatchCore
from battlehall.server.match.match_state import MatchState
from battlehall.server.storage.store import LoadedMatch, pack, unpack
from core_peers import Peer, Reply

NOW = 1_000_000
SEATS = ["alice", "bob"]
WINDOW = {"prompt_ms": 1000, "bank_ms": 0, "window_min_ms": 0}


def of(effects: list, kind) -> list:
    return [e for e in effects if isinstance(e, kind)]


def new_match(clock: dict) -> tuple[MatchState, dict]:
    """A started simultaneous duel, and its starting snapshot as Redis would hold it."""
    options = {"simultaneous": True}
    state, events = get_ruleset("duel").start(SEATS, 3, options)
    meta = {"ruleset": "duel", "seats": SEATS, "options": options, "clock": clock,
            "spectators": {"delay_ms": 0, "allowed": True}}
    match = MatchState(meta, state, Clock.new(clock, SEATS), 0)
    match.stamp(events, NOW)
    return match, unpack(pack(match.snapshot()))


def simultaneous(clock: dict | None = None) -> tuple[MatchCore, dict]:
    """A simultaneous duel (both seats prompted at once), both players on; its start snapshot."""
    match, start = new_match(clock or WINDOW)
    core = MatchCore("m1", match, snapshot_every=1000)
    core.start(NOW)
    peers = {seat: Peer(seat) for seat in SEATS}
    for peer in peers.values():
        core.receive(Join(peer, None, Reply()), NOW)
    return core, {"peers": peers, "start": start}


def prompt_id(core: MatchCore, seat: str) -> str:
    return next(p["id"] for p in core.ruleset.prompts(core.state) if p["seat"] == seat)


def answer(core: MatchCore, peer: Peer, at: int, act_id: str = "a1") -> list:
    return core.receive(Act(peer, peer.seat, act_id, prompt_id(core, peer.seat), "guard", {}), at)


def entries(effects: list) -> list[dict]:
    return [entry for write in of(effects, Write) for entry, _ in write.entries]


def refused(effects: list) -> list[str]:
    return [e.message["code"] for e in of(effects, Send) if e.message["t"] == "error"]


def test_a_measured_seat_s_prompt_expires_its_lag_later_and_an_unmeasured_one_s_at_its_deadline():
    core, kit = simultaneous()
    bob = prompt_id(core, "bob")
    alice = prompt_id(core, "alice")
    (arm,) = core.receive(Lag(kit["peers"]["bob"], 400), NOW + 10)
    assert arm == Arm(bob, NOW + 1000 + 400)
    assert core.timers[alice] == NOW + 1000  # alice's socket has no measure: no grace
    # At bob's deadline his default waits; alice's is applied.
    assert core.receive(Expire(bob), NOW + 1000) == [Arm(bob, NOW + 1400)]
    (entry,) = entries(core.receive(Expire(alice), NOW + 1000))
    assert entry["timeout"] and entry["prompt"] == alice


def test_an_answer_in_the_grace_is_taken_and_credited_only_its_lateness():
    core, kit = simultaneous()
    peers = kit["peers"]
    core.receive(Lag(peers["bob"], 400), NOW)
    core.receive(WriteDone(), NOW)
    answer(core, peers["alice"], NOW + 300)
    core.receive(WriteDone(), NOW + 300)
    effects = answer(core, peers["bob"], NOW + 1250, "b1")
    (entry,) = entries(effects)
    assert entry["seat"] == "bob" and entry["clock"] == {"used_ms": 1250, "lag_ms": 250, "bank_ms": 0}
    assert core.clock.data["lag"] == {"bob": 250}  # its quota spent


def test_an_answer_in_time_is_credited_nothing():
    core, kit = simultaneous()
    core.receive(Lag(kit["peers"]["bob"], 400), NOW)
    (entry,) = entries(answer(core, kit["peers"]["bob"], NOW + 900))
    assert entry["clock"] == {"used_ms": 900, "lag_ms": 0, "bank_ms": 0}
    assert core.clock.data["lag"] == {}


def test_an_answer_after_the_grace_is_refused_and_the_timeout_comes_first():
    core, kit = simultaneous()
    core.receive(Lag(kit["peers"]["bob"], 400), NOW)
    bob = prompt_id(core, "bob")
    effects = core.receive(Act(kit["peers"]["bob"], "bob", "b1", bob, "guard", {}), NOW + 1401)
    (timeout,) = entries(effects)
    assert timeout["timeout"] and timeout["prompt"] == bob and timeout["clock"]["lag_ms"] == 0
    done = core.receive(WriteDone(), NOW + 1401)
    assert refused(done) == ["unknown_prompt"]


def test_the_credit_is_capped_per_answer():
    core, kit = simultaneous()
    (arm,) = core.receive(Lag(kit["peers"]["bob"], 3000), NOW)
    assert arm.due == NOW + 1000 + LAG_CAP_MS


def test_a_seat_s_quota_bounds_its_grace_and_then_its_answers_count_as_they_come():
    core, kit = simultaneous()
    core.clock.data["lag"] = {"bob": LAG_QUOTA_MS - 100}  # as if the match had credited it all but 100 ms
    (arm,) = core.receive(Lag(kit["peers"]["bob"], 400), NOW)
    assert arm.due == NOW + 1100
    core.clock.data["lag"] = {"bob": LAG_QUOTA_MS}
    assert core.clock.grace(prompt_id(core, "bob"), 400) == 0


def test_a_seat_whose_sockets_left_loses_its_grace():
    core, kit = simultaneous()
    bob = prompt_id(core, "bob")
    core.receive(Lag(kit["peers"]["bob"], 400), NOW)
    effects = core.receive(Leave(kit["peers"]["bob"]), NOW + 100)
    assert Arm(bob, NOW + 1000) in effects


def test_another_seat_s_decision_after_the_expiry_ends_the_grace():
    # Both late, both in their grace: alice's answer, 100 ms past bob's expiry, is one bob
    # could see before answering; from then on his answer is too late.
    core, kit = simultaneous()
    peers = kit["peers"]
    bob = prompt_id(core, "bob")
    core.receive(Lag(peers["bob"], 400), NOW)
    core.receive(Lag(peers["alice"], 200), NOW)
    (entry,) = entries(answer(core, peers["alice"], NOW + 1100))
    assert entry["clock"]["lag_ms"] == 100 and bob in core.cut
    done = core.receive(WriteDone(), NOW + 1100)
    assert Arm(bob, NOW + 1000) in done  # due at once now
    effects = answer(core, peers["bob"], NOW + 1200, "b1")
    (timeout,) = entries(effects)
    assert timeout["timeout"] and timeout["prompt"] == bob
    assert refused(core.receive(WriteDone(), NOW + 1200)) == ["unknown_prompt"]


def test_a_refused_answer_decides_nothing():
    core, kit = simultaneous()
    bob = prompt_id(core, "bob")
    core.receive(Lag(kit["peers"]["bob"], 400), NOW)
    # alice, unmeasured, answers 100 ms late: her timeout comes first, her answer is refused.
    answer(core, kit["peers"]["alice"], NOW + 1100)
    assert bob not in core.cut


def test_a_timeout_at_the_same_moment_leaves_the_other_seat_its_grace():
    core, kit = simultaneous()
    bob = prompt_id(core, "bob")
    core.receive(Lag(kit["peers"]["bob"], 400), NOW)
    core.receive(Expire(prompt_id(core, "alice")), NOW + 1003)  # her timer ran 3 ms late
    assert bob not in core.cut
    done = core.receive(WriteDone(), NOW + 1003)
    assert Arm(bob, NOW + 1000) not in done and core.timers[bob] == NOW + 1400


def test_a_record_is_kept_for_a_timeout_and_the_time_without_a_socket():
    core, kit = simultaneous()
    alice = prompt_id(core, "alice")
    core.receive(Leave(kit["peers"]["alice"]), NOW + 200)
    (entry,) = entries(core.receive(Expire(alice), NOW + 1000))
    assert entry["clock"] == {"used_ms": 1000, "lag_ms": 0, "bank_ms": 0, "away_ms": 800}


def test_the_bank_pays_only_what_the_credit_leaves():
    core, kit = simultaneous({"prompt_ms": 1000, "bank_ms": 5000, "window_min_ms": 0})
    core.receive(Lag(kit["peers"]["bob"], 300), NOW)
    (entry,) = entries(answer(core, kit["peers"]["bob"], NOW + 1500))
    assert entry["clock"] == {"used_ms": 1500, "lag_ms": 300, "bank_ms": 200}
    assert core.clock.data["banks"]["bob"] == 4800


def test_replaying_the_log_spends_the_same_quota_and_bank():
    clock = {"prompt_ms": 1000, "bank_ms": 5000, "window_min_ms": 0}
    core, kit = simultaneous(clock)
    peers = kit["peers"]
    core.receive(Lag(peers["bob"], 300), NOW)
    log = []
    for round_, late in enumerate((1200, 1500, 900)):
        t = NOW + round_ * 2000
        log += entries(answer(core, peers["alice"], t + 100, f"a{round_}"))
        core.receive(WriteDone(), t + 100)
        log += entries(answer(core, peers["bob"], t + late, f"b{round_}"))
        core.receive(WriteDone(), t + late)
    again = MatchState.from_loaded(LoadedMatch(core.meta, unpack(pack(kit["start"])), unpack(pack(log))))
    assert again.clock.data == core.clock.data
    assert core.clock.data["lag"]["bob"] > 0


def test_a_clock_snapshot_from_before_lag_credit_reads_as_nothing_credited():
    clock = Clock({"prompt_ms": 1000, "bank_ms": 0, "banks": {"a": 0}, "open": {}})
    assert clock.data["lag"] == {} and clock.lag_left("a") == LAG_QUOTA_MS
