"""Every bot level of every ruleset answers legally to the end of a match, from what its
seat sees; the levels are what `bot_for` names."""

from __future__ import annotations

import random

import pytest

from battlehall.bots import LEVELS, RandomBot, Seen, bot_for
from battlehall.bots.arena import play
from battlehall.engine import get_ruleset, ruleset_names


def test_every_level_is_what_it_says():
    for level in LEVELS:
        assert bot_for("duel", level).level == level


def test_an_unknown_level_or_ruleset_is_named():
    with pytest.raises(KeyError, match="clever"):
        bot_for("duel", "clever")
    with pytest.raises(KeyError, match="chess"):
        bot_for("chess", "greedy")


@pytest.mark.parametrize("name", ruleset_names())
def test_random_bots_play_every_ruleset_to_its_end(name):
    ruleset = get_ruleset(name)
    for seats in sorted({ruleset.min_seats, ruleset.max_seats}):
        names = [f"s{i}" for i in range(seats)]
        played = play(name, {s: RandomBot() for s in names}, seed=11)
        assert played.result is not None, f"{name} with {seats} seats did not end"
        assert sum(played.chosen.values()) == played.answers > 0


@pytest.mark.parametrize("name", ruleset_names())
def test_every_ruleset_has_every_level_and_its_greedy_bot_plays_to_the_end(name):
    """The server offers every level for every ruleset (POST /matches `bots`, when_away
    "bot"): a registered ruleset without a greedy bot fails here."""
    ruleset = get_ruleset(name)
    for level in LEVELS:
        assert bot_for(name, level).level == level
    names = [f"s{i}" for i in range(ruleset.min_seats)]
    played = play(name, {s: bot_for(name, "greedy") for s in names}, seed=3)
    assert played.result is not None and played.answers > 0


def test_the_same_generator_gives_the_same_answers():
    ruleset = get_ruleset("spellfire")
    state, _ = ruleset.start(["a", "b"], 5)
    prompt = ruleset.prompts(state)[0]
    seen = Seen("spellfire", prompt["seat"], ruleset.view(state, prompt["seat"]), ruleset.definitions(state))
    first = [RandomBot().choose(seen, prompt, random.Random(3)) for _ in range(5)]
    assert len(set(map(repr, first))) == 1


def test_greedy_duel_beats_random():
    wins = 0
    for seed in range(100):
        greedy, other = ("a", "b") if seed % 2 else ("b", "a")
        bots = {"a": None, "b": None}
        bots[greedy], bots[other] = bot_for("duel", "greedy"), RandomBot()
        wins += play("duel", bots, seed).result["winner"] == greedy
    assert wins >= 80, wins
