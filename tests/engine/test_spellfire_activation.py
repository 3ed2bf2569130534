"""The order of activation, spellfire-2, one test per sentence of the text (named after it),
each on an explicit setup with its own inline cards. Every activation is an `activated`
event; their order is asserted."""

from __future__ import annotations

import pytest
from spellfire_kit import S, ev, match  # noqa: F401  (pytest fixtures)

from battlehall.engine.spellfire import activation

ATTACK = {"seat": "alice", "phase": "attack"}
USES_ALL = ["uses_wizard_spells", "uses_psionic_powers", "uses_blood_abilities", "uses_thief_skills",
            "uses_unarmed_combat"]


def champion(cid, level, cls="hero", world="greyhawk", **kw):
    return {"id": cid, "name": kw.pop("name", cid), "type": "champion", "class": cls, "level": level,
            "world": world, **kw}


def realm(cid, world="greyhawk", **kw):
    return {"id": cid, "name": kw.pop("name", cid), "type": "realm", "world": world, **kw}


def card(cid, kind, bonus=0, **kw):
    extra = {"spell_class": "wizard"} if kind == "spell" else {}
    extra.update({"world": "greyhawk"} if kind in ("artifact", "holding") else {})
    out = {"id": cid, "name": kw.pop("name", cid), "type": kind, **extra, **kw}
    if kind not in ("event", "rule", "dungeon", "holding"):
        out["bonus"] = bonus
    return out


def start(match, S, cards, alice_pool, bob_pool, target="keep", alice=None, bob=None, **kw):
    """A battle of alice's first pool champion against bob's realm A, defended by bob's
    first pool champion; returns the match and the events of the defender's choice."""
    cards = list(cards)
    if not any(c["id"] == target for c in cards):
        cards.append(realm(target))
    alice = {**S(pool=alice_pool), **(alice or {})}
    bob = {**S(pool=bob_pool, formation={"A": target}), **(bob or {})}
    m = match(alice=alice, bob=bob, turn=ATTACK, cards=cards, **kw)
    m.answer(target)
    m.answer(m.cid(m.player("alice")["pool"][0]["champion"]))
    events = m.answer(m.cid(m.player("bob")["pool"][0]["champion"]))
    return m, events


def order(events):
    return [(d["step"], d["def"]) for d in ev_find(events, "activated")]


def ev_find(events, kind):
    return [e["data"] for e in events if e["kind"] == kind]


# -- paragraph 1 ----------------------------------------------------------------------------

def test_spellfire2_special_combat_powers_are_possessed_by_realms_champions_and_allies(match, S):
    """"Special combat powers are often possessed by realms, champions, and allies.\""""
    cards = [realm("keep", defend_bonus=2), champion("raider", 5, attack_bonus=3), champion("guard", 4),
             card("militia", "ally", 2)]
    m, events = start(match, S, cards, ["raider"], ["guard"], bob={"hand": ["militia"]})
    acts = {d["def"]: d for d in ev_find(events, "activated")}
    assert acts["keep"]["adds"] == {"attacker": 0, "defender": 2} and acts["keep"]["step"] == "3"
    assert acts["raider"]["bonus"] == 5 + 3 and acts["raider"]["step"] == "7"
    assert ev_find(events, "powers_activated")[0]["totals"] == {"attacker": 8, "defender": 6}
    events = m.answer("militia")  # bob is behind
    assert ev_find(events, "activated") == [{"card": m.iid("militia"), "def": "militia", "owner": "bob",
                                             "zone": "battle", "slot": None, "seat": "bob",
                                             "side": "defender", "step": "8b", "round": 1, "bonus": 2}]
    assert ev_find(events, "card_played")[0]["totals"] == {"attacker": 8, "defender": 8}


def test_spellfire2_powers_take_effect_only_when_the_card_is_involved_in_a_round(match, S):
    """"Unless the card specifies otherwise, these take effect only when the card is involved
    in a round of battle.\""""
    cards = [realm("keep"), realm("far-tower", defend_bonus=5), champion("raider", 5),
             champion("idle-giant", 9, attack_bonus=4), champion("guard", 4), champion("idle-lord", 8, defend_bonus=4)]
    m, events = start(match, S, cards, ["raider", "idle-giant"], ["guard", "idle-lord"],
                      bob={"formation": {"A": {"realm": "keep"}, "B": {"realm": "far-tower"}}})
    assert order(events) == [("3", "keep"), ("7", "raider"), ("8", "guard")]
    assert ev_find(events, "powers_activated")[0]["totals"] == {"attacker": 5, "defender": 4}


def test_spellfire2_unless_the_card_specifies_otherwise(match, S):
    """A realm or holding marked `always_active` works in every battle of its owner: the
    attacker's own Beaconmount-like realm and beacon holding join the round."""
    cards = [realm("keep"), realm("signal-hill", attack_bonus=1, defend_bonus=1, powers=["always_active"]),
             card("beacon", "holding", attack_bonus=2, powers=["always_active"]),
             champion("raider", 5), champion("guard", 4)]
    m, events = start(match, S, cards, ["raider"], ["guard"],
                      alice={"formation": {"A": {"realm": "signal-hill", "holding": "beacon"}}})
    # in play before the battle, both: in a shared row the attacker's card first
    assert order(events) == [("3", "signal-hill"), ("3", "keep"), ("4", "beacon"), ("7", "raider"), ("8", "guard")]
    signal = next(d for d in ev_find(events, "activated") if d["def"] == "signal-hill")
    assert signal["seat"] == "alice" and signal["side"] == "attacker" and signal["adds"] == {"attacker": 1, "defender": 0}
    assert ev_find(events, "powers_activated")[0]["totals"] == {"attacker": 5 + 1 + 2, "defender": 4}


def test_spellfire2_unless_specified_a_razed_always_active_realm_does_nothing(match, S):
    cards = [realm("keep"), realm("signal-hill", attack_bonus=1, powers=["always_active"]),
             champion("raider", 5), champion("guard", 4)]
    m, events = start(match, S, cards, ["raider"], ["guard"],
                      alice={"formation": {"A": {"realm": "signal-hill", "razed": True}}})
    assert order(events) == [("3", "keep"), ("7", "raider"), ("8", "guard")]


def test_spellfire2_in_an_attack_on_a_realm_the_realm_and_holding_powers_are_activated(match, S):
    """"In the case of an attack on a realm, the realm and holding powers are activated.\""""
    cards = [realm("keep", defend_bonus=1), card("gatehouse", "holding", defend_bonus=2),
             realm("other-keep", defend_bonus=3), card("other-gate", "holding", defend_bonus=3),
             champion("raider", 9), champion("guard", 4)]
    m, events = start(match, S, cards, ["raider"], ["guard"],
                      bob={"formation": {"A": {"realm": "keep", "holding": "gatehouse"},
                                         "B": {"realm": "other-keep", "holding": "other-gate"}}})
    assert order(events) == [("3", "keep"), ("4", "gatehouse"), ("7", "raider"), ("8", "guard")]
    assert [d["seat"] for d in ev_find(events, "activated")] == ["bob", "bob", "alice", "bob"]
    assert ev_find(events, "powers_activated")[0]["totals"] == {"attacker": 9, "defender": 4 + 1 + 2}


# -- paragraph 2: direct conflicts ------------------------------------------------------------

def test_spellfire2_a_direct_conflict_of_powers_one_ability_completely_contradicts_another(match, S):
    """"There are times when there is a direct conflict of powers, where one ability
    completely contradicts another." Two champions that each cancel the other's power:
    only one of them can have its way, and the engine says which in the events."""
    cards = [champion("hush-knight", 5, negates=["champion"], attack_bonus=2),
             champion("hush-warden", 5, negates=["champion"], defend_bonus=2)]
    m, events = start(match, S, cards, ["hush-knight"], ["hush-warden"])
    acts = ev_find(events, "activated")
    knight, warden = acts[1], acts[2]
    assert knight["effects"] == ["negates"] and knight["negates"] == [["defender", "champion"]]
    assert knight["cancels"] == [{"card": m.iid("hush-warden"), "def": "hush-warden"}]
    assert warden["cancelled"] is True and warden["bonus"] == 5 and "negates" not in warden  # level only


def test_spellfire2_careful_consideration_usually_settles_it(match, S):
    """"Usually, the results of the game can be figured out by careful consideration by the
    players." Powers that do not contradict each other simply add up, whatever their order."""
    cards = [champion("raider", 5, attack_bonus=2), champion("guard", 4, defend_bonus=3),
             card("blade", "magical_item", 1), card("shield", "magical_item", 2)]
    m, events = start(match, S, cards, [("raider", ["blade"])], [("guard", ["shield"])])
    assert not any(d.get("cancelled") for d in ev_find(events, "activated"))
    assert ev_find(events, "powers_activated")[0]["totals"] == {"attacker": 8, "defender": 9}


def test_spellfire2_in_the_absence_of_a_solution_the_first_card_played_uses_its_power_first(match, S):
    """"In the absence of a solution, the first card played gets to use the power first."
    The attacker's spell is played before the defender's negation: it keeps its +3; the
    attacker's next spell, played after it, has no power."""
    cards = [champion("mage", 3, cls="wizard"), champion("guard", 6),
             card("bolt", "spell", 3), card("fireball", "spell", 4),
             card("unmaking", "event", negates=["spell"], powers=[])]
    m, events = start(match, S, cards, ["mage"], ["guard"], alice={"hand": ["bolt", "fireball"]},
                      bob={"hand": ["unmaking"]})
    m.answer("bolt")                           # 6 against 6: still behind on a tie
    events = m.answer_as("bob", "unmaking")    # bob answers in the window
    played = ev_find(events, "card_played")[0]
    assert played["negates"] == [["attacker", "spell"]] and played["totals"] == {"attacker": 6, "defender": 6}
    m.answer_as("alice", "pass")
    events = m.answer("fireball")
    act = ev_find(events, "activated")[0]
    assert act["def"] == "fireball" and act["cancelled"] is True and act["bonus"] == 0
    assert ev_find(events, "card_played")[0]["totals"] == {"attacker": 6, "defender": 6}


def test_spellfire2_the_attacker_is_given_first_use_since_he_is_pushed_forward_first(match, S):
    """"As a champion in combat, the attacker is given first use since he is pushed forward
    first." Swapping the two champions swaps the winner of the conflict."""
    cards = [champion("hush-knight", 5, negates=["champion"], attack_bonus=2, defend_bonus=2),
             champion("hush-warden", 5, negates=["champion"], attack_bonus=2, defend_bonus=2)]
    for attacker, defender in (("hush-knight", "hush-warden"), ("hush-warden", "hush-knight")):
        m, events = start(match, S, cards, [attacker], [defender])
        cancelled = [d["def"] for d in ev_find(events, "activated") if d.get("cancelled")]
        assert cancelled == [defender]
        assert ev_find(events, "powers_activated")[0]["totals"] == {"attacker": 7, "defender": 5}


def test_spellfire2_the_attacker_slays_first_when_both_champions_slay(match, S):
    cards = [champion("wyrm-hunter", 5, slays="monster"), champion("hero-eater", 7, cls="monster", slays="hero")]
    m, events = start(match, S, cards, ["wyrm-hunter"], ["hero-eater"], alice={"draw": ["thornvale"]},
                      bob={"draw": ["ravencrag"]})
    assert order(events) == [("3", "keep"), ("7", "wyrm-hunter")]  # the defender never activates
    assert ev_find(events, "powers_activated")[0]["slain"] == "defender"
    assert ev_find(events, "round_ended")[0]["winner"] == "attacker"


def test_spellfire2_magic_items_and_artifacts_from_the_pool_are_subject_to_the_same_rules(match, S):
    """"Additionally, magic items and artifacts the player brings into combat from his pool of
    items are subject to the same rules." Each side's item cancels the other's items, and
    each side's artifact the other's artifact: the attacker's act first."""
    cards = [champion("raider", 5), champion("guard", 5),
             card("null-charm", "magical_item", 1, negates=["magical_item"]),
             card("null-idol", "artifact", 2, negates=["artifact"]),
             card("null-relic", "artifact", 2, negates=["artifact"])]
    m, events = start(match, S, cards, [("raider", ["null-idol", "null-charm"])],
                      [("guard", ["null-relic", "null-charm"])])
    acts = ev_find(events, "activated")
    assert [(d["step"], d["def"], d.get("cancelled", False)) for d in acts] == [
        ("3", "keep", False), ("7", "raider", False), ("7a", "null-idol", False), ("7c", "null-charm", False),
        ("8", "guard", False), ("8a", "null-relic", True), ("8c", "null-charm", True)]
    assert ev_find(events, "powers_activated")[0]["totals"] == {"attacker": 8, "defender": 5}


# -- paragraph 3: the list ----------------------------------------------------------------------

def test_spellfire2_occasionally_the_exact_order_in_which_cards_activate_can_be_crucial(match, S):
    """"Occasionally, however, the exact order in which cards activate can be crucial." The
    same two champions: a monster that slays wizards before combat (row 6) strikes first;
    without that timing the attacking wizard's power (row 7) strikes first."""
    for timing, winner in (([], "attacker"), (["before_combat"], "defender")):
        cards = [champion("beast-bane", 5, cls="wizard", slays="monster"),
                 champion("mage-stalker", 5, cls="monster", slays="wizard", powers=timing)]
        m, events = start(match, S, cards, ["beast-bane"], ["mage-stalker"])
        slayer = ev_find(events, "activated")[-1]
        assert slayer["def"] == ("beast-bane" if winner == "attacker" else "mage-stalker")
        assert slayer["step"] == ("7" if winner == "attacker" else "6")
        assert ev_find(events, "round_ended")[0]["winner"] == winner


def test_spellfire2_the_following_list_indicates_what_order_each_card_activates():
    """The list of spellfire-2, row by row: the table the engine follows."""
    expected = [("1", None, "rule"), ("2", None, "dungeon"), ("3", None, "realm"), ("4", None, "holding"),
                ("5", None, "yellow_before_battle"), ("6", None, "before_combat")]
    kinds = ["champion", "artifact", "ally", "magical_item", "blood_ability", "thief_skill", "unarmed_combat",
             "psionic_power", "spell"]
    for n, side in (("7", "attacker"), ("8", "defender")):
        expected += [(n + letter, side, kind) for letter, kind in zip(["", "a", "b", "c", "d", "e", "f", "g", "h"],
                                                                      kinds)]
    assert list(activation.ORDER) == expected


def every_row(match, S):
    """A round with a card in every row of the list."""
    kinds = [("artifact", "art"), ("ally", "ally"), ("magical_item", "item"), ("blood_ability", "blood"),
             ("thief_skill", "thief"), ("unarmed_combat", "fist"), ("psionic_power", "mind"), ("spell", "spell")]
    cards = [card("law", "rule", attack_bonus=1), card("a-den", "dungeon", attack_bonus=1),
             card("b-den", "dungeon", defend_bonus=1), realm("keep", defend_bonus=1),
             card("gate", "holding", defend_bonus=1),
             card("a-scouts", "ally", 1, powers=["before_battle"]), card("b-scouts", "ally", 2, powers=["before_battle"]),
             card("ambush", "magical_item", 1, powers=["before_combat"]),
             champion("a-champ", 1, powers=USES_ALL), champion("b-champ", 9, powers=USES_ALL)]
    for side in ("a", "b"):
        for kind, short in kinds:
            if kind != "artifact" and kind != "magical_item":
                cards.append(card(f"{side}-{short}", kind, 1, powers=["any_time"]))
            else:
                cards.append(card(f"{side}-{short}", kind, 1))
    a_hand = ["a-scouts"] + [f"a-{s}" for k, s in kinds if k not in ("artifact", "magical_item")]
    b_hand = ["b-scouts"] + [f"b-{s}" for k, s in kinds if k not in ("artifact", "magical_item")]
    m = match(alice=S(pool=[("a-champ", ["a-art", "a-item", "ambush"])], hand=a_hand, dungeon="a-den"),
              bob=S(pool=[("b-champ", ["b-art", "b-item"])], hand=b_hand, dungeon="b-den",
                    formation={"A": {"realm": "keep", "holding": "gate"}}),
              turn=ATTACK, cards=cards, rule={"seat": "bob", "card": "law"})
    return m


def test_spellfire2_the_list_rows_1_to_8h_in_one_round(match, S):
    m = every_row(match, S)
    m.answer("keep")
    m.answer("a-champ")
    m.answer("b-champ")
    # row 5: yellow cards played before the battle, the sides in turn, the attacker first
    assert m.prompt["kind"] == "before_battle" and m.prompt["seat"] == "alice"
    assert m.option_ids() == ["a-scouts", "done"]
    m.answer("a-scouts")
    assert m.prompt["seat"] == "bob"
    m.answer("b-scouts")
    m.answer("done")                                    # alice passes, then bob: the step ends
    events = m.answer("done")
    assert order(events) == [
        ("1", "law"), ("2", "a-den"), ("2", "b-den"), ("3", "keep"), ("4", "gate"),
        ("5", "a-scouts"), ("5", "b-scouts"),           # in the order played (the higher bonus second)
        ("6", "ambush"),
        ("7", "a-champ"), ("7a", "a-art"), ("7c", "a-item"),
        ("8", "b-champ"), ("8a", "b-art"), ("8c", "b-item")]
    assert [d["seat"] for d in ev_find(events, "activated")] == [
        "bob", "alice", "bob", "bob", "bob", "alice", "bob", "alice", "alice", "alice", "alice", "bob", "bob", "bob"]
    # step F: cards played one by one, in a scrambled order, each activates when played
    plays = ["a-spell", "b-ally", "a-thief", "b-mind", "a-ally", "b-spell", "a-blood", "b-fist",
             "a-mind", "b-blood", "a-fist", "b-thief"]
    events = m.answer(plays[0])
    for cid in plays[1:]:
        seat = "alice" if cid.startswith("a-") else "bob"
        events += m.answer_as(seat, cid)
    assert [d["def"] for d in ev_find(events, "activated")] == plays  # activated as played
    # the round's cards, as the view lists them: the order of the list
    view = m.rs.view(m.state, "alice")
    assert [(o["step"], o["def"]) for o in view["battle"]["order"]] == [
        ("1", "law"), ("2", "a-den"), ("2", "b-den"), ("3", "keep"), ("4", "gate"),
        ("5", "a-scouts"), ("5", "b-scouts"), ("6", "ambush"),
        ("7", "a-champ"), ("7a", "a-art"), ("7b", "a-ally"), ("7c", "a-item"), ("7d", "a-blood"),
        ("7e", "a-thief"), ("7f", "a-fist"), ("7g", "a-mind"), ("7h", "a-spell"),
        ("8", "b-champ"), ("8a", "b-art"), ("8b", "b-ally"), ("8c", "b-item"), ("8d", "b-blood"),
        ("8e", "b-thief"), ("8f", "b-fist"), ("8g", "b-mind"), ("8h", "b-spell")]


def test_spellfire2_several_cards_of_one_type_highest_bonus_first_then_alphabetically(match, S):
    cards = [champion("raider", 5), champion("guard", 4),
             card("zephyr-ring", "magical_item", 2), card("beta-charm", "magical_item", 1),
             card("alpha-charm", "magical_item", 1), card("twin-ward", "magical_item", 1)]
    m, events = start(match, S, cards, [("raider", ["beta-charm", "alpha-charm", "zephyr-ring"])],
                      [("guard", ["twin-ward"])])
    assert order(events) == [("3", "keep"), ("7", "raider"), ("7c", "zephyr-ring"), ("7c", "alpha-charm"),
                             ("7c", "beta-charm"), ("8", "guard"), ("8c", "twin-ward")]


def before_battle(m, plays):
    """Answer the before-battle step: `plays` is [(seat, card or "done"), ...]; the
    step's last two passes follow."""
    events = []
    for seat, name in plays:
        assert m.prompt["kind"] == "before_battle" and m.prompt["seat"] == seat, (seat, m.prompt)
        events += m.answer(name)
    return events


@pytest.mark.parametrize("first", ["alice", "bob"])
def test_spellfire2_in_a_shared_row_the_card_played_first_activates_first(match, S, first):
    """Two equal cards in row 5, one per side: the one played first activates first,
    whichever side played it (the sides take turns before the battle, the attacker first,
    and either may pass)."""
    cards = [champion("raider", 5), champion("guard", 4), card("outriders", "ally", 1, powers=["before_battle"])]
    m, events = start(match, S, cards, ["raider"], ["guard"], alice={"hand": ["outriders"]},
                      bob={"hand": ["outriders"]})
    second = "bob" if first == "alice" else "alice"
    plays = ([("alice", "done")] if first == "bob" else []) + [
        (first, "outriders"), (second, "outriders"), (first, "done"), (second, "done")]
    events = before_battle(m, plays)
    fives = [d for d in ev_find(events, "activated") if d["step"] == "5"]
    assert [(d["def"], d["seat"]) for d in fives] == [("outriders", first), ("outriders", second)]


# -- a direct conflict of powers within one row: the card played first wins, both orders -------

@pytest.mark.parametrize("first", ["alice", "bob"])
def test_spellfire2_row5_direct_conflict_goes_to_the_card_played_first(match, S, first):
    """Row 5, two yellow cards played before the battle that each cancel the other side's
    allies: the first played uses its power first and cancels the other — whichever side
    played it, although the second has the higher bonus and the earlier name (the row's
    order for cards that come in together)."""
    second = "bob" if first == "alice" else "alice"
    cards = [champion("raider", 5), champion("guard", 5),
             card("hush-horn", "ally", 1, negates=["ally"], powers=["before_battle"]),
             card("aaa-null-drum", "ally", 3, negates=["ally"], powers=["before_battle"])]
    hands = {first: {"hand": ["hush-horn"]}, second: {"hand": ["aaa-null-drum"]}}
    m, _ = start(match, S, cards, ["raider"], ["guard"], alice=hands["alice"], bob=hands["bob"])
    plays = ([("alice", "done")] if first == "bob" else []) + [
        (first, "hush-horn"), (second, "aaa-null-drum"), (first, "done"), (second, "done")]
    events = before_battle(m, plays)
    fives = [d for d in ev_find(events, "activated") if d["step"] == "5"]
    assert [(d["def"], d["seat"], d.get("cancelled", False)) for d in fives] == [
        ("hush-horn", first, False), ("aaa-null-drum", second, True)]
    assert fives[0]["cancels"] == [{"card": m.iid("aaa-null-drum"), "def": "aaa-null-drum"}]
    side = {"alice": "attacker", "bob": "defender"}
    assert ev_find(events, "powers_activated")[0]["totals"] == {side[first]: 5 + 1, side[second]: 5}


def test_spellfire2_row6_the_attacker_is_pushed_forward_first(match, S):
    """Row 6, two champions whose power acts before combat and cancels the other's: the
    attacking champion came into the battle first, so its power acts first — although the
    defender's sorts first by name."""
    cards = [champion("zed-the-hush", 5, negates=["champion"], attack_bonus=2, powers=["before_combat"]),
             champion("abel-the-hush", 5, negates=["champion"], defend_bonus=2, powers=["before_combat"])]
    m, events = start(match, S, cards, ["zed-the-hush"], ["abel-the-hush"])
    assert [(d["step"], d["def"], d.get("cancelled", False)) for d in ev_find(events, "activated")] == [
        ("3", "keep", False), ("6", "zed-the-hush", False), ("6", "abel-the-hush", True)]
    assert ev_find(events, "powers_activated")[0]["totals"] == {"attacker": 7, "defender": 5}


def test_spellfire2_row6_items_from_the_pool_come_in_with_their_champion(match, S):
    """"Additionally, magic items and artifacts the player brings into combat from his pool
    of items are subject to the same rules": in row 6, the attacker's item (it came in
    with the attacking champion) acts before the defender's."""
    cards = [champion("raider", 5), champion("guard", 5),
             card("zz-charm", "magical_item", 1, negates=["magical_item"], powers=["before_combat"]),
             card("aa-charm", "magical_item", 2, negates=["magical_item"], powers=["before_combat"])]
    m, events = start(match, S, cards, [("raider", ["zz-charm"])], [("guard", ["aa-charm"])])
    sixes = [(d["def"], d["side"], d.get("cancelled", False)) for d in ev_find(events, "activated") if d["step"] == "6"]
    assert sixes == [("zz-charm", "attacker", False), ("aa-charm", "defender", True)]


def test_spellfire2_row6_the_defenders_realm_was_in_the_battle_first(match, S):
    """Row 6, the defender's card first: a realm whose power acts before combat has been in
    the battle since the attacker chose it, before any champion; it cancels the attacking
    champion's power (a slayer's) before that power acts — although the champion sorts
    first by name."""
    cards = [realm("zz-bastion", negates=["champion"], powers=["before_combat"]),
             champion("aa-stalker", 6, cls="monster", slays="hero", powers=["before_combat"]),
             champion("guard", 5)]
    m, events = start(match, S, cards, ["aa-stalker"], ["guard"], target="zz-bastion")
    assert [(d["step"], d["def"], d.get("cancelled", False)) for d in ev_find(events, "activated")] == [
        ("6", "zz-bastion", False), ("6", "aa-stalker", True), ("8", "guard", False)]
    assert ev_find(events, "powers_activated")[0]["slain"] is None
    assert m.prompt["kind"] == "battle_play"  # no slaying: the round goes on


@pytest.mark.parametrize("first", ["alice", "bob"])
def test_spellfire2_row6_a_card_played_in_the_round_after_a_before_combat_power(match, S, first):
    """Row 6 again, with a card played in step F: the side whose before-combat card was
    in the battle first (its champion's item) cancels the other side's before-combat item
    played later, whichever side that is."""
    second = "bob" if first == "alice" else "alice"
    cards = [champion("raider", 6 if first == "alice" else 5), champion("guard", 5),
             card("null-charm", "magical_item", 0, negates=["magical_item"], powers=["before_combat"]),
             card("late-charm", "magical_item", 3, negates=["magical_item"], powers=["before_combat"])]
    pools = {first: [("raider" if first == "alice" else "guard", ["null-charm"])],
             second: ["raider" if second == "alice" else "guard"]}
    m, events = start(match, S, cards, pools["alice"], pools["bob"], **{second: {"hand": ["late-charm"]}})
    assert m.prompt["kind"] == "battle_play" and m.prompt["seat"] == second  # the side behind
    events = m.answer("late-charm")
    late = ev_find(events, "activated")[0]
    assert (late["step"], late["def"], late["cancelled"], late["bonus"]) == ("6", "late-charm", True, 0)


@pytest.mark.parametrize("first", ["alice", "bob"])
def test_spellfire2_rows_7b_8b_allies_played_in_step_f_the_first_played_wins(match, S, first):
    """Rows 7b and 8b, in step F: of two allies that each cancel the other side's allies,
    the one played first keeps its power and the later one has none, whichever side
    played first (the side behind plays: a tie puts the attacker behind, a higher
    attacking champion the defender)."""
    second = "bob" if first == "alice" else "alice"
    cards = [champion("raider", 5 if first == "alice" else 6), champion("guard", 5),
             card("hush-band", "ally", 2, negates=["ally"])]
    m, events = start(match, S, cards, ["raider"], ["guard"], alice={"hand": ["hush-band"]},
                      bob={"hand": ["hush-band"]})
    assert m.prompt["seat"] == first
    played = ev_find(m.answer("hush-band"), "activated")[0]
    assert "cancelled" not in played and played["bonus"] == 2
    m.answer_as(second, "pass")
    assert m.prompt["seat"] == second  # now behind
    played = ev_find(m.answer("hush-band"), "activated")[0]
    assert played["cancelled"] is True and played["bonus"] == 0
    assert played["step"] == ("8b" if second == "bob" else "7b")


# -- paragraph 4 --------------------------------------------------------------------------------

def test_spellfire2_when_moved_into_combat_champion_powers_and_attached_cards_are_fully_activated(match, S):
    """"When moved into combat, champion powers (and attached cards) are fully activated.\""""
    cards = [champion("raider", 5, attack_bonus=1), champion("guard", 4),
             card("blade", "magical_item", 2), card("old-crown", "artifact", 3)]
    m, events = start(match, S, cards, [("raider", ["blade", "old-crown"])], ["guard"])
    kinds = [e["kind"] for e in events]
    assert kinds.index("champion_chosen") < kinds.index("activated")  # as soon as both are in place
    assert order(events) == [("3", "keep"), ("7", "raider"), ("7a", "old-crown"), ("7c", "blade"), ("8", "guard")]
    assert [d["bonus"] for d in ev_find(events, "activated")] == [0, 6, 3, 2, 4]


def test_spellfire2_this_includes_all_cards_that_adjust_the_level_of_the_attacking(match, S):
    """"This includes all cards that adjust the level of the attacking." An `attack_bonus`
    counts at activation on the attacking side only."""
    cards = [champion("raider", 5), champion("guard", 4),
             card("lance", "magical_item", 0, attack_bonus=3, defend_bonus=-1)]
    m, events = start(match, S, cards, [("raider", ["lance"])], [("guard", ["lance"])])
    lances = [d for d in ev_find(events, "activated") if d["def"] == "lance"]
    assert [(d["side"], d["bonus"]) for d in lances] == [("attacker", 3), ("defender", -1)]
    assert ev_find(events, "powers_activated")[0]["totals"] == {"attacker": 8, "defender": 3}


def test_spellfire2_it_also_includes_defending_champions_triumvirate_realms_and_the_banner(match, S):
    """"It also includes defending champions (such as the Triumvirate realms or magical items
    like the Banner of the One-Eyed God)." A realm that defends itself is the defending
    champion (row 8); a banner's defending bonus counts from step D (row 8c)."""
    m = match(alice=S(pool=["torvald-ironhand"]),
              bob=S(formation={"A": "triad-spire-of-iron"}), turn=ATTACK)
    m.answer("triad-spire-of-iron")
    m.answer("torvald-ironhand")
    assert m.option_ids() == ["triad-spire-of-iron", "decline"]
    events = m.answer("triad-spire-of-iron")
    assert ev_find(events, "champion_chosen")[0]["from"] == "realm"
    assert order(events) == [("7", "torvald-ironhand"), ("8", "triad-spire-of-iron")]
    assert ev_find(events, "powers_activated")[0]["totals"] == {"attacker": 7, "defender": 6 + 1}
    m2 = match(alice=S(pool=["torvald-ironhand"]),
               bob=S(formation={"A": "ironbridge"}, pool=[("oskar-the-sly", ["warbanner-of-the-half-blind-lord"])]),
               turn=ATTACK)
    m2.answer("ironbridge")
    m2.answer("torvald-ironhand")
    events = m2.answer("oskar-the-sly")
    banner = ev_find(events, "activated")[-1]
    assert (banner["step"], banner["def"], banner["bonus"]) == ("8c", "warbanner-of-the-half-blind-lord", 1)


def ozrik_battle(match, S, guard_level):
    m = match(alice=S(pool=["ozrik-the-mindcaller", "torvald-ironhand"], hand=["flame-lance"]),
              bob=S(formation={"A": "keep"}, pool=["guard"], hand=["militia"]),
              turn=ATTACK, cards=[realm("keep"), champion("guard", guard_level), card("militia", "ally", 4)])
    m.answer("keep")
    m.answer("ozrik-the-mindcaller")
    return m, m.answer("guard")


def test_spellfire2_cards_that_bring_another_card_activate_only_when_their_player_may_play_a_card(match, S):
    """"Cards whose special powers actually bring another card to the battle (like Gib Aklem,
    who can use another champion as an ally) can only activate those powers when it is legal
    for the player to play a card into the battle.\""""
    m, events = ozrik_battle(match, S, 12)
    ozrik = next(d for d in ev_find(events, "activated") if d["def"] == "ozrik-the-mindcaller")
    assert ozrik["effects"] == ["brings_ally_waits"] and ozrik["bonus"] == 9  # nothing is brought at step D
    assert ev_find(events, "powers_activated")[0]["totals"] == {"attacker": 9, "defender": 12}
    assert m.prompt["kind"] == "battle_play" and m.prompt["seat"] == "alice"  # behind: alice may play
    assert m.option_ids() == ["torvald-ironhand", "stop"]  # the call is offered (Flame Lance: not a psionicist's)
    events = m.answer("torvald-ironhand")
    called = ev_find(events, "ally_called")[0]
    assert (called["def"], called["by"]["def"], called["totals"]) == (
        "torvald-ironhand", "ozrik-the-mindcaller", {"attacker": 16, "defender": 12})
    assert [(d["step"], d["def"], d["bonus"]) for d in ev_find(events, "activated")] == [("7b", "torvald-ironhand", 7)]
    assert m.zone("alice", "pool") == ["torvald-ironhand"]  # Ozrik is in the battle; Torvald stays in the pool
    assert m.rs.view(m.state, "bob")["battle"]["sides"]["attacker"]["brought"] == [
        {"card": m.iid("torvald-ironhand"), "def": "torvald-ironhand"}]
    m.answer_as("bob", "pass")
    m.answer("militia")              # bob, behind, plays: 16 against 16
    assert "torvald-ironhand" not in [o["id"] for o in m.window()["alice"]["options"]]
    m.answer_as("alice", "pass")
    assert m.prompt["seat"] == "alice" and m.option_ids() == ["stop"]  # once per round
    events = m.expire()              # alice stops: bob wins; the called ally shares Ozrik's fate
    assert ev_find(events, "round_ended")[0]["winner"] == "defender"
    assert m.zone("alice", "pool") == [] and {"ozrik-the-mindcaller", "torvald-ironhand"} <= set(m.zone("alice", "discard"))


def test_spellfire2_a_bringing_power_waits_while_its_side_may_not_play(match, S):
    m, events = ozrik_battle(match, S, 2)  # 9 against 2: alice is ahead, bob plays
    assert m.prompt["seat"] == "bob"
    m.answer("militia")              # 9 against 6: bob still behind; alice's window has no call
    assert [o["id"] for o in m.window()["alice"]["options"]] == ["pass"]


def test_spellfire2_cards_that_allow_cards_to_be_played_immediately_supersede_the_order(match, S):
    """"There are cards that allow other cards to be played immediately outside of the realm
    of the Order of Activation. These cards supersede this rule." A play-at-any-time card,
    played in a response window, activates at once: the attacker's ally (row 7b) after the
    defender's spell (row 8h)."""
    cards = [champion("raider", 6), champion("mage", 3, cls="wizard"), card("bolt", "spell", 4),
             card("quick-hands", "ally", 1, powers=["any_time"])]
    m, events = start(match, S, cards, ["raider"], ["mage"], alice={"hand": ["quick-hands"]},
                      bob={"hand": ["bolt"]}, target="plain")
    assert m.prompt["seat"] == "bob"   # 6 against 3
    events = m.answer("bolt")
    events += m.answer_as("alice", "quick-hands")
    assert order(events) == [("8h", "bolt"), ("7b", "quick-hands")]


def test_spellfire2_a_card_that_lets_another_be_played_immediately_supersedes_the_order(match, S):
    """The same sentence, with a card that lets its player play another at once: in a
    response window (where allies are not playable), alice plays Seize the Moment and
    then, at once, an ally."""
    cards = [champion("raider", 6), champion("mage", 3, cls="wizard"), card("bolt", "spell", 4),
             card("militia", "ally", 2)]
    m, events = start(match, S, cards, ["raider"], ["mage"], alice={"hand": ["seize-the-moment", "militia"]},
                      bob={"hand": ["bolt"]}, target="plain")
    m.answer("bolt")
    assert [m.cid(o["id"]) for o in m.window()["alice"]["options"][:-1]] == ["seize-the-moment"]  # no ally
    events = m.answer_as("alice", "seize-the-moment")
    assert m.prompt["kind"] == "play_at_once" and m.prompt["seat"] == "alice"
    assert m.option_ids() == ["militia", "pass"]
    events += m.answer("militia")
    assert order(events) == [("7b", "militia")]
    assert ev_find(events, "card_played")[-1]["totals"] == {"attacker": 8, "defender": 7}
    assert m.window()["bob"]["kind"] == "respond"  # the window follows the last card played


def test_play_at_once_pass_opens_the_window(match, S):
    cards = [champion("raider", 6), champion("mage", 3, cls="wizard"), card("bolt", "spell", 4)]
    m, events = start(match, S, cards, ["raider"], ["mage"], alice={"hand": ["seize-the-moment"]},
                      bob={"hand": ["bolt"]}, target="plain")
    m.answer("bolt")
    m.answer_as("alice", "seize-the-moment")
    assert m.option_ids() == ["pass"]
    m.answer("pass")
    assert m.window()["bob"]["kind"] == "respond"
