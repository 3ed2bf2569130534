"""Hourglass's greedy bot: it answers legally to the end, beats random bots clearly, takes
a battle when it can, and answers from what its seat sees alone."""

from __future__ import annotations

import copy
import random

import pytest

from battlehall.bots import RandomBot, Seen, bot_for
from battlehall.bots.arena import play
from battlehall.bots.hourglass import HourglassBot
from battlehall.engine import get_ruleset

RS = get_ruleset("hourglass")
PLAIN = {"health": 5, "defense": 0, "dodge": 4, "damage": 3, "precision": 4, "delay": 2}


def greedy_against_random(seats: int, seed: int) -> tuple[str, dict]:
    """The greedy seat (turn by turn each seat, by the seed) and the bots of one match."""
    names = [f"s{i}" for i in range(seats)]
    greedy = names[seed % seats]
    return greedy, {s: HourglassBot() if s == greedy else RandomBot() for s in names}


def test_the_greedy_hourglass_bot_is_registered():
    assert isinstance(bot_for("hourglass", "greedy"), HourglassBot)
    assert HourglassBot.level == "greedy"


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_greedy_plays_legally_to_the_end(seats):
    # The arena applies each answer through the ruleset's own check: an illegal one raises.
    for seed in range(4):
        played = play("hourglass", {f"s{i}": HourglassBot() for i in range(seats)}, seed)
        assert played.result is not None and played.result["reason"] == "battles_resolved"
        greedy, bots = greedy_against_random(seats, seed)
        played = play("hourglass", bots, seed)
        assert played.result is not None and played.chosen[greedy] > 0


@pytest.mark.parametrize("options", [{"bandits": 0}, {"knights": 1, "bandits": 4}, {"knights": 4},
                                     {"alliances": False, "bandit_priority": "first"},
                                     {"battle_turn_limit": 3}])
def test_greedy_plays_legally_with_every_option(options):
    for seats in (2, 4):
        played = play("hourglass", {f"s{i}": HourglassBot() for i in range(seats)}, 7, options=options)
        assert played.result is not None


def test_greedy_beats_random_two_seats():
    # Measured: 400 of 400 such matches won; the bar leaves room for a bad streak.
    wins = 0
    for seed in range(60):
        greedy, bots = greedy_against_random(2, seed)
        wins += play("hourglass", bots, seed).result["winner"] == greedy
    assert wins >= 54, wins


def test_greedy_beats_three_random_bots():
    # One seat in four would win by chance; measured: 394 of 400 won.
    wins = 0
    for seed in range(40):
        greedy, bots = greedy_against_random(4, seed)
        wins += play("hourglass", bots, seed).result["winner"] == greedy
    assert wins >= 30, wins


# -- Chosen positions: one battle on "ford" in progress, alice to attack --------------

def ford(knights: dict, hands: dict, cards: list) -> tuple[dict, dict]:
    """alice attacks bob at the ford; the state and alice's `targets` prompt."""
    setup = {"battles": [{"tile": "ford", "knights": knights, "top": {"alice": 0, "bob": 3},
                          "bottom": {"alice": 0, "bob": 0}}],
             "current": "ford", "attributes": {"alice": PLAIN, "bob": PLAIN, "bandits": PLAIN},
             "cards": cards, "hands": hands, "bandit_deck": []}
    state, _ = RS.start(["alice", "bob"], 1, None, setup)
    return state, RS.prompts(state)[0]


def answer(state: dict, prompt: dict):
    seat = prompt["seat"]
    seen = Seen("hourglass", seat, copy.deepcopy(RS.view(state, seat)), RS.definitions(state))
    return HourglassBot().choose(seen, copy.deepcopy(prompt), random.Random(0))


def test_greedy_sends_back_a_knight_and_wounds_another_rather_than_striking_twice():
    # A Precision equal to the Dodge goes to alice (first in the Tie Breaker): each blow
    # adds 3 wounds. Two blows on bob's wounded Knight would waste the second.
    cards = [{"id": "plain"}]
    state, prompt = ford({"alice": 2, "bob": [0, 3]}, {"alice": ["plain"], "bob": ["plain"]}, cards)
    assert prompt["kind"] == "targets"
    option, args = answer(state, prompt)
    assert option == "assign"
    assert sorted(args.values()) == ["bob-1@ford", "bob-2@ford"]


def test_greedy_takes_the_battle_over_a_quicker_next_turn():
    # Only the heavy card sends bob's last Knight back (the battle won); the quick one
    # would bring alice's next attack sooner, and there would be none.
    cards = [{"id": "plain"}, {"id": "heavy", "damage": 5, "delay": 3}, {"id": "quick", "delay": -2}]
    state, prompt = ford({"alice": 1, "bob": [0]}, {"alice": ["quick", "heavy", "plain"], "bob": ["plain"]}, cards)
    RS.answer(state, "alice", prompt["id"], "assign", {"alice-1@ford": "bob-1@ford"})
    RS.answer(state, "bob", RS.prompts(state)[0]["id"], "place", {"card": state["hands"]["bob"][0]})
    prompt = RS.prompts(state)[0]
    assert prompt["kind"] == "attack_card"
    option, args = answer(state, prompt)
    assert state["cards"][args["card"]] == "heavy"
    RS.answer(state, "alice", prompt["id"], option, args)
    assert [b["done"] for b in state["battles"]] == [True]


def test_greedy_defends_with_the_card_that_keeps_its_knight():
    # bob's Knight has 3 wounds: alice's next blow (3) would send it back unless bob
    # places the guard.
    cards = [{"id": "plain"}, {"id": "guard", "defense": 5}, {"id": "lunge", "damage": 2}]
    state, prompt = ford({"alice": 1, "bob": [3]}, {"alice": ["plain"], "bob": ["lunge", "plain", "guard"]}, cards)
    RS.answer(state, "alice", prompt["id"], "assign", {"alice-1@ford": "bob-1@ford"})
    prompt = RS.prompts(state)[0]
    assert (prompt["seat"], prompt["kind"]) == ("bob", "defend")
    _, args = answer(state, prompt)
    assert state["cards"][args["card"]] == "guard"


# -- What the seat cannot see changes nothing ---------------------------------------

def hide_differently(state: dict, seat: str, rng: random.Random) -> dict:
    """The same position for `seat`'s eyes: the other players' cards and the Bandit deck
    dealt otherwise (kinds swapped between instances it cannot see)."""
    other = copy.deepcopy(state)
    hidden = [c for c in other["cards"] if not c.startswith(seat + "#")]
    kinds = [other["cards"][c] for c in hidden]
    rng.shuffle(kinds)
    for card, kind in zip(hidden, kinds):
        other["cards"][card] = kind
    rng.shuffle(other["bandit_deck"])
    return other


def test_the_answer_does_not_depend_on_what_the_seat_cannot_see():
    rng = random.Random(5)
    checked = differed = 0
    for seed in range(3):
        state, _ = RS.start(["a", "b", "c"], seed, None)
        bots = {"a": HourglassBot(), "b": RandomBot(), "c": RandomBot()}
        while state["result"] is None:
            prompt = min(RS.prompts(state), key=lambda p: int(p["id"][1:]))
            seat = prompt["seat"]
            seen = Seen("hourglass", seat, copy.deepcopy(RS.view(state, seat)), RS.definitions(state))
            chosen = bots[seat].choose(seen, copy.deepcopy(prompt), rng)
            if seat == "a":
                other = hide_differently(state, "a", rng)
                differed += other["cards"] != state["cards"]
                assert RS.view(other, "a") == RS.view(state, "a")
                again = Seen("hourglass", "a", copy.deepcopy(RS.view(other, "a")), RS.definitions(other))
                assert HourglassBot().choose(again, copy.deepcopy(prompt), random.Random(99)) == chosen
                checked += 1
            RS.answer(state, seat, prompt["id"], *chosen)
    assert checked > 50 and differed > checked // 2
