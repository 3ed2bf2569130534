"""The shipped card set: big enough, and every word of the card vocabulary in use.

The vocabulary is read from the loader's own tables (battlehall/engine/spellfire/cards.py),
so a keyword added there without a shipped card that uses it, or without a line in
docs/cards.md, fails here.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from battlehall.engine.spellfire import cards
from battlehall.engine.spellfire.cards import shipped

CARDS = list(shipped().cards.values())
DOC = (Path(__file__).resolve().parents[2] / "docs" / "cards.md").read_text(encoding="utf-8")


def test_at_least_150_original_cards():
    assert len(CARDS) >= 150
    assert len({c["name"] for c in CARDS}) == len(CARDS)  # no two cards share a name
    assert all(c["text"].strip() for c in CARDS)


@pytest.mark.parametrize("power", sorted(cards.FLAGS))
def test_every_flag_power_is_documented_and_used(power):
    assert f"`{power}`" in DOC
    assert [c["id"] for c in CARDS if power in c["powers"]]


@pytest.mark.parametrize("hook", sorted(cards.HOOKS))
def test_every_hook_is_documented_and_used(hook):
    assert f"`{hook}`" in DOC
    assert [c["id"] for c in CARDS if c["hook"] == hook]


@pytest.mark.parametrize("field", sorted(cards.FIELDS))
def test_every_field_is_documented_and_used(field):
    assert f"`{field}`" in DOC
    assert [c["id"] for c in CARDS if c[field] not in (None, 0, [], "")], field


@pytest.mark.parametrize("words,field", [(cards.TYPES, "type"), (cards.CLASSES, "class"),
                                         (cards.WORLDS, "world"), (cards.SPELL_CLASSES, "spell_class")])
def test_every_type_class_world_and_spell_class_is_used(words, field):
    assert sorted({c[field] for c in CARDS if c[field] is not None}) == sorted(words)
    for word in words:
        assert f"`{word}`" in DOC


def test_the_keywords_of_the_first_set_are_each_used_by_several_cards():
    """Each flag power and hook the starter set uses is on at least two of its cards (to
    be seen in play and in several decks, not as a single curiosity); the tests above
    check that every keyword is used by some shipped card."""
    starter = [shipped().cards[i] for s in shipped().sets if s["id"] == "starter" for i in s["cards"]]
    words = {p: 0 for c in starter for p in c["powers"]} | {c["hook"]: 0 for c in starter if c["hook"]}
    for c in starter:
        for p in c["powers"] + ([c["hook"]] if c["hook"] else []):
            words[p] += 1
    assert {w: n for w, n in words.items() if n < 2} == {}


def test_every_deck_is_55_cards_of_the_set():
    for deck in shipped().decks.values():
        assert len(deck["cards"]) == 55, deck["id"]


@pytest.mark.parametrize("decks", [["tempests", "hollows"], ["hollows", "tempests"],
                                   ["tempests", "hollows", "embers", "shadows", "tides", "barrows"]])
def test_the_new_decks_play_to_an_end(decks):
    """Random play with the decks of the new cards: matches end, battles are fought and
    new cards are played."""
    import random

    from battlehall.engine import get_ruleset
    from battlehall.engine.ruleset import random_answer
    from rulesets import seats

    rs = get_ruleset("spellfire")
    new = set(shipped().decks["tempests"]["cards"]) | set(shipped().decks["hollows"]["cards"])
    played = set()
    for seed in range(3):
        rnd = random.Random(seed)
        state, _ = rs.start(seats(len(decks)), seed, {"decks": decks, "turn_limit": 60})
        while state["result"] is None:
            prompt = rnd.choice(state["prompts"])
            option, args = random_answer(rnd, prompt)
            for e in rs.answer(state, prompt["seat"], prompt["id"], option, args):
                if e["kind"] in ("card_played", "champion_chosen", "realm_played", "card_attached"):
                    played.add(e["data"]["def"])
    assert len(played & new) >= 20
