"""Explicit starting positions (`setup`) and options: valid ones start, bad ones name the field."""

from __future__ import annotations

import pytest
from spellfire_kit import S, ev, match  # noqa: F401  (pytest fixtures)

from battlehall.engine.errors import SetupError
from battlehall.engine.spellfire import Spellfire

GOOD = {
    "cards": [{"id": "test-knight", "name": "Test Knight", "type": "champion", "class": "hero", "level": 3,
               "world": "greyhawk"}],
    "players": {
        "alice": {"formation": {"A": {"realm": "emberhold", "holding": "lantern-watch"},
                                "B": {"realm": "thornvale", "razed": True}},
                  "pool": [{"champion": "torvald-ironhand", "attached": ["crown-of-embers", "cloak-of-dusk"]}],
                  "hand": ["flame-lance", "test-knight"], "draw": ["amberfield", "windfall"], "discard": ["earthrend"]},
        "bob": {"formation": {"A": {"realm": "ironbridge"}}, "hand": ["sudden-rout"]},
    },
    "turn": {"seat": "bob", "phase": "pool", "number": 4},
}


def start(setup, options=None):
    return Spellfire().start(["alice", "bob"], 1, options, setup)


def test_good_setup_starts_where_it_says():
    state, events = start(GOOD)
    assert [e["kind"] for e in events] == ["match_started", "turn_started", "phase", "prompt"]
    assert events[0]["data"]["setup"] is True
    assert state["turn"]["seat"] == "bob" and state["turn"]["number"] == 4 and state["turn"]["phase"] == "pool"
    assert state["prompts"][0]["kind"] == "play_pool"
    cards = state["cards"]
    alice = state["players"]["alice"]
    # instances are numbered seat by seat: formation, pool, hand, draw, discard
    assert [cards[f"c{i}"] for i in range(1, 6)] == ["emberhold", "lantern-watch", "thornvale", "torvald-ironhand",
                                                     "crown-of-embers"]
    assert alice["formation"]["A"] == {"realm": "c1", "razed": False, "holding": "c2"}
    assert alice["formation"]["B"]["razed"] is True
    assert [cards[i] for i in alice["hand"]] == ["flame-lance", "test-knight"]
    assert [cards[i] for i in alice["draw"]] == ["amberfield", "windfall"]  # top first, never shuffled
    assert state["custom_cards"]["test-knight"]["level"] == 3


@pytest.mark.parametrize("change,path", [
    (lambda s: s["players"]["bob"].update(hand=["sudden-rout", "no-such-card"]), "setup.players.bob.hand[1]"),
    (lambda s: s["players"]["bob"].update(hand="sudden-rout"), "setup.players.bob.hand"),
    (lambda s: s["players"]["bob"].update(deck=[]), "setup.players.bob.deck"),
    (lambda s: s["players"].update(carol={}), "setup.players.carol"),
    (lambda s: s.update(extra=1), "setup.extra"),
    (lambda s: s["players"]["bob"]["formation"].update(A={"realm": "flame-lance"}), "setup.players.bob.formation.A.realm"),
    (lambda s: s["players"]["bob"]["formation"].update(G={"realm": "amberfield"}), "setup.players.bob.formation.G"),
    (lambda s: s["players"]["bob"]["formation"].update(B={"holding": "bellkeep-tower"}), "setup.players.bob.formation.B.realm"),
    (lambda s: s["players"]["bob"]["formation"].update(B={"realm": "hollowmere", "razed": "yes"}),
     "setup.players.bob.formation.B.razed"),
    # Rule of the Cosmos across players
    (lambda s: s["players"]["bob"]["formation"].update(B={"realm": "thornvale"}), "setup.players.bob.formation.B.realm"),
    (lambda s: s["players"]["bob"].update(pool=[{"champion": "torvald-ironhand"}]), "setup.players.bob.pool[0].champion"),
    # holdings: the realm's world, never on a razed realm
    (lambda s: s["players"]["bob"]["formation"].update(A={"realm": "ironbridge", "holding": "crypt-of-whispers"}),
     "setup.players.bob.formation.A.holding"),
    (lambda s: s["players"]["alice"]["formation"]["B"].update(holding="gilded-exchange"),
     "setup.players.alice.formation.B.holding"),
    # artifacts: one per champion, of its world
    (lambda s: s["players"]["bob"].update(pool=[{"champion": "oskar-the-sly", "attached": ["shard-of-the-burning-sky"]}]),
     "setup.players.bob.pool[0].attached[0]"),
    (lambda s: s["players"]["bob"].update(pool=[{"champion": "oskar-the-sly",
                                                  "attached": ["codex-of-the-grey-tower", "orb-of-nine-winds"]}]),
     "setup.players.bob.pool[0].attached[1]"),
    (lambda s: s["players"]["bob"].update(pool=[{"champion": "oskar-the-sly", "attached": ["free-company"]}]),
     "setup.players.bob.pool[0].attached[0]"),
    (lambda s: s["turn"].update(seat="carol"), "setup.turn.seat"),
    (lambda s: s["turn"].update(phase="lunch"), "setup.turn.phase"),
    (lambda s: s["turn"].update(number=0), "setup.turn.number"),
    (lambda s: s["turn"].update(realm_played=1), "setup.turn.realm_played"),
    # inline cards are checked like card files
    (lambda s: s["cards"][0].update(level="high"), "setup.cards[0].level"),
    (lambda s: s["cards"][0].pop("class"), "setup.cards[0].class"),
    (lambda s: s["cards"][0].update(powers=["teleport"]), "setup.cards[0].powers[0]"),
    (lambda s: s["cards"][0].update(id="emberhold"), "setup.cards[0].id"),
    (lambda s: s["cards"].append(dict(s["cards"][0])), "setup.cards[1].id"),
])
def test_bad_setup_names_the_field(change, path):
    import copy
    setup = copy.deepcopy(GOOD)
    change(setup)
    with pytest.raises(SetupError) as e:
        start(setup)
    assert e.value.path == path, e.value.message


@pytest.mark.parametrize("options,path", [
    ({"turn_limit": 0}, "options.turn_limit"),
    ({"turn_limit": True}, "options.turn_limit"),
    ({"hand_limit": "8"}, "options.hand_limit"),
    ({"same_world_bonus": 1}, "options.same_world_bonus"),
    ({"exhaustion": "maybe"}, "options.exhaustion"),
    ({"decks": ["embers"]}, "options.decks"),
    ({"decks": ["embers", "nope"]}, "options.decks[1]"),
    ({"colour": "red"}, "options.colour"),
])
def test_bad_options(options, path):
    with pytest.raises(SetupError) as e:
        Spellfire().start(["alice", "bob"], 1, options)
    assert e.value.path == path


def test_seats():
    with pytest.raises(SetupError) as e:
        Spellfire().start(["alice"], 1)
    assert e.value.path == "seats"
    with pytest.raises(SetupError):
        Spellfire().start(["alice", "alice"], 1)


def test_missing_seat_starts_empty():
    state, _ = start({"players": {"alice": {"hand": ["thornvale"]}}})
    assert state["players"]["bob"]["hand"] == [] and state["turn"]["seat"] == "alice"


def test_inline_cards_play(match, S, ev):
    card = {"id": "giant-slug", "name": "Giant Slug", "type": "champion", "class": "monster", "level": 12,
            "world": "add", "powers": ["flyer"], "text": "Slow, but it gets there."}
    m = match(alice=S(pool=["giant-slug"]), bob=S(formation={"A": "ironbridge", "B": "hollowmere"}),
              turn={"seat": "alice", "phase": "attack"}, cards=[card])
    assert m.option_ids() == ["ironbridge", "hollowmere", "end"]
    # Defined once (the welcome's and the replay's `definitions`), never in a view, which names it by id.
    assert m.rs.definitions(m.state)["custom_cards"][0]["id"] == "giant-slug"
    view = m.rs.view(m.state, None)
    assert "custom_cards" not in view and view["players"]["alice"]["pool"][0]["def"] == "giant-slug"
