"""What client authors rely on in demigod: options say what they are about, and the events
alone say everything that changes in a seat's view (the rule tests/engine/
test_spellfire_fields.py checks for spellfire).

Random matches (two to four seats with the default decks, and two seats dealt every
shipped card and some inline ones by a setup) are played one answer or timeout at a
time; after each, for every seat and for a spectator:

- every option that takes arguments has `about`, one description per value (a
  character's id, a card instance, a square as "x,y") with a `text`, whose fields are
  the state's; every option of a `defend` prompt has `attack`, naming the attacker, its
  card, its aim and the character defended;
- every field of the viewer's view that changed is named by some event it was sent for
  that answer (`names` below says which view fields each event's own fields name), and
  the values events carry (Health, Armor, barriers, hand and deck sizes, effect timers)
  are the view's.
"""

from __future__ import annotations

import random

import pytest
from demigod_kit import start, unit

from battlehall.engine import get_ruleset
from battlehall.engine.demigod.data import cards
from battlehall.engine.ruleset import random_answer
from rulesets import seats as seat_names

RS = get_ruleset("demigod")
INLINE = [{"name": "Thunder Maul", "type": "battle", "av": 5, "dv": 1, "push": 1, "draw": 1, "poison": 3,
           "effect": {"title": "Dazed", "stat": "dv", "value": -1, "turns": 2}},
          {"name": "Storm Call", "type": "spell", "av": 3, "range": "perception", "area": 2, "push": 1, "disease": 2},
          {"name": "Counter", "type": "reaction", "dv": 1, "damage": 9}]


def flat(value, path="", out=None) -> dict:
    """Every leaf of a view by its dotted path (lists are leaves)."""
    out = {} if out is None else out
    if isinstance(value, dict) and value:
        for k, v in value.items():
            flat(v, f"{path}.{k}" if path else k, out)
    else:
        out[path] = value
    return out


def names(event: dict, viewer) -> set[str]:
    """The view fields an event names, from its own fields (prefixes of dotted paths)."""
    kind, d = event["kind"], event["data"]
    seat = d.get("seat")
    hand = {f"hand_counts.{seat}"} | ({"hand"} if seat == viewer else set())
    u = f"units.{d.get('unit')}"
    if kind == "turn_started":
        return {"turn"} | {f"units.{r}.{k}" for r in d["ready"] for k in ("moved", "attacked")}
    if kind == "turn_ended":
        return {f"units.{t['unit']}.effects" for t in d["timers"]}
    if kind == "drew":
        return hand | {f"deck_counts.{seat}"}
    if kind == "hands":
        return {"hand_counts"} | ({"hand"} if viewer is not None else set())
    if kind == "declared":
        return hand | {f"{u}.attacked", "attack"} | ({f"discard.{seat}"} if d["discarded"] else set())
    if kind == "targeted":
        return {"attack"}
    if kind == "defence":
        return {"attack"} | (hand | {f"discard.{seat}"} if "card" in d else set())
    if kind in ("attack_resolved", "attack_failed"):
        return {"attack", f"discard.{seat}"}
    if kind == "moved":
        return {f"{u}.pos"} | (set() if "by" in d else {f"{u}.moved"})
    if kind == "pushed":
        return {f"{u}.pos"}
    if kind in ("attack_result", "damage"):
        return {f"{u}.hp", f"{u}.ap", f"{u}.barrier"} if "taken" in d else set()
    if kind == "barrier":
        return {f"{u}.barrier"}
    if kind in ("effect", "effect_ended"):
        return {f"{u}.effects"}
    if kind == "ticks":
        return {f"{u}.{d['kind']}"}
    if kind == "defeated":
        return {u}
    if kind == "side_out":
        return hand | {"out", f"discard.{seat}"}
    if kind == "seat_resigned":
        return {"resigned"}
    if kind == "match_ended":
        return {"result"}
    return set()  # prompt, prompt_closed, match_started name nothing that changes


def covered(path: str, named: set[str]) -> bool:
    return any(path == n or path.startswith(n + ".") for n in named)


def check_about(state: dict, described: dict, value) -> None:
    key = f"{value[0]},{value[1]}" if isinstance(value, list) else value
    about = described[key]
    assert about["text"], about
    if "square" in about:
        assert about["square"] == value
        if about["unit"] is not None:
            assert state["units"][about["unit"]]["pos"] == value and state["units"][about["unit"]]["name"] in about["text"]
    elif "card" in about:
        assert state["cards"][value] == about["name"] and about["name"] in about["text"]
    else:
        u = state["units"][value]
        assert (about["unit"], about["name"], about["side"], about["pos"]) == (value, u["name"], u["side"], u["pos"])


def check_prompts(state: dict) -> None:
    for p in state["prompts"]:
        for o in p["options"]:
            for values in (o.get("args") or {}).values():
                for v in values:
                    check_about(state, o["about"], v)
            if p["kind"] == "defend":
                pending = state["pending"]
                a = o["attack"]
                assert a["attacker"]["unit"] == pending["attacker"] and a["card"]["card"] == pending["card"]
                assert a["square"]["square"] == pending["square"]
                assert a["defender"]["unit"] == pending["targets"][len(pending["defences"])]
                assert state["units"][a["defender"]["unit"]]["side"] == p["seat"]


def check_answer(before: dict, state: dict, events: list, viewer) -> None:
    seen = [RS.redact(e, viewer) for e in events]
    after = flat(RS.view(state, viewer))
    named: set[str] = set()
    for e in seen:
        named |= names(e, viewer)
    for path in sorted(set(before) | set(after)):
        if before.get(path, "absent") != after.get(path, "absent"):
            assert covered(path, named), (viewer, path, before.get(path), after.get(path), [e["kind"] for e in seen])
    # The values the events carry are the view's (the last event about each field).
    last: dict[str, object] = {}
    for e in seen:
        d = e["data"]
        if e["kind"] in ("attack_result", "damage") and "taken" in d:
            last.update({f"units.{d['unit']}.{k}": d[k] for k in ("hp", "ap", "barrier")})
        if e["kind"] == "barrier":
            last[f"units.{d['unit']}.barrier"] = d["total"]
        if e["kind"] == "ticks":
            last[f"units.{d['unit']}.{d['kind']}"] = d["total"]
        if e["kind"] == "drew":
            last.update({f"hand_counts.{d['seat']}": d["hand_count"], f"deck_counts.{d['seat']}": d["deck_count"]})
        if e["kind"] == "side_out":  # a fallen side's hand is discarded; one that resigned keeps it, unseen
            last.update({"out": d["out"]})
            if d["seat"] not in state.get("resigned", []):
                last[f"hand_counts.{d['seat']}"] = 0
        if e["kind"] == "turn_started":
            last.update({"turn.seat": d["seat"], "turn.round": d["round"]})
        if e["kind"] == "turn_ended":
            for t in d["timers"]:
                last[f"timer.{t['unit']}.{t['title']}"] = t["turns"]
    for path, value in last.items():
        if path.startswith("timer."):
            _, uid, title = path.split(".", 2)
            if f"units.{uid}.effects" in after:
                assert value in [e["turns"] for e in after[f"units.{uid}.effects"] if e["title"] == title], path
        elif path.split(".")[0] != "units" or ".".join(path.split(".")[:2]) + ".hp" in after:
            assert after[path] == value, (path, value, after[path])


def play(state: dict, rnd: random.Random, kinds: set[str]) -> None:
    viewers = state["seats"] + [None]
    for _ in range(5_000):
        if state["result"] is not None:
            return
        check_prompts(state)
        before = {v: flat(RS.view(state, v)) for v in viewers}
        prompt = rnd.choice(state["prompts"])
        playing = [s for s in state["seats"] if s not in state["out"]]
        if len(playing) > 2 and rnd.random() < 0.03:  # with three sides or more, some resign
            events = RS.resign(state, rnd.choice(playing))
        elif rnd.random() < 0.1:
            events = RS.expire(state, prompt["id"])
        else:
            option, args = random_answer(rnd, prompt)
            if prompt["kind"] == "turn" and option == "end" and len(prompt["options"]) > 1 and rnd.random() < 0.7:
                option, args = random_answer(rnd, {**prompt, "options": prompt["options"][:-1]})  # fight more
            events = RS.answer(state, prompt["seat"], prompt["id"], option, args)
        kinds.update(e["kind"] for e in events)
        for v in viewers:
            check_answer(before[v], state, events, v)
    raise AssertionError("the match did not end")


@pytest.mark.parametrize("n", [2, 3, 4])
def test_default_matches_events_name_every_change_of_the_view(n):
    kinds: set[str] = set()
    for seed in range(3):
        state, _ = RS.start(seat_names(n), seed, {"turn_limit": 6, "map": "open-field"}, None)
        play(state, random.Random(seed), kinds)
    assert {"declared", "attack_result", "attack_resolved", "moved", "drew", "turn_ended"} <= kinds
    if n > 2:
        assert "seat_resigned" in kinds


def test_whole_set_matches_events_name_every_change_of_the_view():
    """Every shipped card and the inline ones, close together: reactions, areas, pushes, effects."""
    kinds: set[str] = set()
    for seed in range(6):
        deck = sorted(cards()) * 2 + [c["name"] for c in INLINE] * 3
        random.Random(seed).shuffle(deck)
        units = [unit("alice.god", "alice", [1, 3], kind="demigod", hp=9, ap=2),
                 unit("alice.m", "alice", [2, 2], hp=10, ap=2, equipment=[{"name": "Spear", "slot": "weapon", "av": 1}]),
                 unit("bob.god", "bob", [4, 3], kind="demigod", hp=9, barrier=2),
                 unit("bob.m", "bob", [4, 4], hp=10, dr=1)]
        state, _ = start(units, size=(6, 6), cards=INLINE, options={"turn_limit": 12, "hand_limit": 9},
                         hands={"alice": deck[:6], "bob": deck[6:12]}, decks={"alice": deck[12::2], "bob": deck[13::2]})
        play(state, random.Random(seed), kinds)
    assert {"defence", "pushed", "ticks", "effect", "barrier", "attack_failed", "defeated", "side_out"} <= kinds


def test_options_name_their_characters_cards_and_squares_in_words():
    state, _ = start([unit("hero", "alice", [3, 3], name="Spearman", hp=10), unit("foe", "bob", [4, 3], name="Ghoul", hp=9)],
                     hands={"alice": ["Strike"], "bob": ["Parry", "Blink"]})
    turn = state["prompts"][0]
    attack = next(o for o in turn["options"] if o["id"] == "attack")
    strike = state["hands"]["alice"][0]
    assert attack["about"]["hero"] == {"unit": "hero", "name": "Spearman", "side": "alice", "kind": "minion",
                                       "pos": [3, 3], "text": "alice's Minion Spearman at [3, 3] (HP 10/10)"}
    assert attack["about"][strike] == {"card": strike, "name": "Strike", "type": "battle", "owner": "alice",
                                       "text": "Strike (battle: AV 4, DV 2, melee)"}
    assert attack["about"]["4,3"] == {"square": [4, 3], "unit": "foe", "text": "[4, 3]: bob's Minion Ghoul"}
    assert "Spearman" in turn["text"]
    RS.answer(state, "alice", turn["id"], "attack", {"unit": "hero", "card": strike, "target": [4, 3]})
    window = state["prompts"][0]
    assert window["text"] == ("alice's Minion Spearman at [3, 3] attacks your Ghoul at [4, 3] with "
                              "Strike (battle: AV 4, DV 2, melee): defend?")
    for o in window["options"]:
        assert o["attack"]["attacker"]["unit"] == "hero" and o["attack"]["card"]["name"] == "Strike"
        assert o["attack"]["defender"]["unit"] == "foe" and o["attack"]["square"]["square"] == [4, 3]
    blink = next(o for o in window["options"] if o["id"] == "react_move")
    assert blink["about"]["4,5"]["text"] == "[4, 5], empty"
    assert blink["about"][blink["args"]["card"][0]]["text"].startswith("Blink (reaction: DV 0, move 2)")


def test_the_round_stays_the_last_one_played_when_the_turn_limit_ends_the_match():
    """The view said round 2 of a 1-round match, a change no event named."""
    state, _ = start([unit("foe", "bob", [4, 3])], options={"turn_limit": 1})
    RS.answer(state, "alice", state["prompts"][0]["id"], "end", {})
    events = RS.answer(state, "bob", state["prompts"][0]["id"], "end", {})
    assert events[-1]["kind"] == "match_ended" and RS.view(state, None)["turn"] == {"seat": "bob", "round": 1}
