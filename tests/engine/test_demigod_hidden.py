"""What each viewer of a demigod match may see: hands private, decks hidden, a card public
once played."""

from __future__ import annotations

import json

from demigod_kit import RS, attack, defend, start, unit


def test_hands_and_decks_are_hidden_until_played():
    state, events = RS.start(["alice", "bob"], 7)
    alice_hand, bob_hand = list(state["hands"]["alice"]), list(state["hands"]["bob"])
    assert len(alice_hand) == 6 and len(bob_hand) == 5  # alice has drawn for her first turn
    for viewer, own, other in (("alice", alice_hand, bob_hand), ("bob", bob_hand, alice_hand), (None, [], alice_hand + bob_hand)):
        seen = json.dumps([RS.redact(e, viewer) for e in events] + [RS.view(state, viewer)])
        assert all(f'"{c}"' in seen for c in own)
        assert not any(f'"{c}"' in seen for c in other + state["decks"]["alice"] + state["decks"]["bob"])
        assert state["rng"]["key"] not in seen
        assert sorted(RS.secrets(state, viewer)) == sorted(other + state["decks"]["alice"] + state["decks"]["bob"]
                                                            + [state["rng"]["key"]])


def test_a_card_played_in_defence_is_public():
    state, _ = start([unit("hero", "alice", [3, 3]), unit("foe", "bob", [4, 3])],
                     hands={"alice": ["Strike"], "bob": ["Guard", "Parry"]})
    guard = [c for c in state["hands"]["bob"] if state["cards"][c] == "Guard"][0]
    assert guard in RS.secrets(state, "alice")
    attack(state, "hero", "Strike", [4, 3])
    events = defend(state, "defend", "Guard")
    assert guard not in RS.secrets(state, "alice")
    assert {"id": guard, "name": "Guard"} in RS.view(state, None)["discard"]["bob"]
    assert any(e["kind"] == "defence" and e["data"]["card"] == guard for e in events)


def test_same_seed_same_deal_other_seed_other_deal():
    a, _ = RS.start(["alice", "bob"], 3)
    b, _ = RS.start(["alice", "bob"], 3)
    c, _ = RS.start(["alice", "bob"], 4)
    assert a == b and a["decks"] != c["decks"]


def test_every_shipped_map_starts_four_sides_on_free_squares():
    from battlehall.engine.demigod.data import maps

    for name in sorted(maps()):
        state, _ = RS.start(["alice", "bob", "carol", "dave"], 1, {"map": name})
        squares = [u["pos"] for u in state["units"].values()]
        assert len(squares) == 12 and len({tuple(s) for s in squares}) == 12
        assert not [s for s in squares if s in state["map"]["terrain"]]
        assert all(0 <= x < state["map"]["width"] and 0 <= y < state["map"]["height"] for x, y in squares)
