"""Attack, tests 1 to 6, each exactly at, just below and just above its threshold, with
the Tie Breaker both ways; and the Tie Breaker itself (NOTES.md), alliances included."""

from __future__ import annotations

import pytest
from hourglass_kit import kinds, play_turn, position, start

from battlehall.engine.hourglass import rules

A, B = "alice-1@ford", "bob-1@ford"


def outcome(precision, dodge, favoured, damage=4, defense=0):
    return rules.attack(precision, dodge, damage, defense, favoured)


# 1. "If the Attacker's Precision is less than half of their target's Dodge (rounded down),
#    the attack is a Miss and inflicts no damage."

@pytest.mark.parametrize("favoured", [True, False])
def test_attack_1_miss_below_half_dodge(favoured):
    assert outcome(3, 9, favoured) == {"outcome": "miss", "damage": 0, "wounds": 0, "tie": False}  # 3 < 9 // 2 = 4


def test_attack_1_miss_at_half_dodge_is_a_tie():
    assert outcome(4, 9, favoured=False)["outcome"] == "miss"  # the tie goes to the target: a Miss
    graze = outcome(4, 9, favoured=True)  # to the attacker: not a Miss, and 4 < 9 is a Graze
    assert graze["outcome"] == "graze" and graze["tie"]


def test_attack_1_half_dodge_is_rounded_down():
    assert outcome(4, 8, favoured=False)["outcome"] == "miss"  # 8 // 2 = 4: tie
    assert outcome(4, 7, favoured=False)["outcome"] == "graze"  # 7 // 2 = 3 < 4


@pytest.mark.parametrize("favoured", [True, False])
def test_attack_1_above_half_dodge_is_no_miss(favoured):
    assert outcome(5, 9, favoured)["outcome"] == "graze"


# 2. "Otherwise, if the Attacker's Precision is less than the target's Dodge, the attack is a
#    Graze and only half of the Attacker's Damage value will be considered (rounded up)."

@pytest.mark.parametrize("favoured", [True, False])
def test_attack_2_graze_below_dodge(favoured):
    assert outcome(5, 6, favoured, damage=4) == {"outcome": "graze", "damage": 2, "wounds": 2, "tie": False}


def test_attack_2_graze_odd_damage_is_rounded_up():
    assert outcome(5, 6, True, damage=5)["damage"] == 3
    assert outcome(5, 6, True, damage=1)["damage"] == 1
    assert outcome(5, 6, True, damage=0)["damage"] == 0


def test_attack_2_graze_at_dodge_is_a_tie():
    assert outcome(6, 6, favoured=False)["outcome"] == "graze"
    hit = outcome(6, 6, favoured=True)  # not a Graze; not above twice the Dodge; a plain hit
    assert hit["outcome"] == "hit" and hit["damage"] == 4 and hit["tie"]


@pytest.mark.parametrize("favoured", [True, False])
def test_attack_2_above_dodge_is_no_graze(favoured):
    assert outcome(7, 6, favoured)["outcome"] == "hit"


# 3. "Otherwise, if the Attacker's Precision is more than twice the target's Dodge, the attack
#    is a Critical Hit and the Attacker's Damage value is doubled for this attack."

@pytest.mark.parametrize("favoured", [True, False])
def test_attack_3_critical_above_twice_dodge(favoured):
    assert outcome(7, 3, favoured, damage=4) == {"outcome": "critical", "damage": 8, "wounds": 8, "tie": False}


def test_attack_3_critical_at_twice_dodge_is_a_tie():
    critical = outcome(6, 3, favoured=True)
    assert critical["outcome"] == "critical" and critical["damage"] == 8 and critical["tie"]
    assert outcome(6, 3, favoured=False)["outcome"] == "hit"


@pytest.mark.parametrize("favoured", [True, False])
def test_attack_3_below_twice_dodge_is_no_critical(favoured):
    assert outcome(5, 3, favoured)["outcome"] == "hit"


def test_attack_3_zero_dodge_every_test_ties():
    assert outcome(0, 0, favoured=False)["outcome"] == "miss"  # 0 vs 0 // 2: the target's tie
    assert outcome(0, 0, favoured=True)["outcome"] == "critical"  # the attacker's, down to test 3


# 4. "Otherwise, if the Attacker's Precision is more than the target's Dodge, the attack
#    simply takes the Attacker's Damage value into account."

@pytest.mark.parametrize("favoured", [True, False])
def test_attack_4_hit_between_dodge_and_twice_dodge(favoured):
    assert outcome(5, 4, favoured, damage=3) == {"outcome": "hit", "damage": 3, "wounds": 3, "tie": False}
    assert outcome(8, 4, True, damage=3)["outcome"] == "critical"  # 8 = twice 4: the attacker's tie


# 5. "The number of Wound to add to the target corresponds to the resulting Attacker's Damage
#    minus the target's Defense attribute. If this is negative, no Wound are added, but none
#    are removed, either."

def test_attack_5_wounds_are_damage_minus_defense():
    assert rules.wounds_added(5, 2) == 3
    assert rules.wounds_added(5, 4) == 1
    assert rules.wounds_added(5, 5) == 0
    assert outcome(7, 3, True, damage=4, defense=3)["wounds"] == 5  # doubled first, then Defense


def test_attack_5_defense_above_damage_adds_and_removes_nothing():
    assert rules.wounds_added(2, 6) == 0
    state, _ = start(position(attributes={"bob": {"defense": 9}}, knights={"alice": 1, "bob": [2]}))
    events = play_turn(state, {A: B}, {"bob": "plain"})
    attack = kinds(events, "attack")[0]
    assert attack["outcome"] == "hit" and attack["wounds_added"] == 0 and attack["wounds"] == 2


# 6. "If the number of Wound on a Knight or Bandit is equal or more than their owner's Health
#    attribute, the Knight is sent back to the owner's play area."

def test_attack_6_knocked_out_at_health():
    assert rules.knocked_out(5, 5) and rules.knocked_out(6, 5) and not rules.knocked_out(4, 5)


@pytest.mark.parametrize(("wounds", "sent_back"), [(1, False), (2, True), (3, True)])
def test_attack_6_knight_goes_back_to_its_owner(wounds, sent_back):
    # alice hits for 3 (Precision 5 > Dodge 4, not above 8); bob's Health is 5
    state, _ = start(position(attributes={"alice": {"precision": 5}}, knights={"alice": 1, "bob": [wounds]}))
    events = play_turn(state, {A: B}, {"bob": "plain"})
    assert kinds(events, "attack")[0]["wounds"] == wounds + 3
    returned = kinds(events, "knight_returned")
    assert bool(returned) == sent_back
    if sent_back:
        assert returned[0] == {"tile": "ford", "knight": B, "owner": "bob", "wounds": wounds + 3}
        ended = kinds(events, "battle_ended")[0]
        assert ended["remaining"] == ["alice"]


def test_attack_6_health_is_the_owners_not_the_attackers():
    state, _ = start(position(attributes={"alice": {"precision": 5, "health": 1}, "bob": {"health": 9}},
                              knights={"alice": 1, "bob": [5]}))
    events = play_turn(state, {A: B}, {"bob": "plain"})
    assert kinds(events, "attack")[0]["wounds"] == 8 and not kinds(events, "knight_returned")


# The Tie Breaker: "the comparison goes the way that favours whichever of attacker and target
# has the higher priority. An alliance takes the lower priority of its two members."

@pytest.mark.parametrize(("order", "outcome_", "wounds"), [
    (["alice", "bob", "bandits"], "hit", 3),     # Precision 4 = Dodge 4: alice's tie: no Graze
    (["bob", "alice", "bandits"], "graze", 2),   # bob's tie: a Graze, 3 halved rounded up
])
def test_tie_breaker_decides_an_equality_in_play(order, outcome_, wounds):
    state, _ = start(position(tie_breaker=order))
    events = play_turn(state, {A: B}, {"bob": "plain"})
    attack = kinds(events, "attack")[0]
    assert (attack["outcome"], attack["wounds_added"], attack["tie"]) == (outcome_, wounds, True)
    assert attack["tie_to"] == order[0]


def test_tie_breaker_an_alliance_takes_its_lower_priority():
    seats = ("alice", "bob", "carol")
    knights = {"alice": 1, "bob": 1, "carol": 1}
    top = {"alice": 0, "bob": 3, "carol": 3}
    alone, _ = start(position(seats=seats, knights=knights, top=top, tie_breaker=["alice", "bob", "carol", "bandits"]),
                     seats)
    allied, _ = start(position(seats=seats, knights=knights, top=top, tie_breaker=["alice", "bob", "carol", "bandits"],
                               battle={"alliances": [["alice", "carol"]]}), seats)
    hit = kinds(play_turn(alone, {A: B}, {"bob": "plain"}), "attack")[0]
    graze = kinds(play_turn(allied, {A: B}, {"bob": "plain"}), "attack")[0]
    assert hit["outcome"] == "hit" and hit["tie_to"] == "alice"
    assert graze["outcome"] == "graze" and graze["tie_to"] == "bob"  # alice+carol rank as carol, below bob


def test_tie_breaker_bandits_last_by_default():
    state, _ = start(position(knights={"alice": 1}, bandits=1, seats=("alice", "bob"),
                              top={"alice": 0, "bandits": 3}))
    assert state["priority"] == ["alice", "bob", "bandits"]
    events = play_turn(state, {A: "bandit-1@ford"}, {})
    assert kinds(events, "attack")[0]["tie_to"] == "alice"
    first, _ = start(position(knights={"alice": 1}, bandits=1, top={"alice": 0, "bandits": 3}),
                     options={"bandit_priority": "first"})
    assert first["priority"] == ["bandits", "alice", "bob"]
    assert kinds(play_turn(first, {A: "bandit-1@ford"}, {}), "attack")[0]["tie_to"] == "bandits"
