"""Explicit positions for the hourglass tests: a battle in progress on one tile, plain
attributes, and Battlecards that change only what a test says."""

from __future__ import annotations

from battlehall.engine import get_ruleset

RS = get_ruleset("hourglass")

PLAIN = {"health": 5, "defense": 0, "dodge": 4, "damage": 3, "precision": 4, "delay": 2}
CARDS = [{"id": "plain"}, {"id": "plain-b"}, {"id": "plain-c"}]


def position(knights=None, attributes=None, hands=None, top=None, bottom=None, cards=(), seats=("alice", "bob"),
             bandits=0, discards=None, **more) -> dict:
    """A setup with one battle on "ford" in progress: alice to attack (no cube on top)."""
    knights = knights or {s: 1 for s in seats}
    sides = [s for s in seats if s in knights] + (["bandits"] if bandits else [])
    battle = {"tile": "ford", "knights": knights, "bandits": bandits,
              "top": top or {s: (0 if s == seats[0] else 3) for s in sides},
              "bottom": bottom or {s: 0 for s in sides}}
    battle.update(more.pop("battle", {}))
    attrs = {s: dict(PLAIN) for s in list(seats) + ["bandits"]}
    for side, change in (attributes or {}).items():
        attrs[side].update(change)
    setup = {"battles": [battle], "current": "ford", "attributes": attrs, "cards": CARDS + list(cards),
             "hands": hands or {s: ["plain", "plain-b", "plain-c"] for s in seats},
             "bandit_deck": more.pop("bandit_deck", ["plain"])}
    if discards:
        setup["discards"] = discards
    setup.update(more)
    return setup


def start(setup, seats=("alice", "bob"), seed=1, options=None):
    return RS.start(list(seats), seed, options, setup)


def prompt_of(state, seat, kind=None):
    found = [p for p in state["prompts"] if p["seat"] == seat and (kind is None or p["kind"] == kind)]
    assert len(found) == 1, state["prompts"]
    return found[0]


def act(state, seat, option, kind=None, **args):
    prompt = prompt_of(state, seat, kind)
    return RS.answer(state, seat, prompt["id"], option, args)


def card_of(state, seat, kind):
    """The first instance of card `kind` in `seat`'s hand."""
    return next(c for c in state["hands"][seat] if state["cards"][c] == kind)


def play_turn(state, targets, defends, attack_card="plain", discard="plain-b"):
    """A whole player Battle Turn: the Attacker's targets, each Defender's card, then the
    Attacker's face-up card and discard. Returns the events of all of it."""
    attacker = state["turn"]["attacker"]
    events = act(state, attacker, "assign", "targets", **targets)
    for seat, kind in defends.items():
        events += act(state, seat, "place", "defend", card=card_of(state, seat, kind))
    args = {"card": card_of(state, attacker, attack_card)}
    if discard is not None:
        args["discard"] = card_of(state, attacker, discard)
    events += act(state, attacker, "place", "attack_card", **args)
    return events


def kinds(events, kind):
    return [e["data"] for e in events if e["kind"] == kind]
