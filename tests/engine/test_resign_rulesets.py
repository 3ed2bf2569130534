"""Each multi-seat ruleset's own `leave` (docs/spellfire.md, hourglass.md, demigod.md:
"When a player resigns"): a resign in the middle of a battle, a Battle Turn, a window or
an attack keeps the ruleset's invariants, ends the fight as a loss for the side that
left, and the match plays on to its end without that seat."""

from __future__ import annotations

import random

import pytest
from test_properties import check_step
from test_resign import check_resigned

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer

SEATS = ["alice", "bob", "carol"]
FOUR = SEATS + ["dave"]


def reach(rs, seats, found, seeds=range(200), steps=3000):
    """For each seed, random play up to the first state where `found(state)` names a seat
    to resign; yields (state, that seat, rnd). Seeds where it never happens are skipped."""
    for seed in seeds:
        rnd = random.Random(seed)
        state, _ = rs.start(seats, seed)
        for _ in range(steps):
            if state["result"] is not None:
                break
            seat = found(state)
            if seat is not None:
                yield state, seat, rnd
                break
            prompt = rnd.choice(state["prompts"])
            rs.answer(state, prompt["seat"], prompt["id"], *random_answer(rnd, prompt))


def finish(rs, state, rnd, events):
    """Play the match to its end with the invariants checked; all the events."""
    seen = list(events)
    check_step(rs, state, events)
    check_resigned(rs, state, events)
    while state["result"] is not None or state["prompts"]:
        if state["result"] is not None:
            break
        prompt = rnd.choice(state["prompts"])
        events = rs.answer(state, prompt["seat"], prompt["id"], *random_answer(rnd, prompt))
        check_step(rs, state, events, full=False)
        check_resigned(rs, state, events)
        seen += events
    return seen


def kinds(events):
    return [e["kind"] for e in events]


# -- spellfire --------------------------------------------------------------------------

SPELLFIRE = get_ruleset("spellfire")


def in_battle(step, who):
    def found(state):
        b = state["battle"]
        if b is None or b["step"] not in step or not state["prompts"]:
            return None
        return who(state, b)
    return found


FIGHTING = ("defender", "before_battle", "play", "respond", "play_at_once")


@pytest.mark.parametrize("seats", [SEATS, FOUR], ids=["3", "4"])
def test_spellfire_an_attacker_that_resigns_loses_the_battle_and_its_turn_ends(seats):
    cases = 0
    for state, seat, rnd in reach(SPELLFIRE, seats, in_battle(FIGHTING, lambda s, b: b["attacker"])):
        defender = state["battle"]["defender"]
        events = SPELLFIRE.resign(state, seat)
        ended = [e["data"] for e in events if e["kind"] == "round_ended"]
        assert ended and ended[0]["how"] == "resigned" and ended[0]["winner_seat"] == defender
        assert "battle_ended" in kinds(events) and state["battle"] is None
        if state["spoils"] is None:  # the defender's spoils, when it drew any, come first
            assert state["turn"]["seat"] != seat
        finish(SPELLFIRE, state, rnd, events)
        cases += 1
        if cases == 8:
            break
    assert cases >= 4


@pytest.mark.parametrize("seats", [SEATS, FOUR], ids=["3", "4"])
def test_spellfire_a_defender_that_resigns_loses_its_realm_and_the_attacker_plays_on(seats):
    cases = 0
    for state, seat, rnd in reach(SPELLFIRE, seats, in_battle(FIGHTING, lambda s, b: b["defender"])):
        attacker, slot = state["battle"]["attacker"], state["battle"]["slot"]
        events = SPELLFIRE.resign(state, seat)
        assert [e["data"]["how"] for e in events if e["kind"] == "realm_razed"] == ["resigned"]
        assert state["players"][seat]["formation"][slot]["razed"]
        assert state["battle"] is None and state["turn"]["seat"] == attacker
        later = finish(SPELLFIRE, state, rnd, events)
        # its realms are never offered as a target again
        realms = [f["realm"] for f in state["players"][seat]["formation"].values() if f is not None]
        for e in later:
            if e["kind"] == "prompt" and e["data"]["kind"] == "choose_realm":
                assert not set(o["id"] for o in e["private"][e["data"]["seat"]]["options"]) & set(realms)
        assert not [e for e in later if e["kind"] == "battle_started" and e["data"]["defender"] == seat]
        cases += 1
        if cases == 8:
            break
    assert cases >= 4


def test_spellfire_a_seat_outside_the_battle_that_resigns_in_a_window_leaves_it_to_the_others():
    def outsider(state, b):
        asked = [p["seat"] for p in state["prompts"] if p["kind"] == "respond"]
        return next((s for s in asked if s not in (b["attacker"], b["defender"])), None)

    cases = 0
    for state, seat, rnd in reach(SPELLFIRE, SEATS, in_battle(("respond",), outsider)):
        battle = dict(state["battle"])
        events = SPELLFIRE.resign(state, seat)
        assert "round_ended" not in kinds(events) or state["battle"] is None or state["battle"]["round"] > battle["round"]
        assert all(p["seat"] != seat for p in state["prompts"])
        later = finish(SPELLFIRE, state, rnd, events)
        assert not [e for e in later if e["kind"] == "prompt" and e["data"]["seat"] == seat]
        assert not [e for e in later if e["kind"] == "turn_started" and e["data"]["seat"] == seat]
        cases += 1
        if cases == 5:
            break
    assert cases >= 2


def test_spellfire_a_seat_that_resigns_in_its_own_turn_ends_it_and_never_plays_again():
    def own_turn(state):
        if state["battle"] is None and state["spoils"] is None and state["turn"]["number"] > 3:
            return state["turn"]["seat"]
        return None

    cases = 0
    for state, seat, rnd in reach(SPELLFIRE, SEATS, own_turn, seeds=range(6)):
        hand = list(state["players"][seat]["hand"])
        events = SPELLFIRE.resign(state, seat)
        assert "turn_ended" in kinds(events) and state["turn"]["seat"] != seat
        later = finish(SPELLFIRE, state, rnd, events)
        assert not [e for e in later if e["kind"] == "turn_started" and e["data"]["seat"] == seat]
        assert state["players"][seat]["hand"] == hand  # its hand stays where it was, unseen
        cases += 1
    assert cases == 6


# -- hourglass --------------------------------------------------------------------------

HOURGLASS = get_ruleset("hourglass")


def in_turn(phases, who):
    def found(state):
        if state["turn"] is None or state["phase"] not in phases:
            return None
        return who(state, state["turn"])
    return found


def test_hourglass_an_attacker_that_resigns_calls_its_battle_turn_off():
    cases = 0
    attacker = in_turn(("targets", "defend", "attack_card"), lambda s, t: t["attacker"] if t["attacker"] in s["seats"] else None)
    for state, seat, rnd in reach(HOURGLASS, SEATS, attacker):
        tile = state["current"]
        events = HOURGLASS.resign(state, seat)
        assert "turn_called_off" in kinds(events)
        assert all(k["owner"] != seat for b in state["battles"] if not b["done"] for k in b["knights"])
        assert all(seat not in b["top"] for b in state["battles"] if b["tile"] == tile)
        assert state["turn"] is None or state["turn"]["attacker"] != seat
        finish(HOURGLASS, state, rnd, events)
        cases += 1
        if cases == 10:
            break
    assert cases >= 5


def test_hourglass_a_defender_that_resigns_leaves_the_battle_turn_to_the_others():
    cases = 0
    def defender(state, t):  # one that has placed its card, every other time
        seats = [d for d in t["defenders"] if d in state["seats"]]
        placed = [d for d in seats if t["placed"].get(d) is not None]
        return (placed or seats or [None])[0] if len(state["prompts"]) % 2 or placed else None

    placed_some = 0
    for state, seat, rnd in reach(HOURGLASS, SEATS, in_turn(("defend", "attack_card"), defender)):
        placed = state["turn"]["placed"].get(seat)
        events = HOURGLASS.resign(state, seat)
        left = [e["data"] for e in events if e["kind"] == "defender_left"]
        assert left and left[0]["side"] == seat
        knights = [k["id"] for b in state["battles"] for k in b["knights"]]
        assert all(t in knights for t in left[0]["targets"].values())
        if placed is not None:  # a card it placed goes to its discard pile, still face down
            placed_some += 1
            assert state["discards"][seat][-1] == placed
            for viewer in [s for s in SEATS if s != seat] + [None]:
                assert placed not in str([HOURGLASS.redact(e, viewer) for e in events])
        finish(HOURGLASS, state, rnd, events)
        cases += 1
        if cases == 10:
            break
    assert cases >= 5 and placed_some > 0


def test_hourglass_a_player_that_resigns_while_alliances_are_offered_is_in_none():
    cases = 0
    for state, seat, rnd in reach(HOURGLASS, FOUR, lambda s: s["prompts"][-1]["seat"] if s["phase"] == "alliances" else None):
        events = HOURGLASS.resign(state, seat)
        formed = [e["data"] for e in events if e["kind"] == "alliances_formed"]
        assert all(seat not in pair for f in formed for pair in f["alliances"])
        finish(HOURGLASS, state, rnd, events)
        cases += 1
        if cases == 10:
            break
    assert cases >= 5


# -- demigod ----------------------------------------------------------------------------

DEMIGOD = get_ruleset("demigod")


def test_demigod_a_side_that_resigns_in_its_own_attack_fails_it_and_the_turn_passes():
    cases = 0
    for state, seat, rnd in reach(DEMIGOD, SEATS, lambda s: s["turn"]["seat"] if s.get("pending") else None):
        events = DEMIGOD.resign(state, seat)
        failed = [e["data"] for e in events if e["kind"] == "attack_failed"]
        assert failed and failed[0]["reason"] == "resigned"
        assert state["result"] is not None or state["turn"]["seat"] != seat
        assert all(u["side"] != seat for u in state["units"].values()) and seat in state["out"]
        finish(DEMIGOD, state, rnd, events)
        cases += 1
        if cases == 10:
            break
    assert cases >= 5


def test_demigod_a_targeted_side_that_resigns_in_its_reaction_window_is_no_target_any_more():
    cases = 0
    for state, seat, rnd in reach(DEMIGOD, SEATS, lambda s: s["prompts"][0]["seat"] if s.get("pending") else None):
        hand = list(state["hands"][seat])
        events = DEMIGOD.resign(state, seat)
        pending = state.get("pending")
        assert pending is None or not [u for u in pending["targets"]
                                       if u not in pending["defences"] and u not in state["units"]]
        out = [e["data"] for e in events if e["kind"] == "side_out"]
        assert out == [{"seat": seat, "out": state["out"][:len(out[0]["out"])], "discarded": []}]
        assert state["hands"][seat] == hand  # unlike a fallen side's, its hand is not shown
        finish(DEMIGOD, state, rnd, events)
        cases += 1
        if cases == 10:
            break
    assert cases >= 5
