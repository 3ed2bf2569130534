"""The engine contract every ruleset shares (ruleset.py): dependent arguments (`combos`),
sides that are not seats, results, and what replays reveal.

`Market` is a small ruleset written here as the example docs/writing-a-ruleset.md
points to: a seat places one card of its hand and discards a *different* one (the two
arguments depend on each other), then the bandits (a side no seat plays) take a card
from the market by the match's own generator.
"""

from __future__ import annotations

import random

import pytest

from battlehall.engine.errors import BadArgs, NotASeat
from battlehall.engine.rng import below, seed_state
from battlehall.engine.ruleset import (
    Declaration,
    Ruleset,
    base_state,
    default_answer,
    make_result,
    random_answer,
    with_combos,
)


class Market(Ruleset):
    name = "market"
    declaration = Declaration(information="perfect", moves="sequential", chance="seeded", min_seats=1, max_seats=4)

    def new_state(self, seats, seed, options, setup):
        state = base_state(seats)
        state.update(rng=seed_state(seed), hands={s: ["c1", "c2", "c3"] for s in seats}, market=[], stolen=[])
        self._ask(state, seats[0])
        return state, [{"kind": "match_started", "data": {"seats": seats}}]

    def _ask(self, state, seat):
        hand = state["hands"][seat]
        # one combo per placed card: it goes with every *other* card as the discard
        combos = [{"place": [c], "discard": [d for d in hand if d != c]} for c in hand]
        options = [with_combos({"id": "trade", "text": "Place one card, discard another"}, combos)]
        state["prompts"] = [self.new_prompt(state, seat, "trade", "Trade", options, "trade")]

    def apply(self, state, prompt, option, args):
        seat = prompt["seat"]
        for card in (args["place"], args["discard"]):
            state["hands"][seat].remove(card)
        state["market"].append(args["place"])
        events = [{"kind": "traded", "data": {"seat": seat, **args}}]
        # the bandits are not a seat: they decide here, with the match's generator
        taken = state["market"].pop(below(state, len(state["market"])))
        state["stolen"].append(taken)
        events.append({"kind": "bandits_took", "data": {"card": taken}})
        later = [s for s in state["seats"] if len(state["hands"][s]) >= 2]
        if not later:
            state["result"] = make_result("done", [list(state["seats"])])
            state["prompts"] = []
            return events + [{"kind": "match_ended", "data": state["result"]}]
        self._ask(state, later[0])
        return events

    def view(self, state, viewer):
        return {"market": state["market"], "stolen": state["stolen"]}


def test_combos_list_every_legal_answer_and_only_those():
    rs = Market()
    state, _ = rs.start(["alice"], 1)
    prompt = state["prompts"][0]
    option = prompt["options"][0]
    # clients that read only `args` see every value of each argument, the default first
    assert option["args"] == {"place": ["c1", "c2", "c3"], "discard": ["c2", "c3", "c1"]}
    assert default_answer(prompt) == ("trade", {"discard": "c2", "place": "c1"})
    with pytest.raises(BadArgs, match="combination"):
        rs.answer(state, "alice", prompt["id"], "trade", {"place": "c2", "discard": "c2"})
    before = repr(state)
    with pytest.raises(BadArgs):
        rs.answer(state, "alice", prompt["id"], "trade", {"place": "c9", "discard": "c2"})
    assert repr(state) == before  # refused answers change nothing
    rs.answer(state, "alice", prompt["id"], "trade", {"place": "c3", "discard": "c1"})
    assert state["market"] == [] and state["stolen"] == ["c3"]


def test_random_answer_draws_every_legal_combination_and_nothing_else():
    rs = Market()
    state, _ = rs.start(["alice"], 1)
    prompt = state["prompts"][0]
    rng = random.Random(3)
    seen = {}
    for _ in range(3000):
        option, args = random_answer(rng, prompt)
        rs.check(state, "alice", prompt["id"], option, args)
        key = (args["place"], args["discard"])
        seen[key] = seen.get(key, 0) + 1
    assert sorted(seen) == [(p, d) for p in ("c1", "c2", "c3") for d in ("c1", "c2", "c3") if p != d]
    assert min(seen.values()) > 350  # each of the six about equally likely


def test_with_combos_refuses_combos_that_do_not_name_every_argument():
    with pytest.raises(ValueError):
        with_combos({"id": "x", "text": "x"}, [{"a": [1]}, {"b": [2]}])
    with pytest.raises(ValueError):
        with_combos({"id": "x", "text": "x"}, [{"a": []}])


def test_sides_that_are_not_seats_are_never_prompted():
    rs = Market()
    state, _ = rs.start(["alice", "bob"], 7)
    before = repr(state)
    with pytest.raises(NotASeat, match="bandits"):
        rs.new_prompt(state, "bandits", "trade", "Trade", [{"id": "x", "text": "x"}], "x")
    assert repr(state) == before
    # their decisions come from the match's generator: the same seed, the same thefts
    runs = []
    for _ in range(2):
        state, _ = rs.start(["alice", "bob"], 7)
        while state["result"] is None:
            prompt = state["prompts"][0]
            option, args = default_answer(prompt)
            rs.answer(state, prompt["seat"], prompt["id"], option, args)
        runs.append(state["stolen"])
    assert runs[0] == runs[1] and len(runs[0]) == 2


def test_results_have_one_shape():
    assert make_result("knockout", [["alice"], ["bob"]]) == {
        "winners": ["alice"], "ranking": [["alice"], ["bob"]], "draw": False, "reason": "knockout",
        "winner": "alice"}
    draw = make_result("turn_limit", [["alice", "bob"], ["carol"]], realms={"alice": 1})
    assert draw["winners"] == [] and draw["draw"] and draw["winner"] is None and draw["realms"] == {"alice": 1}
    alliance = make_result("alliance", [["alice", "carol"], ["bob"]], winners=["alice", "carol"])
    assert alliance["winners"] == ["alice", "carol"] and not alliance["draw"] and alliance["winner"] is None


def test_reveal_keeps_each_seats_private_part_apart():
    event = {"kind": "dealt", "data": {"count": 2},
             "private": {"alice": {"cards": ["c1", "c2"]}, "bob": {"cards": ["c3", "c4"]}}}
    shown = Ruleset().reveal(event)
    assert shown == {"kind": "dealt", "data": {"count": 2},
                     "private": {"alice": {"cards": ["c1", "c2"]}, "bob": {"cards": ["c3", "c4"]}}}
    assert Ruleset().reveal({"kind": "k", "data": {"a": 1}}) == {"kind": "k", "data": {"a": 1}}


@pytest.mark.parametrize("seats", [[], ["a", "b", "c", "d", "e"]])
def test_seat_counts_outside_the_rulesets_range_are_refused(seats):
    """The base class enforces min_seats..max_seats (1 to 4 for Market) for every ruleset."""
    from battlehall.engine.errors import SetupError

    with pytest.raises(SetupError) as err:
        Market().start(seats, 1)
    assert err.value.path == "seats"


def test_any_non_negative_seed_however_large():
    from battlehall.engine import get_ruleset
    from battlehall.engine.rng import seed_state

    states = [seed_state(s) for s in (0, 5, 2**64 - 1, 2**64, 2**64 + 1, 2**65, 7 + 2**200, 7 + 2**201)]
    keys = [state["key"] for state in states]
    assert len(set(keys)) == len(keys)  # every bit of the seed counts
    assert all(len(k) == 64 and state["n"] == 0 for k, state in zip(keys, states))  # 256-bit keys, plain data
    rs = get_ruleset("spellfire")
    first, _ = rs.start(["alice", "bob"], 3 + 2**70)
    again, _ = rs.start(["alice", "bob"], 3 + 2**70)
    other, _ = rs.start(["alice", "bob"], 3 + 2**71)
    assert first == again
    assert first["players"] != other["players"]  # the bits above 64 count


def test_a_ruleset_must_declare_what_it_is():
    with pytest.raises(TypeError, match="declaration"):
        class Undeclared(Ruleset):
            name = "undeclared"


def test_hidden_information_without_secrets_is_refused_when_the_class_is_defined():
    """The redaction audit checks what `secrets` names: a hidden-information ruleset that
    forgot to override it would pass the audit having checked nothing."""
    hidden = Declaration(information="hidden", moves="sequential", chance="seeded", min_seats=2, max_seats=2)
    with pytest.raises(TypeError, match="hidden information but does not override secrets"):
        class Forgetful(Market):
            declaration = hidden

    class Careful(Market):
        declaration = hidden

        def secrets(self, state, viewer):
            return [c for s in state["seats"] if s != viewer for c in state["hands"][s]]

    assert Careful().describe()["declaration"] == {"information": "hidden", "moves": "sequential", "chance": "seeded"}


def test_perfect_information_with_secrets_is_refused():
    with pytest.raises(TypeError, match="perfect information but overrides secrets"):
        class Contradictory(Market):
            def secrets(self, state, viewer):
                return ["c1"]


@pytest.mark.parametrize(("field", "value"), [("information", "partial"), ("moves", "turns"), ("chance", "dice"),
                                              ("min_seats", 0), ("max_seats", 0)])
def test_a_declaration_names_only_known_kinds_and_a_seat_range(field, value):
    fields = {"information": "perfect", "moves": "sequential", "chance": "none", "min_seats": 1, "max_seats": 2}
    with pytest.raises(ValueError, match="declaration"):
        Declaration(**{**fields, field: value})


def test_the_seat_range_is_the_declarations():
    rs = Market()
    assert (rs.min_seats, rs.max_seats) == (1, 4)
    assert rs.describe()["seats"] == {"min": 1, "max": 4}
