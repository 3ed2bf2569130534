"""The card kinds and keywords of the order of activation (docs/cards.md), one test each,
and one per card modelled on a card the texts name (cards/kinds.toml)."""

from __future__ import annotations

import pytest
from spellfire_kit import S, ev, match  # noqa: F401  (pytest fixtures)

from battlehall.engine.errors import CardDataError, SetupError
from battlehall.engine.spellfire.cards import COST_KEYS, FIELDS, FLAGS, NEGATABLE, load_files, shipped

ATTACK = {"seat": "alice", "phase": "attack"}


def find(events, kind):
    return [e["data"] for e in events if e["kind"] == kind]


def steps(events):
    return [(d["step"], d["def"]) for d in find(events, "activated")]


def fight(m, realm, attacker, defender):
    m.answer(realm)
    m.answer(attacker)
    return m.answer(defender)


# -- rule cards ---------------------------------------------------------------------------------

def test_rule_card_is_played_in_phase_0_and_stays_in_play(match, S):
    m = match(alice=S(hand=["tide-of-valor", "gloomwarren", "thornvale"], draw=["amberfield"] * 3))
    assert m.prompt["kind"] == "play_rule" and m.prompt["seat"] == "alice"
    assert m.option_ids() == ["tide-of-valor", "gloomwarren", "done"]
    events = m.answer("tide-of-valor")
    assert find(events, "rule_played") == [{"seat": "alice", "card": m.iid("tide-of-valor"), "def": "tide-of-valor",
                                            "owner": "alice", "zone": "rule", "slot": None, "from": "hand",
                                            "via": "phase"}]
    assert m.option_ids() == ["gloomwarren", "done"]  # one rule card a turn
    events = m.answer("gloomwarren")
    assert find(events, "dungeon_played")[0]["def"] == "gloomwarren"
    assert find(events, "phase")[0] == {"seat": "alice", "phase": "draw"}
    assert m.prompt["kind"] == "play_realm"
    view = m.rs.view(m.state, "bob")
    assert view["rule"] == {"seat": "alice", "card": m.iid("tide-of-valor"), "def": "tide-of-valor"}
    assert view["dungeons"] == {"alice": {"card": m.iid("gloomwarren"), "def": "gloomwarren"}}


def test_phase_0_is_asked_in_matches_with_rule_cards_whatever_the_hand(match, S):
    m = match(alice=S(hand=["thornvale"]), bob=S(draw=["bulwark-decree"]))
    assert m.prompt["kind"] == "play_rule" and m.option_ids() == ["done"]
    m2 = match(alice=S(hand=["thornvale"]), bob=S(draw=["amberfield"]))
    assert m2.prompt["kind"] == "play_realm"  # no rule card or dungeon in the match: no phase 0
    assert [e["data"]["phase"] for e in m2.log if e["kind"] == "phase"] == ["draw", "realm"]


INLINE_RULE = {"id": "edict-of-glass", "name": "Edict of Glass", "type": "rule", "text": "A rule card of a setup."}


def test_phase_0_counts_a_setup_s_inline_rule_card_only_once_it_is_dealt(match, S):
    dealt = match(alice=S(hand=["thornvale"]), bob=S(draw=["edict-of-glass"]), cards=[INLINE_RULE])
    assert dealt.prompt["kind"] == "play_rule"
    defined_only = match(alice=S(hand=["thornvale"]), bob=S(draw=["amberfield"]), cards=[INLINE_RULE])
    assert defined_only.prompt["kind"] == "play_realm"  # defined in the setup, in no zone: not in the match


def test_one_rule_card_in_play_at_a_time(match, S):
    m = match(alice=S(hand=["bulwark-decree"]), rule={"seat": "bob", "card": "tide-of-valor"})
    events = m.answer("bulwark-decree")
    assert find(events, "cards_discarded") == [{"seat": "bob", "cards": [{"card": m.iid("tide-of-valor"),
                                                                          "def": "tide-of-valor"}],
                                                "reason": "replaced", "owner": "bob", "from": "rule", "slot": None,
                                                "zone": "discard"}]
    assert m.state["rule"] == {"seat": "alice", "card": m.iid("bulwark-decree")}


def test_rule_card_powers_apply_to_everyone(match, S):
    # bob's rule card helps alice's attack: +1 to every attacking champion
    m = match(alice=S(pool=["torvald-ironhand"]), bob=S(formation={"A": "ironbridge"}, pool=["oskar-the-sly"]),
              turn=ATTACK, rule={"seat": "bob", "card": "tide-of-valor"})
    events = fight(m, "ironbridge", "torvald-ironhand", "oskar-the-sly")
    rule = find(events, "activated")[0]
    assert (rule["step"], rule["def"], rule["seat"], rule["side"]) == ("1", "tide-of-valor", "bob", None)
    assert rule["adds"] == {"attacker": 1, "defender": 0}
    assert find(events, "powers_activated")[0]["totals"] == {"attacker": 7 + 1, "defender": 5 + 1}


def test_rule_card_negates_for_both_sides(match, S):
    m = match(alice=S(pool=["maelis-brightquill"], hand=["flame-lance"]),
              bob=S(formation={"A": "castle-gravenmoor"}, pool=["archmage-quillon"], hand=["arcane-veil"]),
              turn=ATTACK, rule={"seat": "alice", "card": "edict-of-stillness"})
    events = fight(m, "castle-gravenmoor", "maelis-brightquill", "archmage-quillon")
    edict = find(events, "activated")[0]
    assert edict["negates"] == [["attacker", "spell"], ["defender", "spell"]]
    loser = m.prompt["seat"]
    spell = "flame-lance" if loser == "alice" else "arcane-veil"
    before = find(events, "powers_activated")[0]["totals"]
    events = m.answer(spell)
    assert find(events, "activated")[0]["cancelled"] is True
    assert find(events, "card_played")[0]["totals"] == before


def test_event_discards_the_rule_card(match, S):
    m = match(alice=S(pool=["torvald-ironhand"]),
              bob=S(formation={"A": "ironbridge"}, pool=["oskar-the-sly"], hand=["overturned-edict"]),
              turn=ATTACK, rule={"seat": "alice", "card": "tide-of-valor"})
    fight(m, "ironbridge", "torvald-ironhand", "oskar-the-sly")  # 8 against 6: bob plays
    events = m.answer("overturned-edict")
    assert find(events, "card_played")[0]["effects"] == ["discard_rule_event"]
    assert find(events, "card_played")[0]["totals"] == {"attacker": 7, "defender": 6}
    assert m.state["rule"] is None and "tide-of-valor" in m.zone("alice", "discard")


# -- dungeons ---------------------------------------------------------------------------------

def test_dungeon_one_per_player_a_new_one_replaces_the_old(match, S):
    m = match(alice=S(hand=["hall-of-false-echoes"], dungeon="gloomwarren"), bob=S(dungeon="gloomwarren"))
    events = m.answer("hall-of-false-echoes")
    assert [d["reason"] for d in find(events, "cards_discarded")] == ["replaced"]
    assert m.zone("alice", "discard") == ["gloomwarren"]
    assert m.cid(m.state["dungeons"]["alice"]) == "hall-of-false-echoes"
    assert m.cid(m.state["dungeons"]["bob"]) == "gloomwarren"  # bob's own stays


def test_dungeon_works_in_its_owners_battles_only(match, S):
    m = match(alice=S(pool=["torvald-ironhand"], dungeon="gloomwarren"),
              bob=S(formation={"A": "ironbridge"}, pool=["oskar-the-sly"], dungeon="gloomwarren"),
              carol=S(dungeon="hall-of-false-echoes"), turn=ATTACK)
    events = fight(m, "ironbridge", "torvald-ironhand", "oskar-the-sly")
    dens = [(d["seat"], d["side"], d["adds"]) for d in find(events, "activated") if d["step"] == "2"]
    assert dens == [("alice", "attacker", {"attacker": 0, "defender": 0}),   # +2 defending only
                    ("bob", "defender", {"attacker": 0, "defender": 2})]     # carol's is not in this battle
    assert find(events, "powers_activated")[0]["totals"] == {"attacker": 7, "defender": 5 + 1 + 2}


def test_dungeon_negates_the_opposing_sides_allies(match, S):
    m = match(alice=S(pool=["torvald-ironhand"], dungeon="hall-of-false-echoes"),
              bob=S(formation={"A": "ironbridge"}, pool=["oskar-the-sly"], hand=["free-company"]), turn=ATTACK)
    events = fight(m, "ironbridge", "torvald-ironhand", "oskar-the-sly")
    assert find(events, "powers_activated")[0]["totals"] == {"attacker": 8, "defender": 6}
    events = m.answer("free-company")
    assert find(events, "activated")[0]["cancelled"] is True
    assert find(events, "card_played")[0]["totals"] == {"attacker": 8, "defender": 6}


# -- avatars ----------------------------------------------------------------------------------

POOL = {"seat": "alice", "phase": "pool"}


def test_avatar_cost_sacrifice(match, S):
    m = match(alice=S(hand=["avatar-of-the-storm-lord"], pool=["sister-orla", "torvald-ironhand"]), turn=POOL)
    assert m.option("avatar-of-the-storm-lord")["args"] == {"sacrifice": [m.iid("sister-orla")]}
    events = m.answer("avatar-of-the-storm-lord", sacrifice=m.iid("sister-orla"))
    assert find(events, "cards_discarded")[0]["reason"] == "sacrifice"
    assert m.zone("alice", "pool") == ["torvald-ironhand", "avatar-of-the-storm-lord"]
    assert m.zone("alice", "discard") == ["sister-orla"]


def test_avatar_is_playable_only_when_its_cost_is_met(match, S):
    m = match(alice=S(hand=["avatar-of-the-storm-lord", "ashen-herald"], pool=["torvald-ironhand"],
                      formation={"A": "emberhold", "B": "thornvale", "C": "amberfield"}), turn=POOL)
    assert m.option_ids() == ["done"]  # no cleric to give; three realms, not four
    m2 = match(alice=S(hand=["ashen-herald"], formation={"A": "emberhold", "B": "thornvale", "C": "amberfield",
                                                         "D": "rivenmoor"}), turn=POOL)
    assert "args" not in m2.option("ashen-herald")
    m2.answer("ashen-herald")
    assert m2.zone("alice", "pool") == ["ashen-herald"]


def test_avatar_does_not_attack_from_the_hand(match, S):
    m = match(alice=S(hand=["ashen-herald", "torvald-ironhand"]), bob=S(formation={"A": "ironbridge"}), turn=ATTACK)
    m.answer("ironbridge")
    assert m.option_ids() == ["torvald-ironhand", "back", "end"]


def test_avatar_as_spoils_only_with_its_cost(match, S):
    m = match(alice=S(pool=["torvald-ironhand"], draw=["avatar-of-the-storm-lord"]),
              bob=S(formation={"A": "ironbridge"}), turn=ATTACK)
    fight(m, "ironbridge", "torvald-ironhand", "decline")
    assert m.prompt["kind"] == "spoils" and m.option_ids() == ["keep"]  # no cleric in the pool


def test_rule_card_and_dungeon_as_spoils_are_played_at_once(match, S):
    m = match(alice=S(pool=["torvald-ironhand"], draw=["bulwark-decree"]), bob=S(formation={"A": "ironbridge"}),
              turn=ATTACK)
    fight(m, "ironbridge", "torvald-ironhand", "decline")
    assert m.option_ids() == ["bulwark-decree", "keep"]
    events = m.answer("bulwark-decree")
    assert find(events, "rule_played")[0]["seat"] == "alice"


# -- realms that defend themselves (the Triumvirate realms) --------------------------------------

def test_triad_spire_defends_itself_and_stays(match, S):
    m = match(alice=S(pool=["maelis-brightquill", "sister-orla"]),
              bob=S(formation={"A": {"realm": "triad-spire-of-iron", "holding": "lantern-watch"}}),
              turn=ATTACK, options={"attacks_per_turn": 2})
    events = fight(m, "triad-spire-of-iron", "maelis-brightquill", "triad-spire-of-iron")
    assert find(events, "powers_activated")[0]["totals"]["defender"] == 6 + 1 + 2  # level, its +1, the holding
    events = m.expire()  # alice (6) stops: the spire wins and stays where it is
    assert find(events, "round_ended")[0]["winner"] == "defender"
    assert m.slot("bob", "A") == {"realm": "triad-spire-of-iron", "razed": False, "holding": "lantern-watch"}
    assert m.zone("bob", "pool") == [] and "triad-spire-of-iron" not in m.zone("bob", "discard")
    if m.prompt["kind"] == "spoils":  # the defeated attacker ended the battle (spellfire-3)
        m.answer("keep")
    m.answer("triad-spire-of-iron")  # a second battle against it, this turn
    m.answer("sister-orla")
    assert m.option_ids() == ["decline"]  # it defended once this turn


def test_triad_spire_that_loses_is_razed(match, S):
    m = match(alice=S(pool=["vexthra-the-red"]), bob=S(formation={"A": "triad-spire-of-ash"}), turn=ATTACK)
    events = fight(m, "triad-spire-of-ash", "vexthra-the-red", "triad-spire-of-ash")
    assert m.prompt["seat"] == "bob"
    events = m.expire()
    assert find(events, "round_ended")[0]["winner"] == "attacker"
    assert m.slot("bob", "A")["razed"] and "triad-spire-of-ash" not in m.zone("bob", "discard")


# -- the Trollmoors, the Banner ------------------------------------------------------------------

def test_rotfen_moors_must_be_defeated_twice(match, S):
    m = match(alice=S(pool=["vexthra-the-red", "torvald-ironhand"]),
              bob=S(formation={"A": "rotfen-moors"}, pool=["oskar-the-sly"]), turn=ATTACK)
    fight(m, "rotfen-moors", "vexthra-the-red", "oskar-the-sly")
    events = m.answer("stop")  # Oskar (5 + 1) behind Vexthra (8): bob gives up the round
    assert find(events, "realm_holds")[0]["def"] == "rotfen-moors" and not m.slot("bob", "A")["razed"]
    m.answer("torvald-ironhand")
    m.answer("decline")
    assert m.slot("bob", "A")["razed"]


def test_warbanner_counts_only_when_defending(match, S):
    m = match(alice=S(pool=[("torvald-ironhand", ["warbanner-of-the-half-blind-lord"])]),
              bob=S(formation={"A": "ironbridge"}, pool=["oskar-the-sly"]), turn=ATTACK)
    events = fight(m, "ironbridge", "torvald-ironhand", "oskar-the-sly")
    banner = [d for d in find(events, "activated") if d["def"] == "warbanner-of-the-half-blind-lord"][0]
    assert (banner["step"], banner["bonus"]) == ("7c", 0)


# -- timing keywords ------------------------------------------------------------------------------

def test_before_combat_champion_slays_before_the_attacker_acts(match, S):
    m = match(alice=S(pool=["maelis-brightquill"]), bob=S(formation={"A": "ironbridge"}, pool=["duskfang-stalker"]),
              turn=ATTACK)
    events = fight(m, "ironbridge", "maelis-brightquill", "duskfang-stalker")
    assert steps(events) == [("3", "ironbridge"), ("6", "duskfang-stalker")]
    assert find(events, "powers_activated")[0]["slain"] == "attacker"


def test_before_combat_realm_negates_the_attacking_champion(match, S):
    m = match(alice=S(pool=["brother-hollis-the-null"]),
              bob=S(formation={"A": "thornwall-bastion"}, pool=["kethra-dunestrider"]), turn=ATTACK)
    events = fight(m, "thornwall-bastion", "brother-hollis-the-null", "kethra-dunestrider")
    acts = find(events, "activated")
    assert [(d["step"], d["def"], d.get("cancelled", False)) for d in acts] == [
        ("6", "thornwall-bastion", False), ("7", "brother-hollis-the-null", True), ("8", "kethra-dunestrider", False)]
    assert acts[1]["bonus"] == 6  # its power is gone; its level still counts


def test_before_combat_ally_played_later_activates_when_played(match, S):
    m = match(alice=S(pool=["torvald-ironhand"], hand=["ambush-from-the-reeds"]),
              bob=S(formation={"A": "castle-gravenmoor"}, pool=["lady-seraphine-vael"]), turn=ATTACK)
    fight(m, "castle-gravenmoor", "torvald-ironhand", "lady-seraphine-vael")
    events = m.answer("ambush-from-the-reeds")
    assert steps(events) == [("6", "ambush-from-the-reeds")]  # its row, though it acts when played
    assert [(o["step"], o["def"]) for o in m.rs.view(m.state, None)["battle"]["order"]] == [
        ("3", "castle-gravenmoor"), ("6", "ambush-from-the-reeds"), ("7", "torvald-ironhand"),
        ("8", "lady-seraphine-vael")]


def test_before_battle_cards_only_before_the_battle(match, S):
    m = match(alice=S(pool=["maelis-brightquill"], hand=["omen-of-war", "vanguard-outriders", "flame-lance"]),
              bob=S(formation={"A": "castle-gravenmoor"}, pool=["lady-seraphine-vael"], hand=["omen-of-war"]),
              turn=ATTACK)
    fight(m, "castle-gravenmoor", "maelis-brightquill", "lady-seraphine-vael")
    assert m.prompt["kind"] == "before_battle" and m.option_ids() == ["omen-of-war", "vanguard-outriders", "done"]
    events = m.answer("omen-of-war")
    assert find(events, "card_played")[0]["before_battle"] is True and not find(events, "activated")
    assert m.prompt["seat"] == "bob" and m.option_ids() == ["done"]  # Lady Seraphine casts no wizard spell
    m.answer("done")
    assert m.prompt["seat"] == "alice" and m.option_ids() == ["vanguard-outriders", "done"]  # the sides take turns
    events = m.answer("done")  # two passes in a row end the step
    assert ("5", "omen-of-war") in steps(events)
    assert m.prompt["kind"] == "battle_play"
    assert "vanguard-outriders" not in m.option_ids() and "flame-lance" in m.option_ids()


# -- negation --------------------------------------------------------------------------------------

def test_negating_champion_cancels_the_opposing_champions_power(match, S):
    m = match(alice=S(pool=["brother-hollis-the-null"]),
              bob=S(formation={"A": "ironbridge"}, pool=["sir-cadoc-wyrmsbane"]), turn=ATTACK)
    events = fight(m, "ironbridge", "brother-hollis-the-null", "sir-cadoc-wyrmsbane")
    cadoc = find(events, "activated")[-1]
    assert cadoc["def"] == "sir-cadoc-wyrmsbane" and cadoc["cancelled"] is True


def test_nullstone_amulets_the_attackers_acts_first(match, S):
    m = match(alice=S(pool=[("torvald-ironhand", ["nullstone-amulet"])]),
              bob=S(formation={"A": "ironbridge"}, pool=[("oskar-the-sly", ["nullstone-amulet", "cloak-of-dusk"])]),
              turn=ATTACK)
    events = fight(m, "ironbridge", "torvald-ironhand", "oskar-the-sly")
    cancelled = [d["def"] for d in find(events, "activated") if d.get("cancelled")]
    assert sorted(cancelled) == ["cloak-of-dusk", "nullstone-amulet"]


def test_word_of_unmaking_from_a_seat_outside_the_battle(match, S):
    m = match(alice=S(pool=["maelis-brightquill"], hand=["flame-lance", "arcane-veil"]),
              bob=S(formation={"A": "castle-gravenmoor"}, pool=["lady-seraphine-vael"]),
              carol=S(hand=["word-of-unmaking"]), turn=ATTACK)
    fight(m, "castle-gravenmoor", "maelis-brightquill", "lady-seraphine-vael")
    m.answer("flame-lance")
    option = [o for o in m.window()["carol"]["options"] if o["id"] == m.iid("word-of-unmaking")][0]
    assert option["args"] == {"side": ["attacker", "defender"]}
    events = m.answer_as("carol", "word-of-unmaking", side="defender")
    assert find(events, "card_played")[0]["negates"] == [["attacker", "spell"]]


# -- card data ---------------------------------------------------------------------------------

BASE = '[[card]]\nid = "x"\nname = "X"\n'


@pytest.mark.parametrize("body,message,valid", [
    ('type = "realm"\nworld = "greyhawk"\npowers = ["teleport"]', "unknown power 'teleport'", FLAGS),
    ('type = "realm"\nworld = "greyhawk"\ncolour = "red"', "unknown field 'colour'", FIELDS),
    ('type = "ally"\nbonus = 1\nnegates = ["weather"]', "unknown negates 'weather'", NEGATABLE),
    ('type = "champion"\nclass = "hero"\nlevel = 9\nworld = "greyhawk"\ncost = { gold = 3 }',
     "unknown cost 'gold'", COST_KEYS),
])
def test_unknown_keyword_names_file_line_and_lists_the_valid_ones(tmp_path, body, message, valid):
    path = tmp_path / "bad.toml"
    path.write_text('# a file\n\n' + BASE + body + "\n")
    with pytest.raises(CardDataError) as e:
        load_files([str(path)])
    assert e.value.line == 3 and e.value.file == str(path) and message in str(e.value)
    assert f"{path}:3" in str(e.value)
    for word in valid:
        assert word in str(e.value)


@pytest.mark.parametrize("body,message", [
    ('type = "champion"\nclass = "hero"\nlevel = 9\nworld = "greyhawk"\ndefends_as = 3', "does not apply to a champion"),
    ('type = "realm"\nworld = "greyhawk"\npowers = ["brings_ally"]', "does not apply to a realm"),
    ('type = "event"\npowers = ["before_battle"]', "does not apply to a event"),
    ('type = "rule"\nslays = "hero"', "does not apply to a rule"),
    ('type = "dungeon"\nnegates = []', "non-empty list"),
    ('type = "champion"\nclass = "hero"\nlevel = 9\nworld = "greyhawk"\ncost = { realms = 9 }', "from 1 to 6"),
    ('type = "champion"\nclass = "hero"\nlevel = 9\nworld = "greyhawk"\ncost = { sacrifice = "bard" }', "must be one of"),
    ('type = "ally"\nbonus = 1\nnegates = ["spell", "spell"]', "given twice"),
])
def test_malformed_new_keywords(tmp_path, body, message):
    path = tmp_path / "bad.toml"
    path.write_text(BASE + body + "\n")
    with pytest.raises(CardDataError) as e:
        load_files([str(path)])
    assert e.value.line == 1 and message in str(e.value)


def test_every_new_keyword_is_used_by_a_shipped_card():
    cards = [c for c in shipped().cards.values()]
    used = {p for c in cards for p in c["powers"]} | {k for c in cards for k in c["negates"]}
    assert {"before_combat", "before_battle", "always_active", "brings_ally", "discard_rule_event",
            "play_at_once"} <= used
    assert {"champion", "spell", "magical_item", "ally"} <= used
    assert {k for c in cards if c["cost"] for k in c["cost"]} == set(COST_KEYS)
    assert {c["type"] for c in cards} >= {"rule", "dungeon"}
    assert any(c["defends_as"] for c in cards)


# -- setup ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("setup,path", [
    ({"rule": {"seat": "alice", "card": "gloomwarren"}}, "setup.rule.card"),
    ({"rule": {"seat": "zed", "card": "tide-of-valor"}}, "setup.rule.seat"),
    ({"rule": {"seat": "alice", "card": "tide-of-valor", "x": 1}}, "setup.rule.x"),
    ({"players": {"alice": {"dungeon": "tide-of-valor"}}}, "setup.players.alice.dungeon"),
    ({"players": {"alice": {"dungeon": "nowhere"}}}, "setup.players.alice.dungeon"),
])
def test_setup_rule_and_dungeon_errors_name_the_field(setup, path):
    from battlehall.engine import get_ruleset
    setup = {"players": {"alice": {}, "bob": {}}, **setup}
    setup["players"] = {"alice": {}, "bob": {}, **setup["players"]}
    with pytest.raises(SetupError) as e:
        get_ruleset("spellfire").start(["alice", "bob"], 1, {}, setup)
    assert e.value.path == path


def test_a_realm_defending_itself_is_a_champion_of_its_level_for_other_powers(match, S):
    # Mirror Shade adds half the opposing champion's level: the spire's `defends_as`
    m = match(alice=S(pool=["oskar-the-sly"], hand=["mirror-shade"]), bob=S(formation={"A": "triad-spire-of-iron"}),
              turn=ATTACK, options={"same_world_bonus": True})
    events = fight(m, "triad-spire-of-iron", "oskar-the-sly", "triad-spire-of-iron")
    # the same-world bonus is a champion's: the spire gets none for standing in its own world
    assert find(events, "powers_activated")[0]["totals"] == {"attacker": 5, "defender": 6 + 1}
    events = m.answer("mirror-shade")
    assert find(events, "card_played")[0]["totals"] == {"attacker": 5 + 3, "defender": 7}


@pytest.mark.parametrize("n", [2, 6])
def test_random_play_with_the_deepvault_deck(n):
    """Random play with every seat on the Deepvault deck: the invariants of
    test_properties hold, and the new kinds do come up."""
    import random

    from test_properties import play

    from battlehall.engine import get_ruleset

    rs = get_ruleset("spellfire")
    seen = set()
    for seed in range(6):
        seats = [f"s{i}" for i in range(n)]
        state, log, _ = play(rs, seed, random.Random(seed), {"decks": ["deepvault"] * n, "turn_limit": 40},
                             full=seed == 0, seats=seats)
        seen |= {e["kind"] for e in log}
        seen |= {"row " + e["data"]["step"] for e in log if e["kind"] == "activated"}
        seen |= {e["data"]["kind"] for e in log if e["kind"] == "prompt"}
    assert {"rule_played", "dungeon_played", "row 1", "row 2", "row 5", "row 6", "play_rule", "before_battle"} <= seen


def test_a_cancelled_caller_calls_no_ally_and_a_negated_ally_adds_nothing(match, S):
    # Brother Hollis attacks first and cancels Ozrik's power: Ozrik has no call to make
    from battlehall.engine.spellfire import powers
    for attacker, calls in (("brother-hollis-the-null", []), ("torvald-ironhand", ["oskar-the-sly"])):
        m = match(alice=S(pool=[attacker]),
                  bob=S(formation={"A": "ironbridge"}, pool=["ozrik-the-mindcaller", "oskar-the-sly"]), turn=ATTACK)
        events = fight(m, "ironbridge", attacker, "ozrik-the-mindcaller")
        assert find(events, "activated")[-1].get("cancelled", False) is (not calls)
        assert [m.cid(o["id"]) for o in powers.bring_options(m.state, m.state["battle"], "defender")] == calls
    m2 = match(alice=S(pool=["ozrik-the-mindcaller", "torvald-ironhand"]),
               bob=S(formation={"A": "ironbridge"}, pool=["tyrant-sorn"], dungeon="hall-of-false-echoes"),
               turn=ATTACK)
    events = fight(m2, "ironbridge", "ozrik-the-mindcaller", "tyrant-sorn")
    before = find(events, "powers_activated")[0]["totals"]
    assert m2.prompt["seat"] == "alice"
    events = m2.answer("torvald-ironhand")  # bob's dungeon negates alice's allies: Torvald adds nothing
    assert find(events, "activated")[0]["cancelled"] is True
    assert find(events, "ally_called")[0]["totals"] == before
