"""What client authors rely on: options and events name their cards in fields, and the
events alone say everything that changes in a seat's view.

Random matches (two and six seats with the default decks, three with the whole card
set dealt by a setup) are played one answer at a time;
after each answer, for every seat and for a spectator:

- every option of every open prompt has the fields `card`, `def`, `owner`, `zone` and
  `slot`, and a card option's fields say where that card really is; every option of a
  `respond` prompt names, in `answers`, the card last played into the battle;
- every event that names a card (`card`) gives its true `def`, and only cards the
  viewer may see;
- every field of the viewer's view that changed is named by some event it was sent for
  that answer (the table `NAMES` below says which view fields each event's own fields
  name), and the values events carry (sizes, totals, rounds, attacks) are the view's.
"""

from __future__ import annotations

import random
import re

import pytest
from spellfire_kit import S, ev, match  # noqa: F401  (pytest fixtures)

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import random_answer
from battlehall.engine.spellfire.cards import shipped
from battlehall.engine.spellfire.zones import card as card_of
from rulesets import seats as seat_names

RS = get_ruleset("spellfire")
FIELDS = ("card", "def", "owner", "zone", "slot")
BATTLE_STEPS = {"choose_attacker": "attacker", "choose_defender": "defender", "before_battle": "before_battle",
                "battle_play": "play", "play_at_once": "play_at_once", "respond": "respond"}
ORDER = {"battle.order", "battle.pending"}  # the round's cards in activation order, a waiting outcome


def flat(value, path="", out=None) -> dict:
    """Every leaf of a view by its dotted path (lists are leaves)."""
    out = {} if out is None else out
    if isinstance(value, dict) and value:
        for k, v in value.items():
            flat(v, f"{path}.{k}" if path else k, out)
    else:
        out[path] = value
    return out


def names(event: dict) -> set[str]:
    """The view fields an event names, from its own fields (prefixes of dotted paths)."""
    kind, d = event["kind"], event["data"]
    p = f"players.{d.get('seat')}"
    hand = {f"{p}.hand", f"{p}.hand_size"}
    via = {"spoils"} if d.get("via") == "spoils" else set()
    if kind == "seat_resigned":
        return {"resigned"}
    if kind == "turn_started":
        return {"turn"}
    if kind == "phase":
        return {"turn.phase"}
    if kind == "cards_drawn":
        return hand | {f"{p}.draw_size"} | ({"spoils"} if d["reason"] == "spoils" else set())
    if kind == "cards_discarded":
        where = {"hand": hand, "pool": {f"{p}.pool"}, "battle": {"battle.sides"} | ORDER,
                 "formation": {f"{p}.formation.{d['slot']}", f"{p}.unrazed"}, "limbo": {f"{p}.limbo"},
                 "rule": {"rule"}, "dungeon": {"dungeons"}}[d["from"]]
        return {f"{p}.discard"} | where
    if kind == "card_returned":
        return hand | {f"{p}.discard", "turn.used"}
    if kind == "realm_played":
        return hand | via | {f"{p}.formation.{d['slot']}", f"{p}.unrazed"} | (
            {"turn.realm_played"} if d["via"] == "phase" else set())
    if kind == "holding_played":
        return hand | via | {f"{p}.formation.{d['slot']}.holding"} | (
            {"turn.holding_played"} if d["via"] == "phase" else set())
    if kind in ("champion_to_pool", "card_attached"):
        return hand | via | {f"{p}.pool"}
    if kind == "rule_played":
        return hand | via | {"rule"} | ({"turn.rule_played"} if d["via"] == "phase" else set())
    if kind == "dungeon_played":
        return hand | via | {"dungeons"} | ({"turn.dungeon_played"} if d["via"] == "phase" else set())
    if kind == "sent_to_zone":
        return {f"{p}.{d['zone']}"} | ({f"{p}.pool"} if d["from"] == "pool" else {"battle.sides"} | ORDER)
    if kind == "left_limbo":
        return {f"{p}.limbo", f"{p}.{d['zone']}"}
    if kind in ("activated", "outcome_pending", "outcome_cancelled"):
        return ORDER
    if kind == "ally_called":
        return ORDER | {f"battle.sides.{d['side']}", "turn.used"}
    if kind == "realm_discarded":
        return {f"{p}.formation.{d['slot']}", f"{p}.unrazed"}
    if kind == "battle_started":
        return {"battle"}
    if kind == "champion_chosen":
        return ORDER | {f"battle.sides.{d['side']}", "battle.round", "turn.used",
                *(hand if d["from"] == "hand" else {f"{p}.pool"})}
    if kind == "powers_activated":
        return ORDER | {"battle.sides.attacker.total", "battle.sides.defender.total"}
    if kind == "card_played":
        return hand | via | ORDER | {"battle.sides.attacker.total", "battle.sides.defender.total"} | (
            {f"battle.sides.{d['side']}"} if d["side"] else set())
    if kind == "round_ended":
        return ORDER | {"battle.sides", "battle.defeats"}
    if kind == "champion_returned":
        return {f"{p}.pool"}
    if kind == "realm_razed":
        return {f"{p}.formation.{d['slot']}", f"{p}.unrazed"}
    if kind == "battle_ended":
        return {"battle", "turn.attacks"}
    if kind == "attack_withdrawn":
        return {"battle", "turn.withdrawn"}
    if kind == "spoils_kept":
        return {"spoils"}
    if kind == "match_ended":
        return {"result"}
    if kind == "prompt" and d["kind"] in BATTLE_STEPS:
        return {"battle.step"}
    return set()  # prompt_closed, turn_ended, defense_declined, realm_holds name nothing that changes


def covered(path: str, named: set[str]) -> bool:
    return any(path == n or path.startswith(n + ".") for n in named)


def located(state: dict, o: dict) -> bool:
    """Is the option's card where its fields say?"""
    player = state["players"][o["owner"]]
    if o["zone"] == "hand":
        return o["card"] in player["hand"] and o["slot"] is None
    if o["zone"] == "pool":
        return any(e["champion"] == o["card"] for e in player["pool"]) and o["slot"] is None
    if o["zone"] == "formation":
        slot = player["formation"][o["slot"]]
        return slot is not None and o["card"] in (slot["realm"], slot["holding"])
    return False


def check_prompts(state: dict, last_played: str | None) -> None:
    for p in state["prompts"]:
        for o in p["options"]:
            assert all(k in o for k in FIELDS), (p["kind"], o)
            if o["card"] is None:
                assert all(o[k] is None for k in FIELDS), o
            else:
                assert state["cards"][o["card"]] == o["def"] and located(state, o), (p["kind"], o)
            if p["kind"] == "respond":
                assert o["answers"]["card"] == last_played, (o, last_played)


def check_answer(before: dict, state: dict, events: list, viewer) -> None:
    seen = [RS.redact(e, viewer) for e in events]
    hidden = set(RS.secrets(state, viewer))
    for e in seen:
        card = e["data"].get("card")
        if card is not None:
            assert state["cards"][card] == e["data"]["def"] and card not in hidden, e
    after = flat(RS.view(state, viewer))
    named: set[str] = set()
    for e in seen:
        named |= names(e)
    for path in sorted(set(before) | set(after)):
        if before.get(path, "absent") != after.get(path, "absent"):
            assert covered(path, named), (viewer, path, before.get(path), after.get(path), [e["kind"] for e in seen])
    # The values the events carry are those of the view.
    attacks = None
    for e in seen:
        d = e["data"]
        if e["kind"] == "cards_drawn":
            last_draw = (d["seat"], d["draw_size"])
        if e["kind"] == "battle_ended":
            attacks = d["attacks"]
        if e["kind"] == "turn_started":
            attacks = None  # a new turn counts from 0
    if attacks is not None:
        assert after["turn.attacks"] == attacks
    if any(e["kind"] == "cards_drawn" for e in seen):
        seat, size = last_draw
        assert after[f"players.{seat}.draw_size"] == size
    totals = [e["data"]["totals"] for e in seen if e["kind"] in ("card_played", "powers_activated")]
    if totals and after.get("battle.sides.attacker.total") is not None and after.get("battle.sides.defender.total") is not None:
        assert {"attacker": after["battle.sides.attacker.total"],
                "defender": after["battle.sides.defender.total"]} == totals[-1]


def whole_set(seats: list[str], seed: int) -> dict:
    """A setup that deals every shipped card into the seats' draw piles."""
    cards = sorted(shipped().cards)
    random.Random(seed).shuffle(cards)
    return {"players": {s: {"draw": cards[i::len(seats)]} for i, s in enumerate(seats)}}


@pytest.mark.parametrize(("n", "full"), [(2, False), (6, False), (3, True)], ids=["2", "6", "3-whole-set"])
def test_events_name_every_change_of_the_view(n, full):
    seats = seat_names(n)
    kinds: set[str] = set()
    for seed in range(6 if n == 2 else 2):
        rnd = random.Random(seed)
        setup = whole_set(seats, seed) if full else None
        state, events = RS.start(seats, seed, {"turn_limit": 40, "starting_hand": 0 if full else 5}, setup)
        viewers = seats + [None]
        last_played = None
        for _ in range(20_000):
            if state["result"] is not None:
                break
            check_prompts(state, last_played)
            before = {v: flat(RS.view(state, v)) for v in viewers}
            prompt = rnd.choice(state["prompts"])
            playing = [s for s in seats if s not in state.get("resigned", [])]
            if len(playing) > 2 and rnd.random() < 0.01:  # with three seats or more, some resign
                events = RS.resign(state, rnd.choice(playing))
            else:
                option, args = random_answer(rnd, prompt)
                events = RS.answer(state, prompt["seat"], prompt["id"], option, args)
            for e in events:
                kinds.add(e["kind"])
                if e["kind"] in ("card_played", "ally_called"):
                    last_played = e["data"]["card"]
            for v in viewers:
                check_answer(before[v], state, events, v)
        assert state["result"] is not None
    # random play went through the events that matter most
    assert {"realm_played", "champion_chosen", "card_played", "round_ended", "battle_ended", "cards_discarded"} <= kinds
    if n > 2:
        assert "seat_resigned" in kinds


def test_round_ended_names_the_winner_of_card_play(match, S, ev):
    """An event that razes the realm: the attacker's side won the round (and its seat)."""
    m = match(alice=S(pool=["torvald-ironhand"], hand=["earthrend"]),
              bob=S(formation={"A": "ironbridge"}, pool=["grey-warden-tamsin"]),
              turn={"seat": "alice", "phase": "attack"})
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    m.answer("grey-warden-tamsin")
    m.answer("earthrend")
    ended = ev.find(m.answer("pass"), "round_ended")[0]  # the outcome waits for the window after it
    assert ended["winner"] == "attacker" and ended["winner_seat"] == "alice" and ended["how"] == "realm_razed"
    assert (ended["attacker"], ended["defender"]) == ("alice", "bob")


def test_round_ended_names_the_defender_when_the_attacker_is_discarded(match, S, ev):
    m = match(alice=S(pool=["torvald-ironhand"]),
              bob=S(formation={"A": "ironbridge"}, pool=["oskar-the-sly"], hand=["sudden-rout"]),
              turn={"seat": "alice", "phase": "attack"})
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    m.answer("oskar-the-sly")  # 5 + 1 against 7: bob is behind and plays
    m.answer("sudden-rout")
    ended = ev.find(m.answer("pass"), "round_ended")[0]  # the outcome waits for the window after it
    assert ended["winner"] == "defender" and ended["winner_seat"] == "bob"


def test_respond_prompt_names_the_card_it_answers(match, S):
    m = match(alice=S(pool=["torvald-ironhand"], hand=["hillfolk-skirmishers"]),
              bob=S(formation={"A": "ironbridge"}, pool=["grey-warden-tamsin"], hand=["sudden-rout"]),
              carol=S(hand=["windfall", "rallying-cry"]), turn={"seat": "alice", "phase": "attack"})
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    m.answer("grey-warden-tamsin")
    m.answer("hillfolk-skirmishers")
    window = m.window()
    answers = {"card": m.iid("hillfolk-skirmishers"), "def": "hillfolk-skirmishers", "owner": "alice",
               "side": "attacker"}
    for seat in ("bob", "carol"):
        assert all(o["answers"] == answers for o in window[seat]["options"])
    rout = next(o for o in window["bob"]["options"] if o["def"] == "sudden-rout")
    assert {k: rout[k] for k in FIELDS} == {"card": m.iid("sudden-rout"), "def": "sudden-rout", "owner": "bob",
                                            "zone": "hand", "slot": None}
    cry = next(o for o in window["carol"]["options"] if o["def"] == "rallying-cry")
    assert cry["owner"] == "carol" and cry["args"] == {"side": ["attacker", "defender"]}


def test_choose_realm_options_name_owner_and_slot(match, S):
    m = match(alice=S(pool=["vexthra-the-red"]),
              bob=S(formation={"A": "ironbridge", "B": "hollowmere"}),
              turn={"seat": "alice", "phase": "attack"})
    realms = {o["def"]: {k: o[k] for k in FIELDS} for o in m.prompt["options"] if o["card"]}
    assert realms == {
        "ironbridge": {"card": m.iid("ironbridge"), "def": "ironbridge", "owner": "bob", "zone": "formation", "slot": "A"},
        "hollowmere": {"card": m.iid("hollowmere"), "def": "hollowmere", "owner": "bob", "zone": "formation", "slot": "B"}}
    end = m.option("end")
    assert {k: end[k] for k in FIELDS} == dict.fromkeys(FIELDS)


# -- prompts that say what they are about, in words ----------------------------------------------

INSTANCE = re.compile(r"\bc\d+\b")
REALM_PROMPTS = ("choose_attacker", "choose_defender", "before_battle", "battle_play", "respond")
ABOUT_THE_REALM = ("defense_declined", "attack_withdrawn", "battle_started", "realm_holds", "battle_ended")


def check_words(state: dict, prompt: dict) -> None:
    """A prompt and its options say in words which cards, realms and targets they are
    about: an option about a card names it; every value of every argument is told in
    `args_text`; a battle's prompts name the realm under attack (a window's, also the card
    it answers); no text shows an instance id."""
    def name(iid: str) -> str:
        return card_of(state, iid)["name"]

    assert not INSTANCE.search(prompt["text"]), prompt["text"]
    b = state["battle"]
    if prompt["kind"] in REALM_PROMPTS:
        assert name(b["realm"]) in prompt["text"], (prompt["kind"], prompt["text"])
    if prompt["kind"] == "play_at_once":
        assert name(b["at_once"]) in prompt["text"], prompt["text"]
    for o in prompt["options"]:
        assert o["text"] and not INSTANCE.search(o["text"]), o
        if o["card"] is not None:
            assert name(o["card"]) in o["text"], (prompt["kind"], o)
        if "answers" in o:
            assert name(o["answers"]["card"]) in prompt["text"], (prompt["text"], o["answers"])
        for arg, values in (o.get("args") or {}).items():
            told = o["args_text"][arg]
            assert sorted(told) == sorted(values) and all(told[v] and not INSTANCE.search(told[v]) for v in values), o


@pytest.mark.parametrize(("n", "full"), [(2, False), (3, True)], ids=["2", "3-whole-set"])
def test_prompts_and_events_say_what_they_are_about(n, full):
    seats = seat_names(n)
    seen_kinds: set[str] = set()
    for seed in range(4):
        rnd = random.Random(100 + seed)
        setup = whole_set(seats, seed) if full else None
        state, _ = RS.start(seats, seed, {"turn_limit": 40, "starting_hand": 0 if full else 5}, setup)
        for _ in range(20_000):
            if state["result"] is not None:
                break
            for p in state["prompts"]:
                check_words(state, p)
                seen_kinds.add(p["kind"])
            prompt = rnd.choice(state["prompts"])
            option, args = random_answer(rnd, prompt)
            for e in RS.answer(state, prompt["seat"], prompt["id"], option, args):
                if e["kind"] in ABOUT_THE_REALM:  # the realm of the battle, named like a card
                    assert all(k in e["data"] for k in FIELDS) and e["data"]["card"] is not None, e
                if e["kind"] == "card_attached":  # the champion by its ref, not only its instance
                    champion = e["data"]["champion"]
                    assert e["data"]["attached_to"] == {"card": champion, "def": state["cards"][champion]}, e
                seen_kinds.add(e["kind"])
        assert state["result"] is not None
    assert {"choose_realm", "choose_attacker", "choose_defender", "battle_play", "respond", "spoils",
            "card_attached", "defense_declined", "attack_withdrawn"} <= seen_kinds


def test_arguments_are_told_in_words(match, S):
    """Each value of a play's argument is said in `args_text`: a slot by what is in it,
    a champion by name, level and class."""
    m = match(alice=S(hand=["thornvale", "bellkeep-tower"], draw=["amberfield"] * 3,
                      formation={"A": {"realm": "emberhold", "razed": True}, "B": "ironbridge"}))
    assert m.prompt["kind"] == "play_realm"
    assert m.option("thornvale")["args_text"] == {"slot": {"A": "slot A, over the razed Emberhold",
                                                           "C": "slot C (empty)"}}
    assert m.option("bellkeep-tower")["args_text"] == {"slot": {"B": "on Ironbridge (slot B)"}}
    m2 = match(alice=S(pool=["torvald-ironhand", "maelis-brightquill"], hand=["sword-of-morning-star"]),
               turn={"seat": "alice", "phase": "pool"})
    told = m2.option("sword-of-morning-star")["args_text"]["champion"]
    assert told == {m2.iid("torvald-ironhand"): "on Torvald Ironhand (level 7, hero)",
                    m2.iid("maelis-brightquill"): "on Maelis Brightquill (level 6, wizard)"}


def test_battle_prompts_name_the_realm_the_champions_and_the_card_answered(match, S):
    m = match(alice=S(pool=["torvald-ironhand"], hand=["hillfolk-skirmishers"]),
              bob=S(formation={"A": "ironbridge"}, pool=["grey-warden-tamsin"]), turn={"seat": "alice", "phase": "attack"})
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    assert m.prompt["text"] == ("Round 1: alice attacks your Ironbridge (A) with Torvald Ironhand (level 7, hero, "
                                "from pool): choose a champion to defend it, or decline")
    assert m.option("decline")["text"] == "Do not defend: Ironbridge is razed and the battle ends"
    m.answer("grey-warden-tamsin")
    assert m.prompt["text"] == ("Round 1 for bob's Ironbridge (A): your Torvald Ironhand (attacker) is behind "
                                "Grey Warden Tamsin, 7 against 9: play a card, or stop")
    m.answer("hillfolk-skirmishers")
    window = m.window()["bob"]
    assert window["text"].startswith("alice played Hillfolk Skirmishers for the attacker in the battle for Ironbridge")
    assert window["options"][-1]["text"] == "Let Hillfolk Skirmishers stand"
