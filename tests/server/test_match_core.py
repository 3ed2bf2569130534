"""The match's sans-I/O core: inputs in, effects out, no Redis, no sockets, no clock.

What the asyncio driver would do is played here by hand: a `Write` is "durable" when the
test feeds `WriteDone`, and "Redis" is the list of entries and snapshots the core asked
to write. The real-server tests (test_play.py, test_resume.py, tests/faults, ...) check
the same guarantees through real Redis and sockets.
"""

from __future__ import annotations

import random

import pytest

from battlehall.engine import get_ruleset
from battlehall.engine.errors import MatchOver
from battlehall.engine.ruleset import random_answer
from battlehall.server.clock import Clock
from battlehall.server.errors import MatchLive
from battlehall.server.match.effects import (
    Ack,
    Arm,
    Attach,
    DeleteKeys,
    Ended,
    Later,
    Lost,
    Publish,
    Rebuild,
    Reject,
    Resolve,
    Send,
    Write,
)
from battlehall.server.match.inputs import (
    Abandon,
    Abort,
    Act,
    AwayDue,
    Claim,
    Delete,
    Expire,
    Join,
    Leave,
    RebuildFailed,
    Rebuilt,
    Release,
    Resign,
    WriteDone,
    WriteFailed,
)
from battlehall.server.match.match_core import MatchCore
from battlehall.server.match.match_state import MatchState
from battlehall.server.match.writes import IN_FLIGHT, Status
from battlehall.server.storage.lease import NotHere
from battlehall.server.storage.store import LoadedMatch, pack, unpack
from battlehall.server.storage.writer import Fenced, StoreUnavailable
from core_peers import Peer, Reply

NOW = 1_000_000
SEATS = ["alice", "bob"]


def new_match(simultaneous: bool = False, clock: dict | None = None, seed: int = 3) -> tuple[MatchState, dict]:
    """A started duel, and its starting snapshot as Redis would hold it."""
    options = {"simultaneous": simultaneous}
    clock = clock or {"prompt_ms": None, "bank_ms": 0, "window_min_ms": 0}
    state, events = get_ruleset("duel").start(SEATS, seed, options)
    meta = {"ruleset": "duel", "seats": SEATS, "options": options, "clock": clock,
            "spectators": {"delay_ms": 0, "allowed": True}}
    match = MatchState(meta, state, Clock.new(clock, SEATS), 0)
    match.stamp(events, NOW)
    return match, unpack(pack(match.snapshot()))


def new_core(simultaneous: bool = False, clock: dict | None = None, snapshot_every: int = 100,
             **away) -> MatchCore:
    match, _ = new_match(simultaneous, clock)
    return MatchCore("m1", match, snapshot_every, **away)


def prompt_of(core: MatchCore, seat: str) -> dict:
    return next(p for p in core.ruleset.prompts(core.state) if p["seat"] == seat)


def act(core: MatchCore, peer: Peer, act_id, option: str = "guard", prompt: str | None = None) -> Act:
    prompt = prompt or prompt_of(core, peer.seat)["id"]
    return Act(peer, peer.seat, act_id, prompt, option, {})


def of(effects: list, kind) -> list:
    return [e for e in effects if isinstance(e, kind)]


def errors(effects: list) -> list[tuple]:
    return [(e.conn, e.message.get("id"), e.message["code"]) for e in of(effects, Send) if e.message["t"] == "error"]


# -- one answer ----------------------------------------------------------------------------

def test_an_answer_is_written_first_and_its_events_and_ack_follow_the_write():
    core = new_core()
    alice = Peer("alice")
    seq = core.seq
    effects = core.receive(act(core, alice, "a1", "strike"), NOW)
    assert [type(e) for e in effects] == [Write]  # nothing reaches a socket before Redis has it
    (entry, records), = effects[0].entries
    assert entry["seat"] == "alice" and entry["act"] == "a1" and entry["seq"] == seq + 1
    assert [r["seq"] for r in records] == list(range(seq + 1, entry["last_seq"] + 1))
    assert core.status is Status.WRITING
    done = core.receive(WriteDone(), NOW + 5)
    assert done == [Publish(records, entry), Ack(alice, "a1", entry["last_seq"], 0.0)]
    assert core.status is Status.IDLE and core.sent_seq == entry["last_seq"]


def test_refusals_change_nothing_and_say_why():
    core = new_core()
    alice, bob = Peer("alice"), Peer("bob")
    before = pack(core.match.snapshot())
    prompt = prompt_of(core, "alice")["id"]
    cases = [
        (Act(bob, "bob", "b1", prompt, "guard", {}), "not_your_prompt"),
        (Act(alice, "alice", "a1", "no-such-prompt", "guard", {}), "unknown_prompt"),
        (Act(alice, "alice", "a2", prompt, "dance", {}), "illegal_option"),
        (Act(alice, "alice", "a3", prompt, "guard", {"target": "bob"}), "bad_args"),
    ]
    for event, code in cases:
        effects = core.receive(event, NOW)
        assert errors(effects) == [(event.conn, event.id, code)]
        assert not of(effects, Write)
    assert pack(core.match.snapshot()) == before and core.status is Status.IDLE


def test_a_resent_act_gets_its_first_ack_and_is_not_applied_again():
    core = new_core()
    alice = Peer("alice")
    first = act(core, alice, 7, "strike")
    core.receive(first, NOW)
    core.receive(WriteDone(), NOW)
    seq = core.seq
    again = core.receive(Act(alice, "alice", 7, first.prompt, "strike", {}), NOW + 10)
    assert again == [Ack(alice, 7, seq, 0.0)] and core.seq == seq
    # the same id from the other seat is another act
    bob = Peer("bob")
    assert of(core.receive(act(core, bob, 7), NOW + 20), Write)


def test_an_ended_match_refuses_answers_and_a_second_abort():
    core = new_core()
    abort = Abort(Reply())
    (write,) = core.receive(abort, NOW)
    assert write.ends and write.snapshot is not None  # the end goes with a snapshot
    done = core.receive(WriteDone(), NOW)
    assert [type(e) for e in done] == [Publish, Ended, Resolve] and done[-1].value is True
    assert core.over
    alice = Peer("alice")
    effects = core.receive(Act(alice, "alice", "late", "p", "strike", {}), NOW)
    assert errors(effects) == [(alice, "late", "match_over")]
    again = Abort(Reply())
    (reject,) = core.receive(again, NOW)
    assert reject.reply is again.reply and isinstance(reject.error, MatchOver)


def test_a_resign_is_written_then_acked_and_ends_a_two_seat_match_for_the_other():
    core = new_core()
    bob = Peer("bob")
    (write,) = core.receive(Resign(bob, "bob", "r1"), NOW)
    (entry, records), = write.entries
    assert entry == {"at": NOW, "resign": "bob", "act": "r1", "seq": entry["seq"], "last_seq": entry["last_seq"]}
    assert write.ends  # one seat left: the match is over
    done = core.receive(WriteDone(), NOW + 5)
    assert [type(e) for e in done] == [Publish, Ended, Ack] and done[-1] == Ack(bob, "r1", entry["last_seq"], 0.0)
    assert "seat_resigned" in [r["kind"] for r in records]
    assert core.state["result"]["winners"] == ["alice"] and core.state["result"]["reason"] == "resigned"
    # sent again (a reconnect not knowing whether it landed): the same ack, nothing applied
    seq = core.seq
    assert core.receive(Resign(bob, "bob", "r1"), NOW + 10) == [Ack(bob, "r1", seq, 0.0)] and core.seq == seq


def test_a_resign_is_refused_after_the_end_and_for_a_seat_that_resigned():
    core = new_core()
    alice = Peer("alice")
    core.receive(Abort(Reply()), NOW)
    core.receive(WriteDone(), NOW)
    before = pack(core.match.snapshot())
    effects = core.receive(Resign(alice, "alice", "r1"), NOW)
    assert errors(effects) == [(alice, "r1", "match_over")] and not of(effects, Write)
    assert pack(core.match.snapshot()) == before
    # a seat that resigned already (three seats, so the match goes on): bad_seat
    seats = ["alice", "bob", "carol"]
    state, events = get_ruleset("hourglass").start(seats, 5, {})
    clock = {"prompt_ms": None, "bank_ms": 0, "window_min_ms": 0}
    meta = {"ruleset": "hourglass", "seats": seats, "options": {}, "clock": clock,
            "spectators": {"delay_ms": 0, "allowed": True}}
    match = MatchState(meta, state, Clock.new(clock, seats), 0)
    match.stamp(events, NOW)
    core = MatchCore("m2", match, 100)
    carol = Peer("carol")
    core.receive(Resign(carol, "carol", "r1"), NOW)
    core.receive(WriteDone(), NOW)
    assert not core.over and core.state["resigned"] == ["carol"]
    before = pack(core.match.snapshot())
    effects = core.receive(Resign(carol, "carol", "r2"), NOW)
    assert errors(effects) == [(carol, "r2", "bad_seat")] and pack(core.match.snapshot()) == before
    assert all(p["seat"] != "carol" for p in core.ruleset.prompts(core.state))


def test_a_resign_that_comes_while_a_write_is_in_flight_goes_out_behind_it_and_in_order():
    core = new_core(simultaneous=True)
    alice, bob = Peer("alice"), Peer("bob")
    (first,) = core.receive(act(core, alice, "a1", "strike"), NOW)  # in flight
    (write,) = core.receive(Resign(bob, "bob", "r1"), NOW + 1)  # sent at once, behind it
    assert [e["resign"] for e, _ in write.entries] == ["bob"] and write.after == first.entries[-1][0]["seq"]
    done = core.receive(WriteDone(), NOW + 2)
    assert [a.id for a in of(done, Ack)] == ["a1"] and not of(done, Write)
    done = core.receive(WriteDone(), NOW + 3)
    assert of(done, Ack)[-1].id == "r1" and core.state["result"]["winners"] == ["alice"]


def test_a_failed_resign_write_is_refused_and_not_recorded():
    core = new_core()
    bob = Peer("bob")
    core.receive(Resign(bob, "bob", "r1"), NOW)
    failed = core.receive(WriteFailed(StoreUnavailable("down")), NOW)
    assert errors(failed) == [(bob, "r1", "unavailable")]
    assert of(core.receive(Resign(bob, "bob", "r1"), NOW), Rebuild)


def test_an_abandon_ends_only_a_match_nobody_touched_or_watches():
    core = new_core()
    alice = Peer("alice")
    core.receive(act(core, alice, "a1", "strike"), NOW)  # touched at NOW
    core.receive(WriteDone(), NOW)
    early = Abandon(Reply(), NOW - 1, "abandoned")
    assert core.receive(early, NOW + 10) == [Resolve(early.reply, False)]  # touched since
    join = Join(Peer(None, "spectator"), None, Reply())
    core.receive(join, NOW + 20)
    watched = Abandon(Reply(), NOW + 30, "abandoned")
    assert core.receive(watched, NOW + 40) == [Resolve(watched.reply, False)]  # a socket is on it
    core.receive(Leave(join.conn), NOW + 50)
    late = Abandon(Reply(), NOW + 60, "abandoned")
    (write,) = core.receive(late, NOW + 70)
    (entry, _), = write.entries
    assert entry == {**entry, "abort": True, "reason": "abandoned", "at": NOW + 70} and write.ends
    done = core.receive(WriteDone(), NOW + 80)
    assert done[-2:] == [Ended(), Resolve(late.reply, True)] and core.over


def test_delete_is_refused_while_the_match_is_live():
    core = new_core()
    delete = Delete(Reply())
    (reject,) = core.receive(delete, NOW)
    assert isinstance(reject, Reject) and isinstance(reject.error, MatchLive)
    core.receive(Abort(Reply()), NOW)
    core.receive(WriteDone(), NOW)
    assert core.receive(delete, NOW) == [DeleteKeys(delete.reply)]


# -- failed writes and rebuilds --------------------------------------------------------------

def test_a_failed_write_acknowledges_nothing_then_the_match_is_rebuilt_before_the_next_input():
    match, start = new_match()
    core = MatchCore("m1", match, 100)
    alice = Peer("alice")
    seq = core.seq
    first = act(core, alice, "a1", "strike")
    core.receive(first, NOW)
    failed = core.receive(WriteFailed(StoreUnavailable("Redis did not answer")), NOW)
    assert failed == [Send(alice, {"t": "error", "id": "a1", "code": "unavailable",
                                   "message": "match storage is unreachable; nothing was recorded, try again"})]
    assert core.status is Status.STALE and core.stale
    # The next input waits for a rebuild from Redis (which never got the answer).
    retry = Act(alice, "alice", "a1", first.prompt, "strike", {})
    assert core.receive(retry, NOW + 1) == [Rebuild(seq)]
    assert core.status is Status.REBUILDING
    assert core.receive(Join(Peer("bob"), None, Reply()), NOW + 2) == []  # waits behind the rebuild
    rebuilt = MatchState.from_loaded(LoadedMatch(match.meta, start, []))
    effects = core.receive(Rebuilt(rebuilt, []), NOW + 3)
    assert [type(e) for e in effects] == [Write]  # the retried answer, as if the first never was
    (entry, _), = effects[0].entries
    assert entry["seq"] == seq + 1 and entry["act"] == "a1"
    assert core.match is rebuilt


def test_a_write_that_landed_though_its_reply_was_lost_is_delivered_after_the_rebuild():
    match, start = new_match()
    core = MatchCore("m1", match, 100)
    alice = Peer("alice")
    (write,) = core.receive(act(core, alice, "a1", "strike"), NOW)
    (entry, records), = write.entries
    core.receive(WriteFailed(StoreUnavailable("connection lost")), NOW)
    assert core.receive(Join(alice, None, Reply()), NOW) == [Rebuild(start["seq"])]
    landed = MatchState.from_loaded(LoadedMatch(match.meta, start, [unpack(pack(entry))]))
    effects = core.receive(Rebuilt(landed, records), NOW)
    assert effects[0] == Publish(records, None)  # the events the sockets never got, before the welcome
    assert effects[1].message["t"] == "welcome" and effects[1].message["seq"] == entry["last_seq"]
    # and the act is known: re-sent, it gets its ack
    assert core.receive(Act(alice, "alice", "a1", entry["prompt"], "strike", {}), NOW) == \
        [Ack(alice, "a1", entry["last_seq"], 0.0)]


def test_while_redis_is_away_each_waiting_input_is_refused_and_the_next_tries_again():
    core = new_core()
    alice = Peer("alice")
    core.receive(act(core, alice, "a1", "strike"), NOW)
    core.receive(WriteFailed(StoreUnavailable("down")), NOW)
    second = Act(alice, "alice", "a2", "x", "strike", {})
    join = Join(Peer("bob"), None, Reply())
    assert core.receive(second, NOW) == [Rebuild(core.sent_seq)]
    assert core.receive(join, NOW) == []
    effects = core.receive(RebuildFailed(), NOW)
    assert errors(effects) == [(alice, "a2", "unavailable")]
    assert effects[-1] == Rebuild(core.sent_seq)  # the join waits for the next attempt
    effects = core.receive(RebuildFailed(), NOW)
    assert len(effects) == 1 and effects[0].reply is join.reply and isinstance(effects[0].error, StoreUnavailable)
    assert core.status is Status.STALE


def test_a_fenced_write_stops_the_match_here():
    core = new_core()
    alice = Peer("alice")
    core.receive(act(core, alice, "a1", "strike"), NOW)
    join = Join(Peer("bob"), None, Reply())
    core.receive(join, NOW)
    effects = core.receive(WriteFailed(Fenced("FENCED this node no longer holds the match")), NOW)
    assert errors(effects) == [(alice, "a1", "not_here")] and effects[-1] == Lost()
    assert not of(effects, Publish) and not of(effects, Ack)
    assert core.status is Status.STOPPED and core.timers == {}
    # The hub lets the match go: what waited is refused with where the match is now.
    refused = core.stop(NotHere("ws://other/ws/m1"))
    assert len(refused) == 1 and refused[0].reply is join.reply and isinstance(refused[0].error, NotHere)
    late = Join(Peer("bob"), None, Reply())
    (reject,) = core.receive(late, NOW)
    assert isinstance(reject.error, NotHere)
    assert core.receive(WriteDone(), NOW) == []  # a reply after the end changes nothing


def test_an_unload_refuses_an_abort_whose_write_is_in_flight():
    core = new_core()
    abort = Abort(Reply())
    core.receive(abort, NOW)
    refused = core.stop(StoreUnavailable("unloaded"))
    assert [r.reply for r in refused] == [abort.reply]
    assert core.receive(WriteDone(), NOW) == []


# -- batching ----------------------------------------------------------------------------

def test_answers_that_wait_for_two_writes_go_out_together_in_one_write_and_are_acked_after_it():
    core = new_core(simultaneous=True, clock={"prompt_ms": None, "bank_ms": 0, "window_min_ms": 0})
    alice, bob = Peer("alice"), Peer("bob")
    first = act(core, alice, "a1", "strike")
    (write1,) = core.receive(first, NOW)
    (write2,) = core.receive(act(core, bob, "b1", "strike"), NOW + 1)  # behind the first, at once
    assert IN_FLIGHT == 2 and write2.after == write1.entries[-1][0]["seq"]
    next_round = prompt_of(core, "alice")["id"]
    nexts = act(core, alice, "a2", "guard", next_round)
    resent = Act(alice, "alice", "a1", first.prompt, "strike", {})
    wrong = Act(alice, "alice", "a9", "no-such-prompt", "strike", {})
    abort = Abort(Reply())
    for event in (nexts, resent, wrong, abort):
        assert core.receive(event, NOW + 2) == []  # two writes in flight: they wait
    done = core.receive(WriteDone(), NOW + 3)
    (entry1, records1), = write1.entries
    assert done[:2] == [Publish(records1, entry1), Ack(alice, "a1", entry1["last_seq"], 0.0)]
    (write3,) = done[2:]  # what waited goes out at once, behind the second
    assert [e["act"] if "act" in e else "abort" for e, _ in write3.entries] == ["a2", "abort"]
    assert write3.ends and write3.after == write2.entries[-1][0]["seq"]
    (bob_entry, bob_records), = write2.entries
    assert core.receive(WriteDone(), NOW + 4) == [Publish(bob_records, bob_entry),
                                                  Ack(bob, "b1", bob_entry["last_seq"], 0.0)]
    done = core.receive(WriteDone(), NOW + 5)
    (next_entry, next_records), (abort_entry, abort_records) = write3.entries
    # In the order they came, as if each had been written alone.
    assert done == [Publish(next_records, next_entry), Ack(alice, "a2", next_entry["last_seq"], 0.0),
                    Ack(alice, "a1", entry1["last_seq"], 0.0),
                    Send(alice, {"t": "error", "id": "a9", "code": "unknown_prompt",
                                 "message": done[3].message["message"]}),
                    Publish(abort_records, abort_entry), Ended(), Resolve(abort.reply, True)]
    assert core.status is Status.IDLE


def test_a_failed_batch_acknowledges_none_of_it():
    core = new_core(simultaneous=True)
    alice, bob = Peer("alice"), Peer("bob")
    first = act(core, alice, "a1", "strike")
    core.receive(first, NOW)
    core.receive(act(core, bob, "b1", "strike"), NOW)  # the second write in flight
    abort = Abort(Reply())
    for event in (act(core, alice, "a2", "guard"), Act(alice, "alice", "a1", first.prompt, "strike", {}), abort):
        assert core.receive(event, NOW) == []
    (write3,) = of(core.receive(WriteDone(), NOW), Write)  # the first landed: what waited goes out
    assert len(write3.entries) == 2
    assert [a.id for a in of(core.receive(WriteDone(), NOW), Ack)] == ["b1"]
    effects = core.receive(WriteFailed(StoreUnavailable("down")), NOW)
    assert errors(effects) == [(alice, "a2", "unavailable"), (alice, "a1", "unavailable")]
    assert [type(e) for e in effects] == [Send, Send, Reject] and effects[2].reply is abort.reply
    assert not core.over or core.stale  # memory is ahead of Redis until rebuilt
    assert core.status is Status.STALE


def test_when_a_write_fails_the_one_sent_behind_it_is_not_acknowledged_even_if_it_lands():
    core = new_core(simultaneous=True)
    alice, bob = Peer("alice"), Peer("bob")
    core.receive(act(core, alice, "a1", "strike"), NOW)
    core.receive(act(core, bob, "b1", "strike"), NOW)
    later = act(core, alice, "a2", "guard")
    assert core.receive(later, NOW) == []
    failed = core.receive(WriteFailed(StoreUnavailable("timed out")), NOW)
    assert errors(failed) == [(alice, "a1", "unavailable")]
    assert core.status is Status.FAILING and core.stale
    assert core.receive(act(core, bob, "b2", "guard"), NOW) == []  # nothing is handled meanwhile
    # Redis took the second (it found the first: a reply lost, not a write): not known here, not acked.
    second = core.receive(WriteDone(), NOW)
    assert errors(second) == [(bob, "b1", "unavailable")] and not of(second, Publish) and not of(second, Ack)
    (rebuild,) = of(second, Rebuild)  # then the state is read back before the next input
    assert rebuild.after_seq == core.sent_seq and core.status is Status.REBUILDING


def test_joins_and_writes_behind_a_snapshot_wait_for_every_write_in_flight():
    core = new_core(simultaneous=True, snapshot_every=1)
    alice, bob, viewer = Peer("alice"), Peer("bob"), Peer(None, "spectator")
    (write1,) = core.receive(act(core, alice, "a1", "strike"), NOW)
    assert write1.snapshot is not None  # its count of answers restarts when it lands
    assert core.receive(act(core, bob, "b1", "strike"), NOW) == []  # so nothing goes out behind it
    core = new_core(simultaneous=True)
    core.receive(act(core, alice, "a1", "strike"), NOW)
    (write2,) = core.receive(act(core, bob, "b1", "strike"), NOW)
    join = Join(viewer, 0, Reply())
    assert core.receive(join, NOW) == []
    assert not of(core.receive(WriteDone(), NOW), Send)  # one write still in flight: the join waits
    done = core.receive(WriteDone(), NOW)
    welcome = next(e for e in done if isinstance(e, Send) and e.message["t"] == "welcome")
    assert welcome.message["seq"] == write2.entries[-1][0]["last_seq"]  # it sees only what Redis holds


def test_a_fenced_write_refuses_what_the_writes_behind_it_hold():
    core = new_core(simultaneous=True)
    alice, bob = Peer("alice"), Peer("bob")
    core.receive(act(core, alice, "a1", "strike"), NOW)
    core.receive(Resign(bob, "bob", "r1"), NOW)
    effects = core.receive(WriteFailed(Fenced("FENCED this node no longer holds the match")), NOW)
    assert errors(effects) == [(alice, "a1", "not_here")] and effects[-1] == Lost()
    assert core.receive(WriteFailed(Fenced("FENCED")), NOW) == []  # stopped: the hub refuses the rest
    assert core.stop(NotHere("ws://other/ws/m1")) == []  # an act or resign is not answered: its socket goes


def test_a_join_waits_for_the_write_and_ends_the_batch():
    core = new_core(simultaneous=True)
    alice, bob, viewer = Peer("alice"), Peer("bob"), Peer(None, "spectator")
    (write1,) = core.receive(act(core, alice, "a1", "strike"), NOW)
    join = Join(viewer, 0, Reply())
    core.receive(join, NOW)
    bobs = act(core, bob, "b1", "strike")
    core.receive(bobs, NOW)
    done = core.receive(WriteDone(), NOW)
    (entry1, _), = write1.entries
    welcome, attach, write2 = done[2:]
    assert welcome.message["t"] == "welcome" and welcome.message["seq"] == entry1["last_seq"]
    assert welcome.message["prompts"] == []  # a spectator is prompted for nothing
    assert attach == Attach(viewer, join.reply, 0, entry1["last_seq"])
    assert [e["act"] for e, _ in write2.entries] == ["b1"]


@pytest.mark.parametrize("seed", range(8))
def test_batched_answers_give_every_socket_exactly_what_one_at_a_time_gives(seed):
    """The order of events, acks and refusals per socket, and the log, do not depend on
    how many answers wait for a write."""
    rng = random.Random(seed)
    peers = {seat: Peer(seat) for seat in SEATS}
    serial = new_core(simultaneous=True, snapshot_every=5)
    inputs, log_serial, stream_serial = [], [], []
    for i in range(60):
        if serial.over:
            break
        seat = rng.choice(SEATS)
        prompts = [p for p in serial.ruleset.prompts(serial.state) if p["seat"] == seat]
        if prompts and rng.random() < 0.8:
            option, args = random_answer(rng, prompts[0])
            event = Act(peers[seat], seat, f"{seat}{i}", prompts[0]["id"], option, args)
        elif inputs and rng.random() < 0.5:
            event = rng.choice(inputs)  # re-sent
        else:
            event = Act(peers[seat], seat, f"{seat}{i}", f"p{rng.randrange(9)}", "strike", {})  # stale or wrong
        inputs.append(event)
        stream_serial += play(serial, [event], log_serial)
    batched = new_core(simultaneous=True, snapshot_every=5)
    log_batched, stream_batched, i = [], [], 0
    while i < len(inputs):
        n = rng.randrange(1, 8)
        stream_batched += play(batched, inputs[i:i + n], log_batched)
        i += n
    for peer in peers.values():
        assert [m for p, m in stream_batched if p is peer] == [m for p, m in stream_serial if p is peer]
    assert [e for e, _ in log_batched] == [e for e, _ in log_serial]
    assert pack(batched.match.snapshot()) == pack(serial.match.snapshot())


def play(core: MatchCore, inputs: list, log: list) -> list[tuple]:
    """Feed the inputs one after another (all but the first while writes are in flight),
    then complete every write, oldest first; what each peer received, in order."""
    received = []
    effects = []
    for event in inputs:
        effects += core.receive(event, NOW)
    in_flight = 0
    while True:
        for effect in effects:
            if isinstance(effect, Publish):
                received += [(None, r["seq"]) for r in effect.records]
            elif isinstance(effect, Ack):
                received.append((effect.conn, ("ack", effect.id, effect.seq)))
            elif isinstance(effect, Send):
                received.append((effect.conn, effect.message))
        writes = of(effects, Write)
        in_flight += len(writes)
        assert in_flight <= IN_FLIGHT
        log += [(unpack(pack(e)), unpack(pack(r))) for write in writes for e, r in write.entries]
        if not in_flight:
            return received
        in_flight -= 1
        effects = core.receive(WriteDone(), NOW)


# -- rebuild from a snapshot and the log ---------------------------------------------------

def test_the_writes_are_enough_to_rebuild_the_match_exactly():
    match, start = new_match()
    core = MatchCore("m1", match, snapshot_every=4)
    rng = random.Random(5)
    snapshot, log = start, []  # "Redis": the last snapshot, and the entries after it
    peers = {seat: Peer(seat) for seat in SEATS}
    n = 0
    while not core.over and n < 40:
        prompt = rng.choice(core.ruleset.prompts(core.state))
        option, args = random_answer(rng, prompt)
        (write,) = core.receive(Act(peers[prompt["seat"]], prompt["seat"], n, prompt["id"], option, args), NOW + n)
        log += [unpack(pack(entry)) for entry, _ in write.entries]
        if write.snapshot is not None:
            snapshot, log = unpack(pack(write.snapshot)), []
        core.receive(WriteDone(), NOW + n)
        n += 1
        again = MatchState.from_loaded(LoadedMatch(match.meta, unpack(pack(snapshot)), unpack(pack(log))))
        assert pack(again.snapshot()) == pack(core.match.snapshot())
    assert snapshot is not start and n > 8


# -- deadlines ----------------------------------------------------------------------------

def test_a_prompt_is_armed_and_its_default_applied_only_when_due():
    core = new_core(clock={"prompt_ms": 1000, "bank_ms": 0, "window_min_ms": 0})
    (arm,) = core.start(NOW)
    assert isinstance(arm, Arm) and arm.due == NOW + 1000 and core.wants(arm.prompt, arm.due)
    assert core.receive(Expire(arm.prompt), NOW + 10) == [Arm(arm.prompt, arm.due)]  # early: armed again
    (write,) = core.receive(Expire(arm.prompt), NOW + 1000)
    (entry, _), = write.entries
    assert entry == {**entry, "timeout": True, "prompt": arm.prompt, "at": NOW + 1000}
    done = core.receive(WriteDone(), NOW + 1001)
    next_arm = of(done, Arm)
    assert next_arm and not core.wants(arm.prompt, arm.due)  # the old deadline no longer stands


def test_a_prompt_without_a_deadline_is_never_armed():
    core = new_core()  # untimed
    assert core.start(NOW) == [] and core.timers == {}
    (write,) = core.receive(act(core, Peer("alice"), "a1", "strike"), NOW)
    assert not of(core.receive(WriteDone(), NOW), Arm)


def test_a_timeout_that_could_not_be_written_is_tried_again_later():
    core = new_core(clock={"prompt_ms": 1000, "bank_ms": 0, "window_min_ms": 0})
    (arm,) = core.start(NOW)
    core.receive(Expire(arm.prompt), NOW + 1000)
    (later,) = core.receive(WriteFailed(StoreUnavailable("down")), NOW + 1001)
    assert later.input == Expire(arm.prompt) and later.delay_ms > 0


def test_release_stops_handling_and_what_waits_is_refused_by_the_hub():
    core = new_core()
    release = Release(Reply())
    assert core.receive(release, NOW) == [Resolve(release.reply, None)]
    assert core.status is Status.STOPPED
    alice = Peer("alice")
    assert core.receive(Act(alice, "alice", "a1", "p", "strike", {}), NOW) == []
    abort = Abort(Reply())
    core.receive(abort, NOW)
    refused = core.stop(NotHere(None))
    assert [r.reply for r in refused] == [abort.reply]


# -- stops: window prompts passed for a seat ---------------------------------------------

from battlehall.server import codec  # noqa: E402
from battlehall.server.match.fanout import event_message  # noqa: E402
from battlehall.server.match.inputs import AutoPass, HoldOver, SetStops  # noqa: E402
from battlehall.server.match.stops import ASK, PASS_UNLESS_PLAYABLE, PASS_UNTIL_MY_TURN  # noqa: E402

TRIO = ["ann", "ben", "cat"]
HOLD = 300


def spellfire_core(seed: int = 5) -> MatchCore:
    clock = {"prompt_ms": None, "bank_ms": 0, "window_min_ms": HOLD}
    state, events = get_ruleset("spellfire").start(TRIO, seed, {})
    meta = {"ruleset": "spellfire", "seats": TRIO, "options": {}, "clock": clock,
            "spectators": {"delay_ms": 0, "allowed": True}}
    match = MatchState(meta, state, Clock.new(clock, TRIO), 0)
    match.stamp(events, NOW)
    return MatchCore("m1", match, 10_000)


class Table:
    """Plays a Spellfire match through the core on a simulated clock: each seat answers
    its prompts by hand (windows with their pass, `window_ms[seat]` after they open;
    anything else with a seeded random answer at once), unless the core passes them."""

    def __init__(self, core: MatchCore, window_ms: dict, stops: dict | None = None, sticky: str | None = None):
        self.core, self.window_ms, self.now = core, window_ms, NOW
        self.sticky = sticky  # a seat whose windows are all passed, its own turn's too
        self.rng = random.Random(11)
        self.timers: list = []  # [due, order, input]
        self.order = 0
        self.peers = {seat: Peer(seat) for seat in TRIO}
        self.entries: list[dict] = []
        self.records: list[dict] = []
        self.sent: list[tuple] = []  # (peer, message) of every Send
        self.handled: set = set()  # prompts the seats answer (or leave) by hand
        self.feed_all(core.start(NOW))
        for seat, mode in (stops or {}).items():
            self.feed(SetStops(self.peers[seat], seat, mode))

    def feed(self, event) -> None:
        self.feed_all(self.core.receive(event, self.now))

    def feed_all(self, effects: list) -> None:
        for e in effects:
            if isinstance(e, Write):
                self.entries += [entry for entry, _ in e.entries]
                self.feed(WriteDone())
            elif isinstance(e, Later):
                self.at(self.now + e.delay_ms, e.input)
            elif isinstance(e, Publish):
                self.records += e.records
            elif isinstance(e, Send):
                self.sent.append((e.conn, e.message))

    def at(self, due: int, event) -> None:
        self.order += 1
        self.timers.append([due, self.order, event])

    def play(self, answers: int, until=None) -> None:
        """Play on until `answers` entries are written, or until `until()` is true (checked
        before the seats answer what is open)."""
        while len(self.entries) < answers and not self.core.over:
            if until is not None and until():
                return
            if self.sticky:
                self.core.stops.set(self.sticky, PASS_UNTIL_MY_TURN)  # the match's own tables, then its mode before too
                self.core.stops.before[self.sticky] = PASS_UNTIL_MY_TURN
            for prompt in self.core.ruleset.prompts(self.core.state):
                if prompt["id"] in self.handled or self.core.stops.passes(prompt):
                    continue
                self.handled.add(prompt["id"])
                peer = self.peers[prompt["seat"]]
                if "window" in prompt:
                    option, args, delay = prompt["default"], {}, self.window_ms[prompt["seat"]]
                    if delay is None:  # left open
                        continue
                else:
                    option, args = random_answer(self.rng, prompt)
                    delay = 0
                self.at(self.now + delay, Act(peer, peer.seat, prompt["id"], prompt["id"], option, args))
            if not self.timers:
                break
            self.timers.sort(key=lambda t: (t[0], t[1]))
            due, _, event = self.timers.pop(0)
            self.now = max(self.now, due)
            self.feed(event)

    def seen_by(self, viewer: str | None) -> list[bytes]:
        """Every event as `viewer` (a seat, or None: a spectator) is sent it, encoded."""
        ruleset = self.core.ruleset
        return [codec.encode(codec.JSON, event_message(ruleset, r, viewer)) for r in self.records]


def windows_of(records: list, seat: str) -> list[str]:
    return [r["data"]["id"] for r in records if r["kind"] == "prompt" and r["data"]["seat"] == seat
            and "window" in r["data"]]


def test_stops_pass_every_window_of_a_seat_that_passes_until_its_turn_after_the_minimum_hold():
    table = Table(spellfire_core(), {"ann": 500, "ben": 500, "cat": 500}, {"cat": PASS_UNTIL_MY_TURN}, "cat")
    table.play(400)
    windows = windows_of(table.records, "cat")
    assert windows, "no window opened for cat"
    passed = {e["prompt"]: e for e in table.entries if e.get("seat") == "cat" and e["prompt"] in windows}
    opened = {r["data"]["id"]: r["at"] for r in table.records if r["kind"] == "prompt"}
    for prompt_id, entry in passed.items():
        assert entry["option"] == "pass" and entry["args"] == {} and "act" not in entry
        assert entry["at"] == opened[prompt_id] + HOLD  # as soon as a pass sent at once
    closed = [r["data"] for r in table.records if r["kind"] == "prompt_closed" and r["data"]["id"] in passed]
    assert closed and all(c["reason"] == "answered" for c in closed)
    # every window of cat was passed for it, except those another seat's card closed first
    cancelled = {r["data"]["id"] for r in table.records if r["kind"] == "prompt_closed"
                 and r["data"]["reason"] == "cancelled"}
    assert set(windows) - cancelled - {p["id"] for p in table.core.ruleset.prompts(table.core.state)} <= set(passed)


def test_stops_pass_unless_playable_asks_for_a_window_with_a_card_to_play():
    table = Table(spellfire_core(), {"ann": 500, "ben": 500, "cat": 0}, {"cat": PASS_UNLESS_PLAYABLE})
    table.play(600)
    prompts = {r["data"]["id"]: r["private"]["cat"] for r in table.records
               if r["kind"] == "prompt" and r["data"]["seat"] == "cat" and "window" in r["data"]}
    by_cat = {e["prompt"] for e in table.entries if e.get("seat") == "cat" and "act" not in e}
    by_hand = {e["prompt"] for e in table.entries if e.get("seat") == "cat" and "act" in e}
    playable = {p for p, shown in prompts.items() if len(shown["options"]) > 1}
    assert by_cat and playable, "the seed must give cat windows of both sorts"
    assert not by_cat & playable  # asked when it holds a card it could play
    assert by_hand & playable and not by_hand & (set(prompts) - playable)


def test_stops_ask_passes_nothing_and_a_new_setting_passes_the_windows_open_now():
    table = Table(spellfire_core(), {"ann": None, "ben": None, "cat": None})  # nobody answers a window
    table.play(400)
    windows = [p for p in table.core.ruleset.prompts(table.core.state) if "window" in p]
    assert windows and not [e for e in table.entries if "act" not in e and "seat" in e]
    seat = windows[0]["seat"]
    table.feed(SetStops(table.peers[seat], seat, PASS_UNTIL_MY_TURN))
    assert table.timers and all(isinstance(t[2], HoldOver) for t in table.timers)  # the pass, held
    table.now = max(t[0] for t in table.timers)
    for _, _, event in sorted(table.timers, key=lambda t: t[:2]):
        table.feed(event)
    assert [e["prompt"] for e in table.entries if "act" not in e and "seat" in e] == [windows[0]["id"]]


def test_stops_are_told_to_the_seats_own_sockets_alone():
    core = spellfire_core()
    cat, cat_phone, ann, spectator = Peer("cat"), Peer("cat"), Peer("ann"), Peer(None, "spectator")
    core.watchers += [cat, cat_phone, ann, spectator]
    effects = core.receive(SetStops(cat, "cat", PASS_UNLESS_PLAYABLE), NOW)
    told = {(id(e.conn), e.message["mode"]) for e in of(effects, Send)}
    assert told == {(id(cat), PASS_UNLESS_PLAYABLE), (id(cat_phone), PASS_UNLESS_PLAYABLE)}
    assert not of(effects, Write) and not of(effects, Publish)  # a setting is no answer: nothing recorded


def test_stops_pass_until_my_turn_ends_when_the_seat_is_asked_anything_else_and_tells_it():
    core = spellfire_core()
    table = Table(core, {"ann": 500, "ben": 500, "cat": 500}, {"cat": PASS_UNLESS_PLAYABLE})
    table.feed(SetStops(table.peers["cat"], "cat", PASS_UNTIL_MY_TURN))
    ann = Peer("ann")
    core.watchers += [table.peers["cat"], ann]  # cat's socket is told; nobody else
    table.play(3000)
    own = [r["data"] for r in table.records if r["kind"] == "prompt" and r["data"]["seat"] == "cat"
           and "window" not in r["data"]]
    assert own, "cat was never asked anything but windows"
    assert core.stops.mode("cat") == PASS_UNLESS_PLAYABLE
    told = [m for peer, m in table.sent if m["t"] == "stops"]
    assert told[-1] == {"t": "stops", "mode": PASS_UNLESS_PLAYABLE}
    assert not [m for peer, m in table.sent if peer is ann]


def test_stops_an_automatic_pass_looks_to_every_other_seat_and_spectator_like_one_sent_at_once():
    by_hand = Table(spellfire_core(), {"ann": 700, "ben": 900, "cat": 0})
    by_hand.play(500)
    auto = Table(spellfire_core(), {"ann": 700, "ben": 900, "cat": 0}, {"cat": PASS_UNTIL_MY_TURN}, "cat")
    auto.play(500)
    passed = [e for e in auto.entries if e.get("seat") == "cat" and "act" not in e]
    assert len(passed) > 5
    for viewer in ("ann", "ben", None):  # kinds, fields, bytes and times alike
        assert auto.seen_by(viewer) == by_hand.seen_by(viewer)
    def shown(entries):  # as the replay shows them: the act id (the client's resend key) never is
        return [{k: v for k, v in e.items() if k != "act"} for e in entries]
    assert shown(by_hand.entries) == shown(auto.entries)


def test_stops_every_seat_starts_asking():
    core = spellfire_core()
    assert all(core.stops.mode(seat) == ASK for seat in TRIO)


def test_stops_a_seat_that_asks_again_before_its_pass_is_due_is_asked():
    table = Table(spellfire_core(), {"ann": None, "ben": None, "cat": None})
    table.play(400)
    window = next(p for p in table.core.ruleset.prompts(table.core.state) if "window" in p)
    seat = window["seat"]
    table.feed(SetStops(table.peers[seat], seat, PASS_UNTIL_MY_TURN))
    table.feed(SetStops(table.peers[seat], seat, ASK))
    passes = [t[2] for t in table.timers if isinstance(t[2], HoldOver)]  # the pass, held
    assert passes
    table.now += HOLD
    written = len(table.entries)
    for event in passes:
        table.feed(event)
    assert len(table.entries) == written  # left to the seat
    assert window["id"] in {p["id"] for p in table.core.ruleset.prompts(table.core.state)}


def test_stops_a_pass_whose_write_failed_is_tried_again_when_redis_is_back():
    core = spellfire_core()
    table = Table(core, {"ann": None, "ben": None, "cat": None})
    table.play(400)
    window = next(p for p in core.ruleset.prompts(core.state) if "window" in p)
    core.stops.set(window["seat"], PASS_UNTIL_MY_TURN)
    effects = core.receive(AutoPass(window["seat"], window["id"]), table.now + HOLD)
    assert of(effects, Write)
    effects = core.receive(WriteFailed(StoreUnavailable("down")), table.now + HOLD)
    assert [e.input for e in of(effects, Later)] == [AutoPass(window["seat"], window["id"])]


def open_window(table: Table, seats: set[str], playable: str | None = None) -> list[dict]:
    """Plays on until a window opens (at `table.now`) with a prompt for each of `seats`,
    and for `playable`'s a card to play: its prompts as their seats see them, in the order
    they opened. The seats have not answered them yet."""
    core = table.core

    def window() -> list[dict]:
        order = list(core.clock.data["open"])
        shown = [p for seat in TRIO for p in core.match.prompts_for(seat)
                 if "window" in p and core.clock.window_opened(p["id"]) == table.now]
        for window_id in {p["window"] for p in shown}:
            prompts = sorted((p for p in shown if p["window"] == window_id), key=lambda p: order.index(p["id"]))
            by_seat = {p["seat"]: p for p in prompts}
            if seats <= set(by_seat) and (playable is None or len(by_seat[playable]["options"]) > 1):
                return prompts
        return []

    table.play(5000, until=lambda: bool(window()))
    found = window()
    assert found, f"no window for {sorted(seats)} in this match"
    return found


def fire_until(table: Table, due: int) -> None:
    """The timers due by `due`, each at its time, those due together in the order they were
    set (as deadlines.py fires them)."""
    while True:
        table.timers.sort(key=lambda t: (t[0], t[1]))
        if not table.timers or table.timers[0][0] > due:
            return
        at, _, event = table.timers.pop(0)
        table.now = max(table.now, at)
        table.feed(event)


@pytest.mark.parametrize("after_ms", [0, 1, HOLD - 1])
def test_stops_a_card_sent_before_the_hold_ends_wins_over_the_automatic_pass(after_ms):
    """docs/protocol.md, Stops: the server passes when window_min_ms is up "unless the seat
    answers first (a card it plays wins)". The card comes `after_ms` after the prompt
    opened and is held; it falls due in the same millisecond as the automatic pass, which
    was set first (when the window opened)."""
    table = Table(spellfire_core(), {"ann": 500, "ben": 500, "cat": 500}, {"cat": PASS_UNTIL_MY_TURN}, "cat")
    (prompt,) = [p for p in open_window(table, {"cat"}, playable="cat") if p["seat"] == "cat"]
    opened = table.now
    card = next(o for o in prompt["options"] if o["id"] != prompt["default"])
    option, args = random_answer(random.Random(1), {**prompt, "options": [card]})
    cat = table.peers["cat"]
    table.at(opened + after_ms, Act(cat, "cat", "card", prompt["id"], option, args))
    fire_until(table, opened + HOLD)
    (entry,) = [e for e in table.entries if e.get("prompt") == prompt["id"]]
    assert (entry["option"], entry.get("act"), entry["at"]) == (option, "card", opened + HOLD)
    assert not [m for peer, m in table.sent if peer is cat and m["t"] == "error"]  # not unknown_prompt


def test_stops_a_window_closes_in_the_same_order_whether_a_seats_pass_is_automatic_or_by_hand():
    """docs/protocol.md, Stops: the answers held for a window's minimum time are applied,
    when it is up, in the order of the window's prompts, whoever sent them and whenever.
    Ben passes at once beside cat; cat's pass is its stops', or its own sent at once
    (before ben's, or after): every other seat and a spectator get the same stream."""

    def run(stops: dict | None, sends: list[tuple[int, str]]) -> tuple[list, list, dict]:
        table = Table(spellfire_core(), {"ann": 700, "ben": 900, "cat": 0}, stops, "cat" if stops else None)
        prompts = open_window(table, {"ben", "cat"})
        opened = table.now
        by_seat = {p["seat"]: p for p in prompts}
        for after_ms, seat in sends:
            peer, prompt = table.peers[seat], by_seat[seat]
            table.at(opened + after_ms, Act(peer, seat, f"{seat}-pass", prompt["id"], prompt["default"], {}))
        fire_until(table, opened + HOLD)
        ids = [p["id"] for p in prompts]
        closes = [r["data"]["id"] for r in table.records if r["kind"] == "prompt_closed" and r["data"]["id"] in ids]
        return ids, closes, {viewer: table.seen_by(viewer) for viewer in ("ann", "ben", None)}

    ids, auto, auto_seen = run({"cat": PASS_UNTIL_MY_TURN}, [(1, "ben")])
    assert auto == [p for p in ids if p in auto] and len(auto) >= 2  # in the order the prompts opened
    for sends in ([(1, "cat"), (2, "ben")], [(1, "ben"), (2, "cat")]):
        by_hand_ids, by_hand, by_hand_seen = run(None, sends)
        assert (by_hand_ids, by_hand) == (ids, auto), sends
        assert by_hand_seen == auto_seen, sends


def reaction_window(stops: bool) -> tuple[list, list]:
    """A demigod match whose reaction windows last their minimum hold (`reaction_ms` =
    `window_min_ms`), played to its first: the seat reacting passes at once by hand, or
    has its stops pass it. Driven as actor.py and deadlines.py do: a `Later` and an `Arm`
    each a timer, those due together fired in the order they were set. The log and the
    events of the window, once its time is up."""
    seats, hold = ["ann", "ben"], 500
    clock, options = {"prompt_ms": None, "bank_ms": 0, "window_min_ms": hold}, {"reaction_ms": hold}
    state, events = get_ruleset("demigod").start(seats, 1, options)
    meta = {"ruleset": "demigod", "seats": seats, "options": options, "clock": clock,
            "spectators": {"delay_ms": 0, "allowed": True}}
    match = MatchState(meta, state, Clock.new(clock, seats), 0)
    match.stamp(events, NOW)
    core, rng, timers, log, records = MatchCore("m1", match, 10_000), random.Random(1), [], [], []

    def feed(event, now: int) -> None:
        for effect in core.receive(event, now):
            if isinstance(effect, Write):
                log.extend(entry for entry, _ in effect.entries)
                feed(WriteDone(), now)
            elif isinstance(effect, Publish):
                records.extend(effect.records)
            elif isinstance(effect, Later):
                timers.append((now + effect.delay_ms, len(timers), effect.input))
            elif isinstance(effect, Arm):
                timers.append((effect.due, len(timers), Expire(effect.prompt)))

    peers = {seat: Peer(seat) for seat in seats}
    for n in range(100):  # every prompt answered at once, until a window opens
        shown = [p for seat in seats for p in core.match.prompts_for(seat)]
        window = [p for p in shown if "window" in p]
        if window:
            break
        for seat in seats if stops else ():  # its turns end pass_until_my_turn: set again, as Table's sticky seat
            core.stops.set(seat, PASS_UNTIL_MY_TURN)  # the match's own tables, then its mode before too
            core.stops.before[seat] = PASS_UNTIL_MY_TURN
        option, args = random_answer(rng, shown[0])
        feed(Act(peers[shown[0]["seat"]], shown[0]["seat"], n, shown[0]["id"], option, args), NOW)
    (prompt,) = window
    assert prompt["time_ms"] == hold
    opened = core.clock.window_opened(prompt["id"])
    if not stops:
        feed(Act(peers[prompt["seat"]], prompt["seat"], "pass", prompt["id"], prompt["default"], {}), opened + 1)
    for due, _, event in sorted(timers):
        if due <= opened + hold:
            feed(event, due)
    after = core.seq - sum(1 for r in records if r["at"] > opened)  # the window's own records come after
    return ([{k: v for k, v in e.items() if k != "act"} for e in log if e["seq"] > after],
            [r for r in records if r["seq"] > after])


def test_stops_a_pass_held_until_a_windows_deadline_beats_its_timeout_by_hand_as_automatically():
    """When a window's own time is its minimum hold, the pass held until then and the
    deadline fall due together: the pass is applied (it came before the deadline), whether
    the seat sent it or its stops made it. The deadline's timer is set once the window's
    entry is written: after the automatic pass was held, before a pass by hand came."""
    auto_log, auto_records = reaction_window(stops=True)
    hand_log, hand_records = reaction_window(stops=False)
    assert [r["data"].get("reason") for r in hand_records if r["kind"] == "prompt_closed"][:1] == ["answered"]
    assert (hand_log, hand_records) == (auto_log, auto_records)
    assert auto_log and "timeout" not in auto_log[0]


def test_stops_a_hold_that_ends_while_redis_is_away_is_tried_again():
    core = spellfire_core()
    table = Table(core, {"ann": None, "ben": None, "cat": None})
    table.play(400)  # the windows open now are left to their seats
    window = next(p for p in core.ruleset.prompts(core.state) if "window" in p)
    table.feed(SetStops(table.peers[window["seat"]], window["seat"], PASS_UNTIL_MY_TURN))
    (held,) = [t[2] for t in table.timers if isinstance(t[2], HoldOver)]
    core.receive(Abort(Reply()), table.now)
    core.receive(WriteFailed(StoreUnavailable("down")), table.now)  # the match is stale
    assert of(core.receive(held, held.due), Rebuild)
    assert [e.input for e in of(core.receive(RebuildFailed(), held.due), Later)] == [held]
# -- away and back ----------------------------------------------------------------------------

def joined(core: MatchCore, peer: Peer, now: int) -> list:
    return core.receive(Join(peer, None, Reply()), now)


def test_a_seat_without_a_socket_for_its_grace_is_marked_away_and_back_when_it_returns():
    core = new_core(away_grace_ms=5000)
    alice, bob = Peer("alice"), Peer("bob")
    started = core.start(NOW)
    assert [(e.delay_ms, e.input) for e in of(started, Later)] == [(5000, AwayDue("alice")), (5000, AwayDue("bob"))]
    joined(core, alice, NOW + 100)
    joined(core, bob, NOW + 100)
    assert core.receive(AwayDue("alice"), NOW + 5000) == []  # on since: nothing is written
    leave = core.receive(Leave(bob), NOW + 1000)
    (later,) = of(leave, Later)
    assert later.delay_ms == 5000 and later.input == AwayDue("bob")
    # the others hear of it at once, with when bob is marked away
    assert [(s.conn.seat, s.message) for s in of(leave, Send)] == [
        ("alice", {"t": "presence", "seat": "bob", "connected": False, "away_at": NOW + 6000})]
    assert core.receive(AwayDue("bob"), NOW + 5999) == []  # not yet: its grace runs from the leave
    (write,) = core.receive(AwayDue("bob"), NOW + 6000)
    (entry, records), = write.entries
    assert entry == {"at": NOW + 6000, "away": "bob", "seq": entry["seq"], "last_seq": entry["last_seq"]}
    assert [r["kind"] for r in records] == ["seat_away"]
    assert of(core.receive(WriteDone(), NOW + 6001), Publish)
    assert core.ruleset.view(core.state, "alice")["away"] == ["bob"]  # every view shows it
    assert core.ruleset.view(core.state, None)["away"] == ["bob"]
    # bob comes back: the welcome (still away), then a back entry, written like any other
    back = joined(core, Peer("bob"), NOW + 7000)
    told, welcome = [s.message for s in of(back, Send)]
    assert told == {"t": "presence", "seat": "bob", "connected": True, "away_at": None}  # to alice
    assert welcome["view"]["away"] == ["bob"] and "gone" not in welcome
    (write,) = of(back, Write)
    assert [e["back"] for e, _ in write.entries] == ["bob"]
    core.receive(WriteDone(), NOW + 7001)
    assert core.ruleset.view(core.state, None)["away"] == []


def test_a_seat_with_another_socket_on_is_not_gone_and_a_leave_and_return_within_the_grace_writes_nothing():
    core = new_core(away_grace_ms=5000)
    core.start(NOW)
    first, second = Peer("bob"), Peer("bob")
    joined(core, first, NOW)
    joined(core, second, NOW)
    assert not of(core.receive(Leave(first), NOW + 10), Later)  # the other socket is still on
    core.receive(Leave(second), NOW + 20)
    joined(core, Peer("bob"), NOW + 3000)
    assert core.receive(AwayDue("bob"), NOW + 5020) == [] and core.seq == core.sent_seq
    assert "away" not in core.state


def test_prompts_timing_out_in_a_row_mark_the_seat_away_and_its_next_answer_brings_it_back():
    core = new_core(clock={"prompt_ms": 1000, "bank_ms": 0, "window_min_ms": 0}, away_timeouts=2)
    core.start(NOW)
    alice = Peer("alice")
    joined(core, alice, NOW)
    now = NOW
    kinds = []
    for _ in range(2):  # duel: alice's prompt, then bob's, ... each times out
        prompt = prompt_of(core, "alice")["id"]
        now = core.match.clock.expires_at(prompt)
        (write,) = core.receive(Expire(prompt), now)
        kinds.append([e for e, _ in write.entries])
        core.receive(WriteDone(), now)
        bob_prompt = prompt_of(core, "bob")
        core.receive(Act(Peer("bob"), "bob", f"b{now}", bob_prompt["id"], "guard", {}), now)
        core.receive(WriteDone(), now)
    assert ["timeout" in e for e in kinds[0]] == [True]  # one in a row: not yet
    assert [("timeout" in e, e.get("away")) for e in kinds[1]] == [(True, None), (False, "alice")]
    assert core.state["away"] == ["alice"]
    (write,) = core.receive(act(core, alice, "a1", "guard"), now + 1)
    assert [e.get("back") for e, _ in write.entries] == ["alice", None]  # back, then the answer
    done = core.receive(WriteDone(), now + 2)
    assert of(done, Ack)[0].id == "a1" and core.state["away"] == []


def test_a_resigned_seat_or_an_ended_match_is_never_marked_away():
    core = new_core(away_grace_ms=5000)
    core.start(NOW)
    core.receive(Abort(Reply()), NOW)
    core.receive(WriteDone(), NOW)
    assert core.receive(AwayDue("bob"), NOW + 6000) == []


def test_an_away_mark_that_could_not_be_written_is_tried_again():
    core = new_core(away_grace_ms=5000)
    core.start(NOW)
    core.receive(AwayDue("bob"), NOW + 5000)
    (later,) = core.receive(WriteFailed(StoreUnavailable("down")), NOW + 5001)
    assert later.input == AwayDue("bob")
    assert of(core.receive(AwayDue("bob"), NOW + 5600), Rebuild)


# -- claiming the win over seats away ---------------------------------------------------------

def three_seat_core(when_away: str) -> MatchCore:
    seats = ["alice", "bob", "carol"]
    state, events = get_ruleset("hourglass").start(seats, 5, {})
    clock = {"prompt_ms": None, "bank_ms": 0, "window_min_ms": 0}
    meta = {"ruleset": "hourglass", "seats": seats, "options": {}, "clock": clock, "when_away": when_away,
            "spectators": {"delay_ms": 0, "allowed": True}}
    match = MatchState(meta, state, Clock.new(clock, seats), 0)
    match.stamp(events, NOW)
    return MatchCore("m3", match, 100, away_grace_ms=1000)


def mark_away(core: MatchCore, *seats: str) -> None:
    for seat in seats:
        core.receive(AwayDue(seat), NOW + 1000)
        core.receive(WriteDone(), NOW + 1000)
    assert core.state["away"] == list(seats)


def test_a_claim_resigns_every_seat_away_and_is_acked_once_after_the_write():
    core = three_seat_core("claim")
    core.start(NOW)
    alice = Peer("alice")
    core.receive(Join(alice, None, Reply()), NOW)
    mark_away(core, "bob", "carol")
    (write,) = core.receive(Claim(alice, "alice", "c1"), NOW + 2000)
    assert [e["resign"] for e, _ in write.entries] == ["bob", "carol"]
    assert write.ends
    done = core.receive(WriteDone(), NOW + 2001)
    (ack,) = of(done, Ack)
    assert ack.id == "c1" and ack.seq == write.entries[-1][0]["last_seq"]
    assert core.state["result"]["winners"] == ["alice"] and core.state["result"]["ranking"][-1] == ["bob"]
    seq = core.seq
    assert core.receive(Claim(alice, "alice", "c1"), NOW + 3000) == [Ack(alice, "c1", seq, 0.0)]


def test_a_claim_is_refused_unless_the_match_allows_it_and_another_seat_is_away():
    core = three_seat_core("nothing")
    core.start(NOW)
    alice = Peer("alice")
    mark_away(core, "bob")
    effects = core.receive(Claim(alice, "alice", "c1"), NOW + 2000)
    assert errors(effects) == [(alice, "c1", "no_claim")] and not of(effects, Write)
    core = three_seat_core("claim")
    core.start(NOW)
    assert errors(core.receive(Claim(alice, "alice", "c2"), NOW)) == [(alice, "c2", "no_claim")]  # nobody away
    mark_away(core, "alice")  # only the claiming seat itself
    before = pack(core.match.snapshot())
    assert errors(core.receive(Claim(alice, "alice", "c3"), NOW + 2000)) == [(alice, "c3", "no_claim")]
    assert pack(core.match.snapshot()) == before
