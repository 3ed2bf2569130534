"""Range (Chapter 4, "Range" and "Tactical Range Examples"): one test per sentence, with the
blocked, clear and corner cases of each kind."""

from __future__ import annotations

from demigod_kit import attack, defend, kinds, start, targets, unit

from battlehall.engine.demigod import grid
from battlehall.engine.demigod.data import cards, check_card


def test_melee_adjacent_spaces_including_diagonals():
    """'Melee: Adjacent spaces (including diagonals).' All eight, and nothing two squares away."""
    ring = [[2, 2], [3, 2], [4, 2], [2, 3], [4, 3], [2, 4], [3, 4], [4, 4]]
    far = [[5, 3], [3, 5], [1, 1]]
    units = [unit("hero", "alice", [3, 3])] + [unit(f"e{i}", "bob", sq) for i, sq in enumerate(ring + far)]
    state, _ = start(units, hands={"alice": ["Strike"]})
    assert sorted(targets(state, "hero", "Strike")) == sorted(ring)


def test_melee_ignores_what_stands_around():
    """Adjacent is adjacent: terrain on every other side does not stop a diagonal melee."""
    state, _ = start([unit("hero", "alice", [3, 3]), unit("foe", "bob", [4, 4])],
                     terrain=[[4, 3], [3, 4]], hands={"alice": ["Strike"]})
    assert targets(state, "hero", "Strike") == [[4, 4]]


def test_battle_cards_are_melee_by_default():
    """'Note: Battle Cards are Melee by default.'"""
    assert check_card({"name": "X", "type": "battle", "av": 3, "dv": 3}, "t")["range"] == "melee"
    assert all(c["range"] == "melee" for c in cards().values() if c["type"] == "battle")


def test_los_clear_straight_and_diagonal_lines():
    """'Line of Sight (LOS): A clear straight or diagonal line.' Row, column and diagonal, any distance."""
    foes = [[7, 3], [3, 7], [6, 6], [0, 6]]
    units = [unit("god", "alice", [3, 3], kind="demigod")] + [unit(f"e{i}", "bob", sq) for i, sq in enumerate(foes)]
    state, _ = start(units, hands={"alice": ["Firebolt"]}, size=(8, 8))
    assert sorted(targets(state, "god", "Firebolt")) == sorted(foes)


def test_los_not_a_line_at_other_angles_by_default():
    """'A clear straight or diagonal line': a knight's offset is neither, so no LOS (option los "lines")."""
    state, _ = start([unit("god", "alice", [3, 3], kind="demigod"), unit("foe", "bob", [5, 4])],
                     hands={"alice": ["Firebolt"]})
    assert targets(state, "god", "Firebolt") == []


def test_los_blocked_by_terrain_objects():
    """'Blocked by Terrain Objects ...'"""
    state, _ = start([unit("god", "alice", [1, 3], kind="demigod"), unit("foe", "bob", [5, 3])],
                     terrain=[[3, 3]], hands={"alice": ["Firebolt"]})
    assert targets(state, "god", "Firebolt") == []
    assert not grid.line_of_sight(state, [1, 3], [5, 3])


def test_los_blocked_by_other_characters_friend_or_foe():
    """'... or other characters.' A friend in the way blocks as much as an enemy."""
    state, _ = start([unit("god", "alice", [1, 3], kind="demigod"), unit("pal", "alice", [2, 3]),
                      unit("foe", "bob", [5, 3]), unit("foe2", "bob", [1, 5]), unit("foe3", "bob", [1, 6])],
                     hands={"alice": ["Firebolt"]})
    assert targets(state, "god", "Firebolt") == [[1, 5]]  # foe2 is in the clear; foe3 stands behind it


def test_los_corners_do_not_block():
    """'Note: Corners do not block LOS.' A diagonal between two blocked squares only touches
    their corners: it is clear."""
    state, _ = start([unit("god", "alice", [2, 2], kind="demigod"), unit("foe", "bob", [4, 4])],
                     terrain=[[3, 2], [2, 3], [4, 3], [3, 4]], hands={"alice": ["Firebolt"]})
    assert grid.crossed([2, 2], [4, 4]) == [[3, 3]]
    assert targets(state, "god", "Firebolt") == [[4, 4]]


def test_los_a_diagonal_is_blocked_on_it_not_beside_it():
    state, _ = start([unit("god", "alice", [2, 2], kind="demigod"), unit("foe", "bob", [4, 4])],
                     terrain=[[3, 3]], hands={"alice": ["Firebolt"]})
    assert targets(state, "god", "Firebolt") == []


def test_los_any_angle_crosses_interiors_only():
    """With option los "any": the centre-to-centre line from [0,0] to [2,6] passes through the
    corner point shared by [0,1], [1,1], [0,2] and [1,2]: it crosses [0,1] and [1,2] (their
    interiors), and only touches [1,1] and [0,2], which therefore do not block."""
    assert grid.crossed([0, 0], [2, 6]) == [[0, 1], [1, 2], [1, 3], [1, 4], [2, 5]]
    clear, _ = start([unit("god", "alice", [0, 0], kind="demigod"), unit("foe", "bob", [2, 6])],
                     terrain=[[1, 1], [0, 2]], hands={"alice": ["Firebolt"]}, options={"los": "any"})
    assert [2, 6] in targets(clear, "god", "Firebolt")
    blocked, _ = start([unit("god", "alice", [0, 0], kind="demigod"), unit("foe", "bob", [2, 6])],
                       terrain=[[1, 3]], hands={"alice": ["Firebolt"]}, options={"los": "any"})
    assert [2, 6] not in targets(blocked, "god", "Firebolt")


def test_los_any_angle_knight_offset_crosses_both_middle_squares():
    """[0,0] to [2,1] crosses [1,0] and [1,1] (the line meets their shared edge mid-way)."""
    assert grid.crossed([0, 0], [2, 1]) == [[1, 0], [1, 1]]


def test_los_reach_limits_distance():
    """Toxic Dart reaches 5 squares: a LOS card may also have a reach."""
    state, _ = start([unit("god", "alice", [0, 3], kind="demigod"), unit("near", "bob", [5, 3]), unit("far", "bob", [6, 2])],
                     hands={"alice": ["Toxic Dart"]}, size=(8, 8))
    assert targets(state, "god", "Toxic Dart") == [[5, 3]]


def test_perception_ignores_distance_and_obstructions():
    """'Perception Range: Any space on the battlefield; ignores distance and obstructions.'
    Walled in on every side and behind a unit, the target is still in range."""
    walls = [[5, 4], [6, 4], [7, 4], [5, 5], [7, 5], [5, 6], [6, 6], [7, 6]]
    state, _ = start([unit("god", "alice", [0, 0], kind="demigod"), unit("pal", "alice", [1, 1]),
                      unit("foe", "bob", [6, 5])], terrain=walls, hands={"alice": ["Mind Spike"]})
    assert [6, 5] in targets(state, "god", "Mind Spike")


def test_self_only_affects_the_caster():
    """'Self: Only affects the caster.' The only target is the caster's own square; nobody is
    asked to defend; the effect is the caster's alone."""
    state, _ = start([unit("god", "alice", [3, 3], kind="demigod"), unit("pal", "alice", [3, 4]), unit("foe", "bob", [4, 3])],
                     hands={"alice": ["Stone Skin"]})
    assert targets(state, "god", "Stone Skin") == [[3, 3]]
    events = attack(state, "god", "Stone Skin", [3, 3])
    assert state["prompts"][0]["kind"] == "turn"  # no reaction window
    assert [e["unit"] for e in kinds(events, "effect")] == ["god"]
    assert state["units"]["pal"]["effects"] == [] and state["units"]["foe"]["effects"] == []


def test_out_of_range_attack_fails_and_card_is_discarded():
    """'Verify the target is within the required Range ... If out of range, the attack fails and
    the card is discarded.' The defender blinks out of melee before the attack resolves."""
    state, _ = start([unit("hero", "alice", [3, 3]), unit("foe", "bob", [4, 3], hp=10)],
                     hands={"alice": ["Strike"], "bob": ["Blink"]})
    cid = state["hands"]["alice"][0]
    attack(state, "hero", "Strike", [4, 3])
    events = defend(state, "react_move", "Blink", to=[6, 3])
    assert kinds(events, "attack_failed") == [{"unit": "hero", "card": cid, "reason": "out_of_range",
                                               "name": "Strike", "seat": "alice"}]
    assert state["units"]["foe"]["hp"] == 10 and state["units"]["foe"]["pos"] == [6, 3]
    assert cid in state["discard"]["alice"] and cid not in state["hands"]["alice"]


def test_only_legal_declarations_are_offered():
    """Out of range from the start, a target is not offered at all (the prompt lists every legal target)."""
    state, _ = start([unit("hero", "alice", [1, 1]), unit("foe", "bob", [5, 5])], hands={"alice": ["Strike"]})
    assert targets(state, "hero", "Strike") == []
