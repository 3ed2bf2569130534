"""`duel` with simultaneous moves: two prompts open at once, each move hidden until both are in."""

from __future__ import annotations

import random

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer

duel = get_ruleset("duel")


def start(seed=1, hp=20):
    return duel.start(["a", "b"], seed, {"simultaneous": True, "hp": hp})


def test_both_seats_are_prompted_at_once():
    state, events = start()
    assert [p["seat"] for p in state["prompts"]] == ["a", "b"]
    assert [e["data"]["seat"] for e in events if e["kind"] == "prompt"] == ["a", "b"]


def test_a_move_is_hidden_until_both_are_in():
    state, _ = start()
    first, second = state["prompts"]
    events = duel.answer(state, "a", first["id"], "guard")
    assert [e["kind"] for e in events] == ["prompt_closed"]
    assert duel.view(state, "b")["my_move"] is None and duel.view(state, None)["my_move"] is None
    assert duel.view(state, "a")["my_move"] == "guard"
    events = duel.answer(state, "b", second["id"], "strike")
    kinds = [e["kind"] for e in events]
    assert kinds[:3] == ["prompt_closed", "revealed", "strike"]
    strike = events[2]["data"]
    assert strike["seat"] == "b" and strike["damage"] == strike["roll"] - 1  # a's guard counted first
    assert duel.view(state, "b")["my_move"] is None  # a new round


def test_random_matches_end_and_replay_byte_for_byte():
    for seed in range(40):
        rng = random.Random(seed)
        state, events = start(seed, hp=5)
        answers = []
        for _ in range(500):
            if state["result"] is not None:
                break
            prompt = rng.choice(state["prompts"])
            option, args = random_answer(rng, prompt)
            answers.append((prompt["seat"], prompt["id"], option))
            events += duel.answer(state, prompt["seat"], prompt["id"], option, args)
        assert state["result"] is not None
        assert events[-1]["kind"] == "match_ended"
        again, replayed = start(seed, hp=5)
        for seat, prompt_id, option in answers:
            replayed += duel.answer(again, seat, prompt_id, option)
        assert replayed == events and again == state


def test_double_knockout_is_a_draw():
    state, _ = start(hp=1)  # every unguarded strike does at least 1
    a, b = state["prompts"]
    duel.answer(state, "a", a["id"], "strike")
    duel.answer(state, "b", b["id"], "strike")
    assert state["result"] == {"winners": [], "ranking": [["a", "b"]], "draw": True,
                               "reason": "double knockout", "winner": None}
