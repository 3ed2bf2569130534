"""Prompts and events that say what they are about: owners, Knights, wounds, tiles and
card names in fields and in words, never bare ids (docs/hourglass.md, Prompts and Events)."""

from __future__ import annotations

from hourglass_kit import RS, act, card_of, kinds, play_turn, position, prompt_of, start

A, A2, B, B2 = "alice-1@ford", "alice-2@ford", "bob-1@ford", "bob-2@ford"


def test_targets_options_name_each_knight_with_owner_and_wounds():
    state, _ = start(position(knights={"alice": 2, "bob": [2, 0]}, bandits=1,
                              top={"alice": 0, "bob": 3, "bandits": 3}))
    prompt = prompt_of(state, "alice", "targets")
    about = prompt["options"][0]["about"]
    assert about[B] == {"knight": B, "name": "Knight 1", "owner": "bob", "tile": "ford", "wounds": 2, "health": 5,
                        "text": "bob's Knight 1 (2 of 5 wounds)"}
    assert about["bandit-1@ford"]["owner"] == "bandits" and about["bandit-1@ford"]["name"] == "Bandit 1"
    assert about[A2]["owner"] == "alice" and about[A2]["name"] == "Knight 2"  # the Knights given targets
    assert about["none"]["knight"] is None
    assert "bob's Knight 1 (2 of 5 wounds)" in prompt["text"] and "Bandit 1" in prompt["text"]
    assert "@" not in prompt["text"]


def test_defend_prompt_says_which_knights_are_targeted_and_by_whom():
    state, _ = start(position(knights={"alice": 2, "bob": 2}))
    act(state, "alice", "assign", "targets", **{A: B2, A2: B2})
    option = prompt_of(state, "bob", "defend")["options"][0]
    assert option["attacker"] == "alice"
    assert [(t["knight"]["knight"], [a["knight"] for a in t["by"]]) for t in option["targeted"]] == [(B2, [A, A2])]
    assert option["targeted"][0]["by"][0]["owner"] == "alice"
    text = prompt_of(state, "bob", "defend")["text"]
    assert "Knight 2 is targeted by alice's Knight 1 and alice's Knight 2" in text and "against alice" in text


def test_attack_without_a_tie_names_nobody_in_tie_to():
    state, _ = start(position(attributes={"alice": {"precision": 9}}))  # 9 > 2 * 4: a Critical Hit, no equality
    attack = kinds(play_turn(state, {A: B}, {"bob": "plain"}), "attack")[0]
    assert attack["outcome"] == "critical" and attack["tie"] is False and attack["tie_to"] is None
    assert (attack["owner"], attack["target_owner"]) == ("alice", "bob")


def test_delay_is_given_in_players_units_beside_delay2():
    state, _ = start(position(attributes={"alice": {"delay": 2.5}}, cards=[{"id": "slow", "delay": 1.5}]))
    view = RS.view(state, None)
    assert (view["attributes"]["alice"]["delay"], view["attributes"]["alice"]["delay2"]) == (2.5, 5)
    assert view["attributes"]["bob"]["delay"] == 2 and isinstance(view["attributes"]["bob"]["delay"], int)
    assert (view["cards"]["slow"]["delay"], view["cards"]["slow"]["delay2"]) == (1.5, 3)


def test_prompt_texts_name_cards_not_instances():
    state, _ = start(position(cards=[{"id": "parry", "name": "Parry", "defense": 2}],
                              hands={"alice": ["plain", "parry"], "bob": ["parry", "plain"]}))
    act(state, "alice", "assign", "targets", **{A: B})
    defend = prompt_of(state, "bob", "defend")
    assert "#" not in defend["text"] and "Parry" in defend["text"]
    parry = card_of(state, "bob", "parry")
    assert defend["options"][0]["about"][parry] == {"card": parry, "kind": "parry", "name": "Parry", "owner": "bob",
                                                    "text": "Parry (Defense +2)"}
    act(state, "bob", "place", "defend", card=parry)
    attack = prompt_of(state, "alice", "attack_card")
    assert "#" not in attack["text"] and "plain, Parry" in attack["text"]
    assert "Knight 1 attacks bob's Knight 1" in attack["text"]
    assert [(x["knight"]["knight"], x["target"]["knight"]) for x in attack["options"][0]["attacks"]] == [(A, B)]


def test_choose_battle_and_alliance_options_describe_tiles_and_seats():
    setup = {"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": 2}},
                         {"tile": "old-mill", "knights": {"alice": 1, "bob": 1}, "bandits": 1}]}
    state, _ = RS.start(["alice", "bob"], 1, None, setup)
    choose = prompt_of(state, "alice", "choose_battle")
    assert choose["options"][0]["about"]["old-mill"] == {
        "tile": "old-mill", "sides": ["alice", "bob", "bandits"], "knights": {"alice": 1, "bob": 1, "bandits": 1},
        "text": "the old mill: alice (1 Knight), bob (1 Knight), 1 Bandit"}
    act(state, "alice", "battle", "choose_battle", tile="ford")
    ally = next(o for o in prompt_of(state, "alice", "alliance")["options"] if o["id"] == "ally")
    assert ally["about"] == {"bob": {"seat": "bob", "knights": 2, "text": "bob (2 Knights here)"}}


def test_an_alliance_offer_is_an_event_only_its_offerer_reads():
    state, _ = RS.start(["alice", "bob", "carol"], 1, None,
                        {"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": 1, "carol": 1}}]})
    events = act(state, "alice", "ally", "alliance", **{"with": "carol"})
    answered = next(e for e in events if e["kind"] == "alliance_answered")
    assert RS.redact(answered, "alice")["data"] == {"tile": "ford", "seat": "alice", "with": "carol"}
    assert RS.redact(answered, "bob")["data"] == RS.redact(answered, None)["data"] == {"tile": "ford", "seat": "alice"}
    assert RS.view(state, "alice")["my_offer"] == "carol"


def test_the_next_player_turn_is_an_event():
    """The resolver moves on once its battles are over: `player_turn_ended` says to whom."""
    setup = {"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": 1}},
                         {"tile": "mill", "knights": {"bob": 1, "carol": 1}}]}
    state, _ = RS.start(["alice", "bob", "carol"], 1, {"alliances": False, "battle_turn_limit": 1}, setup)
    events = []
    while state["result"] is None:
        prompt = state["prompts"][0]
        option = next(o for o in prompt["options"] if o["id"] == prompt["default"])
        args = {k: v[-1] for k, v in (option.get("combos", [option.get("args") or {}])[0]).items()}
        events += RS.answer(state, prompt["seat"], prompt["id"], option["id"], args)
    turns = kinds(events, "player_turn_ended")
    assert turns[0] == {"seat": "alice", "resolver": "bob"}
    assert turns[-1]["resolver"] is None and RS.view(state, None)["resolver"] is None
