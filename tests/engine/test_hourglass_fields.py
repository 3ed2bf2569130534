"""What client authors rely on in hourglass: options say what they are about, and the
events alone say everything that changes in a viewer's view.

Random matches (two to four seats, with and without Bandits and Alliances, the default
decks) are played one answer at a time (a tenth of them timeouts); after each answer, for
every seat and for a spectator:

- every option of every open prompt has `about`, describing each argument name and
  value: a Knight by id, name, owner, tile, wounds and health as they are now; a card by
  instance, kind, name and owner (the prompt's seat, holding it); a tile by its sides; a
  seat; and the prompt's and options' texts never show an id (`#` or `@`);
- a `defend` option names, in `targeted`, exactly the seat's Knights the turn targets,
  each with the Knights targeting it;
- every field of the viewer's view that changed is named by some event the viewer was
  sent for that answer (or resign: with three seats or more, seats resign at random
  moments) (`names` below says which view fields each event names), and the
  values events carry (cubes, wounds, sizes, turns, the resolver) are the view's.
"""

from __future__ import annotations

import random

import pytest

from battlehall.engine import get_ruleset
from battlehall.engine.ruleset import default_answer, random_answer
from rulesets import seats as seat_names

RS = get_ruleset("hourglass")


def flat(value, path="", out=None) -> dict:
    """Every leaf of a view by its dotted path; battles are keyed by tile (lists are leaves)."""
    out = {} if out is None else out
    if path == "battles":
        value = {b["tile"]: b for b in value}
    if isinstance(value, dict) and value:
        for k, v in value.items():
            flat(v, f"{path}.{k}" if path else k, out)
    else:
        out[path] = value
    return out


def names(event: dict, viewer) -> set[str]:
    """The view fields an event names, from its own fields (prefixes of dotted paths)."""
    kind, d = event["kind"], event["data"]
    battle = f"battles.{d.get('tile')}"
    board = {f"{battle}.top", f"{battle}.bottom"}

    def cards(seat, discards=False):
        own = {"my_hand"} | ({"my_discards"} if discards else set())
        return {f"hands.{seat}"} | ({f"discards.{seat}"} if discards else set()) | (own if seat == viewer else set())

    if kind == "battle_started":
        return {"current", f"{battle}.started"}
    if kind == "alliance_answered":
        return {"my_offer"} if d["seat"] == viewer else set()
    if kind == "alliances_formed":
        return {f"{battle}.alliances", "my_offer"}
    if kind in ("cubes_placed", "hourglass_turned", "side_left"):
        return board
    if kind == "battle_turn":
        return {"turn", f"{battle}.turns"}
    if kind == "targets_assigned":
        return {"turn.targets", "turn.defenders"}
    if kind == "discards_drawn":
        return cards(d["seat"], discards=True)
    if kind == "card_placed":
        return {"turn.placed"} | ({"bandit_deck"} if d["side"] == "bandits" else cards(d["side"]))
    if kind == "card_discarded":
        return cards(d["side"], discards=True)
    if kind in ("no_card", "cards_revealed"):
        return {"turn.placed"}
    if kind in ("wounds_changed", "attack", "knight_returned"):
        return {f"{battle}.knights"}
    if kind == "turn_ended":
        mine = {"my_discards"} if viewer in d["discards"] else set()
        return {"turn", "bandit_deck"} | board | {f"discards.{s}" for s in d["discards"]} | mine
    if kind == "battle_ended":
        return {battle, "current", "turn"}
    if kind == "player_turn_ended":
        return {"resolver"}
    if kind == "seat_resigned":  # an Alliance it had offered is withdrawn with it
        return {"resigned"} | ({"my_offer"} if d["seat"] == viewer else set())
    if kind == "knights_withdrawn":
        return {f"{battle}.knights"}
    if kind == "turn_called_off":
        mine = {"my_discards"} if viewer in d["discards"] else set()
        return {"turn", "bandit_deck"} | {f"discards.{s}" for s in d["discards"]} | mine
    if kind == "defender_left":
        return {"turn.targets", "turn.defenders", "turn.placed", f"discards.{d['side']}"} | (
            {"my_discards"} if d["side"] == viewer else set())
    if kind == "match_ended":
        return {"result"}
    return set()  # prompt, prompt_closed: nothing of the view


def covered(path: str, named: set[str]) -> bool:
    return any(path == n or path.startswith(n + ".") for n in named)


def carried(events: list[dict]) -> dict:
    """The view values the events say, the last word on each path winning."""
    said: dict = {}
    for e in events:
        kind, d = e["kind"], e["data"]
        battle = f"battles.{d.get('tile')}"
        if kind in ("cubes_placed", "hourglass_turned", "turn_ended"):
            said[f"{battle}.top"], said[f"{battle}.bottom"] = d["top"], d["bottom"]
        if kind == "wounds_changed":
            said[f"{battle}.knight.{d['knight']}"] = d["wounds"]
        if kind == "attack" and d["outcome"] != "gone":
            said[f"{battle}.knight.{d['target']}"] = d["wounds"]
        if kind == "knight_returned":
            said.pop(f"{battle}.knight.{d['knight']}", None)
        if kind == "battle_turn":
            said[f"{battle}.turns"], said["turn.attacker"] = d["turn"], d["attacker"]
        if kind == "targets_assigned":
            said["turn.targets"], said["turn.defenders"] = d["targets"], d["defenders"]
        if kind == "discards_drawn":
            said[f"hands.{d['seat']}"], said[f"discards.{d['seat']}"] = d["cards"], 0
        if kind in ("card_placed", "card_discarded"):
            if "hand" in d:
                said[f"hands.{d['side']}"] = d["hand"]
            if "discards" in d:
                said[f"discards.{d['side']}"] = d["discards"]
            if "bandit_deck" in d:
                said["bandit_deck"] = d["bandit_deck"]
        if kind == "turn_ended":
            said = {k: v for k, v in said.items() if not k.startswith("turn.")}
            said["bandit_deck"] = d["bandit_deck"]
            said.update({f"discards.{s}": n for s, n in d["discards"].items()})
        if kind == "battle_ended":  # the board is emptied and every Wound discarded
            said = {k: v for k, v in said.items() if not k.startswith((battle + ".", "turn."))}
        if kind == "player_turn_ended":
            said["resolver"] = d["resolver"]
        if kind == "turn_called_off":
            said = {k: v for k, v in said.items() if not k.startswith("turn.")}
            said["bandit_deck"] = d["bandit_deck"]
            said.update({f"discards.{s}": n for s, n in d["discards"].items()})
        if kind == "defender_left":
            said["turn.targets"], said["turn.defenders"] = d["targets"], d["defenders"]
            said[f"discards.{d['side']}"] = d["discards"]
    return said


def value_of(view: dict, path: str):
    if path.startswith("battles."):
        _, tile, rest = path.split(".", 2)
        b = next(b for b in view["battles"] if b["tile"] == tile)
        if rest.startswith("knight."):
            return next(k["wounds"] for k in b["knights"] if k["id"] == rest[len("knight."):])
        return b[rest]
    value = view
    for part in path.split("."):
        value = value[part]
    return value


def check_answer(before: dict, state: dict, events: list, viewer) -> None:
    seen = [RS.redact(e, viewer) for e in events]
    view = RS.view(state, viewer)
    after = flat(view)
    named: set[str] = set()
    for e in seen:
        named |= names(e, viewer)
    for path in sorted(set(before) | set(after)):
        if before.get(path, "absent") != after.get(path, "absent"):
            assert covered(path, named), (viewer, path, before.get(path), after.get(path), [e["kind"] for e in seen])
    for path, value in carried(seen).items():
        assert value_of(view, path) == value, (viewer, path, value, [e["kind"] for e in seen])


def check_about(state: dict, seat: str, told: dict, value) -> None:
    """One description of an argument name or value, checked against the state."""
    assert isinstance(told.get("text"), str) and told["text"] and "#" not in told["text"] and "@" not in told["text"]
    if value == "none":
        assert told["knight"] is None
    elif "@" in value:
        tile = value.rsplit("@", 1)[1]
        b = next(b for b in state["battles"] if b["tile"] == tile)
        k = next(k for k in b["knights"] if k["id"] == value)
        health = state["attributes"][k["owner"]]["health"]
        number = value.rsplit("@", 1)[0].rsplit("-", 1)[1]
        assert told == {"knight": value, "name": f"{'Bandit' if k['owner'] == 'bandits' else 'Knight'} {number}",
                        "owner": k["owner"], "tile": tile, "wounds": k["wounds"], "health": health,
                        "text": told["text"]}
        assert f"{k['wounds']} of {health} wounds" in told["text"]
    elif "#" in value:
        kind = state["cards"][value]
        assert value in state["hands"][seat]
        assert told == {"card": value, "kind": kind, "name": state["kinds"][kind]["name"], "owner": seat,
                        "text": told["text"]} and told["text"].startswith(told["name"])
    elif value in state["seats"]:
        assert told["seat"] == value
    else:
        b = next(b for b in state["battles"] if b["tile"] == value)
        assert told["tile"] == value and told["sides"] == list(dict.fromkeys(k["owner"] for k in b["knights"]))


def check_prompts(state: dict) -> None:
    for p in state["prompts"]:
        assert "#" not in p["text"] and "@" not in p["text"], p["text"]
        for o in p["options"]:
            assert "#" not in o["text"] and "@" not in o["text"], o["text"]
            about = o["about"]
            strings = [v for name, values in (o.get("args") or {}).items() for v in [name, *values]
                       if "@" in v or "#" in v or v == "none" or name in ("tile", "with") and v != name]
            assert sorted(set(strings)) == sorted(about), (p["kind"], strings, about)
            for value, told in about.items():
                check_about(state, p["seat"], told, value)
            if p["kind"] == "defend":
                targets = state["turn"]["targets"]
                wanted = {t: sorted(a for a, x in targets.items() if x == t) for t in targets.values()
                          if t.startswith(p["seat"] + "-")}
                assert {t["knight"]["knight"]: sorted(a["knight"] for a in t["by"]) for t in o["targeted"]} == wanted
                assert o["attacker"] == state["turn"]["attacker"]


@pytest.mark.parametrize("n", [2, 3, 4])
def test_events_name_every_change_of_the_view(n):
    seats = seat_names(n)
    kinds: set[str] = set()
    for seed in range(8):
        rnd = random.Random(seed)
        options = {"bandits": seed % 3, "alliances": seed % 2 == 0, "battle_turn_limit": 12}
        state, _ = RS.start(seats, seed, options)
        viewers = seats + [None]
        for _ in range(5_000):
            if state["result"] is not None:
                break
            check_prompts(state)
            before = {v: flat(RS.view(state, v)) for v in viewers}
            prompt = rnd.choice(state["prompts"])
            playing = [s for s in seats if s not in state.get("resigned", [])]
            if n > 2 and len(playing) > 2 and rnd.random() < 0.02:
                events = RS.resign(state, rnd.choice(playing))
            elif rnd.random() < 0.1:
                events = RS.expire(state, prompt["id"])
            else:
                option, args = random_answer(rnd, prompt)
                events = RS.answer(state, prompt["seat"], prompt["id"], option, args)
            kinds |= {e["kind"] for e in events}
            for v in viewers:
                check_answer(before[v], state, events, v)
        assert state["result"] is not None
    # random play went through the events that matter most
    assert {"alliance_answered", "alliances_formed", "hourglass_turned", "card_discarded", "attack",
            "knight_returned", "discards_drawn", "battle_ended", "player_turn_ended"} <= kinds
    if n > 2:
        assert {"seat_resigned", "knights_withdrawn", "turn_called_off", "defender_left"} <= kinds


def test_default_answers_are_described_too():
    """The value a timeout applies is one the option describes."""
    state, _ = RS.start(seat_names(3), 5, {"bandits": 1})
    for p in state["prompts"]:
        option, args = default_answer(p)
        about = next(o for o in p["options"] if o["id"] == option)["about"]
        assert all(v in about for v in args.values())
