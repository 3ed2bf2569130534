"""The battle, steps A-J of spellfire-1, each from a small explicit setup."""

from __future__ import annotations

import pytest
from spellfire_kit import S, ev, match  # noqa: F401  (pytest fixtures)

from battlehall.engine.spellfire import activation

ATTACK = {"seat": "alice", "phase": "attack"}


def bob_realms(**extra):
    f = {"A": "ironbridge", "B": "hollowmere", "C": "mistveil-hamlet"}
    f.update(extra)
    return f


# -- A: choosing the realm --------------------------------------------------------------

def test_a_only_exposed_realms_are_offered(match, S):
    m = match(alice=S(pool=["torvald-ironhand"]), bob=S(formation=bob_realms()), turn=ATTACK)
    assert m.prompt["kind"] == "choose_realm" and m.prompt["seat"] == "alice"
    assert m.option_ids() == ["ironbridge", "end"]
    assert m.prompt["default"] == "end"


def test_a_razed_realms_expose_the_next_row(match, S):
    f = bob_realms(A={"realm": "ironbridge", "razed": True}, D="wailing-barrow", E="ravencrag")
    m = match(alice=S(pool=["torvald-ironhand"]), bob=S(formation=f), turn=ATTACK)
    assert m.option_ids() == ["hollowmere", "mistveil-hamlet", "end"]  # B, C; not the razed A, not D/E


def test_a_no_champion_no_target(match, S):
    m = match(alice=S(hand=["flame-lance"]), bob=S(formation=bob_realms()), turn=ATTACK)
    assert m.option_ids() == ["end"]


def test_a_champion_in_hand_can_attack(match, S):
    m = match(alice=S(hand=["torvald-ironhand"]), bob=S(formation=bob_realms()), turn=ATTACK)
    assert m.option_ids() == ["ironbridge", "end"]


@pytest.mark.parametrize("champion,expected", [
    ("vexthra-the-red", ["ironbridge", "hollowmere", "mistveil-hamlet", "stonewatch-abbey", "end"]),   # flyer
    ("seawyrm-of-rivenmoor", ["ironbridge", "hollowmere", "end"]),                                       # swimmer
    ("gnarltooth-ogre", ["ironbridge", "hollowmere", "mistveil-hamlet", "end"]),                         # earthwalker
])
def test_a_movement_powers(match, S, champion, expected):
    m = match(alice=S(pool=[champion]), bob=S(formation=bob_realms(D="stonewatch-abbey")), turn=ATTACK)
    assert m.option_ids() == expected


def test_a_end_goes_to_discard_phase_and_next_turn(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"], formation={"A": "emberhold"}), bob=S(formation=bob_realms()),
              turn=ATTACK)
    events = m.answer("end")
    assert ev.find(events, "phase")[0] == {"seat": "alice", "phase": "discard"}
    assert ev.find(events, "turn_started")[0] == {"seat": "bob", "number": 2}
    assert m.prompt["seat"] == "bob" and m.prompt["kind"] == "play_realm"


# -- B: the attacking champion ------------------------------------------------------------

def test_b_attacker_from_hand_or_pool(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"], hand=["maelis-brightquill", "flame-lance"]),
              bob=S(formation=bob_realms()), turn=ATTACK)
    events = m.answer("ironbridge")
    assert ev.find(events, "battle_started")[0] == {"attacker": "alice", "defender": "bob",
                                                    "card": m.iid("ironbridge"), "def": "ironbridge", "slot": "A",
                                                    "owner": "bob", "zone": "formation"}
    assert m.prompt["kind"] == "choose_attacker"
    assert m.option_ids() == ["torvald-ironhand", "maelis-brightquill", "back", "end"]
    assert m.prompt["default"] == "end"
    events = m.answer("maelis-brightquill")
    chosen = ev.find(events, "champion_chosen")[0]
    assert chosen["side"] == "attacker" and chosen["from"] == "hand" and chosen["def"] == "maelis-brightquill"
    assert "maelis-brightquill" not in m.zone("alice", "hand")
    assert m.prompt["kind"] == "choose_defender" and m.prompt["seat"] == "bob"


def test_b_pool_champion_brings_its_attachments(match, S, ev):
    m = match(alice=S(pool=[("torvald-ironhand", ["crown-of-embers", "cloak-of-dusk"])]),
              bob=S(formation=bob_realms(), pool=["oskar-the-sly"]), turn=ATTACK)
    m.answer("ironbridge")
    events = m.answer("torvald-ironhand")
    assert [a["def"] for a in ev.find(events, "champion_chosen")[0]["attached"]] == ["crown-of-embers", "cloak-of-dusk"]
    events = m.answer("oskar-the-sly")
    # 7 + 3 + 1 = 11 against 5 + 1 (Ironbridge)
    assert ev.find(events, "powers_activated")[0]["totals"] == {"attacker": 11, "defender": 6}


def test_b_end_before_any_round_ends_the_attack(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"]), bob=S(formation=bob_realms()), turn=ATTACK)
    m.answer("ironbridge")
    events = m.expire()
    assert ev.find(events, "battle_ended")[0]["rounds"] == 0
    assert not ev.find(events, "cards_drawn") or ev.find(events, "cards_drawn")[0]["reason"] == "turn"
    assert m.state["battle"] is None


def test_b_attacker_may_back_out_before_a_champion_is_chosen_once_a_turn(match, S, ev):
    """Choosing a realm starts the battle; until a champion steps forward the attacker may
    go back (`back`) without spending the turn's attack, once a turn. `end` says that it
    spends the attack, and does."""
    m = match(alice=S(pool=["torvald-ironhand"], formation={"A": "emberhold"}), bob=S(formation=bob_realms()),
              turn=ATTACK)
    m.answer("ironbridge")
    assert "the attack is spent" in m.prompt["text"] and "not spent" in m.prompt["text"]
    assert "attack is spent" in m.option("end")["text"] and "not spent" in m.option("back")["text"]
    assert "Ironbridge" in m.option("back")["text"] and "Ironbridge" in m.option("end")["text"]
    events = m.answer("back")
    assert ev.find(events, "attack_withdrawn") == [{"attacker": "alice", "defender": "bob",
                                                     "card": m.iid("ironbridge"), "def": "ironbridge",
                                                     "owner": "bob", "zone": "formation", "slot": "A", "attacks": 0}]
    assert not ev.find(events, "battle_ended") and m.state["battle"] is None
    view = m.rs.view(m.state, "bob")
    assert view["battle"] is None and view["turn"]["attacks"] == 0 and view["turn"]["withdrawn"] is True
    assert m.prompt["kind"] == "choose_realm" and m.option_ids() == ["ironbridge", "end"]
    m.answer("ironbridge")  # the attack was not spent: a battle may still be fought
    assert m.option_ids() == ["torvald-ironhand", "end"]  # once a turn: no going back again
    assert "go back" not in m.prompt["text"]
    events = m.answer("end")
    assert ev.find(events, "battle_ended")[0]["attacks"] == 1 and ev.find(events, "battle_ended")[0]["rounds"] == 0
    assert m.state["turn"]["seat"] == "bob"  # the attack was spent: the turn moved on
    assert m.state["turn"]["withdrawn"] is False  # bob's turn may back out again


def test_b_no_going_back_once_a_round_was_fought(match, S):
    """In the second round against a realm that must be defeated twice, `end` ends the
    battle (the realm stands) and there is no `back`."""
    m = match(alice=S(pool=["torvald-ironhand", "maelis-brightquill"]),
              bob=S(formation={"A": "gallowfen"}, pool=["oskar-the-sly"]), turn=ATTACK)
    m.answer("gallowfen")
    m.answer("torvald-ironhand")
    m.answer("oskar-the-sly")
    m.answer("stop")  # Gallowfen holds
    assert m.prompt["kind"] == "choose_attacker" and m.option_ids() == ["maelis-brightquill", "end"]
    assert m.prompt["text"].startswith("Round 2 against bob's Gallowfen (A)")
    assert "Gallowfen stands" in m.option("end")["text"]


# -- C: the defender, or none -------------------------------------------------------------

def test_c_defender_options_and_decline_razes(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"], draw=["thornvale"]),
              bob=S(formation=bob_realms(), pool=["oskar-the-sly"], hand=["grey-warden-tamsin", "free-company"]),
              turn=ATTACK)
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    assert m.option_ids() == ["oskar-the-sly", "grey-warden-tamsin", "decline"]
    assert m.prompt["default"] == "decline"
    events = m.expire()
    assert ev.kinds(events)[:6] == ["prompt_closed", "defense_declined", "champion_returned", "round_ended",
                                    "realm_razed", "battle_ended"]
    assert m.slot("bob", "A")["razed"]
    assert m.zone("alice", "pool") == ["torvald-ironhand"]
    # J: the attacker draws one card of spoils and is asked whether to play it now
    drawn = ev.find(events, "cards_drawn")[0]
    assert drawn == {"seat": "alice", "count": 1, "wanted": 1, "reason": "spoils", "draw_size": 0,
                     "owner": "alice", "from": "draw", "zone": "hand"}
    assert m.prompt["kind"] == "spoils" and m.prompt["seat"] == "alice"


# -- D: activation order ----------------------------------------------------------------

def test_d_order_table_matches_spellfire_2():
    expected = [("1", None, "rule"), ("2", None, "dungeon"), ("3", None, "realm"), ("4", None, "holding"),
                ("5", None, "yellow_before_battle"), ("6", None, "before_combat")]
    kinds = ["champion", "artifact", "ally", "magical_item", "blood_ability", "thief_skill", "unarmed_combat",
             "psionic_power", "spell"]
    for n, side in (("7", "attacker"), ("8", "defender")):
        expected += [(n + letter, side, kind) for letter, kind in zip(["", "a", "b", "c", "d", "e", "f", "g", "h"], kinds)]
    assert list(activation.ORDER) == expected


def test_d_activation_sequence(match, S, ev):
    m = match(alice=S(pool=[("torvald-ironhand", ["cloak-of-dusk", "sword-of-morning-star", "crown-of-embers"])]),
              bob=S(formation={"A": {"realm": "ironbridge", "holding": "bellkeep-tower"}},
                    pool=[("grey-warden-tamsin", ["wand-of-sparks", "amulet-of-second-dawn"])]),
              turn=ATTACK)
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    events = m.answer("grey-warden-tamsin")
    order = [(e["step"], e["def"]) for e in ev.find(events, "powers_activated")[0]["order"]]
    assert order == [("3", "ironbridge"), ("4", "bellkeep-tower"),
                     ("7", "torvald-ironhand"), ("7a", "crown-of-embers"),
                     ("7c", "sword-of-morning-star"), ("7c", "cloak-of-dusk"),   # highest bonus first
                     ("8", "grey-warden-tamsin"),
                     ("8c", "amulet-of-second-dawn"), ("8c", "wand-of-sparks")]  # equal bonus: by name


def test_d_attacker_power_activates_first(match, S, ev):
    # Cadoc slays monsters; Vexthra is one. The attacker's power comes first.
    m = match(alice=S(pool=["sir-cadoc-wyrmsbane"], draw=["thornvale"]),
              bob=S(formation=bob_realms(), pool=["vexthra-the-red"]), turn=ATTACK)
    m.answer("ironbridge")
    m.answer("sir-cadoc-wyrmsbane")
    events = m.answer("vexthra-the-red")
    act = ev.find(events, "powers_activated")[0]
    assert act["slain"] == "defender" and [e["def"] for e in act["order"]][-1] == "sir-cadoc-wyrmsbane"
    assert ev.find(events, "round_ended")[0]["winner"] == "attacker"
    assert "vexthra-the-red" in m.zone("bob", "discard")
    assert m.slot("bob", "A")["razed"]


def test_d_defender_power_defeats_attacker(match, S, ev):
    m = match(alice=S(pool=["morvath-hollow-king", "torvald-ironhand"]),
              bob=S(formation=bob_realms(), pool=["father-ansel-greaves"], draw=["wailing-barrow"]), turn=ATTACK)
    m.answer("ironbridge")
    m.answer("morvath-hollow-king")
    events = m.answer("father-ansel-greaves")
    assert ev.find(events, "powers_activated")[0]["slain"] == "attacker"
    assert ev.find(events, "round_ended")[0]["winner"] == "defender"
    assert "morvath-hollow-king" in m.zone("alice", "discard")
    assert m.zone("bob", "pool") == ["father-ansel-greaves"]
    # spellfire-3: the defeated attacker ends the battle (Torvald gets no round); bob's spoils at once
    assert ev.find(events, "battle_ended")[0]["spoils"] == "bob"
    assert m.prompt["kind"] == "spoils" and m.prompt["seat"] == "bob"


# -- E: totals ---------------------------------------------------------------------------

def test_e_totals_include_realm_and_holding(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"]),
              bob=S(formation={"A": {"realm": "castle-gravenmoor", "holding": "crypt-of-whispers"}},
                    pool=["oskar-the-sly"]), turn=ATTACK)
    m.answer("castle-gravenmoor")
    m.answer("torvald-ironhand")
    events = m.answer("oskar-the-sly")
    assert ev.find(events, "powers_activated")[0]["totals"] == {"attacker": 7, "defender": 5 + 2 + 2}


def test_e_tie_goes_to_defender(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"]),
              bob=S(formation=bob_realms(), pool=["grey-warden-tamsin"]), turn=ATTACK)  # 7 vs 6+1... +2 defending
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    m.answer("grey-warden-tamsin")
    assert m.prompt["kind"] == "battle_play" and m.prompt["seat"] == "alice"


def test_e_tie_exact(match, S, ev):
    m = match(alice=S(pool=["maelis-brightquill"]),
              bob=S(formation=bob_realms(), pool=["oskar-the-sly"]), turn=ATTACK)  # 6 vs 5 + 1
    m.answer("ironbridge")
    m.answer("maelis-brightquill")
    events = m.answer("oskar-the-sly")
    assert ev.find(events, "powers_activated")[0]["totals"] == {"attacker": 6, "defender": 6}
    assert m.prompt["seat"] == "alice"  # the attacker is behind on a tie
    events = m.expire()  # stop
    assert ev.find(events, "round_ended")[0]["winner"] == "defender"


@pytest.mark.parametrize("on,expected", [(False, {"attacker": 6, "defender": 6}),
                                         (True, {"attacker": 6, "defender": 9})])
def test_e_same_world_bonus_option(match, S, ev, on, expected):
    m = match(alice=S(pool=["maelis-brightquill"]),
              bob=S(formation=bob_realms(), pool=["oskar-the-sly"]), turn=ATTACK,
              options={"same_world_bonus": on})  # Oskar and Ironbridge: Greyhawk; Maelis: Realms
    m.answer("ironbridge")
    m.answer("maelis-brightquill")
    events = m.answer("oskar-the-sly")
    assert ev.find(events, "powers_activated")[0]["totals"] == expected


# -- F: playing cards back and forth ---------------------------------------------------------

def battle_f(match, S, alice_hand=(), bob_hand=(), **kw):
    m = match(alice=S(pool=["torvald-ironhand"], hand=list(alice_hand), draw=["thornvale"]),
              bob=S(formation=bob_realms(), pool=["grey-warden-tamsin"], hand=list(bob_hand),
                    draw=["wailing-barrow", "ravencrag"]),
              turn=ATTACK, **kw)
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    m.answer("grey-warden-tamsin")  # 7 against 6 + 2 + 1 = 9
    return m


def test_f_losing_side_plays_what_its_champion_can_use(match, S):
    m = battle_f(match, S, alice_hand=["flame-lance", "hillfolk-skirmishers", "iron-fist-strike", "earthrend",
                                       "cloak-of-dusk", "thornvale", "call-of-the-bloodline"])
    assert m.prompt["kind"] == "battle_play" and m.prompt["seat"] == "alice"
    # Torvald is a hero: unarmed combat yes, wizard spells and blood abilities no; realms never
    assert m.option_ids() == ["hillfolk-skirmishers", "iron-fist-strike", "earthrend", "cloak-of-dusk", "stop"]
    assert m.prompt["default"] == "stop"


def test_f_back_and_forth_with_response_windows(match, S, ev):
    m = battle_f(match, S, alice_hand=["hillfolk-skirmishers", "iron-fist-strike"],
                 bob_hand=["free-company", "sudden-rout", "glass-of-far-seeing"])
    events = m.answer("hillfolk-skirmishers")
    assert ev.find(events, "card_played")[0]["totals"] == {"attacker": 9, "defender": 9}
    # the winner may respond only with events and play-at-any-time cards
    assert m.prompt["kind"] == "respond" and m.prompt["seat"] == "bob"
    assert m.prompt["window"].startswith("w") and m.prompt["default"] == "pass"
    assert m.option_ids() == ["sudden-rout", "glass-of-far-seeing", "pass"]
    m.expire()
    assert m.prompt["kind"] == "battle_play" and m.prompt["seat"] == "alice"  # 9 vs 9: still behind
    m.answer("iron-fist-strike")
    # after each card the other side gets a response window, even with nothing to play
    assert m.prompt["kind"] == "respond" and m.prompt["seat"] == "bob"
    m.answer("pass")
    assert m.prompt["kind"] == "battle_play" and m.prompt["seat"] == "bob"  # 11 vs 9: now bob is behind
    assert m.option_ids() == ["free-company", "sudden-rout", "glass-of-far-seeing", "stop"]
    m.answer("free-company")
    assert m.prompt["kind"] == "respond" and m.prompt["seat"] == "alice"
    assert m.option_ids() == ["pass"]  # alice has nothing: the window opens all the same
    m.answer("pass")
    assert m.prompt["kind"] == "battle_play" and m.prompt["seat"] == "alice"
    events = m.answer("stop")
    # G, H: bob wins; his champion goes back to the pool; allies are discarded; alice loses everything
    ended = ev.find(events, "round_ended")[0]
    assert ended["winner"] == "defender" and ended["totals"] == {"attacker": 11, "defender": 13}
    assert m.zone("bob", "pool") == ["grey-warden-tamsin"]
    assert m.zone("bob", "discard") == ["free-company"]
    assert m.zone("alice", "discard") == ["torvald-ironhand", "hillfolk-skirmishers", "iron-fist-strike"]
    # the defeated attacker ends the battle; J: the defender draws its spoils at once
    assert ev.find(events, "cards_drawn")[0]["seat"] == "bob"
    assert m.prompt["kind"] == "spoils" and m.prompt["seat"] == "bob"


def test_f_winning_any_time_card_can_respond(match, S, ev):
    m = battle_f(match, S, alice_hand=["free-company"], bob_hand=["arcane-veil", "hallowed-ward"])
    m.answer("free-company")  # 11 vs 9
    # respond: bob is behind, but in a window only any-time cards his champion can use
    assert m.prompt["kind"] == "respond"
    assert m.option_ids() == ["pass"]  # Tamsin is a hero: no wizard or cleric spells


def test_g_h_winner_keeps_items_loser_discards_all(match, S, ev):
    m = match(alice=S(pool=[("torvald-ironhand", ["sword-of-morning-star"])], hand=["hillfolk-skirmishers"],
                      draw=["thornvale"]),
              bob=S(formation=bob_realms(), pool=[("oskar-the-sly", ["cloak-of-dusk"])], hand=["wand-of-sparks"]),
              turn=ATTACK)
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    m.answer("oskar-the-sly")  # 10 vs 7: bob behind
    m.answer("wand-of-sparks")  # 10 vs 9, item played in battle
    m.answer("pass")
    m.answer("stop")  # bob stops
    assert m.zone("bob", "discard") == ["oskar-the-sly", "cloak-of-dusk", "wand-of-sparks"]
    assert m.zone("alice", "pool") == ["torvald-ironhand"]
    assert m.attached("alice", "torvald-ironhand") == ["sword-of-morning-star"]
    assert m.slot("bob", "A")["razed"]


def test_g_h_items_played_in_battle_stay_with_the_winner(match, S):
    m = battle_f(match, S, alice_hand=["sword-of-morning-star"])
    m.answer("sword-of-morning-star")  # 10 vs 9
    m.answer("pass")
    m.answer("stop")  # bob has nothing and stops
    assert m.attached("alice", "torvald-ironhand") == ["sword-of-morning-star"]


# -- I: the realm, the next rounds -----------------------------------------------------------

def test_i_defeat_twice_realm(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand", "maelis-brightquill"], draw=["thornvale"]),
              bob=S(formation={"A": "gallowfen"}, pool=["oskar-the-sly"]), turn=ATTACK)
    m.answer("gallowfen")
    m.answer("torvald-ironhand")
    m.answer("oskar-the-sly")
    events = m.answer("stop")  # Oskar (5) behind Torvald (7): bob gives up the round
    assert ev.find(events, "realm_holds")[0]["defeats"] == 1
    assert not m.slot("bob", "A")["razed"]
    assert m.prompt["kind"] == "choose_attacker"
    assert m.option_ids() == ["maelis-brightquill", "end"]  # Torvald fought already this turn
    m.answer("maelis-brightquill")
    events = m.answer("decline")
    assert ev.find(events, "realm_razed")[0]["def"] == "gallowfen"
    assert m.slot("bob", "A")["razed"]
    assert sorted(m.zone("alice", "pool")) == ["maelis-brightquill", "torvald-ironhand"]


def test_i_defender_champion_cannot_defend_twice(match, S):
    m = match(alice=S(pool=["maelis-brightquill", "torvald-ironhand"]),
              bob=S(formation=bob_realms(), pool=["grey-warden-tamsin"]), turn=ATTACK,
              options={"attacks_per_turn": 2})
    m.answer("ironbridge")
    m.answer("maelis-brightquill")
    m.answer("grey-warden-tamsin")  # 6 vs 9
    m.answer("stop")  # alice gives up the round: the battle is over
    m.answer("ironbridge")  # a second battle in the same turn
    m.answer("torvald-ironhand")
    assert m.option_ids() == ["decline"]  # Tamsin fought this turn already


def test_i_one_battle_per_turn(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand", "maelis-brightquill"]),
              bob=S(formation=bob_realms()), turn=ATTACK)
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    events = m.answer("decline")
    assert m.state["turn"]["seat"] == "bob"  # no spoils drawn (empty pile), turn over
    assert ev.find(events, "cards_drawn")[0] == {"seat": "alice", "count": 0, "wanted": 1, "reason": "spoils",
                                                 "draw_size": 0, "owner": "alice", "from": "draw", "zone": "hand"}


def test_i_attacks_per_turn_option(match, S):
    m = match(alice=S(pool=["torvald-ironhand", "maelis-brightquill"]),
              bob=S(formation=bob_realms()), turn=ATTACK, options={"attacks_per_turn": 2})
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    m.answer("decline")
    assert m.prompt["kind"] == "choose_realm"
    assert m.option_ids() == ["hollowmere", "mistveil-hamlet", "end"]


# -- J: spoils of victory ------------------------------------------------------------------

def test_j_spoils_realm_played_at_once(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"], draw=["thornvale"], formation={"A": "emberhold"}),
              bob=S(formation=bob_realms()), turn={**ATTACK, "realm_played": True})
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    m.answer("decline")
    assert m.prompt["kind"] == "spoils"
    assert m.option("thornvale")["args"] == {"slot": ["B"]}
    events = m.answer("thornvale", slot="B")  # even though alice played a realm this turn
    assert ev.find(events, "realm_played")[0]["slot"] == "B"
    assert m.slot("alice", "B")["realm"] == "thornvale"


def test_j_spoils_kept(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"], draw=["flame-lance"]), bob=S(formation=bob_realms()), turn=ATTACK)
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    m.answer("decline")
    assert m.prompt["kind"] == "spoils" and m.option_ids() == ["keep"]  # spells cannot be played as spoils
    events = m.expire()
    assert ev.find(events, "spoils_kept") == [{"seat": "alice"}]
    assert m.zone("alice", "hand") == ["flame-lance"]


def test_j_spoils_champion_into_pool_on_opponents_turn(match, S, ev):
    m = battle_f(match, S)
    m.answer("stop")  # Torvald loses: the battle is over
    assert m.prompt["kind"] == "spoils" and m.prompt["seat"] == "bob"
    # bob's spoils is the top of his draw pile: Wailing Barrow (a realm: slot B is taken... D? no:
    # placement goes to the first empty slot)
    assert m.option("wailing-barrow")["args"] == {"slot": ["D"]}
    m.answer("wailing-barrow", slot="D")
    assert m.slot("bob", "D")["realm"] == "wailing-barrow"


# -- outcomes of spellfire-3 that cards can produce ----------------------------------------

def test_outcome_event_razes_realm(match, S, ev):
    m = battle_f(match, S, alice_hand=["earthrend"])
    events = m.answer("earthrend")
    assert ev.find(events, "card_played")[0]["outcome"] == "realm_razed"
    events = m.answer("pass")  # the any-time window after the card, then its outcome
    assert m.slot("bob", "A")["razed"]
    assert m.zone("alice", "pool") == ["torvald-ironhand"]
    assert m.zone("bob", "pool") == ["grey-warden-tamsin"]
    assert ev.find(events, "cards_drawn")[0]["seat"] == "alice"  # attacker's spoils
    assert m.prompt["kind"] == "spoils" and m.prompt["seat"] == "alice"


def test_outcome_attacker_discarded_by_card(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"], hand=["free-company"]),
              bob=S(formation=bob_realms(), pool=["grey-warden-tamsin"], hand=["sudden-rout"], draw=["ravencrag"]),
              turn=ATTACK)
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    m.answer("grey-warden-tamsin")
    m.answer("free-company")  # 11 vs 9
    events = m.answer("sudden-rout")  # bob responds with an event
    assert ev.find(events, "card_played")[0]["outcome"] == "attacker_discarded"
    events = m.answer("pass")
    assert "torvald-ironhand" in m.zone("alice", "discard")
    assert "free-company" in m.zone("alice", "discard")
    assert m.zone("bob", "pool") == ["grey-warden-tamsin"]
    assert ev.find(events, "battle_ended")[0]["razed"] is False
    assert ev.find(events, "cards_drawn")[0]["seat"] == "bob"  # defender's spoils
    assert m.prompt["kind"] == "spoils" and m.prompt["seat"] == "bob"


def test_outcome_both_discarded_no_spoils(match, S, ev):
    m = battle_f(match, S, alice_hand=["mutual-ruin"])
    m.answer("mutual-ruin")
    events = m.answer("pass")
    assert "torvald-ironhand" in m.zone("alice", "discard")
    assert "grey-warden-tamsin" in m.zone("bob", "discard")
    assert not [d for d in ev.find(events, "cards_drawn") if d["reason"] == "spoils"]
    assert not m.slot("bob", "A")["razed"]
    assert m.state["turn"]["seat"] == "bob"  # alice's turn went on to its end


def test_outcome_defender_discarded_by_card(match, S, ev):
    m = battle_f(match, S, alice_hand=["assassins-mark"])
    m.answer("assassins-mark")
    events = m.answer("pass")
    assert ev.find(events, "round_ended")[0]["winner"] == "attacker"
    assert m.slot("bob", "A")["razed"]
    assert m.zone("alice", "pool") == ["torvald-ironhand"]
    assert m.prompt["kind"] == "spoils" and m.prompt["seat"] == "alice"


def test_outcome_ally_slays(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"], hand=["wandering-paladin"]),
              bob=S(formation=bob_realms(), pool=["morvath-hollow-king"]), turn=ATTACK)
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    m.answer("morvath-hollow-king")
    events = m.answer("wandering-paladin")
    assert ev.find(events, "card_played")[0]["outcome"] == "defender_discarded"
    m.answer("pass")
    assert m.slot("bob", "A")["razed"]


# -- powers that need code --------------------------------------------------------------

def test_hook_counter_spell(match, S, ev):
    m = match(alice=S(pool=["maelis-brightquill"], hand=["shatterbolt"]),
              bob=S(formation=bob_realms(), pool=["grey-warden-tamsin"], hand=["unravel-magic"]), turn=ATTACK)
    m.answer("ironbridge")
    m.answer("maelis-brightquill")
    m.answer("grey-warden-tamsin")  # 6 vs 9
    m.answer("shatterbolt")  # 10 vs 9
    events = m.answer("unravel-magic")
    assert ev.find(events, "card_played")[0]["totals"] == {"attacker": 6, "defender": 9}
    assert m.zone("alice", "discard") == ["shatterbolt"]
    assert m.zone("bob", "discard") == ["unravel-magic"]


def test_hook_mirror_turn_undead_lure(match, S, ev):
    m = match(alice=S(pool=["sister-orla"], hand=["mirror-shade", "turn-the-restless"]),
              bob=S(formation=bob_realms(), pool=["morvath-hollow-king"], hand=["glittering-hoard"]), turn=ATTACK)
    m.answer("ironbridge")
    m.answer("sister-orla")
    m.answer("morvath-hollow-king")  # 5 vs 10
    events = m.answer("mirror-shade")  # + 9 // 2
    assert ev.find(events, "card_played")[0]["totals"] == {"attacker": 9, "defender": 10}
    m.answer("pass")
    events = m.answer("turn-the-restless")  # +2 +4 against the undead
    assert ev.find(events, "card_played")[0]["totals"] == {"attacker": 15, "defender": 10}
    m.answer("pass")
    events = m.answer("glittering-hoard")  # Orla is no monster: no effect
    assert ev.find(events, "card_played")[0]["outcome"] is None


def test_hook_lure_discards_a_monster(match, S, ev):
    m = match(alice=S(pool=["vexthra-the-red"]),
              bob=S(formation=bob_realms(), pool=["oskar-the-sly"], hand=["glittering-hoard"]), turn=ATTACK)
    m.answer("ironbridge")
    m.answer("vexthra-the-red")
    m.answer("oskar-the-sly")  # 8 vs 6
    events = m.answer("glittering-hoard")
    assert ev.find(events, "card_played")[0]["outcome"] == "attacker_discarded"


def test_hook_last_stand(match, S, ev):
    m = match(alice=S(formation=bob_realms()),
              bob=S(formation={"A": "emberhold"}, pool=["lord-varn-ashcloak"]), turn={"seat": "alice", "phase": "attack"})
    # alice has no champion: nothing to attack
    assert m.option_ids() == ["end"]
    m2 = match(alice=S(pool=["torvald-ironhand"]),
               bob=S(formation={"A": "emberhold"}, pool=["lord-varn-ashcloak"]), turn=ATTACK)
    m2.answer("emberhold")
    m2.answer("torvald-ironhand")
    events = m2.answer("lord-varn-ashcloak")  # 5 + 4 (one realm) + 1 (Emberhold)
    assert ev.find(events, "powers_activated")[0]["totals"] == {"attacker": 7, "defender": 10}


def test_hook_scavenge_and_draw(match, S, ev):
    m = battle_f(match, S, alice_hand=["scavengers-luck", "windfall"])
    m.state["players"]["alice"]["discard"] = [m.iid("thornvale")]  # from the draw pile, for the test
    m.state["players"]["alice"]["draw"] = []
    events = m.answer("scavengers-luck")
    returned = ev.find(events, "card_returned")[0]
    assert returned == {"seat": "alice", "count": 1, "from": "discard", "index": 0,
                        "owner": "alice", "zone": "hand"}
    assert "thornvale" in m.zone("alice", "hand")
    m.answer("pass")
    events = m.answer("windfall")
    assert ev.find(events, "cards_drawn")[0]["wanted"] == 2
