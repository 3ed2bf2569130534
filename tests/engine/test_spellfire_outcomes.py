"""Every outcome of a round of combat: one test per sentence of spellfire-3 and of the
spellfire-1 sentences on the end of a battle and its spoils, each named after its
sentence, on explicit setups. Keyword and named-card tests are test_spellfire_keywords.py."""

from __future__ import annotations

import pytest
from spellfire_fight import ATTACK, BOB, battle, spoils_drawn
from spellfire_kit import S, ev, match  # noqa: F401  (pytest fixtures)

# -- "When the defender's realm is razed or discarded, or when the attacker's champion is
#     defeated or discarded, the battle ends." ------------------------------------------

def _raze_in_combat(m):
    m.answer("free-company")  # 11 against 9
    m.answer("pass")
    m.answer("stop")          # bob, behind, gives up: the attacker wins the round


def _discard_realm(m):
    m.answer("swallowed-by-the-deep")
    m.answer("pass")


def _defeat_attacker(m):
    m.answer("stop")


def _discard_attacker(m):
    m.answer("free-company")
    m.answer("sudden-rout")   # bob responds
    m.answer("pass")


@pytest.mark.parametrize("how,end,spoils", [(_raze_in_combat, "razed", "alice"), (_discard_realm, "discarded", "alice"),
                                            (_defeat_attacker, None, "bob"), (_discard_attacker, None, "bob")])
def test_spellfire3_battle_ends_when_realm_razed_or_discarded_or_attacker_defeated_or_discarded(match, S, ev, how,
                                                                                                  end, spoils):
    m = battle(match, S, alice_hand=["free-company", "swallowed-by-the-deep"], bob_hand=["sudden-rout"])
    how(m)
    ended = ev.find(m.log, "battle_ended")
    assert len(ended) == 1 and ended[0]["rounds"] == 1 and ended[0]["spoils"] == spoils
    assert ended[0]["razed"] is (end == "razed") and ended[0]["discarded"] is (end == "discarded")
    # Maelis has not fought: still the battle is over, no second round is offered
    assert not [p for p in ev.find(m.log, "prompt") if p.get("kind") == "choose_attacker"][1:]
    assert m.state["battle"] is None and m.prompt["kind"] == "spoils" and m.prompt["seat"] == spoils
    assert m.iid("maelis-brightquill") not in m.state["turn"]["used"]


def test_spellfire3_defeated_attacker_ends_battle(match, S, ev):
    m = battle(match, S)
    events = m.answer("stop")
    assert ev.kinds(events)[:5] == ["prompt_closed", "cards_discarded", "champion_returned", "round_ended",
                                    "battle_ended"]
    assert ev.find(events, "round_ended")[0]["winner"] == "defender"
    # the defender's spoils at once, not after a further attack choice
    assert ev.find(events, "cards_drawn")[0] == {"seat": "bob", "count": 1, "wanted": 1, "reason": "spoils",
                                                 "draw_size": 1, "owner": "bob", "from": "draw", "zone": "hand"}
    assert m.prompt["kind"] == "spoils" and m.prompt["seat"] == "bob"


# -- "A round of combat is over when the defender defeats the attacking champion.
#     Afterward, no further attack may be made by the attacking champion." --------------

def test_spellfire3_round_over_when_defender_defeats_attacker(match, S, ev):
    m = battle(match, S)
    events = m.answer("stop")
    ended = ev.find(events, "round_ended")[0]
    assert ended == {"round": 1, "attacker": "alice", "defender": "bob", "winner": "defender", "winner_seat": "bob",
                     "how": "combat",
                     "totals": {"attacker": 7, "defender": 9}, "defeats": 0}
    assert "torvald-ironhand" in m.zone("alice", "discard")


def test_spellfire3_no_further_attack_by_the_defeated_attacker(match, S, ev):
    # Kestrel may attack twice a turn, and her token brings her home when she loses: she
    # is back in the pool, yet she may not attack again this turn
    m = battle(match, S, alice_pool=[("kestrel-twinblade", ["pilgrims-token"])], attacker="kestrel-twinblade",
               options={"attacks_per_turn": 2})
    events = m.answer("stop")
    assert ev.find(events, "champion_returned")[0]["by_power"] is True
    assert m.zone("alice", "pool") == ["kestrel-twinblade"]
    assert m.prompt["kind"] == "choose_realm" and m.option_ids() == ["end"]  # a second battle, but no champion


# -- "The defender earns spoils of victory if the attacking champion was discarded. In the
#     case of champions returning to their pool, the rule doesn't apply." -------------

def test_spellfire3_defender_earns_spoils_if_attacking_champion_discarded(match, S, ev):
    m = battle(match, S)
    m.answer("stop")
    assert spoils_drawn(m, ev) == ["bob"]
    assert m.state["spoils"]["card"] == m.iid("ravencrag")


def test_spellfire3_no_defender_spoils_when_attacker_returns_to_pool(match, S, ev):
    m = battle(match, S, alice_pool=["brannoc-the-unyielding"], attacker="brannoc-the-unyielding")
    events = m.answer("stop")  # Brannoc (5) loses to Tamsin (9)
    returned = [d for d in ev.find(events, "champion_returned") if d["def"] == "brannoc-the-unyielding"]
    assert returned[0]["by_power"] is True and returned[0]["seat"] == "alice"
    assert m.zone("alice", "pool") == ["brannoc-the-unyielding"]
    assert ev.find(events, "battle_ended")[0]["spoils"] is None and spoils_drawn(m, ev) == []
    assert m.state["turn"]["seat"] == "bob"  # nothing to decide: alice's turn went on to its end


# -- "The realm is razed if the attacker defeats the defending champion in the round.
#     Winners return to the attacker's pool, and players collect their spoils." --------

def test_spellfire3_attacker_defeats_defender_realm_razed_spoils(match, S, ev):
    m = battle(match, S, alice_hand=["free-company"])
    m.answer("free-company")
    m.answer("pass")
    events = m.answer("stop")
    assert ev.find(events, "round_ended")[0]["winner"] == "attacker"
    assert ev.find(events, "realm_razed")[0] == {"seat": "bob", "card": m.iid("ironbridge"), "def": "ironbridge",
                                                 "owner": "bob", "zone": "formation", "slot": "A", "how": "combat"}
    assert m.zone("alice", "pool") == ["maelis-brightquill", "torvald-ironhand"]
    assert "grey-warden-tamsin" in m.zone("bob", "discard")
    assert spoils_drawn(m, ev) == ["alice"]


# -- "Whenever a defender declines to defend the realm, the realm is razed and the battle
#     ends. Victory spoils go to the attacker." -----------------------------------------

def test_spellfire3_declined_defense_razes_and_ends_battle(match, S, ev):
    m = battle(match, S, defender=None)
    events = m.answer("decline")
    assert ev.kinds(events)[1:6] == ["defense_declined", "champion_returned", "round_ended", "realm_razed",
                                     "battle_ended"]
    assert m.slot("bob", "A")["razed"] and spoils_drawn(m, ev) == ["alice"]


def test_spellfire3_declined_defense_razes_even_a_realm_defeated_twice(match, S, ev):
    """"Whenever a defender declines to defend the realm, the realm is razed and the battle
    ends" admits no exception: a `defeat_twice` realm (spellfire-1 I: "If the attacker
    won the round ... unless its special power declares that it needs to be defeated
    twice") is defeated by beating its defenders; undefended, it is razed at once, in the
    first round as in the second."""
    m = battle(match, S, bob_formation={"A": "gallowfen"}, realm="gallowfen", defender=None)
    events = m.answer("decline")
    assert not ev.find(events, "realm_holds")
    assert ev.find(events, "realm_razed")[0]["how"] == "declined" and m.slot("bob", "A")["razed"]
    ended = ev.find(events, "battle_ended")[0]
    assert ended["rounds"] == 1 and ended["razed"] is True and ended["spoils"] == "alice"
    assert m.iid("maelis-brightquill") not in m.state["turn"]["used"]  # no second round was fought
    # after a round won in combat (Gallowfen holds), a declined second round razes it too
    m2 = battle(match, S, bob_formation={"A": "gallowfen"}, realm="gallowfen",
                bob_pool=["oskar-the-sly", "grey-warden-tamsin"], defender="oskar-the-sly")
    assert ev.find(m2.answer("stop"), "realm_holds")[0]["defeats"] == 1
    m2.answer("maelis-brightquill")
    events = m2.answer("decline")
    assert ev.find(events, "round_ended")[0]["defeats"] == 2 and m2.slot("bob", "A")["razed"]
    assert ev.find(events, "battle_ended")[0]["rounds"] == 2 and spoils_drawn(m2, ev) == ["alice"]


# -- "A battle ends when a realm is razed or discarded during combat due to card play ...
#     The attacking player receives spoils of victory, and both attacker and defender
#     return to their pools." -------------------------------------------------------------

@pytest.mark.parametrize("card,kind", [("the-sky-cracks", "realm_razed"), ("swallowed-by-the-deep", "realm_discarded")])
def test_spellfire3_card_razes_or_discards_realm_battle_ends_both_home(match, S, ev, card, kind):
    m = battle(match, S, alice_hand=[card])
    m.answer(card)
    events = m.answer("pass")
    assert ev.find(events, "round_ended")[0]["how"] == kind
    assert ev.find(events, kind)[0]["how"] == "card"
    assert m.zone("alice", "pool") == ["maelis-brightquill", "torvald-ironhand"]
    assert m.zone("bob", "pool") == ["grey-warden-tamsin"]
    assert spoils_drawn(m, ev) == ["alice"]
    if kind == "realm_discarded":
        assert m.slot("bob", "A") is None and m.zone("bob", "discard") == ["ironbridge"]
    else:
        assert m.slot("bob", "A")["razed"]


# -- "Before combat can start, both champions must have been selected (and their special
#     powers activated)." --------------------------------------------------------------

def test_spellfire3_card_play_only_once_both_champions_selected_and_activated(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"], hand=["the-sky-cracks"]),
              bob=S(formation=BOB, pool=["grey-warden-tamsin"], hand=["sudden-rout"]), turn=ATTACK)
    assert "the-sky-cracks" not in m.option_ids()
    m.answer("ironbridge")
    assert "the-sky-cracks" not in m.option_ids()  # B: only champions
    m.answer("torvald-ironhand")
    assert m.option_ids() == ["grey-warden-tamsin", "decline"]  # C: only champions
    events = m.answer("grey-warden-tamsin")
    kinds = ev.kinds(events)
    assert kinds.index("powers_activated") < kinds.index("prompt")
    assert m.prompt["kind"] == "battle_play" and "the-sky-cracks" in m.option_ids()


# -- "If card play causes both champions to be discarded. No winner or loser emerges. No
#     spoils are drawn." ------------------------------------------------------------------

def test_spellfire3_both_champions_discarded_no_winner_no_spoils(match, S, ev):
    m = battle(match, S, alice_hand=["mutual-ruin"])
    m.answer("mutual-ruin")
    events = m.answer("pass")
    assert ev.find(events, "round_ended")[0]["winner"] is None
    assert "torvald-ironhand" in m.zone("alice", "discard") and "grey-warden-tamsin" in m.zone("bob", "discard")
    assert ev.find(events, "battle_ended")[0]["spoils"] is None and spoils_drawn(m, ev) == []
    assert not m.slot("bob", "A")["razed"]


def test_spellfire3_both_discarded_after_a_won_round_still_no_spoils(match, S, ev):
    m = battle(match, S, alice_hand=["mutual-ruin"], bob_formation={"A": "gallowfen"}, realm="gallowfen",
               bob_pool=["oskar-the-sly", "grey-warden-tamsin"], defender="oskar-the-sly")
    m.answer("stop")  # round 1: Oskar (5) gives up against Torvald (7); Gallowfen holds
    m.answer("maelis-brightquill")
    m.answer("grey-warden-tamsin")
    m.answer("mutual-ruin")
    m.answer("pass")
    assert spoils_drawn(m, ev) == [] and not m.slot("bob", "A")["razed"]


# -- "During combat, if an attacking champion is discarded due to card play, the battle is
#     over. The defender gets the spoils. For instance, it is good to play Treasure while
#     defending your realm from monster champions." -------------------------------------

def test_spellfire3_attacker_discarded_by_card_battle_over_defender_spoils(match, S, ev):
    m = battle(match, S, alice_pool=["vexthra-the-red", "torvald-ironhand"], attacker="vexthra-the-red",
               alice_hand=["free-company"], bob_hand=["gilded-decoy"])
    m.answer("free-company")                 # 12 against 9
    events = m.answer("gilded-decoy")        # the Treasure model: Vexthra is a monster
    assert ev.find(events, "card_played")[0]["outcome"] == "attacker_discarded"
    events = m.answer("pass")
    assert m.zone("alice", "discard") == ["vexthra-the-red", "free-company"]
    assert ev.find(events, "battle_ended")[0]["spoils"] == "bob" and m.prompt["seat"] == "bob"


# -- "In some cases, your opponent is discarded after combat if you play certain cards.
#     These cards have no effect on altering a successful attack or defense. A couple of
#     examples are Iuz the Evil and Aurak Draconians." ----------------------------------

def test_spellfire3_after_combat_discard_does_not_alter_a_successful_defense(match, S, ev):
    m = battle(match, S, alice_hand=["emberscale-draconians"], bob_hand=["free-company"])
    m.answer("emberscale-draconians")  # 11 against 9
    m.answer("pass")
    m.answer("free-company")           # 11 against 13
    m.answer("pass")
    events = m.answer("stop")          # the defence succeeds
    kinds = ev.kinds(events)
    assert kinds.index("round_ended") < kinds.index("after_combat") < kinds.index("battle_ended")
    after = ev.find(events, "after_combat")[0]
    assert (after["def"], after["target"]["def"], after["to"]) == ("emberscale-draconians", "grey-warden-tamsin",
                                                                  "discard")
    assert "grey-warden-tamsin" in m.zone("bob", "discard") and m.zone("bob", "pool") == []
    # the defence stands: the realm is not razed, and the defender has its spoils
    assert not m.slot("bob", "A")["razed"] and spoils_drawn(m, ev) == ["bob"]


# -- "Occasionally, some cards can even discard a successful attacking champion, but these
#     effects occur outside of the battle and do not affect the spoils of victory unless it
#     is specifically stated so on the card." --------------------------------------------

def test_spellfire3_after_combat_discard_of_successful_attacker_keeps_attacker_spoils(match, S, ev):
    m = battle(match, S, alice_hand=["free-company"], bob_pool=["ozrak-the-hollow-tyrant"],
               defender="ozrak-the-hollow-tyrant")  # the Iuz model: 8 + 1 = 9
    m.answer("free-company")  # 11 against 9
    m.answer("pass")
    events = m.answer("stop")
    assert ev.find(events, "round_ended")[0]["winner"] == "attacker"
    assert m.slot("bob", "A")["razed"]
    discarded = [d for d in ev.find(events, "cards_discarded") if d["reason"] == "after_combat"]
    assert [c["def"] for c in discarded[0]["cards"]] == ["torvald-ironhand"] and discarded[0]["seat"] == "alice"
    assert m.zone("alice", "pool") == ["maelis-brightquill"]
    assert ev.find(events, "battle_ended")[0]["spoils"] == "alice" and spoils_drawn(m, ev) == ["alice"]


# -- Spoils of victory -------------------------------------------------------------------
# "During combat, if the realm being attacked is razed or discarded, the attacker gets to
#  draw one card from his draw pile."

def test_spellfire3_realm_razed_attacker_draws_one_card(match, S, ev):
    m = battle(match, S, defender=None)
    events = m.answer("decline")
    drawn = [d for d in ev.find(events, "cards_drawn") if d["reason"] == "spoils"]
    assert drawn == [{"seat": "alice", "count": 1, "wanted": 1, "reason": "spoils", "draw_size": 1, "owner": "alice",
                      "from": "draw", "zone": "hand"}]
    assert m.zone("alice", "hand") == ["thornvale"]  # the top of the pile


# "The realm can be razed or discarded despite the fact that another type of card play occurred."

def test_spellfire3_realm_razed_by_another_players_card_play_still_gives_spoils(match, S, ev):
    # carol, outside the battle, razes the realm in the window after alice's ally
    m = battle(match, S, alice_hand=["hillfolk-skirmishers"], carol=S(hand=["the-sky-cracks"]))
    m.answer("hillfolk-skirmishers")
    m.answer_as("carol", "the-sky-cracks")
    for seat in sorted(m.window()):
        m.answer_as(seat, "pass")
    assert m.slot("bob", "A")["razed"] and spoils_drawn(m, ev) == ["alice"]
    assert m.zone("carol", "discard") == ["the-sky-cracks"]


# "If this happens, the spoils card is available for play immediately or kept for later."

@pytest.mark.parametrize("now", [True, False])
def test_spellfire3_spoils_played_immediately_or_kept(match, S, ev, now):
    m = battle(match, S, defender=None, alice={"draw": ["sister-orla"]})
    m.answer("decline")
    assert m.option_ids() == ["sister-orla", "keep"]
    if now:
        m.answer("sister-orla")
        assert "sister-orla" in m.zone("alice", "pool")
    else:
        m.answer("keep")
        assert m.zone("alice", "hand") == ["sister-orla"]


# "Spoils allow the player to play magic items, artifacts, champions, holdings, rule cards,
#  and dungeons that are normally not playable."

RULE = {"id": "edict-of-iron", "name": "Edict of Iron", "type": "rule", "text": "A rule card."}
DUNGEON = {"id": "pit-of-echoes", "name": "Pit of Echoes", "type": "dungeon", "text": "A dungeon."}


@pytest.mark.parametrize("card,args,where", [
    ("cloak-of-dusk", {"champion": "torvald-ironhand"}, "attached"),
    ("crown-of-embers", {"champion": "torvald-ironhand"}, "attached"),
    ("sister-orla", {}, "pool"),
    ("lantern-watch", {"slot": "A"}, "holding"),
    ("edict-of-iron", {}, "rule"),
    ("pit-of-echoes", {}, "dungeon"),
])
def test_spellfire3_spoils_items_artifacts_champions_holdings_rules_dungeons(match, S, ev, card, args, where):
    m = battle(match, S, defender=None, alice={"draw": [card], "formation": {"A": "emberhold"}},
               cards=[RULE, DUNGEON], alice_pool=["torvald-ironhand"])
    m.answer("decline")  # phase 4, on a turn with nothing else playable: spoils all the same
    assert m.option(card)
    events = m.answer(card, **args)
    assert m.zone("alice", "hand") == []
    if where == "attached":
        assert card in m.attached("alice", "torvald-ironhand")
    elif where == "pool":
        assert card in m.zone("alice", "pool")
    elif where == "holding":
        assert m.slot("alice", "A")["holding"] == card
    elif where == "rule":  # in play for everyone
        assert m.state["rule"]["seat"] == "alice" and m.cid(m.state["rule"]["card"]) == card
        assert ev.find(events, "rule_played")[0]["def"] == card
        assert m.rs.view(m.state, "bob")["rule"]["def"] == card
    else:
        assert m.cid(m.state["dungeons"]["alice"]) == card
        assert ev.find(events, "dungeon_played")[0]["def"] == card
        assert m.rs.view(m.state, "bob")["dungeons"]["alice"]["def"] == card


# "With spoils of victory, the only restriction is playing an avatar into the pool. Avatars
#  can be played as spoils, but the cost associated with them must also be met."

def avatar(cost: dict) -> dict:
    return {"id": "lady-of-embers", "name": "Lady of Embers", "type": "champion", "class": "cleric", "level": 11,
            "world": "forgotten_realms", "cost": cost, "text": "An avatar: it asks a price to come into play."}


@pytest.mark.parametrize("cost,payable", [({"sacrifice": "hero"}, ["torvald-ironhand"]), ({"sacrifice": "cleric"}, None),
                                          ({"realms": 1}, []), ({"realms": 2}, None)])
def test_spellfire3_avatar_spoils_only_with_cost_met(match, S, ev, cost, payable):
    m = battle(match, S, defender=None, alice={"draw": ["lady-of-embers"]}, cards=[avatar(cost)])
    m.answer("decline")  # Torvald (hero) and Maelis (wizard) are in alice's pool; one realm in formation
    if payable is None:
        assert m.option_ids() == ["keep"]
        return
    opt = m.option("lady-of-embers")
    if not payable:
        assert "args" not in opt
        m.answer("lady-of-embers")
    else:
        assert [m.cid(i) for i in opt["args"]["sacrifice"]] == payable
        events = m.answer("lady-of-embers", sacrifice=m.iid("torvald-ironhand"))
        assert [d["reason"] for d in ev.find(events, "cards_discarded")] == ["sacrifice"]
        assert "torvald-ironhand" in m.zone("alice", "discard")
    assert "lady-of-embers" in m.zone("alice", "pool")


# "Spells, psionic power cards, blood abilities, thief skills, and unarmed combat cards
#  can't be played immediately unless they state they "can be played at any time."
#  Otherwise, the spoils card is added to the player's hand."

@pytest.mark.parametrize("card,playable", [("flame-lance", False), ("iron-fist-strike", False),
                                           ("glimpse-of-fortune", True), ("windfall", True),
                                           ("sudden-rout", False)])
def test_spellfire3_support_spoils_kept_unless_play_at_any_time(match, S, ev, card, playable):
    m = battle(match, S, defender=None, alice={"draw": [card, "gallowfen", "ravencrag"]})
    m.answer("decline")
    if not playable:
        assert m.option_ids() == ["keep"]
        m.answer("keep")
        assert m.zone("alice", "hand") == [card]
        return
    events = m.answer(card)
    played = ev.find(events, "card_played")[0]
    assert played["side"] is None and played["effects"] == ["draw_cards"]
    assert card in m.zone("alice", "discard") and "gallowfen" in m.zone("alice", "hand")


# "In combat, the defender draws a spoils card from the top of his draw pile if the
#  attacker is defeated and discarded. Furthermore, this holds true even if another card
#  play eliminated the champion, not the defense."

def test_spellfire3_defender_draws_top_card_when_attacker_defeated_and_discarded(match, S, ev):
    m = battle(match, S)
    m.answer("stop")
    assert m.state["spoils"] == {"seat": "bob", "card": m.iid("ravencrag")}
    assert m.zone("bob", "draw") == ["wailing-barrow"]


def test_spellfire3_defender_spoils_even_when_another_players_card_eliminated_the_attacker(match, S, ev):
    m = battle(match, S, alice_hand=["free-company"], carol=S(hand=["sudden-rout"]))
    m.answer("free-company")  # 11 against 9: alice is winning
    m.answer_as("carol", "sudden-rout")
    for seat in sorted(m.window()):
        m.answer_as(seat, "pass")
    assert "torvald-ironhand" in m.zone("alice", "discard")
    assert spoils_drawn(m, ev) == ["bob"]


# -- spellfire-1 I and J: the end of the battle ------------------------------------------
# "If the attacker won the round, the realm they attacked should be razed unless its special
#  power declares that it needs to be defeated twice. If so, the attacker may select another
#  champion and attack again. ... The attack must be made against the same realm."

def test_spellfire1_realm_defeated_twice_continues_only_after_a_won_round(match, S, ev):
    m = battle(match, S, bob_formation={"A": "gallowfen", "B": "hollowmere"}, realm="gallowfen",
               bob_pool=["oskar-the-sly", "grey-warden-tamsin"], defender="oskar-the-sly")
    events = m.answer("stop")  # Oskar (5) gives up against Torvald (7): the attacker won the round
    assert ev.find(events, "realm_holds")[0]["defeats"] == 1 and not ev.find(events, "battle_ended")
    assert m.prompt["kind"] == "choose_attacker" and m.state["battle"]["realm"] == m.iid("gallowfen")
    assert m.option_ids() == ["maelis-brightquill", "end"]
    m.answer("maelis-brightquill")
    m.answer("grey-warden-tamsin")  # 6 against 8: alice loses round 2
    events = m.answer("stop")
    ended = ev.find(events, "battle_ended")[0]
    assert ended["rounds"] == 2 and ended["razed"] is False and ended["spoils"] == "bob"
    assert not m.slot("bob", "A")["razed"]


def test_spellfire1_realm_defeated_twice_lost_first_round_ends_battle(match, S, ev):
    m = battle(match, S, bob_formation={"A": "gallowfen"}, realm="gallowfen")
    events = m.answer("stop")  # Torvald 7 against Tamsin 8
    assert ev.find(events, "battle_ended")[0]["rounds"] == 1 and m.prompt["kind"] == "spoils"


# "No champion may be used more than once each turn unless its special power permits it."

def test_spellfire1_champion_used_once_a_turn_unless_its_power_permits(match, S, ev):
    m = match(alice=S(pool=["kestrel-twinblade", "torvald-ironhand"]),
              bob=S(formation={"A": "gallowfen"}, pool=["oskar-the-sly"]), turn=ATTACK)
    m.answer("gallowfen")
    m.answer("kestrel-twinblade")
    m.answer("oskar-the-sly")
    m.answer("stop")  # Oskar (5) gives up against Kestrel (6): Gallowfen holds
    assert m.option_ids() == ["torvald-ironhand", "kestrel-twinblade", "end"]  # extra_attack: Kestrel again
    m.answer("torvald-ironhand")
    m.answer("decline")
    assert m.slot("bob", "A")["razed"]
    m2 = match(alice=S(pool=["torvald-ironhand", "maelis-brightquill"]),
               bob=S(formation={"A": "gallowfen"}, pool=["oskar-the-sly"]), turn=ATTACK)
    m2.answer("gallowfen")
    m2.answer("torvald-ironhand")
    m2.answer("oskar-the-sly")
    m2.answer("stop")
    assert m2.option_ids() == ["maelis-brightquill", "end"]


# "If choosing to defend, the defending player must choose a new defender, although they
#  are not required to defend at all."

def test_spellfire1_defender_must_choose_a_new_defender_or_none(match, S, ev):
    m = battle(match, S, bob_formation={"A": "gallowfen"}, realm="gallowfen",
               bob_pool=["brannoc-the-unyielding", "oskar-the-sly"], defender="brannoc-the-unyielding")
    m.answer("stop")  # 7 against 5: Brannoc loses; he returns to bob's pool by his power; Gallowfen holds
    assert m.zone("bob", "pool") == ["oskar-the-sly", "brannoc-the-unyielding"]
    m.answer("maelis-brightquill")
    assert m.option_ids() == ["oskar-the-sly", "decline"]  # Brannoc defended already


# "After the battle is over, one of the players may be eligible to draw spoils of victory."

def test_spellfire1_spoils_drawn_after_the_battle_is_over(match, S, ev):
    m = battle(match, S, defender=None)
    kinds = ev.kinds(m.answer("decline"))
    assert kinds.index("battle_ended") < kinds.index("cards_drawn")
    assert m.state["battle"] is None and m.prompt["kind"] == "spoils"


# "Alternatively, the defender draws spoils if the attacking champion is defeated and
#  discarded in combat, or sent to Limbo, the Abyss, or the Void."

VOID_ROUT = {"id": "into-the-void", "name": "Into the Void", "type": "event",
             "powers": ["discard_attacker_event", "to_void"], "text": "The attacking champion goes to the Void."}


@pytest.mark.parametrize("zone", ["limbo", "abyss", "void"])
def test_spellfire1_defender_spoils_when_attacker_sent_to_limbo_abyss_or_void(match, S, ev, zone):
    if zone == "abyss":  # Maw of Ashkarn (7 + 1) defeats Maelis (6): to the Abyss
        m = battle(match, S, bob_pool=["maw-of-ashkarn"], defender="maw-of-ashkarn", attacker="maelis-brightquill")
        events = m.answer("stop")
    else:
        card = "fold-into-limbo" if zone == "limbo" else "into-the-void"
        m = battle(match, S, alice_hand=["free-company"], bob_hand=[card], cards=[VOID_ROUT])
        m.answer("free-company")
        m.answer(card)
        events = m.answer("pass")
    sent = ev.find(events, "sent_to_zone")[0]
    assert sent["seat"] == "alice" and sent["zone"] == zone
    view = m.rs.view(m.state, "bob")["players"]["alice"]
    assert [c["def"] for c in view[zone]] == [sent["def"]]
    assert sent["def"] not in m.zone("alice", "discard")
    assert ev.find(events, "battle_ended")[0]["spoils"] == "bob" and spoils_drawn(m, ev) == ["bob"]


# "Only a handful of champions allow an attack on more than one realm per turn. All attacks
#  follow the order of the steps above. It is possible that several spoils of victory cards
#  can be acquired in a single turn."

def test_spellfire1_champion_attacking_twice_gets_several_spoils_in_one_turn(match, S, ev):
    m = battle(match, S, alice_pool=["kestrel-twinblade", "torvald-ironhand"], attacker="kestrel-twinblade",
               defender=None)
    m.answer("decline")
    m.answer("keep")  # the first spoils
    # attacks_per_turn is 1, yet Kestrel may open a second battle: the realms she reaches
    assert m.prompt["kind"] == "choose_realm" and m.option_ids() == ["hollowmere", "mistveil-hamlet", "end"]
    m.answer("hollowmere")
    assert m.option_ids() == ["kestrel-twinblade", "back", "end"]  # Torvald: only within the turn's one battle
    m.answer("kestrel-twinblade")
    m.answer("decline")
    m.answer("keep")
    assert spoils_drawn(m, ev) == ["alice", "alice"] and m.zone("alice", "hand") == ["thornvale", "amberfield"]
    assert m.state["turn"]["seat"] == "bob"  # no third battle
