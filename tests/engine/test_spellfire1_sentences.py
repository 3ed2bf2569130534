"""Every sentence of spellfire-1 (the battle, steps A-J), one test per ruling, each named
after its sentence and starting with it, on explicit setups.

Sentences already tested exactly elsewhere (test_spellfire_battle.py,
test_spellfire_outcomes.py, test_spellfire_multiseat.py) are not repeated here;
docs/spellfire.md ("Every sentence of spellfire-1, and how it is ruled") names the test
of every sentence. No sentence is skipped: each states a rule.
"""

from __future__ import annotations

import pytest
from spellfire_fight import ATTACK, BOB, battle, spoils_drawn
from spellfire_kit import S, ev, match  # noqa: F401  (pytest fixtures)

# A defending monster that slays heroes, for the step-D race of two slaying powers.
HERO_BANE = {"id": "hero-bane-wyrm", "name": "Hero-Bane Wyrm", "type": "champion", "class": "monster",
             "level": 5, "world": "greyhawk", "slays": "hero", "text": "Slays a hero champion."}


def _prompts(m, ev) -> list[tuple[str, str]]:
    return [(p["kind"], p["seat"]) for p in ev.find(m.log, "prompt")]


# -- The opening sentences -----------------------------------------------------------------

def test_spellfire1_phase4_attack_another_players_realm(match, S, ev):
    # "A player may attack another player's realm during Phase 4 of their turn."
    m = match(alice=S(pool=["torvald-ironhand"], formation={"A": "emberhold"}),
              bob=S(formation=BOB), turn={"seat": "alice", "phase": "pool"})
    assert m.prompt["kind"] == "play_pool" and m.option_ids() == ["done"]  # phase 3: no attack yet
    m.answer("done")
    assert m.prompt["kind"] == "choose_realm" and m.prompt["seat"] == "alice"
    assert ev.find(m.log, "phase")[-1] == {"seat": "alice", "phase": "attack"}
    assert m.option_ids() == ["ironbridge", "end"]  # bob's realm; never alice's own Emberhold
    m.answer("end")
    # bob's turn: its phase 4 is bob's; alice (with her champion) is not asked to attack
    m.until("choose_realm")
    assert m.state["turn"]["seat"] == "bob" and m.prompt["seat"] == "bob"
    assert [p["seat"] for p in ev.find(m.log, "prompt") if p["kind"] == "choose_realm"] == ["alice", "bob"]
    assert m.option_ids() == ["end"]  # bob has no champion; alice's realm is the only other one


def test_spellfire1_battle_is_a_single_attack_on_one_realm(match, S, ev):
    # "A battle is usually a single attack on a realm."
    m = battle(match, S, alice_hand=["free-company"])
    m.answer("free-company")
    m.answer("pass")
    m.answer("stop")
    started, ended = ev.find(m.log, "battle_started"), ev.find(m.log, "battle_ended")
    assert len(started) == len(ended) == 1
    assert started[0]["card"] == ended[0]["card"] == m.iid("ironbridge") and ended[0]["rounds"] == 1


def test_spellfire1_round_fought_by_the_champions_who_step_forward_in_sequence(match, S, ev):
    # "A single round of combat is conducted by each champion who steps forward during
    #  battle, with attacks following this sequence:"
    m = battle(match, S)
    m.answer("stop")
    chosen = ev.find(m.log, "champion_chosen")
    assert [(c["side"], c["def"], c["round"]) for c in chosen] == [("attacker", "torvald-ironhand", 1),
                                                                   ("defender", "grey-warden-tamsin", 1)]
    assert _prompts(m, ev) == [("choose_realm", "alice"), ("choose_attacker", "alice"),
                               ("choose_defender", "bob"), ("battle_play", "alice"), ("spoils", "bob")]
    kinds = ev.kinds(m.log)
    assert (kinds.index("battle_started") < kinds.index("champion_chosen") < kinds.index("powers_activated")
            < kinds.index("round_ended") < kinds.index("battle_ended"))


# -- A: the realm --------------------------------------------------------------------------

def test_spellfire1_a_attacker_indicates_the_realm(match, S, ev):
    # "A) The attacker indicates which realm will be attacked"
    m = match(alice=S(pool=["torvald-ironhand"]), bob=S(formation=BOB), turn=ATTACK)
    assert (m.prompt["kind"], m.prompt["seat"]) == ("choose_realm", "alice")
    events = m.answer("ironbridge")
    assert ev.find(events, "battle_started")[0]["def"] == "ironbridge"
    assert m.state["battle"]["realm"] == m.iid("ironbridge") and m.state["battle"]["defender"] == "bob"


# -- B: the attacking champion ---------------------------------------------------------------

def test_spellfire1_b_attacker_cannot_add_cards_to_its_champion(match, S, ev):
    # "At this time, the player cannot add any artifacts, magical items, or other cards
    #  to their champion."
    m = match(alice=S(pool=["torvald-ironhand"], hand=["crown-of-embers", "sword-of-morning-star",
                                                       "hillfolk-skirmishers"]),
              bob=S(formation=BOB, pool=["oskar-the-sly"]), turn=ATTACK)
    m.answer("ironbridge")
    assert m.option_ids() == ["torvald-ironhand", "back", "end"]  # champions only, no attachment choice
    events = m.answer("torvald-ironhand")
    assert ev.find(events, "champion_chosen")[0]["attached"] == []
    assert (m.prompt["kind"], m.prompt["seat"]) == ("choose_defender", "bob")  # straight to step C
    events = m.answer("oskar-the-sly")
    assert ev.find(events, "powers_activated")[0]["totals"]["attacker"] == 7
    assert sorted(m.zone("alice", "hand")) == ["crown-of-embers", "hillfolk-skirmishers", "sword-of-morning-star"]


def test_spellfire1_b_only_one_round_unless_a_power_says_otherwise(match, S, ev):
    # "Unless a card's special power states otherwise, there is only one round of combat."
    m = battle(match, S, defender=None)  # Maelis could still attack
    m.answer("decline")
    assert ev.find(m.log, "battle_ended")[0]["rounds"] == 1
    assert [p["kind"] for p in ev.find(m.log, "prompt")].count("choose_attacker") == 1
    # Gallowfen's power (defeat_twice) states otherwise: a second round after a won one
    m2 = battle(match, S, bob_formation={"A": "gallowfen"}, realm="gallowfen", bob_pool=["oskar-the-sly"],
                defender="oskar-the-sly")
    m2.answer("stop")  # Oskar (5) is behind Torvald (7) and gives up: the attacker won the round
    assert m2.prompt["kind"] == "choose_attacker" and m2.state["battle"]["round"] == 1


# -- C: the defending champion ---------------------------------------------------------------

def test_spellfire1_c_defender_selects_from_hand_or_pool(match, S, ev):
    # "C) The defender selects a champion from their hand or pool and presents it as the
    #  defending card"
    m = battle(match, S, bob_pool=["oskar-the-sly"], bob_hand=["grey-warden-tamsin", "free-company"], defender=None)
    assert (m.prompt["kind"], m.prompt["seat"]) == ("choose_defender", "bob")
    assert m.option_ids() == ["oskar-the-sly", "grey-warden-tamsin", "decline"]
    events = m.answer("grey-warden-tamsin")
    chosen = ev.find(events, "champion_chosen")[0]
    assert (chosen["side"], chosen["from"], chosen["def"]) == ("defender", "hand", "grey-warden-tamsin")
    assert m.zone("bob", "hand") == ["free-company"]


def test_spellfire1_c_defender_may_not_add_cards(match, S, ev):
    # "At this time, the player may not add any cards to the defending champion."
    m = battle(match, S, bob_pool=["oskar-the-sly"], bob_hand=["cloak-of-dusk", "codex-of-the-grey-tower"],
               defender=None)
    assert m.option_ids() == ["oskar-the-sly", "decline"]
    events = m.answer("oskar-the-sly")
    assert ev.find(events, "champion_chosen")[0]["attached"] == []
    # no prompt to attach: step D runs at once (7 against 5 + 1 Ironbridge)
    assert ev.find(events, "powers_activated")[0]["totals"] == {"attacker": 7, "defender": 6}
    assert sorted(m.zone("bob", "hand")) == ["cloak-of-dusk", "codex-of-the-grey-tower"]


def test_spellfire1_c_defender_from_pool_brings_its_attachments(match, S, ev):
    # "Although, the defender might already have a few cards attached to it if it came
    #  from the player's pool."
    m = battle(match, S, bob_pool=[("oskar-the-sly", ["codex-of-the-grey-tower", "cloak-of-dusk"])],
               defender="oskar-the-sly")
    chosen = [c for c in ev.find(m.log, "champion_chosen") if c["side"] == "defender"][0]
    assert chosen["from"] == "pool"
    assert [a["def"] for a in chosen["attached"]] == ["codex-of-the-grey-tower", "cloak-of-dusk"]
    assert ev.find(m.log, "powers_activated")[0]["totals"] == {"attacker": 7, "defender": 5 + 2 + 1 + 1}


def test_spellfire1_c_no_defense_at_all_razes_the_realm(match, S, ev):
    # "In the absence of any defense, the realm is razed."
    # bob has no champion: the prompt opens all the same (it tells nothing), with decline only
    m = battle(match, S, bob_pool=[], bob_hand=["free-company"], defender=None)
    assert m.prompt["kind"] == "choose_defender" and m.option_ids() == ["decline"]
    events = m.expire()
    assert ev.find(events, "realm_razed")[0]["how"] == "declined"
    assert m.slot("bob", "A")["razed"] and spoils_drawn(m, ev) == ["alice"]


# -- D: activation -----------------------------------------------------------------------

def test_spellfire1_d_attacker_slays_first_defender_discarded_before_its_power(match, S, ev):
    # "The defender is discarded if an attacker wins the round by activating their special
    #  power before the defender gets to use theirs."
    # Cadoc (a hero) slays monsters; the Wyrm slays heroes: the attacker's power comes first
    m = match(alice=S(pool=["sir-cadoc-wyrmsbane"], formation={"A": "emberhold"}),
              bob=S(formation=BOB, pool=["hero-bane-wyrm"]),
              turn=ATTACK, cards=[HERO_BANE])
    m.answer("ironbridge")
    m.answer("sir-cadoc-wyrmsbane")
    events = m.answer("hero-bane-wyrm")
    act = ev.find(events, "powers_activated")[0]
    assert act["slain"] == "defender"
    assert [e["def"] for e in act["order"]] == ["ironbridge", "sir-cadoc-wyrmsbane"]  # the Wyrm never activates
    assert "hero-bane-wyrm" in m.zone("bob", "discard") and m.zone("alice", "pool") == ["sir-cadoc-wyrmsbane"]
    assert ev.find(events, "round_ended")[0].items() >= {"round": 1, "winner": "attacker", "how": "slain",
                                                 "totals": act["totals"]}.items()


@pytest.mark.parametrize("realm", ["ironbridge", "gallowfen"])
def test_spellfire1_d_slain_defender_realm_razed(match, S, ev, realm):
    # "If this is the case the realm is razed."
    # (unless it must be defeated twice, step I: Gallowfen holds once)
    m = match(alice=S(pool=["sir-cadoc-wyrmsbane"], draw=["thornvale"]),
              bob=S(formation={"A": {"realm": realm, "holding": "bellkeep-tower"}}, pool=["vexthra-the-red"]),
              turn=ATTACK)
    m.answer(realm)
    m.answer("sir-cadoc-wyrmsbane")
    events = m.answer("vexthra-the-red")
    assert "vexthra-the-red" in m.zone("bob", "discard") and "battle_play" not in [
        p["kind"] for p in ev.find(events, "prompt")]
    if realm == "gallowfen":
        assert ev.find(events, "realm_holds")[0]["defeats"] == 1 and not m.slot("bob", "A")["razed"]
        assert m.prompt["kind"] == "choose_attacker"
        return
    assert ev.find(events, "realm_razed")[0]["how"] == "slain"
    assert m.slot("bob", "A") == {"realm": "ironbridge", "razed": True, "holding": None}
    assert spoils_drawn(m, ev) == ["alice"]


# -- E: comparing totals -------------------------------------------------------------------

def test_spellfire1_e_compare_total_levels(match, S, ev):
    # "E) Compare the total levels of each side."
    m = battle(match, S, alice_pool=[("torvald-ironhand", ["sword-of-morning-star"])])
    # Torvald 7 + Sword 3 against Tamsin 6 + 2 defending + Ironbridge 1
    assert ev.find(m.log, "powers_activated")[0]["totals"] == {"attacker": 10, "defender": 9}
    assert (m.prompt["kind"], m.prompt["seat"]) == ("battle_play", "bob")  # behind by the comparison
    sides = m.rs.view(m.state, "alice")["battle"]["sides"]
    assert (sides["attacker"]["total"], sides["defender"]["total"]) == (10, 9)


def test_spellfire1_e_any_other_card_affecting_combat_counts(match, S, ev):
    # "In addition to realms and holdings, it is also essential to consider any other card
    #  that can affect combat."
    # the holding, the defender's item, and an event a seat outside the battle plays for a side
    m = battle(match, S, bob_formation={"A": {"realm": "ironbridge", "holding": "bellkeep-tower"}},
               bob_pool=[("grey-warden-tamsin", ["ring-of-quiet-warding"])], alice_hand=["hillfolk-skirmishers"],
               carol=S(hand=["rallying-cry"]))
    assert ev.find(m.log, "powers_activated")[0]["totals"] == {"attacker": 7, "defender": 6 + 2 + 1 + 2 + 1 + 1}
    m.answer("hillfolk-skirmishers")
    events = m.answer_as("carol", "rallying-cry", side="attacker")
    assert ev.find(events, "card_played")[0]["totals"] == {"attacker": 7 + 2 + 2, "defender": 13}


def test_spellfire1_e_largest_total_wins(match, S, ev):
    # "It is the side that has the largest total that wins."
    m = battle(match, S, alice_pool=[("torvald-ironhand", ["sword-of-morning-star"])])  # 10 against 9
    events = m.answer("stop")  # bob, behind, plays nothing
    assert ev.find(events, "round_ended")[0].items() >= {"round": 1, "winner": "attacker", "how": "combat",
                                                 "totals": {"attacker": 10, "defender": 9}}.items()


# -- F: card play --------------------------------------------------------------------------

def test_spellfire1_f_losing_player_plays_one_card(match, S, ev):
    # "F) The player that is losing can play one card."
    m = battle(match, S, alice_hand=["hillfolk-skirmishers", "iron-fist-strike", "sudden-rout"],
               bob_hand=["free-company"])
    assert (m.prompt["kind"], m.prompt["seat"]) == ("battle_play", "alice")
    assert m.option_ids() == ["hillfolk-skirmishers", "iron-fist-strike", "sudden-rout", "stop"]
    m.answer("hillfolk-skirmishers")
    # one card: then the window, not a second card
    assert [p["kind"] for p in m.state["prompts"]] == ["respond"] and m.prompt["seat"] == "bob"
    assert ev.kinds(m.log).count("card_played") == 1


def test_spellfire1_f_another_comparison_after_each_card(match, S, ev):
    # "Another comparison of levels should be carried out."
    m = battle(match, S, alice_hand=["free-company"])
    events = m.answer("free-company")
    assert ev.find(events, "card_played")[0]["totals"] == {"attacker": 11, "defender": 9}
    m.answer("pass")
    assert (m.prompt["kind"], m.prompt["seat"]) == ("battle_play", "bob")  # the comparison turned


def test_spellfire1_f_losing_player_continues_one_by_one_until_winning(match, S, ev):
    # "Until they win, the losing player continues to play cards one by one."
    m = battle(match, S, alice_hand=["cloak-of-dusk", "hillfolk-skirmishers", "iron-fist-strike"])
    m.answer("cloak-of-dusk")           # 8 against 9
    m.answer("pass")
    assert (m.prompt["kind"], m.prompt["seat"]) == ("battle_play", "alice")
    m.answer("hillfolk-skirmishers")    # 10 against 9: alice is ahead
    m.answer("pass")
    assert (m.prompt["kind"], m.prompt["seat"]) == ("battle_play", "bob")
    assert m.zone("alice", "hand") == ["iron-fist-strike"]  # no more cards once she wins


def test_spellfire1_f_winning_player_only_events_or_play_at_any_time(match, S, ev):
    # "The winning player can play only events or "play-at-any-time" cards."
    m = battle(match, S, alice_hand=["hillfolk-skirmishers"],
               bob_hand=["free-company", "wand-of-sparks", "iron-fist-strike", "sudden-rout", "glass-of-far-seeing",
                         "silver-hawk-scouts"])
    m.answer("hillfolk-skirmishers")  # 9 against 9: bob wins on the tie
    assert (m.prompt["kind"], m.prompt["seat"]) == ("respond", "bob")
    assert m.option_ids() == ["sudden-rout", "glass-of-far-seeing", "silver-hawk-scouts", "pass"]
    events = m.answer("silver-hawk-scouts")
    assert ev.find(events, "card_played")[0]["side"] == "defender"


@pytest.mark.parametrize("why", ["cannot", "will_not"])
def test_spellfire1_f_back_and_forth_until_loser_cannot_or_will_not_play(match, S, ev, why):
    # "The cards go back and forth until either the losing player cannot or will not play
    #  another card."
    hand = ["free-company"] + (["iron-fist-strike"] if why == "will_not" else [])
    m = battle(match, S, alice_hand=hand, bob_hand=["hillfolk-skirmishers", "iron-fist-strike"])
    m.answer("free-company")          # 11 against 9: back to bob
    m.answer("pass")
    m.answer("hillfolk-skirmishers")  # 11 against 11: forth to alice
    m.answer("pass")
    assert (m.prompt["kind"], m.prompt["seat"]) == ("battle_play", "alice")
    assert m.option_ids() == (["stop"] if why == "cannot" else ["iron-fist-strike", "stop"])
    events = m.answer("stop")
    assert ev.find(events, "round_ended")[0]["winner"] == "defender"
    assert [c for c in m.zone("alice", "hand") if c == "iron-fist-strike"] == hand[1:]


def test_spellfire1_f_round_over_when_loser_stops(match, S, ev):
    # "The round is over then."
    m = battle(match, S, alice_hand=["free-company"])
    events = m.answer("stop")  # alice could play, but will not
    assert ev.kinds(events)[:4] == ["prompt_closed", "cards_discarded", "champion_returned", "round_ended"]
    assert ev.find(events, "round_ended")[0].items() >= {"round": 1, "winner": "defender", "how": "combat",
                                                 "totals": {"attacker": 7, "defender": 9}}.items()


def test_spellfire1_f_winner_has_no_option_to_play_another_card(match, S, ev):
    # "The winner does not have the option to play another card."
    m = battle(match, S, bob_hand=["sudden-rout", "glass-of-far-seeing"], carol=S(hand=["rallying-cry"]))
    events = m.answer("stop")
    # no window follows the stop, for the winner or anyone: bob keeps his any-time cards
    assert [p["kind"] for p in ev.find(events, "prompt")] == ["spoils"]
    assert sorted(m.zone("bob", "hand")) == ["glass-of-far-seeing", "ravencrag", "sudden-rout"]  # + his spoils
    assert m.zone("carol", "hand") == ["rallying-cry"]


# -- G: the adjusted level -------------------------------------------------------------------

def test_spellfire1_g_highest_adjusted_level_wins(match, S, ev):
    # "G) The player with the highest adjusted level wins that round"
    m = battle(match, S, alice_hand=["free-company"], bob_hand=["iron-fist-strike"])
    m.answer("free-company")        # 11 against 9
    m.answer("pass")
    m.answer("iron-fist-strike")    # 11 against 11: a tie
    m.answer("pass")
    events = m.answer("stop")
    # the champions' levels (7 against 6) do not decide; the adjusted totals do
    assert ev.find(events, "round_ended")[0]["totals"] == {"attacker": 11, "defender": 11}
    assert ev.find(events, "round_ended")[0]["winner"] == "defender"


def test_spellfire1_g_tie_always_won_by_the_defender(match, S, ev):
    # "Tie games are always won by the defender."
    m = battle(match, S, alice_hand=["hillfolk-skirmishers"], bob_hand=["free-company"])
    m.answer("hillfolk-skirmishers")  # 9 against 9 after card play
    m.answer("pass")
    assert (m.prompt["kind"], m.prompt["seat"]) == ("battle_play", "alice")  # the tie leaves alice behind
    events = m.answer("stop")
    assert ev.find(events, "round_ended")[0].items() >= {"round": 1, "winner": "defender", "how": "combat",
                                                 "totals": {"attacker": 9, "defender": 9}}.items()
    assert m.zone("bob", "hand")[:1] == ["free-company"]  # the defender needed no card


# -- H: the cards after the round ----------------------------------------------------------

@pytest.mark.parametrize("winner", ["attacker", "defender"])
def test_spellfire1_h_winner_champion_with_attachments_into_its_pool(match, S, ev, winner):
    # "H) The winner places their champion, with all of its attached cards, into their pool"
    # both champions come from the hand; the winner's goes to its pool with the item played for it
    m = battle(match, S, alice_pool=[], alice_hand=["torvald-ironhand", "sword-of-morning-star"], bob_pool=[],
               bob_hand=["grey-warden-tamsin", "cloak-of-dusk"])
    m.answer("sword-of-morning-star")  # 10 against 9
    m.answer("pass")
    if winner == "defender":
        m.answer("cloak-of-dusk")      # 10 against 10: bob leads on the tie
        m.answer("pass")
    m.answer("stop")                   # the side behind stops
    seat, champion, item = {"attacker": ("alice", "torvald-ironhand", "sword-of-morning-star"),
                            "defender": ("bob", "grey-warden-tamsin", "cloak-of-dusk")}[winner]
    assert ev.find(m.log, "round_ended")[0]["winner"] == winner
    assert m.zone(seat, "pool") == [champion] and m.attached(seat, champion) == [item]
    returned = [d for d in ev.find(m.log, "champion_returned") if d["seat"] == seat][0]
    assert [a["def"] for a in returned["attached"]] == [item]


def test_spellfire1_h_winner_discards_allies_spells_and_other_non_permanent_cards(match, S, ev):
    # "He discards all allies, spells, and other non-permanent cards used in combat."
    m = battle(match, S, alice_pool=["maelis-brightquill"], attacker="maelis-brightquill",
               alice_hand=["flame-lance", "rallying-cry", "ember-drake-hatchling"], bob_hand=["free-company"])
    m.answer("flame-lance")            # a spell: 9 against 9
    m.answer("pass")
    m.answer("rallying-cry")           # an event with a bonus: 11 against 9
    m.answer("pass")
    m.answer("free-company")           # 11 against 13
    m.answer("pass")
    m.answer("ember-drake-hatchling")  # an ally: 14 against 13
    m.answer("pass")
    m.answer("stop")                   # bob gives up: alice wins
    assert ev.find(m.log, "round_ended")[0]["winner"] == "attacker"
    assert m.zone("alice", "pool") == ["maelis-brightquill"] and m.attached("alice", "maelis-brightquill") == []
    assert sorted(m.zone("alice", "discard")) == ["ember-drake-hatchling", "flame-lance", "rallying-cry"]


def test_spellfire1_h_only_magical_items_and_artifacts_remain(match, S, ev):
    # "The only remaining cards should be magical items and artifacts."
    m = battle(match, S, alice_pool=[("torvald-ironhand", ["cloak-of-dusk"])],
               alice_hand=["crown-of-embers", "iron-fist-strike"], bob_hand=["free-company"])
    m.answer("crown-of-embers")      # artifact: 11 against 9
    m.answer("pass")
    m.answer("free-company")         # 11 against 13
    m.answer("pass")
    m.answer("iron-fist-strike")     # 13 against 13
    m.answer("pass")
    m.answer("stop")                 # alice is behind on the tie: bob wins
    assert m.zone("bob", "pool") == ["grey-warden-tamsin"] and m.attached("bob", "grey-warden-tamsin") == []
    assert m.zone("bob", "discard") == ["free-company"]
    m2 = battle(match, S, alice_pool=[("torvald-ironhand", ["cloak-of-dusk"])],
                alice_hand=["crown-of-embers", "iron-fist-strike"])
    m2.answer("iron-fist-strike")    # 10 against 9
    m2.answer("pass")
    m2.answer("stop")
    # the winner: its item from the pool stays, the unarmed combat card goes
    assert m2.attached("alice", "torvald-ironhand") == ["cloak-of-dusk"]
    assert m2.zone("alice", "discard") == ["iron-fist-strike"]
    m3 = battle(match, S, alice_hand=["crown-of-embers", "hillfolk-skirmishers"])
    m3.answer("crown-of-embers")     # the artifact played in battle: 10 against 9
    m3.answer("pass")
    m3.answer("stop")
    assert m3.attached("alice", "torvald-ironhand") == ["crown-of-embers"]
    # an any-time magical item the winner played in a window stays as well
    m4 = battle(match, S, alice_hand=["hillfolk-skirmishers"], bob_hand=["glass-of-far-seeing"])
    m4.answer("hillfolk-skirmishers")  # 9 against 9
    m4.answer("glass-of-far-seeing")   # bob, winning, answers: 9 against 10
    m4.answer("pass")
    m4.answer("stop")
    assert m4.attached("bob", "grey-warden-tamsin") == ["glass-of-far-seeing"]


# -- I: the round is complete --------------------------------------------------------------

def test_spellfire1_i_one_round_of_battle_completed(match, S, ev):
    # "I) The players have now completed one round of battle"
    m = battle(match, S, bob_formation={"A": "gallowfen"}, realm="gallowfen", bob_pool=["oskar-the-sly"],
               defender="oskar-the-sly")
    m.answer("stop")  # bob, behind, gives up the round; Gallowfen holds
    assert [r["round"] for r in ev.find(m.log, "round_ended")] == [1]
    assert m.rs.view(m.state, "bob")["battle"]["round"] == 1
    m.answer("maelis-brightquill")
    m.answer("decline")
    assert [r["round"] for r in ev.find(m.log, "round_ended")] == [1, 2]
    assert ev.find(m.log, "battle_ended")[0]["rounds"] == 2


# -- J: spoils -----------------------------------------------------------------------------

def test_spellfire1_j_attacker_spoils_if_any_part_of_the_realm_razed_or_discarded(match, S, ev):
    # "During a battle, the attacker receives spoils if any part of the realm they were
    #  attacking is razed or discarded."
    # the realm with its holding is one card of spoils; a realm that only holds gives none
    m = battle(match, S, bob_formation={"A": {"realm": "ironbridge", "holding": "bellkeep-tower"}}, defender=None)
    m.answer("decline")
    assert [c["def"] for d in ev.find(m.log, "cards_discarded") for c in d["cards"]] == ["bellkeep-tower"]
    assert spoils_drawn(m, ev) == ["alice"]
    m2 = battle(match, S, bob_formation={"A": "gallowfen"}, realm="gallowfen", bob_pool=["oskar-the-sly"],
                defender="oskar-the-sly")
    m2.answer("stop")      # a round lost by its defender: Gallowfen holds, no spoils yet
    assert spoils_drawn(m2, ev) == []
    m2.answer("end")       # alice ends the battle: the realm was never razed
    assert ev.find(m2.log, "battle_ended")[0]["spoils"] is None and spoils_drawn(m2, ev) == []


def test_spellfire1_j_spoils_are_drawn_from_the_draw_pile(match, S, ev):
    # "The spoils of victory are the cards drawn from the draw pile."
    # one card, from the top of the winner's own draw pile; an empty pile gives none, and
    # nothing comes from the discard pile or another seat's pile
    m = battle(match, S, defender=None, alice={"draw": ["thornvale", "amberfield"], "discard": ["free-company"]})
    m.answer("decline")
    assert m.state["spoils"] == {"seat": "alice", "card": m.iid("thornvale")}
    assert m.zone("alice", "draw") == ["amberfield"] and m.zone("alice", "discard") == ["free-company"]
    m2 = battle(match, S, defender=None, alice={"draw": [], "discard": ["amberfield"]})
    events = m2.answer("decline")
    spoils_draws = [d for d in ev.find(events, "cards_drawn") if d["reason"] == "spoils"]
    assert len(spoils_draws) == 1
    wanted = {"seat": "alice", "count": 0, "wanted": 1, "reason": "spoils", "draw_size": 0}
    assert spoils_draws[0].items() >= wanted.items()
    assert m2.zone("alice", "hand") == [] and m2.zone("alice", "discard") == ["amberfield"]
    assert [d["seat"] for d in ev.find(m2.log, "cards_drawn")] == ["alice", "bob"]  # then bob's turn draw


@pytest.mark.parametrize("card", ["hillfolk-skirmishers", "silver-hawk-scouts", "flame-lance", "call-of-the-bloodline",
                                  "backstab", "mind-spike", "kinetic-barrier"])
def test_spellfire1_j_spells_blood_allies_thief_psionic_spoils_kept(match, S, ev, card):
    # "Unless the card says "may be cast at any time," spells, blood abilities, allies,
    #  thief skills, and psionic powers cannot be played when drawn as spoils."
    # an any-time card (Silver-Hawk Scouts, Kinetic Barrier) with nothing to do outside a battle is kept too
    m = battle(match, S, defender=None, alice={"draw": [card]})
    m.answer("decline")
    assert m.prompt["kind"] == "spoils" and m.option_ids() == ["keep"]
    m.answer("keep")
    assert m.zone("alice", "hand") == [card]
