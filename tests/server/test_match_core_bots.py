"""The server's bots in the match's sans-I/O core: a bot's turn for each prompt of a seat
it plays, its answer written like an act (marked with its level), and the seats a bot
stands in for while their players are away. No Redis, no sockets, no clock: the driver's
part (bot_turns.py, the think time and the node's rate) is played by hand."""

from __future__ import annotations

import pytest

from battlehall.engine import get_ruleset
from battlehall.server.clock import Clock
from battlehall.server.match.effects import Ack, Later, Publish, Think, Write
from battlehall.server.match.inputs import Act, AwayDue, BotMove, Join, Leave, WriteDone, WriteFailed
from battlehall.server.match.match_core import MatchCore
from battlehall.server.match.match_state import MatchState
from battlehall.server.storage.writer import StoreUnavailable
from core_peers import Peer, Reply

NOW = 1_000_000
SEATS = ["alice", "bob"]
UNTIMED = {"prompt_ms": None, "bank_ms": 0, "window_min_ms": 0}


def new_core(bots: dict | None = None, when_away: str = "nothing", ruleset: str = "duel", seats=SEATS,
             clock: dict = UNTIMED, **away) -> MatchCore:
    rules = get_ruleset(ruleset)
    state, events = rules.start(seats, 5, {})
    meta = {"ruleset": ruleset, "seats": seats, "options": {}, "clock": clock, "bots": bots or {},
            "when_away": when_away, "spectators": {"delay_ms": 0, "allowed": True}}
    match = MatchState(meta, state, Clock.new(clock, seats), 0)
    match.stamp(events, NOW)
    return MatchCore("m1", match, 100, **away)


def of(effects: list, kind) -> list:
    return [e for e in effects if isinstance(e, kind)]


def open_prompt(core: MatchCore, seat: str) -> str:
    return next(p["id"] for p in core.ruleset.prompts(core.state) if p["seat"] == seat)


def written(core: MatchCore, effects: list, now: int) -> list[dict]:
    """The entries of the effects' write, once it is done; and that write's effects."""
    (write,) = of(effects, Write)
    done = core.receive(WriteDone(), now)
    return [entry for entry, _ in write.entries], done


def play_until_bobs_turn(core: MatchCore, now: int) -> list:
    """Alice answers until one of bob's prompts is open; the effects of the last write."""
    alice = Peer("alice")
    done = []
    for n in range(20):
        if any(p["seat"] == "bob" for p in core.ruleset.prompts(core.state)):
            return done
        effects = core.receive(Act(alice, "alice", f"a{n}", open_prompt(core, "alice"), "guard", {}), now)
        _, done = written(core, effects, now)
    raise AssertionError("bob was never asked")


def test_a_bot_seat_gets_one_turn_per_prompt_and_its_answer_is_written_like_an_act_marked_with_its_level():
    core = new_core(bots={"bob": "greedy"})
    core.start(NOW)
    done = play_until_bobs_turn(core, NOW)
    prompt = open_prompt(core, "bob")
    options = next(p for p in core.ruleset.prompts(core.state) if p["id"] == prompt)["options"]
    assert of(done, Think) == [Think("bob", prompt)]
    # another write meanwhile gives no second turn for the same prompt
    assert not of(core.receive(Join(Peer(None, "spectator"), None, Reply()), NOW + 1), Think)
    effects = core.receive(BotMove("bob", prompt), NOW + 700)
    (entry,), done = written(core, effects, NOW + 701)
    assert entry["seat"] == "bob" and entry["prompt"] == prompt and entry["bot"] == "greedy" and "act" not in entry
    assert entry["option"] in [o["id"] for o in options]
    assert of(done, Publish) and not of(done, Ack)  # its events go out; nobody waits for an ack


def test_a_turn_for_a_prompt_answered_or_closed_meanwhile_writes_nothing():
    core = new_core(bots={"bob": "random"})
    core.start(NOW)
    play_until_bobs_turn(core, NOW)
    prompt = open_prompt(core, "bob")
    core.receive(BotMove("bob", prompt), NOW + 10)
    core.receive(WriteDone(), NOW + 11)
    assert core.receive(BotMove("bob", prompt), NOW + 20) == []  # answered already


def test_the_same_match_and_turns_give_the_same_answers():
    entries = []
    for _ in range(2):
        core = new_core(bots={"alice": "random", "bob": "random"})
        started = core.start(NOW)
        log, now = [], NOW
        turns = of(started, Think)
        while turns and not core.over and len(log) < 200:
            now += 100
            effects = core.receive(BotMove(turns[0].seat, turns[0].prompt), now)
            turns = turns[1:]
            if of(effects, Write):
                batch, done = written(core, effects, now)
                log += batch
                turns += of(done, Think)
        entries.append(log)
    assert entries[0] and entries[0] == entries[1]
    assert all(e.get("bot") == "random" for e in entries[0] if "seat" in e)


def test_bot_seats_are_never_given_a_grace_nor_marked_away():
    core = new_core(bots={"bob": "greedy"}, away_grace_ms=5000)
    started = core.start(NOW)
    assert [e.input for e in of(started, Later)] == [AwayDue("alice")]
    assert core.receive(AwayDue("bob"), NOW + 10_000) == []
    assert "bob" not in core.state.get("away", [])


def test_with_when_away_bot_the_greedy_bot_plays_a_seat_while_it_is_away_and_stops_when_it_is_back():
    core = new_core(when_away="bot", away_grace_ms=5000)
    core.start(NOW)
    alice = Peer("alice")
    core.receive(Join(alice, None, Reply()), NOW)
    assert core.bot_level("bob") is None
    play_until_bobs_turn(core, NOW + 1)
    prompt = open_prompt(core, "bob")
    away = core.receive(AwayDue("bob"), NOW + 5000)  # bob never came: marked away
    (entry,), done = written(core, away, NOW + 5001)
    assert entry["away"] == "bob" and core.bot_level("bob") == "greedy"
    assert of(done, Think) == [Think("bob", prompt)]  # its open prompt is the bot's now
    # bob is back before the bot's turn: the prompt is his again
    bob = Peer("bob")
    back = core.receive(Join(bob, None, Reply()), NOW + 5100)
    written(core, back, NOW + 5101)
    assert core.bot_level("bob") is None
    assert core.receive(BotMove("bob", prompt), NOW + 5700) == []
    # and when he leaves for good again, the bot takes his next prompt
    core.receive(Leave(bob), NOW + 6000)
    (entry,), done = written(core, core.receive(AwayDue("bob"), NOW + 11_000), NOW + 11_001)
    assert entry["away"] == "bob" and of(done, Think)


def test_without_when_away_bot_an_away_seat_is_played_by_nobody():
    core = new_core(when_away="nothing", away_grace_ms=5000)
    core.start(NOW)
    play_until_bobs_turn(core, NOW)
    _, done = written(core, core.receive(AwayDue("bob"), NOW + 5000), NOW + 5001)
    assert "bob" in core.state["away"] and not of(done, Think) and core.bot_level("bob") is None


def test_a_bot_answer_whose_write_failed_is_tried_again_later():
    core = new_core(bots={"bob": "greedy"})
    core.start(NOW)
    play_until_bobs_turn(core, NOW)
    prompt = open_prompt(core, "bob")
    core.receive(BotMove("bob", prompt), NOW + 10)
    failed = core.receive(WriteFailed(StoreUnavailable("down")), NOW + 11)
    assert [e.input for e in of(failed, Later)] == [BotMove("bob", prompt)]


@pytest.mark.parametrize("ruleset, seats", [("spellfire", ["a", "b", "c"]), ("hourglass", ["a", "b"]),
                                            ("demigod", ["a", "b"])])
def test_bots_play_every_seat_of_a_match_to_its_end(ruleset, seats):
    """Every ruleset: bots alone finish a match, each answer legal and from its seat's view."""
    core = new_core(bots={seat: "greedy" for seat in seats},
                    ruleset=ruleset, seats=seats, clock={"prompt_ms": None, "bank_ms": 0, "window_min_ms": 300})
    turns = of(core.start(NOW), Think)
    now, answers = NOW, 0
    while turns and not core.over:
        assert answers < 5000, "the bots never finished"
        now += 310  # past any window's minimum hold
        later = []
        for turn in turns:
            for effect in core.receive(BotMove(turn.seat, turn.prompt), now):
                if isinstance(effect, Later):  # a window held open its minimum time: the turn comes again
                    later.append(Think(effect.input.seat, effect.input.prompt))
                elif isinstance(effect, Write):
                    answers += len(effect.entries)
                    later += of(core.receive(WriteDone(), now), Think)
        turns = later
    assert core.over and answers > 0
