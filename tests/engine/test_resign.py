"""Resign and away (`Ruleset.resign`, `Ruleset.set_away`): the same contract for every
ruleset at every seat count (tests/rulesets.py), checked in random play.

- a resign at any moment (a turn, a battle, a window) leaves a match that still runs to
  its end under the property tests' invariants (test_properties.check_step: the
  redaction audit included, so resigning reveals nothing hidden);
- a resigned seat is never prompted again, and ranks below every seat that did not
  resign, the last to resign highest;
- with two seats left, a resign ends the match at once, the other seat winning;
- `apply_entry` re-runs `{"resign": seat}`, `{"away": seat}` and `{"back": seat}`: the
  same seed and log give the same events, byte for byte, and the same state;
- away changes nothing but the `away` list, which every view shows.

What is checked follows the declaration (ruleset.py, `Declaration`): a ruleset that
declares simultaneous moves is also resigned from in the middle of a window (several
prompts open); one that declares hidden information has its secrets checked in every
event and view around the resign.
"""

from __future__ import annotations

import random

import msgpack
import pytest
from test_declarations import configurations
from test_properties import check_step

from battlehall.engine import get_ruleset, ruleset_names
from battlehall.engine.errors import BadSeat, MatchOver
from battlehall.engine.ruleset import apply_entry, random_answer, seat_status
from rulesets import case_ids, cases
from rulesets import seats as seat_names

MAX_ENTRIES = 100_000


def playing(state):
    return [s for s in state["seats"] if s not in state.get("resigned", [])]


def run(rs, seats, seed, rnd, when, full=True):
    """A random match in which `when(state, rnd)` names a seat to resign (or None) before
    each answer. Checks the invariants at every step; returns the state, the events and
    the log (entries as apply_entry takes them)."""
    state, events = rs.start(seats, seed)
    check_step(rs, state, events, full)
    log, entries = list(events), []
    for _ in range(MAX_ENTRIES):
        if state["result"] is not None:
            return state, log, entries
        seat = when(state, rnd)
        if seat is not None:
            entry = {"resign": seat}
            events = rs.resign(state, seat)
            assert events[[e["kind"] for e in events].index("seat_resigned")]["data"] == {"seat": seat}
        elif rnd.random() < 0.1:
            entry = {"timeout": True, "prompt": rnd.choice(state["prompts"])["id"]}
            events = apply_entry(rs, state, entry)
        else:
            prompt = rnd.choice(state["prompts"])
            option, args = random_answer(rnd, prompt)
            entry = {"seat": prompt["seat"], "prompt": prompt["id"], "option": option, "args": args}
            events = apply_entry(rs, state, entry)
        entries.append(entry)
        check_step(rs, state, events, full)
        check_resigned(rs, state, events)
        log += events
    raise AssertionError(f"{rs.name} seed {seed}: no end after {MAX_ENTRIES} entries")


def check_resigned(rs, state, events):
    """A resigned seat has no prompt and gets none; every view shows who left."""
    resigned = state.get("resigned", [])
    assert not [p for p in state["prompts"] if p["seat"] in resigned]
    for event in events:  # a seat that resigned (in this step too) may see its prompts close, never open
        if event["kind"] == "prompt":
            assert event["data"]["seat"] not in resigned, event
    status = seat_status(state)
    for viewer in state["seats"] + [None]:
        view = rs.view(state, viewer)
        assert view["resigned"] == status["resigned"] and view["away"] == status["away"]
    if state["result"] is not None and resigned:
        result = state["result"]
        assert result["ranking"][-len(resigned):] == [[s] for s in reversed(resigned)], result
        assert not set(result["winners"]) & set(resigned), result


def resign_at_random(quitting, rate):
    """Resign the seats of `quitting` one by one, each at a random step (`rate`: the
    chance at each step; a low one reaches late in long matches)."""
    def when(state, rnd):
        if quitting and rnd.random() < rate:
            return quitting.pop()
        return None
    return when


@pytest.mark.parametrize(("name", "n"), cases(), ids=case_ids())
def test_a_resign_at_any_moment_leaves_a_match_that_runs_to_its_end(name, n):
    rs = get_ruleset(name)
    seats = seat_names(n)
    reasons = {}
    for seed in range(40 if n == 2 else 15):
        rnd = random.Random(seed)
        quitting = rnd.sample(seats, rnd.randint(1, n - 1))
        state, log, entries = run(rs, seats, seed, rnd, resign_at_random(list(quitting), rnd.choice([0.2, 0.03, 0.005])), full=seed % 5 == 0)
        assert log[-1]["kind"] == "match_ended" and log[-1]["data"] == state["result"]
        reasons[state["result"]["reason"]] = reasons.get(state["result"]["reason"], 0) + 1
        if seed % 5 == 0:
            again, relog = rerun(rs, seats, seed, entries)
            assert again == state and msgpack.packb(relog) == msgpack.packb(log)
    assert reasons.get("resigned", 0) > 0  # some matches were resigned down to one side
    if n > 2:
        assert set(reasons) - {"resigned"}  # and in some, the others played on to the end


def rerun(rs, seats, seed, entries):
    state, events = rs.start(seats, seed)
    log = list(events)
    for entry in entries:
        log += apply_entry(rs, state, msgpack.unpackb(msgpack.packb(entry)))  # as stored
    return state, log


def mid_window(state, rnd):
    """While several prompts are open (a window, a round chosen at once), a seat that has
    one of them resigns."""
    if len(state["prompts"]) > 1 and len(playing(state)) > 1 and not state.get("resigned"):
        return rnd.choice(state["prompts"])["seat"]
    return None


@pytest.mark.parametrize("name", [n for n in ruleset_names() if get_ruleset(n).declaration.moves == "simultaneous"])
def test_a_resign_in_the_middle_of_a_window(name):
    """Declared simultaneous: random play, at some seat count or with some option
    (test_declarations.configurations), reaches moments with several prompts open; a
    seat with one of them resigns there, and the match goes on (or ends) correctly."""
    rs = get_ruleset(name)
    hit = 0
    for n, options in configurations(rs):
        seats = seat_names(n)
        for seed in range(8):
            rnd = random.Random(seed)
            state, events = rs.start(seats, seed, options)
            while state["result"] is None and not state.get("resigned"):
                seat = mid_window(state, rnd)
                if seat is not None:
                    open_before = [p["id"] for p in state["prompts"] if p["seat"] == seat]
                    events = rs.resign(state, seat)
                    closed = [e["data"]["id"] for e in events if e["kind"] == "prompt_closed"]
                    assert set(open_before) <= set(closed)
                    hit += 1
                else:
                    prompt = rnd.choice(state["prompts"])
                    events = rs.answer(state, prompt["seat"], prompt["id"], *random_answer(rnd, prompt))
                # In full at the resign (random play before it is test_properties' own)
                check_step(rs, state, events, full=seat is not None)
                check_resigned(rs, state, events)
            while state["result"] is None:
                prompt = rnd.choice(state["prompts"])
                events = rs.answer(state, prompt["seat"], prompt["id"], *random_answer(rnd, prompt))
                check_step(rs, state, events, full=False)
                check_resigned(rs, state, events)
    assert hit > 0, f"{name} declares simultaneous moves, but random play never had several prompts open"


@pytest.mark.parametrize("name", [n for n in ruleset_names() if get_ruleset(n).min_seats == 2])
def test_with_two_seats_a_resign_ends_the_match_and_the_other_seat_wins(name):
    rs = get_ruleset(name)
    for seed in range(10):
        rnd = random.Random(seed)
        state, _ = rs.start(["alice", "bob"], seed)
        for _ in range(rnd.randrange(40)):  # anywhere from the start to the middle
            if state["result"] is not None:
                break
            prompt = rnd.choice(state["prompts"])
            rs.answer(state, prompt["seat"], prompt["id"], *random_answer(rnd, prompt))
        if state["result"] is not None:
            continue
        quitter = rnd.choice(["alice", "bob"])
        other = "bob" if quitter == "alice" else "alice"
        open_prompts = [p["id"] for p in state["prompts"]]
        events = rs.resign(state, quitter)
        assert [e["kind"] for e in events] == ["prompt_closed"] * len(open_prompts) + ["seat_resigned", "match_ended"]
        assert [e["data"]["id"] for e in events[:-2]] == open_prompts
        assert all(e["data"]["reason"] == "cancelled" for e in events[:-2])
        assert state["result"] == events[-1]["data"] == {
            "winners": [other], "ranking": [[other], [quitter]], "draw": False, "reason": "resigned", "winner": other}
        assert state["prompts"] == [] and state["resigned"] == [quitter]
        with pytest.raises(MatchOver):
            rs.resign(state, other)


@pytest.mark.parametrize(("name", "n"), [c for c in cases() if c[1] > 2], ids=[i for c, i in zip(cases(), case_ids()) if c[1] > 2])
def test_with_more_seats_the_others_play_on_and_the_resigned_seat_is_never_asked_again(name, n):
    rs = get_ruleset(name)
    seats = seat_names(n)
    played_on = 0
    for seed in range(10):
        rnd = random.Random(seed)
        state, _ = rs.start(seats, seed)
        for _ in range(rnd.randrange(60)):
            if state["result"] is not None:
                break
            prompt = rnd.choice(state["prompts"])
            rs.answer(state, prompt["seat"], prompt["id"], *random_answer(rnd, prompt))
        if state["result"] is not None:
            continue
        quitter = rnd.choice(seats)
        events = rs.resign(state, quitter)
        if state["result"] is None:
            played_on += 1
        seen = list(events)
        while state["result"] is None:
            assert all(p["seat"] != quitter for p in state["prompts"])
            prompt = rnd.choice(state["prompts"])
            seen += rs.answer(state, prompt["seat"], prompt["id"], *random_answer(rnd, prompt))
        assert not [e for e in seen if e["kind"] == "prompt" and e["data"]["seat"] == quitter]
        assert state["result"]["ranking"][-1] == [quitter] and quitter not in state["result"]["winners"]
    assert played_on > 0


@pytest.mark.parametrize("name", ruleset_names())
def test_resign_refuses_a_name_that_is_no_seat_or_has_resigned_and_changes_nothing(name):
    rs = get_ruleset(name)
    seats = seat_names(rs.max_seats)
    state, _ = rs.start(seats, 3)
    before = msgpack.packb(state)
    with pytest.raises(BadSeat):
        rs.resign(state, "mallory")
    with pytest.raises(BadSeat):
        rs.set_away(state, "mallory", True)
    assert msgpack.packb(state) == before
    if len(seats) > 2:
        rs.resign(state, seats[0])
        after = msgpack.packb(state)
        with pytest.raises(BadSeat):
            rs.resign(state, seats[0])
        assert msgpack.packb(state) == after


@pytest.mark.parametrize(("name", "n"), cases(), ids=case_ids())
def test_away_and_back_are_told_to_everyone_and_change_nothing_else(name, n):
    rs = get_ruleset(name)
    seats = seat_names(n)
    state, _ = rs.start(seats, 5)
    plain, _ = rs.start(seats, 5)
    events = rs.set_away(state, seats[-1], True) + rs.set_away(state, seats[0], True)
    assert events == [{"kind": "seat_away", "data": {"seat": seats[-1]}}, {"kind": "seat_away", "data": {"seat": seats[0]}}]
    assert rs.set_away(state, seats[0], True) == []  # already away: nothing changes, nothing is told
    assert state["away"] == [seats[0], seats[-1]]  # seat order
    for viewer in seats + [None]:
        assert rs.view(state, viewer) == {**rs.view(plain, viewer), "away": [seats[0], seats[-1]]}
        assert [rs.redact(e, viewer) for e in events] == events  # public
    assert {k: v for k, v in state.items() if k != "away"} == plain
    assert rs.set_away(state, seats[-1], False) == [{"kind": "seat_back", "data": {"seat": seats[-1]}}]
    assert rs.view(state, None)["away"] == [seats[0]]
    # prompts, answers and the end go on as without it
    rnd = random.Random(5)
    while state["result"] is None:
        prompt = rnd.choice(state["prompts"])
        answer = random_answer(rnd, prompt)
        assert rs.answer(state, prompt["seat"], prompt["id"], *answer) == rs.answer(
            plain, prompt["seat"], prompt["id"], *answer)
    assert state["result"] == plain["result"]
    with pytest.raises(MatchOver):
        rs.set_away(state, seats[0], False)


@pytest.mark.parametrize(("name", "n"), cases(), ids=case_ids())
def test_the_log_re_runs_resigns_and_away_marks_the_same_way(name, n):
    """Determinism: the same seed and log (answers, timeouts, resigns, away and back)
    give the same events and state, through apply_entry, as many times as it is run."""
    rs = get_ruleset(name)
    seats = seat_names(n)
    for seed in range(3):
        rnd = random.Random(100 + seed)
        state, events = rs.start(seats, seed)
        log, entries = list(events), []
        quitting = rnd.sample(seats, n - 1)
        while state["result"] is None:
            r = rnd.random()
            if r < 0.02 and quitting:
                entry = {"resign": quitting.pop()}
            elif r < 0.06:
                entry = {"away" if rnd.random() < 0.5 else "back": rnd.choice(seats)}
            else:
                prompt = rnd.choice(state["prompts"])
                option, args = random_answer(rnd, prompt)
                entry = {"seat": prompt["seat"], "prompt": prompt["id"], "option": option, "args": args}
            entry["at"] = 1000 + len(entries)  # the server's clock: no part of the rules
            log += apply_entry(rs, state, entry)
            entries.append(entry)
        for _ in range(2):
            again, relog = rerun(rs, seats, seed, entries)
            assert again == state and msgpack.packb(relog) == msgpack.packb(log)
