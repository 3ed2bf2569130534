"""Inline cards in a demigod setup (`setup.cards`): defined, checked like the shipped set,
played like any card; and what they make testable, the order of Step 6's triggers."""

from __future__ import annotations

import pytest
from demigod_kit import RS, attack, defend, kinds, prompt, start, unit

from battlehall.engine.errors import SetupError

MAUL = {"name": "Thunder Maul", "type": "battle", "av": 5, "dv": 1, "push": 1, "draw": 1, "poison": 3,
        "effect": {"title": "Dazed", "stat": "dv", "value": -1, "turns": 2}, "text": "Everything at once."}
WARD = {"name": "Mirror Ward", "type": "reaction", "dv": 3, "barrier": 2}


def test_an_inline_card_is_dealt_shown_and_played_like_a_shipped_one():
    state, events = start([unit("hero", "alice", [3, 3]), unit("foe", "bob", [4, 3], hp=20)], cards=[MAUL, WARD],
                          hands={"alice": ["Thunder Maul"], "bob": ["Mirror Ward", "Parry"]})
    shown = {c["name"]: c for c in RS.view(state, None)["custom_cards"]}
    assert sorted(shown) == ["Mirror Ward", "Thunder Maul"]
    assert shown["Thunder Maul"]["push"] == 1 and shown["Thunder Maul"]["range"] == "melee"  # defaults filled in
    assert shown["Mirror Ward"]["av"] is None and shown["Mirror Ward"]["area"] == 0
    assert [c["name"] for c in events[0]["data"]["custom_cards"]] == ["Thunder Maul", "Mirror Ward"]
    attack(state, "hero", "Thunder Maul", [4, 3])
    window = prompt(state, "defend")
    assert [state["cards"][c] for c in next(o for o in window["options"] if o["id"] == "react")["args"]["card"]] == \
        ["Mirror Ward", "Parry"]
    result = kinds(defend(state, "react", "Mirror Ward"), "attack_result")[0]
    assert result["av"] == 5 and result["dv"] == 3 and result["taken"]["barrier"] == 2


def test_step6_triggers_resolve_in_the_texts_order_push_draw_status():
    """'Step 6: Resolve After-Attack Effects: Resolve triggers like pushing, drawing cards, or
    status application.' One card with all three: the target is pushed, then the attacker's
    side draws, then Poison and the card's effect land."""
    state, _ = start([unit("hero", "alice", [3, 3]), unit("foe", "bob", [4, 3], hp=20)], cards=[MAUL],
                     hands={"alice": ["Thunder Maul"]}, decks={"alice": ["Guard"]})
    attack(state, "hero", "Thunder Maul", [4, 3])
    events = defend(state)
    order = [e["kind"] for e in events if e["kind"] in ("attack_result", "pushed", "drew", "ticks", "effect")]
    assert order == ["attack_result", "pushed", "drew", "ticks", "effect"]
    foe = state["units"]["foe"]
    assert foe["pos"] == [5, 3] and foe["poison"] == 3 and [e["title"] for e in foe["effects"]] == ["Dazed"]


def test_a_setup_without_cards_still_reads_and_older_states_without_defs_still_play():
    state, _ = start([unit("hero", "alice", [3, 3]), unit("foe", "bob", [4, 3])], hands={"alice": ["Strike"]})
    assert RS.view(state, "alice")["custom_cards"] == []
    del state["defs"]  # a snapshot from before inline cards
    attack(state, "hero", "Strike", [4, 3])
    assert kinds(defend(state), "attack_result")[0]["av"] == 4


def base(**more):
    setup = {"units": [{"id": "a", "side": "alice", "kind": "demigod", "pos": [0, 0]},
                       {"id": "b", "side": "bob", "kind": "demigod", "pos": [1, 1]}]}
    setup.update(more)
    return setup


@pytest.mark.parametrize(("setup", "path"), [
    (base(cards="x"), "setup.cards"),
    (base(cards=[MAUL] * 101), "setup.cards"),
    (base(cards=["x"]), "setup.cards[0]"),
    (base(cards=[{**MAUL, "colour": "red"}]), "setup.cards[0].colour"),
    (base(cards=[{**MAUL, "name": ""}]), "setup.cards[0].name"),
    (base(cards=[{**MAUL, "name": "x" * 81}]), "setup.cards[0].name"),
    (base(cards=[{**MAUL, "name": "Strike"}]), "setup.cards[0].name"),  # a shipped card's name
    (base(cards=[WARD, {**MAUL, "name": "Mirror Ward"}]), "setup.cards[1].name"),  # an earlier inline card's
    (base(cards=[{**MAUL, "type": "trap"}]), "setup.cards[0].type"),
    (base(cards=[{**MAUL, "text": 5}]), "setup.cards[0].text"),
    (base(cards=[{**MAUL, "range": "los"}]), "setup.cards[0].range"),  # battle cards are melee
    (base(cards=[{**MAUL, "av": 51}]), "setup.cards[0].av"),
    (base(cards=[{**MAUL, "push": True}]), "setup.cards[0].push"),
    (base(cards=[{**MAUL, "push": -1}]), "setup.cards[0].push"),
    (base(cards=[{**MAUL, "area": 11}]), "setup.cards[0].area"),
    (base(cards=[{**MAUL, "effect": {"title": "X", "stat": "hp", "value": 1, "turns": 1}}]), "setup.cards[0].effect"),
    (base(cards=[{**MAUL, "effect": {"title": "X", "stat": "dv", "value": 1, "turns": 0}}]), "setup.cards[0].effect"),
    (base(cards=[{**MAUL, "damage": 2}]), "setup.cards[0].damage"),  # only reactions
    (base(cards=[{"name": "Dud", "type": "battle", "av": 3}]), "setup.cards[0].av"),
    (base(cards=[{"name": "Dud", "type": "reaction"}]), "setup.cards[0].dv"),
    (base(cards=[{"name": "Dud", "type": "spell", "range": "self", "av": 2}]), "setup.cards[0].av"),
    (base(cards=[{"name": "Dud", "type": "spell", "range": "los"}]), "setup.cards[0].av"),
    (base(cards=[MAUL], hands={"alice": ["Thunder Maul", "Nope"]}), "setup.hands.alice[1]"),
    (base(cards=[MAUL], decks={"bob": [7]}), "setup.decks.bob[0]"),
    ({"units": [{"id": "c7", "side": "alice", "kind": "demigod", "pos": [0, 0]}]}, "setup.units[0].id"),
    ({"units": [{"id": "4,3", "side": "alice", "kind": "demigod", "pos": [0, 0]}]}, "setup.units[0].id"),
])
def test_a_bad_inline_card_names_its_path(setup, path):
    with pytest.raises(SetupError) as err:
        RS.start(["alice", "bob"], 1, None, setup)
    assert err.value.path == path, err.value
