"""The Battle Turn, steps 1 to 8 and its end, and the Battlecard rules, on explicit positions."""

from __future__ import annotations

import pytest
from hourglass_kit import RS, act, card_of, kinds, play_turn, position, prompt_of, start

from battlehall.engine.errors import BadArgs
from battlehall.engine.hourglass import rules

A, B, C = "alice-1@ford", "bob-1@ford", "carol-1@ford"
THREE = ("alice", "bob", "carol")

# -- The Hourglass Board -------------------------------------------------------------


def test_start_of_battle_cubes_from_delay_rounded_up():
    """"all involved players put a number of their Player Cubes corresponding to the Delay
    Attribute of their Knight (rounded up) on the top part ... Bandit Cube are likewise added." """
    setup = {"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": 1}, "bandits": 1}],
             "attributes": {"alice": {"delay": 2.5}, "bob": {"delay": 2}, "bandits": {"delay": 0.5}}}
    state, events = RS.start(["alice", "bob"], 1, {"alliances": False}, setup)
    assert kinds(events, "cubes_placed")[0] == {"tile": "ford", "top": {"alice": 3, "bob": 2, "bandits": 1},
                                                  "bottom": {"alice": 0, "bob": 0, "bandits": 0}}
    assert rules.cubes_for(5) == 3 and rules.cubes_for(4) == 2 and rules.cubes_for(0) == 0 and rules.cubes_for(-3) == 0


def test_start_of_battle_turn_1_attacker_has_no_cube_on_top_and_fewest_on_board():
    top = {"alice": 0, "bob": 0, "carol": 2}
    bottom = {"alice": 3, "bob": 2, "carol": 0}
    state, events = start(position(seats=THREE, top=top, bottom=bottom), THREE)
    assert state["turn"]["attacker"] == "bob"  # alice has 3 on the board, bob 2; carol has cubes on top
    assert kinds(events, "battle_turn")[0]["attacker"] == "bob"


@pytest.mark.parametrize(("order", "attacker"), [(["alice", "bob", "carol", "bandits"], "alice"),
                                                 (["carol", "bob", "alice", "bandits"], "bob")])
def test_start_of_battle_turn_1_equal_cubes_go_by_the_tie_breaker(order, attacker):
    top = {"alice": 0, "bob": 0, "carol": 1}
    bottom = {"alice": 2, "bob": 2, "carol": 0}
    state, _ = start(position(seats=THREE, top=top, bottom=bottom, tie_breaker=order), THREE)
    assert state["turn"]["attacker"] == attacker


def test_start_of_battle_turn_1_restart_rule_when_nobody_qualifies():
    """"If no such player exists, restart the player turn after having the player with the
    fewest Player Cube on the top part ... move them to the bottom part and all the other
    players move the same number of their Player Cube likewise." """
    top = {"alice": 3, "bob": 2, "carol": 4}
    bottom = {"alice": 0, "bob": 1, "carol": 0}
    state, events = start(position(seats=THREE, top=top, bottom=bottom), THREE)
    turned = kinds(events, "hourglass_turned")[0]
    assert turned["first"] == "bob" and turned["moved"] == 2
    assert turned["top"] == {"alice": 1, "bob": 0, "carol": 2}
    assert turned["bottom"] == {"alice": 2, "bob": 3, "carol": 2}
    assert state["turn"]["attacker"] == "bob"


def test_start_of_battle_turn_1_restart_rule_ties_by_the_tie_breaker():
    top, bottom = {"alice": 2, "bob": 2}, {"alice": 0, "bob": 1}
    state, events = start(position(top=top, bottom=bottom, tie_breaker=["bob", "alice", "bandits"]))
    assert kinds(events, "hourglass_turned")[0]["first"] == "bob"
    # both now have none on top: alice has fewer on the board and attacks
    assert state["turn"]["attacker"] == "alice"


def test_end_of_battle_turn_1_cubes_from_bottom_replaced_by_modified_delay():
    """"The Attacker removes their Player Cube from bottom part ... and places as many ... on
    the top part as they have Delay (rounded up). Note that the Attribute is still affected
    by the Attacker's Battlecard at this point." """
    slow = {"id": "slow", "delay": 1.5, "damage": -9}
    state, _ = start(position(cards=[slow], attributes={"alice": {"delay": 2}, "bob": {"health": 50}},
                              top={"alice": 0, "bob": 5}, bottom={"alice": 4, "bob": 1},
                              hands={"alice": ["slow", "plain"], "bob": ["plain"]}))
    events = play_turn(state, {A: B}, {"bob": "plain"}, attack_card="slow", discard="plain")
    ended = kinds(events, "turn_ended")[0]
    assert ended["cubes"] == 4  # 2 + 1.5 = 3.5, rounded up
    assert ended["bottom"] == {"alice": 0, "bob": 1} and ended["top"] == {"alice": 4, "bob": 5}


# -- Steps 2 to 8 ------------------------------------------------------------------------


def test_battle_turn_2_each_knight_targets_at_most_one_enemy_never_an_ally():
    seats = ("alice", "bob", "carol")
    state, _ = start(position(seats=seats, knights={"alice": 2, "bob": 1, "carol": 1}, bandits=1,
                              top={"alice": 0, "bob": 3, "carol": 3, "bandits": 3},
                              battle={"alliances": [["alice", "carol"]]}), seats)
    prompt = prompt_of(state, "alice", "targets")
    args = prompt["options"][0]["args"]
    assert sorted(args) == ["alice-1@ford", "alice-2@ford"]
    assert args["alice-1@ford"] == [B, "bandit-1@ford", "none"]  # carol is an ally: not a target
    with pytest.raises(BadArgs):
        RS.answer(state, "alice", prompt["id"], "assign", {"alice-1@ford": C, "alice-2@ford": "none"})


def test_battle_turn_2_owners_of_targets_are_the_defenders():
    state, _ = start(position(seats=THREE, knights={"alice": 2, "bob": 1, "carol": 1}, top={"alice": 0, "bob": 3,
                                                                                            "carol": 3}), THREE)
    events = act(state, "alice", "assign", "targets", **{"alice-1@ford": C, "alice-2@ford": "none"})
    assert kinds(events, "targets_assigned")[0]["defenders"] == ["carol"]
    assert [p["seat"] for p in state["prompts"]] == ["carol"]


def test_battle_turn_3_defenders_place_face_down_all_at_once():
    state, _ = start(position(seats=THREE, knights={"alice": 2, "bob": 1, "carol": 1},
                              top={"alice": 0, "bob": 3, "carol": 3}), THREE)
    act(state, "alice", "assign", "targets", **{"alice-1@ford": B, "alice-2@ford": C})
    assert sorted((p["seat"], p["kind"]) for p in state["prompts"]) == [("bob", "defend"), ("carol", "defend")]
    events = act(state, "carol", "place", "defend", card=card_of(state, "carol", "plain-c"))
    placed = [e for e in events if e["kind"] == "card_placed"][0]
    assert placed["data"]["card"] is None and placed["private"]["carol"]["kind"] == "plain-c"
    for viewer in ("alice", "bob", None):  # nobody else learns which card
        assert RS.redact(placed, viewer)["data"]["card"] is None
        assert RS.view(state, viewer)["turn"]["placed"] == {"carol": "face_down"}
    assert RS.view(state, "carol")["turn"]["placed"] == {"carol": "plain-c"}
    assert [p["seat"] for p in state["prompts"]] == ["bob"]  # bob still chooses; the attacker waits


def test_battle_turn_4_attacker_places_face_up_and_discards_another():
    state, _ = start(position())
    act(state, "alice", "assign", "targets", **{A: B})
    act(state, "bob", "place", "defend", card=card_of(state, "bob", "plain"))
    prompt = prompt_of(state, "alice", "attack_card")
    option = prompt["options"][0]
    same = card_of(state, "alice", "plain")
    assert {"card": [same], "discard": [c for c in state["hands"]["alice"] if c != same]} in option["combos"]
    with pytest.raises(BadArgs):  # the discarded card is another one
        RS.answer(state, "alice", prompt["id"], "place", {"card": same, "discard": same})
    other = card_of(state, "alice", "plain-c")
    events = RS.answer(state, "alice", prompt["id"], "place", {"card": same, "discard": other})
    up = [e["data"] for e in events if e["kind"] == "card_placed"][0]
    assert up["face"] == "up" and up["card"] == "plain"
    discarded = [e for e in events if e["kind"] == "card_discarded"][0]
    assert discarded["private"] == {"alice": {"card": other, "kind": "plain-c", "name": "plain-c"}}
    assert "card" not in RS.redact(discarded, "bob")["data"] and "card" not in RS.redact(discarded, None)["data"]
    assert state["discards"]["alice"] == [other, same]  # the discard, then the active card at the turn's end


def test_battle_turn_4_attacker_with_one_card_discards_nothing():
    state, _ = start(position(hands={"alice": ["plain"], "bob": ["plain"]}))
    act(state, "alice", "assign", "targets", **{A: B})
    act(state, "bob", "place", "defend", card=card_of(state, "bob", "plain"))
    option = prompt_of(state, "alice", "attack_card")["options"][0]
    assert "combos" not in option and list(option["args"]) == ["card"]
    events = act(state, "alice", "place", "attack_card", card=state["hands"]["alice"][0])
    assert not kinds(events, "card_discarded")


def test_battle_turn_5_all_placed_cards_are_revealed_together():
    state, _ = start(position(seats=THREE, knights={"alice": 2, "bob": 1, "carol": 1},
                              top={"alice": 0, "bob": 3, "carol": 3}), THREE)
    events = act(state, "alice", "assign", "targets", **{"alice-1@ford": B, "alice-2@ford": C})
    events += act(state, "bob", "place", "defend", card=card_of(state, "bob", "plain-b"))
    events += act(state, "carol", "place", "defend", card=card_of(state, "carol", "plain-c"))
    assert not kinds(events, "cards_revealed")
    events = act(state, "alice", "place", "attack_card", card=card_of(state, "alice", "plain"),
                 discard=card_of(state, "alice", "plain-b"))
    revealed = kinds(events, "cards_revealed")[0]
    assert revealed["cards"] == {"bob": "plain-b", "carol": "plain-c", "alice": "plain"}
    order = [e["kind"] for e in events]
    assert order.index("cards_revealed") < order.index("attack")


def test_battle_turn_6_defensive_attributes_only_for_defenders():
    # bob's card: +4 Dodge and +1 Defense count; its +9 Damage and +9 Precision do not
    guard = {"id": "guard", "dodge": 4, "defense": 1, "damage": 9, "precision": 9}
    state, _ = start(position(cards=[guard], hands={"alice": ["plain", "plain-b"], "bob": ["guard"]},
                              attributes={"alice": {"precision": 8, "damage": 5}}))
    attack = kinds(play_turn(state, {A: B}, {"bob": "guard"}), "attack")[0]
    assert (attack["dodge"], attack["defense"]) == (8, 1)
    assert attack["outcome"] == "hit" and attack["wounds_added"] == 4  # 8 = Dodge 8: alice's tie: a hit


def test_battle_turn_6_wound_change_is_immediate_on_each_targeted_knight():
    salve = {"id": "salve", "wound": -2}
    state, _ = start(position(cards=[salve], knights={"alice": 2, "bob": [3, 1]},
                              hands={"alice": ["plain", "plain-b"], "bob": ["salve"]},
                              attributes={"alice": {"precision": 0}}))  # alice misses: only the card heals
    events = play_turn(state, {"alice-1@ford": "bob-1@ford", "alice-2@ford": "none"}, {"bob": "salve"})
    changed = kinds(events, "wounds_changed")
    # bob-2 was not targeted
    assert changed == [{"tile": "ford", "knight": "bob-1@ford", "owner": "bob", "change": -2, "wounds": 1}]
    assert [k["wounds"] for k in state["battles"][0]["knights"] if k["owner"] == "bob"] == [1, 1]
    assert rules.card_wounds(1, -2) == 0  # never below none


def test_battle_turn_6_wounds_added_by_a_card_send_a_knight_back_at_its_attack():
    reckless = {"id": "reckless", "wound": 2, "dodge": 9}
    state, _ = start(position(cards=[reckless], knights={"alice": 1, "bob": [3]},
                              hands={"alice": ["plain", "plain-b"], "bob": ["reckless"]}))
    events = play_turn(state, {A: B}, {"bob": "reckless"})
    assert kinds(events, "wounds_changed")[0]["wounds"] == 5
    assert kinds(events, "attack")[0]["outcome"] == "miss" and kinds(events, "knight_returned")[0]["knight"] == B


def test_battle_turn_7_offensive_attributes_only_for_the_attacker():
    # alice's card: +2 Damage and +4 Precision count; its +9 Defense, +9 Dodge and -5 Wound do not
    fury = {"id": "fury", "damage": 2, "precision": 4, "defense": 9, "dodge": 9, "wound": -5}
    state, _ = start(position(cards=[fury], knights={"alice": [2], "bob": 1},
                              hands={"alice": ["fury", "plain"], "bob": ["plain"]},
                              attributes={"bob": {"health": 50}}))
    events = play_turn(state, {A: B}, {"bob": "plain"}, attack_card="fury", discard="plain")
    attack = kinds(events, "attack")[0]
    assert (attack["precision"], attack["damage"], attack["outcome"]) == (8, 10, "critical")  # 8 = 2 x 4: alice's tie
    assert not kinds(events, "wounds_changed") and state["battles"][0]["knights"][0]["wounds"] == 2


def test_battle_turn_8_each_knight_attacks_once_a_gone_target_is_not_hit():
    state, _ = start(position(knights={"alice": 2, "bob": [4]}, attributes={"alice": {"precision": 5}}))
    events = play_turn(state, {"alice-1@ford": B, "alice-2@ford": B}, {"bob": "plain"})
    attacks = kinds(events, "attack")
    assert [a["knight"] for a in attacks] == ["alice-1@ford", "alice-2@ford"]
    assert attacks[0]["outcome"] == "hit" and attacks[1]["outcome"] == "gone"


def test_end_of_battle_turn_2_active_cards_to_their_owners_discards():
    state, _ = start(position(knights={"alice": 1, "bob": 1}, bandits=1, attributes={"bob": {"health": 50},
                                                                                     "bandits": {"health": 50}},
                              top={"alice": 0, "bob": 3, "bandits": 3}, bandit_deck=["plain", "plain-b"]))
    play_turn(state, {A: B}, {"bob": "plain-c"}, attack_card="plain", discard="plain-b")
    assert [state["cards"][c] for c in state["discards"]["bob"]] == ["plain-c"]
    assert [state["cards"][c] for c in state["discards"]["alice"]] == ["plain-b", "plain"]
    assert len(state["bandit_deck"]) == 2


def test_end_of_battle_turn_3_battle_over_when_one_alliance_remains():
    seats = THREE
    state, _ = start(position(seats=seats, knights={"alice": 1, "bob": [4], "carol": 1},
                              top={"alice": 0, "bob": 3, "carol": 3}, attributes={"alice": {"precision": 5}},
                              battle={"alliances": [["alice", "carol"]]}), seats)
    events = play_turn(state, {A: B}, {"bob": "plain"})
    ended = kinds(events, "battle_ended")[0]
    assert ended["remaining"] == ["alice", "carol"] and ended["reason"] == "decided"
    assert state["result"]["tiles"] == {"ford": ["alice", "carol"]}


def test_end_of_battle_wounds_discarded_hourglass_emptied():
    state, _ = start(position(knights={"alice": [2], "bob": [4]}, attributes={"alice": {"precision": 5}}))
    play_turn(state, {A: B}, {"bob": "plain"})
    ford = state["battles"][0]
    assert ford["done"] and ford["top"] == {} and ford["bottom"] == {}
    assert ford["knights"] == [{"id": A, "owner": "alice", "wounds": 0}]
    assert state["result"]["tiles"] == {"ford": ["alice"]} and state["result"]["winners"] == ["alice"]


def test_battle_turns_keep_resolving_until_one_side_remains():
    """"Battle Turns keep resolvings until only remain Bandit or Knight belonging to the same
    Alliance (or player)." Nobody can wound anybody here: turns go on, by the hourglass."""
    state, _ = start(position(attributes={"alice": {"damage": 0}, "bob": {"damage": 0, "delay": 1}}))
    attackers = []
    for _ in range(6):
        attacker = state["turn"]["attacker"]
        attackers.append(attacker)
        other = "bob" if attacker == "alice" else "alice"
        act(state, attacker, "assign", "targets", **{f"{attacker}-1@ford": f"{other}-1@ford"})
        act(state, other, "place", "defend", card=state["hands"][other][0])
        hand = state["hands"][attacker]
        act(state, attacker, "place", "attack_card", **({"card": hand[0], "discard": hand[1]} if len(hand) > 1
                                                         else {"card": hand[0]}))
    # alice (Delay 2) starts with none on top, bob (Delay 1) with 3: alice attacks, the
    # hourglass turns, ...; bob, quicker, then attacks more often
    assert attackers == ["alice", "alice", "bob", "bob", "alice", "bob"]
    assert state["result"] is None and state["battles"][0]["turns"] == 7


def test_battle_turn_limit_calls_the_battle_off():
    state, _ = start(position(battle={"turns": 2}), options={"battle_turn_limit": 3})
    events = play_turn(state, {A: B}, {"bob": "plain"})
    ended = kinds(events, "battle_ended")[0]
    assert ended["reason"] == "turn_limit" and ended["remaining"] == ["alice", "bob"]


# -- Battlecards drawing and discarding --------------------------------------------------


def test_battlecards_empty_hand_draws_all_discards_before_placing():
    state, _ = start(position(hands={"alice": ["plain", "plain-b"], "bob": []},
                              discards={"bob": ["plain", "plain-c"]}))
    events = act(state, "alice", "assign", "targets", **{A: B})
    assert kinds(events, "discards_drawn") == [{"seat": "bob", "cards": 2}]
    assert state["discards"]["bob"] == [] and len(prompt_of(state, "bob")["options"][0]["args"]["card"]) == 2


def test_battlecards_attacker_empty_hand_draws_discards_too():
    state, _ = start(position(hands={"alice": [], "bob": ["plain"]}, discards={"alice": ["plain", "plain-b"]}))
    act(state, "alice", "assign", "targets", **{A: B})
    events = act(state, "bob", "place", "defend", card=card_of(state, "bob", "plain"))
    assert kinds(events, "discards_drawn") == [{"seat": "alice", "cards": 2}]
    assert "combos" in prompt_of(state, "alice", "attack_card")["options"][0]


def test_battlecards_no_card_at_all_places_nothing():
    state, _ = start(position(hands={"alice": ["plain", "plain-b"], "bob": []}))
    events = act(state, "alice", "assign", "targets", **{A: B})
    assert kinds(events, "no_card") == [{"tile": "ford", "side": "bob"}]
    assert prompt_of(state, "alice")["kind"] == "attack_card"


def test_battlecards_hands_and_discards_of_the_default_set():
    state, _ = RS.start(["alice", "bob"], 3)
    standard = ["lunge", "feint", "parry", "sidestep", "second-wind", "crushing-blow", "quick-cut", "shield-wall"]
    for seat in ("alice", "bob"):
        assert [state["cards"][c] for c in state["hands"][seat]] == standard and state["discards"][seat] == []
    assert sorted(state["cards"][c] for c in state["bandit_deck"]) == sorted(
        ["ambush", "ambush", "cudgel", "cudgel", "swarm", "vanish", "brigands-luck", "dirty-trick"])
