"""The six steps of an attack, areas of effect, stacking and reactions (Chapter 4): one test
per rule sentence, on explicit setups."""

from __future__ import annotations

import pytest
from demigod_kit import RS, attack, defend, end_turn, kinds, prompt, start, unit

from battlehall.engine.demigod import combat
from battlehall.engine.errors import SetupError

SWORD = {"name": "Sword", "slot": "weapon", "av": 2}
CHARM = {"name": "Charm", "slot": "trinket", "av": 1}
SHIELD = {"name": "Shield", "slot": "shield", "dv": 1}
MAIL = {"name": "Mail", "slot": "armour", "dv": 2}


def duel(attacker=None, defender=None, alice=("Strike",), bob=(), **kw):
    """hero (alice) next to foe (bob), hero's turn."""
    a = unit("hero", "alice", [3, 3], **(attacker or {}))
    d = unit("foe", "bob", [4, 3], **(defender or {}))
    return start([a, d], hands={"alice": list(alice), "bob": list(bob)}, **kw)


# -- Step 1 ---------------------------------------------------------------------------

def test_step1_declare_attack_choose_target_and_play_card():
    """'Step 1: Declare Attack: Choose your target and play your card/ability.' The card leaves
    the hand and is public from then on."""
    state, _ = duel()
    cid = state["hands"]["alice"][0]
    events = attack(state, "hero", "Strike", [4, 3])
    assert kinds(events, "declared") == [{"unit": "hero", "card": cid, "name": "Strike", "target": [4, 3],
                                          "seat": "alice", "discarded": False}]
    assert kinds(events, "targeted") == [{"units": ["foe"]}]
    assert state["hands"]["alice"] == []
    assert RS.view(state, "bob")["attack"]["name"] == "Strike"


def test_each_character_attacks_once_per_turn():
    state, _ = duel(alice=("Strike", "Strike"))
    attack(state, "hero", "Strike", [4, 3])
    defend(state)
    attack_option = [o for o in prompt(state, "turn")["options"] if o["id"] == "attack"]
    assert attack_option == []


# -- Step 2 ---------------------------------------------------------------------------

def test_step2_defence_is_a_timed_reaction_window_to_the_targeted_side():
    """'Step 2: Declare Defense (Optional)': the targeted side is asked in a window on its own
    short clock that never spends the bank."""
    state, _ = duel(options={"reaction_ms": 3000})
    attack(state, "hero", "Strike", [4, 3])
    p = prompt(state, "defend")
    assert p["seat"] == "bob" and p["time_ms"] == 3000 and p["bank"] is False and p["window"].startswith("w")
    assert p["default"] == "none"


def test_step2_a_side_with_nothing_to_play_is_asked_all_the_same():
    state, _ = duel(bob=())
    attack(state, "hero", "Strike", [4, 3])
    assert [o["id"] for o in prompt(state, "defend")["options"]] == ["none"]


def test_step2_defender_may_play_a_battle_card_a_reaction_or_nothing():
    """'The defender may play a Battle Card, use a Reaction card, or do nothing.'"""
    state, _ = duel(bob=("Guard", "Parry", "Blink"))
    attack(state, "hero", "Strike", [4, 3])
    assert [o["id"] for o in prompt(state, "defend")["options"]] == ["none", "defend", "react", "react_move"]


def test_step2_do_nothing_dv_treated_as_0():
    """'... or do nothing (DV treated as 0).' Shield and armour do not count without a defence."""
    state, _ = duel(defender={"equipment": [SHIELD, MAIL]})
    attack(state, "hero", "Strike", [4, 3])
    events = defend(state, "none")
    assert kinds(events, "attack_result")[0]["dv"] == 0


def test_step2_window_that_times_out_is_no_defence():
    state, _ = duel(bob=("Guard",))
    attack(state, "hero", "Strike", [4, 3])
    events = RS.expire(state, prompt(state, "defend")["id"])
    assert kinds(events, "defence") == [{"unit": "foe", "choice": "none", "seat": "bob"}]
    assert state["hands"]["bob"] != []


# -- Step 3 ---------------------------------------------------------------------------

def test_step3_attack_value_base_card_plus_weapon_trinket_spell_bonuses():
    """'Attack Value (AV): Base Card + Weapon/Trinket/Spell bonuses.'"""
    fury = {"title": "Battle Fury", "source": "Battle Fury", "stat": "av", "value": 2, "turns": 2}
    state, _ = duel(attacker={"equipment": [SWORD, CHARM, SHIELD], "effects": [fury]})
    attack(state, "hero", "Strike", [4, 3])
    assert kinds(defend(state), "attack_result")[0]["av"] == 4 + 2 + 1 + 2  # the shield adds nothing to AV


def test_step3_defence_value_base_card_plus_shield_armor_spell_bonuses():
    """'Defense Value (DV): Base Card + Shield/Armor/Spell bonuses.'"""
    skin = {"title": "Stone Skin", "source": "Stone Skin", "stat": "dv", "value": 2, "turns": 2}
    state, _ = duel(defender={"equipment": [SHIELD, MAIL, SWORD], "effects": [skin]}, bob=("Feint",))
    attack(state, "hero", "Strike", [4, 3])
    assert kinds(defend(state, "defend", "Feint"), "attack_result")[0]["dv"] == 3 + 1 + 2 + 2  # not the sword


def test_step3_hit_only_if_av_greater_than_dv():
    """'Result: If AV > DV, the attack hits. If AV <= DV, the attack misses.' Strike (AV 4)
    against Parry (DV 4): equal, a miss, no damage."""
    state, _ = duel(bob=("Parry",), defender={"hp": 10})
    attack(state, "hero", "Strike", [4, 3])
    result = kinds(defend(state, "react", "Parry"), "attack_result")[0]
    assert result == {"unit": "foe", "av": 4, "dv": 4, "hit": False}
    assert state["units"]["foe"]["hp"] == 10
    assert combat.hits(5, 4) and not combat.hits(4, 4) and not combat.hits(3, 4)


# -- Step 4 ---------------------------------------------------------------------------

def test_step4_damage_is_av_minus_dv():
    state, _ = duel(bob=("Guard",), alice=("Heavy Blow",), attacker={"equipment": [SWORD]}, defender={"hp": 10})
    attack(state, "hero", "Heavy Blow", [4, 3])
    defend(state, "defend", "Guard")  # AV 5 + 2 = 7 against DV 5: 2 damage
    assert state["units"]["foe"]["hp"] == 8


def test_step4_order_dr_then_barriers_then_armor_points_then_health_points():
    """'Apply the final damage (AV - DV) in this order: 1. Damage Reduction (DR) 2. Temporary AP
    (Barriers) 3. Armor Points (AP) 4. Health Points (HP)'"""
    unit_ = {"hp": 20, "ap": 3, "barrier": 2, "dr": 1, "equipment": [], "effects": []}
    assert list(combat.take_damage(unit_, 10).items()) == [("dr", 1), ("barrier", 2), ("ap", 3), ("hp", 4)]
    assert unit_ == {"hp": 16, "ap": 0, "barrier": 0, "dr": 1, "equipment": [], "effects": []}


def test_step4_each_layer_takes_what_it_can_before_the_next():
    """Damage smaller than a layer stops there: 3 damage against DR 1 and 5 barrier leaves AP and HP whole."""
    state, _ = duel(defender={"hp": 10, "ap": 4, "barrier": 5, "dr": 1})
    attack(state, "hero", "Strike", [4, 3])
    result = kinds(defend(state), "attack_result")[0]
    assert result["taken"] == {"dr": 1, "barrier": 3, "ap": 0, "hp": 0}
    foe = state["units"]["foe"]
    assert (foe["barrier"], foe["ap"], foe["hp"], foe["dr"]) == (2, 4, 10, 1)  # DR is not used up


def test_step4_damage_reduction_from_effects_counts():
    steel = {"title": "Blessing of Steel", "source": "Blessing of Steel", "stat": "dr", "value": 1, "turns": 3}
    state, _ = duel(defender={"hp": 10, "dr": 1, "effects": [steel]})
    attack(state, "hero", "Strike", [4, 3])
    assert kinds(defend(state), "attack_result")[0]["taken"] == {"dr": 2, "barrier": 0, "ap": 0, "hp": 2}


# -- Step 5 ---------------------------------------------------------------------------

def test_step5_defeated_when_hp_reaches_exactly_0():
    """'Step 5: Check for Defeat: If HP reaches 0 ... the character is removed and defeated.'"""
    state, _ = duel(defender={"hp": 4})
    attack(state, "hero", "Strike", [4, 3])
    events = defend(state)
    assert kinds(events, "defeated") == [{"unit": "foe", "cause": "hp", "pos": [4, 3]}]
    assert "foe" not in state["units"] and "foe" not in state["order"]


def test_step5_one_hp_left_is_not_defeat():
    state, _ = duel(defender={"hp": 5})
    attack(state, "hero", "Strike", [4, 3])
    assert kinds(defend(state), "defeated") == [] and state["units"]["foe"]["hp"] == 1


@pytest.mark.parametrize("kind", ["poison", "disease"])
def test_step5_defeated_when_ticks_reach_exactly_20(kind):
    """'... or Poison/Disease Ticks reach 20, the character is removed and defeated.'"""
    card = "Venom Blade" if kind == "poison" else "Rusted Cleaver"  # 5 ticks on a hit
    state, _ = duel(alice=(card,), defender={"hp": 50, kind: 15})
    attack(state, "hero", card, [4, 3])
    events = defend(state)
    assert kinds(events, "ticks") == [{"unit": "foe", "kind": kind, "added": 5, "total": 20}]
    assert kinds(events, "defeated")[0]["cause"] == kind and "foe" not in state["units"]


@pytest.mark.parametrize("kind", ["poison", "disease"])
def test_step5_nineteen_ticks_is_not_defeat(kind):
    card = "Venom Blade" if kind == "poison" else "Rusted Cleaver"
    state, _ = duel(alice=(card,), defender={"hp": 50, kind: 14})
    attack(state, "hero", card, [4, 3])
    defend(state)
    assert state["units"]["foe"][kind] == 19


def test_a_side_whose_demigod_falls_is_out_and_the_last_side_wins():
    state, _ = start([unit("hero", "alice", [3, 3]), unit("bob.god", "bob", [4, 3], kind="demigod", hp=3),
                      unit("imp", "bob", [6, 6])], hands={"alice": ["Strike"]})
    attack(state, "hero", "Strike", [4, 3])
    events = defend(state)
    assert [d["unit"] for d in kinds(events, "defeated")] == ["bob.god", "imp"]
    assert kinds(events, "side_out") == [{"seat": "bob", "out": ["bob"], "discarded": []}]
    assert state["result"]["winners"] == ["alice"] and state["result"]["reason"] == "conquest"
    assert state["prompts"] == []


# -- Step 6 ---------------------------------------------------------------------------

def test_step6_push_after_damage():
    """'Step 6: Resolve After-Attack Effects: Resolve triggers like pushing ...' Shield Bash
    pushes the target one square straight away, after the damage."""
    state, _ = duel(alice=("Shield Bash",), defender={"hp": 10})
    attack(state, "hero", "Shield Bash", [4, 3])
    events = defend(state)
    order = [e["kind"] for e in events if e["kind"] in ("attack_result", "pushed")]
    assert order == ["attack_result", "pushed"]
    assert state["units"]["foe"]["pos"] == [5, 3] and state["units"]["foe"]["hp"] == 8


def test_step6_push_stops_at_terrain():
    state, _ = start([unit("hero", "alice", [3, 3]), unit("foe", "bob", [4, 4])], terrain=[[5, 5]],
                     hands={"alice": ["Shield Bash"]})
    attack(state, "hero", "Shield Bash", [4, 4])
    defend(state)
    assert state["units"]["foe"]["pos"] == [4, 4]


def test_step6_drawing_cards():
    state, _ = duel(alice=("Opportune Strike",), decks={"alice": ["Guard", "Feint"]})
    attack(state, "hero", "Opportune Strike", [4, 3])
    events = defend(state)
    assert kinds(events, "drew") == [{"seat": "alice", "count": 1, "hand_count": 1, "deck_count": 1}]
    assert [state["cards"][c] for c in state["hands"]["alice"]] == ["Guard"]


def test_step6_status_application():
    state, _ = duel(alice=("Venom Blade",))
    attack(state, "hero", "Venom Blade", [4, 3])
    defend(state)
    assert state["units"]["foe"]["poison"] == 5


def test_step6_nothing_after_a_miss():
    state, _ = duel(alice=("Venom Blade",), bob=("Guard",), decks={"alice": ["Guard"]})
    attack(state, "hero", "Venom Blade", [4, 3])
    defend(state, "defend", "Guard")
    assert state["units"]["foe"]["poison"] == 0


# -- Area of effect -------------------------------------------------------------------

def test_aoe_separate_step3_for_every_character_some_hit_others_defend():
    """'You must perform a separate Step 3 calculation for every character caught in the area.
    Some targets may be hit while others successfully defend.'"""
    state, _ = start([unit("god", "alice", [1, 3], kind="demigod"), unit("a", "bob", [5, 3], hp=10),
                      unit("b", "bob", [6, 3], hp=10), unit("c", "bob", [6, 4], hp=10)],
                     hands={"alice": ["Fireball"], "bob": ["Guard"]})
    attack(state, "god", "Fireball", [5, 3])
    assert prompt(state, "defend")["seat"] == "bob"
    defend(state)  # a: nothing
    defend(state, "defend", "Guard")  # b: Guard, DV 5
    events = defend(state)  # c: nothing
    results = {r["unit"]: r["hit"] for r in kinds(events, "attack_result")}
    assert results == {"a": True, "b": False, "c": True}
    assert [state["units"][u]["hp"] for u in ("a", "b", "c")] == [7, 10, 7]


def test_aoe_catches_everyone_in_the_area_but_the_caster():
    state, _ = start([unit("god", "alice", [3, 3], kind="demigod"), unit("pal", "alice", [3, 4]), unit("foe", "bob", [4, 4])],
                     hands={"alice": ["Plague Cloud"]})
    events = attack(state, "god", "Plague Cloud", [4, 4])
    assert kinds(events, "targeted") == [{"units": ["pal", "foe"]}]


# -- Effects --------------------------------------------------------------------------

def test_same_title_does_not_stack_and_refreshes_duration():
    """'Same-Source Restriction: Effects sharing the same title cannot stack. A new instance
    typically refreshes the duration of the old one.'"""
    old = {"title": "Stone Skin", "source": "Stone Skin", "stat": "dv", "value": 2, "turns": 1}
    state, _ = start([unit("god", "alice", [3, 3], kind="demigod", effects=[old])], hands={"alice": ["Stone Skin"]})
    events = attack(state, "god", "Stone Skin", [3, 3])
    assert kinds(events, "effect")[0]["how"] == "refreshed"
    assert state["units"]["god"]["effects"] == [{**old, "turns": 2}]


def test_different_sources_of_the_same_bonus_stack_each_with_its_own_timer():
    """'Stacking Similar Effects: Different sources providing the same bonus ... do stack. Each
    tracks its own timer.' Stone Skin (+2 DV, 2 turns) and Iron Will (+2 DV, 1 turn)."""
    skin = {"title": "Stone Skin", "source": "Stone Skin", "stat": "dv", "value": 2, "turns": 3}
    state, _ = start([unit("god", "alice", [3, 3], kind="demigod", hp=30, effects=[skin]), unit("foe", "bob", [4, 3])],
                     hands={"alice": ["Iron Will"], "bob": ["Heavy Blow"]}, turn="bob")
    attack(state, "foe", "Heavy Blow", [3, 3])
    events = defend(state, "react", "Iron Will")
    assert kinds(events, "attack_result")[0]["dv"] == 2 + 2 + 2  # Iron Will's card, then both +2 DV effects
    effects = state["units"]["god"]["effects"]
    assert [(e["title"], e["turns"]) for e in effects] == [("Stone Skin", 3), ("Iron Will", 1)]
    end_turn(state)  # bob's turn ends: alice's effects keep their time
    end_turn(state)  # alice's turn ends: each timer drops by one, Iron Will's to nothing
    assert [(e["title"], e["turns"]) for e in state["units"]["god"]["effects"]] == [("Stone Skin", 2)]


def test_any_number_of_unique_effects_at_once():
    """'Simultaneous Effects: A character can be affected by any number of unique spells or items simultaneously.'"""
    state, _ = start([unit("god", "alice", [3, 3], kind="demigod")], hands={"alice": ["Stone Skin", "Battle Fury"]})
    attack(state, "god", "Stone Skin", [3, 3])
    events = combat.apply_effect(state, "god", {"title": "Battle Fury", "stat": "av", "value": 2, "turns": 2}, "Battle Fury")
    events += combat.apply_effect(state, "god", {"title": "Blessing of Steel", "stat": "dr", "value": 1, "turns": 3}, "x")
    assert [e["title"] for e in state["units"]["god"]["effects"]] == ["Stone Skin", "Battle Fury", "Blessing of Steel"]


# -- Reactions ------------------------------------------------------------------------

def test_reaction_timing_only_when_its_trigger_occurs():
    """'Timing: Can only be played when the specific trigger (e.g., "When targeted") occurs.'
    A reaction is never offered in a turn, only in the window of a character targeted."""
    state, _ = duel(alice=("Parry", "Strike"))
    turn = prompt(state, "turn")
    cards_offered = [c for o in turn["options"] if o["id"] == "attack" for combo in o["combos"] for c in combo["card"]]
    assert [state["cards"][c] for c in cards_offered] == ["Strike"]


def test_reaction_priority_resolves_before_the_action_that_triggered_it():
    """'Priority: Reaction effects resolve before the action that triggered them.' Arcane Ward's
    barrier is up before the blow lands, and takes its damage."""
    state, _ = duel(bob=("Arcane Ward",), defender={"hp": 10})
    attack(state, "hero", "Strike", [4, 3])
    events = defend(state, "react", "Arcane Ward")
    order = [e["kind"] for e in events if e["kind"] in ("barrier", "attack_result")]
    assert order == ["barrier", "attack_result"]
    assert kinds(events, "attack_result")[0]["taken"] == {"dr": 0, "barrier": 3, "ap": 0, "hp": 0}


def test_reaction_limit_only_one_reaction_per_trigger():
    """'Limit: Only one reaction per trigger.' After one card the window is closed: the attack resolves."""
    state, _ = duel(bob=("Parry", "Iron Will"))
    attack(state, "hero", "Strike", [4, 3])
    window = prompt(state, "defend")
    assert all("combos" not in o and len(o.get("args", {}).get("card", [None])) >= 1 for o in window["options"])
    events = defend(state, "react", "Parry")
    assert kinds(events, "attack_result") and prompt(state)["kind"] == "turn"
    assert [state["cards"][c] for c in state["hands"]["bob"]] == ["Iron Will"]


def test_reaction_limit_you_cannot_react_to_a_reaction():
    """'You cannot react to a reaction.' Riposte hurts the attacker, whose side holds a Parry:
    no window opens for it."""
    state, _ = duel(alice=("Strike", "Parry"), bob=("Riposte",), attacker={"hp": 10})
    attack(state, "hero", "Strike", [4, 3])
    events = defend(state, "react", "Riposte")
    assert kinds(events, "damage")[0]["unit"] == "hero" and state["units"]["hero"]["hp"] == 7
    assert not [e for e in events if e["kind"] == "prompt" and e["data"].get("window")]
    assert prompt(state)["kind"] == "turn"


def test_reaction_that_fells_the_attacker_stops_its_attack():
    state, _ = duel(bob=("Riposte",), attacker={"hp": 3}, defender={"hp": 10})
    cid = state["hands"]["alice"][0]
    attack(state, "hero", "Strike", [4, 3])
    events = defend(state, "react", "Riposte")
    assert kinds(events, "attack_failed") == [{"unit": "hero", "card": cid, "reason": "attacker_defeated",
                                               "name": "Strike", "seat": "alice"}]
    assert state["units"]["foe"]["hp"] == 10


# -- Turns, setup ---------------------------------------------------------------------

def test_spells_are_for_demigods_minions_play_battle_cards():
    state, _ = start([unit("imp", "alice", [3, 3]), unit("foe", "bob", [4, 3])], hands={"alice": ["Firebolt", "Strike"]})
    combos = [o for o in prompt(state, "turn")["options"] if o["id"] == "attack"][0]["combos"]
    mine = [[state["cards"][x] for x in c["card"]] for c in combos if c["unit"] == ["imp"]]
    assert mine == [["Strike"]]
    assert [state["cards"][c["card"][0]] for c in combos if c["unit"] == ["alice.god"]] == ["Firebolt"]


def test_poison_grows_at_the_start_of_its_sides_turn():
    state, _ = start([unit("foe", "bob", [4, 3], poison=19)], options={"tick_growth": 1})
    events = end_turn(state)
    assert kinds(events, "defeated") == [{"unit": "foe", "cause": "poison", "pos": [4, 3]}]


def test_the_match_ends_at_the_turn_limit_ranked_by_health_left():
    state, _ = start([unit("foe", "bob", [4, 3], hp=30)], options={"turn_limit": 1})
    end_turn(state)
    events = end_turn(state)
    assert state["result"]["reason"] == "turn_limit" and state["result"]["winners"] == ["bob"]
    assert events[-1]["kind"] == "match_ended"


@pytest.mark.parametrize(("setup", "path"), [
    ({"units": "x"}, "setup.units"),
    ({"units": [{"id": "a", "side": "zed", "kind": "demigod", "pos": [0, 0]}]}, "setup.units[0].side"),
    ({"units": [{"id": "a", "side": "alice", "kind": "demigod", "pos": [9, 0]}]}, "setup.units[0].pos"),
    ({"units": [{"id": "a", "side": "alice", "kind": "demigod", "pos": [0, 0], "hp": 0}]}, "setup.units[0].hp"),
    ({"units": [{"id": "a", "side": "alice", "kind": "demigod", "pos": [0, 0]},
                {"id": "b", "side": "bob", "kind": "demigod", "pos": [1, 1]}], "hands": {"bob": ["Nope"]}}, "setup.hands.bob[0]"),
    ({"units": [{"id": "a", "side": "alice", "kind": "demigod", "pos": [0, 0]}]}, "setup.units"),
    ({"map": {"width": 1, "height": 5}}, "setup.map.width"),
    ({"bogus": 1}, "setup.bogus"),
])
def test_bad_setup_names_its_field(setup, path):
    with pytest.raises(SetupError) as err:
        RS.start(["alice", "bob"], 1, None, setup)
    assert err.value.path == path


def test_bad_option_names_its_field():
    with pytest.raises(SetupError) as err:
        RS.start(["alice", "bob"], 1, {"reaction_ms": 5})
    assert err.value.path == "options.reaction_ms"


def test_a_battle_cards_six_points_are_split_between_attack_and_defence():
    """NOTES: 'A Battle Card's value is split between attack and defence (6 points in the
    published game)'; played to attack it gives its AV, played to defend its DV."""
    from battlehall.engine.demigod.data import cards

    battle = [c for c in cards().values() if c["type"] == "battle"]
    assert battle and all(c["av"] + c["dv"] == 6 for c in battle)


def test_aoe_a_character_that_blinks_out_of_the_area_is_not_caught():
    """The reaction resolves first: out of the area when the spell lands, it has no Step 3."""
    state, _ = start([unit("god", "alice", [1, 3], kind="demigod"), unit("a", "bob", [5, 3], hp=10),
                      unit("b", "bob", [6, 3], hp=10)], hands={"alice": ["Fireball"], "bob": ["Blink"]})
    attack(state, "god", "Fireball", [5, 3])
    defend(state, "react_move", "Blink", to=[5, 5])  # a leaves the area around [5, 3]
    events = defend(state)
    assert [r["unit"] for r in kinds(events, "attack_result")] == ["b"]
    assert state["units"]["a"]["hp"] == 10 and state["units"]["b"]["hp"] == 7


def test_reactions_interrupt_an_opponents_turn_not_ones_own():
    """'Reactions interrupt an opponent's turn.' Alice's Fireball catches her own Minion and
    bob's: her Minion's window offers her Battle Card but neither Riposte nor Parry (a Riposte
    there would hurt her own Demigod); bob's window offers his reactions."""
    state, _ = start([unit("god", "alice", [1, 3], kind="demigod", hp=20), unit("mine", "alice", [5, 3], hp=10),
                      unit("foe", "bob", [6, 3], hp=10)],
                     hands={"alice": ["Fireball", "Riposte", "Parry", "Guard"], "bob": ["Riposte", "Parry"]})
    attack(state, "god", "Fireball", [5, 3])
    own = prompt(state, "defend")
    assert own["seat"] == "alice" and [o["id"] for o in own["options"]] == ["none", "defend"]
    defend(state, "defend", "Guard")
    theirs = prompt(state, "defend")
    assert theirs["seat"] == "bob" and [o["id"] for o in theirs["options"]] == ["none", "react"]
    events = defend(state, "react", "Riposte")
    assert [d["unit"] for d in kinds(events, "damage")] == ["god"]  # bob's Riposte, at the attacker


def test_a_defence_value_is_never_below_0():
    """'... or do nothing (DV treated as 0).' No defence is the least there is: Blink (DV 0)
    under Frailty (DV -2) defends with DV 0, exactly as doing nothing; it never adds damage."""
    frailty = {"title": "Frailty", "source": "Hex of Frailty", "stat": "dv", "value": -2, "turns": 2}
    state, _ = duel(bob=("Blink",), defender={"hp": 20, "effects": [frailty]})
    attack(state, "hero", "Strike", [4, 3])
    events = defend(state, "react_move", "Blink", to=[4, 4])  # still next to the attacker: the blow lands
    assert kinds(events, "attack_result")[0]["dv"] == 0 and state["units"]["foe"]["hp"] == 16
