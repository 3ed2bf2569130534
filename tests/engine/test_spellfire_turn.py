"""The turn: the default start, phases 1-5, the Rule of the Cosmos, victory and the limits."""

from __future__ import annotations

import msgpack
from spellfire_kit import S, ev, match  # noqa: F401  (pytest fixtures)

from battlehall.engine import get_ruleset
from battlehall.engine.spellfire import Spellfire
from battlehall.engine.spellfire.cards import UNIQUE, shipped

# -- the default start ----------------------------------------------------------------------

def test_default_start():
    state, events = Spellfire().start(["alice", "bob"], seed=7)
    alice, bob = state["players"]["alice"], state["players"]["bob"]
    assert len(state["cards"]) == 110
    assert len(bob["hand"]) == 5 and len(bob["draw"]) == 50
    assert len(alice["hand"]) == 8 and len(alice["draw"]) == 47  # alice's first turn drew 3
    assert [e["kind"] for e in events] == ["match_started", "cards_drawn", "cards_drawn", "turn_started", "phase",
                                           "cards_drawn", "phase", "prompt"]
    assert events[0]["data"]["decks"] == {"alice": "embers", "bob": "shadows"}
    assert state["prompts"][0]["kind"] == "play_realm" and state["prompts"][0]["seat"] == "alice"
    assert msgpack.unpackb(msgpack.packb(state)) == state


def test_default_start_is_deterministic_and_seeded():
    a, ea = Spellfire().start(["alice", "bob"], seed=7)
    b, eb = Spellfire().start(["alice", "bob"], seed=7)
    c, _ = Spellfire().start(["alice", "bob"], seed=8)
    assert a == b and msgpack.packb(ea) == msgpack.packb(eb)
    assert a["players"]["alice"]["draw"] != c["players"]["alice"]["draw"]


def test_default_decks_do_not_collide():
    catalog = shipped()
    embers, shadows = catalog.decks["embers"]["cards"], catalog.decks["shadows"]["cards"]
    assert len(embers) == len(shadows) == 55
    for deck in (embers, shadows):
        unique = [c for c in deck if catalog.cards[c]["type"] in UNIQUE]
        assert len(unique) == len(set(unique))  # one copy of each in a deck
    shared = {c for c in embers if catalog.cards[c]["type"] in UNIQUE} & set(shadows)
    assert not shared


def test_decks_option(match):
    state, events = Spellfire().start(["alice", "bob"], seed=1, options={"decks": ["shadows", "embers"]})
    assert events[0]["data"]["decks"] == {"alice": "shadows", "bob": "embers"}


def test_registry_gives_spellfire():
    assert isinstance(get_ruleset("spellfire"), Spellfire)
    described = get_ruleset("spellfire").describe()
    assert set(described["options"]) >= {"turn_limit", "hand_limit", "same_world_bonus", "exhaustion"}
    sets = {s["id"]: s for s in described["card_sets"]}
    assert list(sets) == ["deepvault", "outcomes", "starter"]  # one set per card file, files in sorted order
    assert [d["id"] for d in sets["starter"]["decks"]] == ["embers", "shadows", "tides", "sands", "crowns", "barrows",
                                                           "tempests", "hollows"]
    assert [d["id"] for d in sets["deepvault"]["decks"]] == ["deepvault"]
    assert [d["id"] for d in sets["outcomes"]["decks"]] == ["omens"]
    assert described["seats"] == {"min": 2, "max": 6}


# -- phase 1 ------------------------------------------------------------------------------

def test_phase_1_draws_three_privately(match, S, ev):
    m = match(alice=S(draw=["thornvale", "amberfield", "flame-lance", "windfall"]))
    drawn = ev.find(m.events, "cards_drawn")
    assert drawn == [{"seat": "alice", "count": 3, "wanted": 3, "reason": "turn", "draw_size": 1,
                      "owner": "alice", "from": "draw", "zone": "hand"}]
    event = [e for e in m.events if e["kind"] == "cards_drawn"][0]
    assert [c["def"] for c in event["private"]["alice"]["cards"]] == ["thornvale", "amberfield", "flame-lance"]
    assert m.rs.redact(event, "bob") == {"kind": "cards_drawn", "data": drawn[0]}
    assert m.zone("alice", "hand") == ["thornvale", "amberfield", "flame-lance"]


def test_phase_1_empty_draw_pile_draws_what_there_is(match, S, ev):
    m = match(alice=S(draw=["thornvale"]))
    assert ev.find(m.events, "cards_drawn")[0]["count"] == 1


# -- phase 2 ------------------------------------------------------------------------------

REALM_PHASE = {"seat": "alice", "phase": "realm"}


def test_phase_2_realm_and_holding(match, S, ev):
    m = match(alice=S(hand=["thornvale", "amberfield", "lantern-watch", "bellkeep-tower", "wayfarers-rest"],
                      formation={"A": "emberhold"}), turn=REALM_PHASE)
    assert m.prompt["kind"] == "play_realm" and m.prompt["default"] == "done"
    assert m.option("thornvale")["args"] == {"slot": ["B"]}
    assert m.option("lantern-watch")["args"] == {"slot": ["A"]}      # Realms on Realms
    assert m.option("wayfarers-rest")["args"] == {"slot": ["A"]}     # generic AD&D fits any realm
    assert "bellkeep-tower" not in m.option_ids()                   # Greyhawk holding, Realms realm
    events = m.answer("thornvale", slot="B")
    assert ev.find(events, "realm_played")[0]["slot"] == "B"
    assert m.option_ids() == ["lantern-watch", "wayfarers-rest", "done"]  # one realm a turn
    assert m.option("lantern-watch")["args"] == {"slot": ["A", "B"]}
    m.answer("lantern-watch", slot="B")
    assert m.slot("alice", "B") == {"realm": "thornvale", "razed": False, "holding": "lantern-watch"}
    assert m.prompt["kind"] == "play_pool"  # both played: phase 3


def test_phase_2_realm_over_a_razed_one(match, S, ev):
    m = match(alice=S(hand=["thornvale"], formation={"A": {"realm": "emberhold", "razed": True}}), turn=REALM_PHASE)
    assert m.option("thornvale")["args"] == {"slot": ["A", "B"]}
    events = m.answer("thornvale", slot="A")
    assert ev.find(events, "cards_discarded")[0]["reason"] == "replaced"
    assert m.zone("alice", "discard") == ["emberhold"]
    assert m.slot("alice", "A") == {"realm": "thornvale", "razed": False, "holding": None}


def test_phase_2_full_formation_takes_no_realm(match, S):
    six = dict(zip("ABCDEF", ["emberhold", "thornvale", "amberfield", "brassvault", "rivenmoor", "rivenmoor"]))
    six["F"] = "skyreach-aerie"
    m = match(alice=S(hand=["coldwater-sound"], formation=six), turn=REALM_PHASE)
    assert m.option_ids() == ["done"]


def test_phase_2_rule_of_the_cosmos(match, S):
    m = match(alice=S(hand=["ironbridge", "hollowmere", "thornvale"]),
              bob=S(formation={"A": {"realm": "ironbridge", "razed": True}}, discard=["hollowmere"]),
              turn=REALM_PHASE)
    assert m.option_ids() == ["hollowmere", "thornvale", "done"]  # razed realms count; discards do not


# -- phase 3 ------------------------------------------------------------------------------

POOL_PHASE = {"seat": "alice", "phase": "pool"}


def test_phase_3_champions_items_artifacts(match, S, ev):
    m = match(alice=S(hand=["torvald-ironhand", "archmage-quillon", "cloak-of-dusk", "crown-of-embers",
                            "orb-of-nine-winds", "vexthra-the-red"],
                      formation={"A": "emberhold"}),
              bob=S(pool=["vexthra-the-red"]), turn=POOL_PHASE)
    assert m.option_ids() == ["torvald-ironhand", "archmage-quillon", "done"]  # no champion yet; Vexthra in play
    m.answer("torvald-ironhand")
    m.answer("archmage-quillon")
    torvald, quillon = m.iid("torvald-ironhand"), m.iid("archmage-quillon")
    assert m.option("cloak-of-dusk")["args"] == {"champion": [torvald, quillon]}
    assert m.option("crown-of-embers")["args"] == {"champion": [torvald]}  # the champion's world only
    assert m.option("orb-of-nine-winds")["args"] == {"champion": [torvald, quillon]}
    events = m.answer("crown-of-embers", champion=torvald)
    assert ev.find(events, "card_attached")[0]["champion"] == torvald
    assert ev.find(events, "card_attached")[0]["attached_to"] == {"card": torvald, "def": "torvald-ironhand"}
    assert m.option("orb-of-nine-winds")["args"] == {"champion": [quillon]}  # one artifact per champion
    m.answer("cloak-of-dusk", champion=torvald)
    assert m.attached("alice", "torvald-ironhand") == ["crown-of-embers", "cloak-of-dusk"]
    m.answer("done")
    assert m.prompt["kind"] == "choose_realm"


# -- phase 5 and the end of the turn ----------------------------------------------------------

def test_phase_5_discard_down_to_hand_limit(match, S, ev):
    hand = ["thornvale", "amberfield", "flame-lance", "windfall", "earthrend", "backstab", "mind-spike",
            "cloak-of-dusk", "wand-of-sparks", "free-company"]
    m = match(alice=S(hand=hand, formation={"A": "emberhold"}), turn={"seat": "alice", "phase": "attack"})
    m.answer("end")
    assert m.prompt["kind"] == "discard"
    assert m.prompt["default"] == m.prompt["options"][0]["id"]
    events = m.expire()
    assert ev.find(events, "cards_discarded")[0]["reason"] == "hand_limit"
    assert m.zone("alice", "discard") == ["thornvale"]
    m.answer("free-company")
    assert len(m.zone("alice", "hand")) == 8
    assert m.state["turn"]["seat"] == "bob"


def test_hand_limit_option(match, S):
    m = match(alice=S(hand=["thornvale", "amberfield"], formation={"A": "emberhold"}),
              turn={"seat": "alice", "phase": "discard"}, options={"hand_limit": 1})
    assert m.prompt["kind"] == "discard"


def test_no_unrazed_realm_loses_the_pool(match, S, ev):
    m = match(alice=S(pool=[("torvald-ironhand", ["cloak-of-dusk"])],
                      formation={"A": {"realm": "emberhold", "razed": True}}),
              turn={"seat": "alice", "phase": "attack"})
    events = m.answer("end")
    lost = [d for d in ev.find(events, "cards_discarded") if d["reason"] == "no_realms"][0]
    assert [c["def"] for c in lost["cards"]] == ["torvald-ironhand", "cloak-of-dusk"]
    assert m.player("alice")["pool"] == []


def test_pool_kept_with_an_unrazed_realm(match, S):
    m = match(alice=S(pool=["torvald-ironhand"], formation={"A": "emberhold"}), turn={"seat": "alice", "phase": "attack"})
    m.answer("end")
    assert m.zone("alice", "pool") == ["torvald-ironhand"]


def test_victory_six_unrazed_realms_at_end_of_turn(match, S, ev):
    five = dict(zip("ABCDE", ["emberhold", "thornvale", "amberfield", "brassvault", "rivenmoor"]))
    m = match(alice=S(hand=["skyreach-aerie"], formation=five), bob=S(formation={"A": "ironbridge"}),
              turn=REALM_PHASE)
    m.answer("skyreach-aerie", slot="F")
    assert m.state["result"] is None  # not before the end of the turn
    m.answer("done")  # phase 2
    m.answer("done")  # phase 3
    events = m.answer("end")
    assert ev.kinds(events)[-1] == "match_ended"
    assert m.state["result"] == {"winners": ["alice"], "ranking": [["alice"], ["bob"]], "draw": False,
                                "reason": "realms", "winner": "alice", "realms": {"alice": 6, "bob": 1}}
    assert m.state["prompts"] == []


def test_victory_needs_unrazed_realms(match, S):
    six = {s: r for s, r in zip("ABCDEF", ["emberhold", "thornvale", "amberfield", "brassvault", "rivenmoor",
                                           "skyreach-aerie"])}
    six["C"] = {"realm": "amberfield", "razed": True}
    m = match(alice=S(formation=six), turn={"seat": "alice", "phase": "attack"})
    m.answer("end")
    assert m.state["result"] is None


def test_turn_limit_scores_by_realms(match, S):
    m = match(alice=S(formation={"A": "emberhold"}), bob=S(formation={"A": "ironbridge", "B": "hollowmere"}),
              turn={"seat": "alice", "phase": "attack", "number": 10}, options={"turn_limit": 10})
    m.answer("end")
    assert m.state["result"] == {"winners": ["bob"], "ranking": [["bob"], ["alice"]], "draw": False,
                                "reason": "turn_limit", "winner": "bob", "realms": {"alice": 1, "bob": 2}}


def test_turn_limit_draw(match, S):
    m = match(turn={"seat": "alice", "phase": "attack", "number": 3}, options={"turn_limit": 3})
    m.answer("end")
    assert m.state["result"] == {"winners": [], "ranking": [["alice", "bob"]], "draw": True,
                                "reason": "turn_limit", "winner": None, "realms": {"alice": 0, "bob": 0}}


def test_exhaustion_ends_the_match(match, S):
    m = match(alice=S(formation={"A": "emberhold"}), turn={"seat": "alice", "phase": "attack"},
              options={"exhaustion": "end"})
    m.answer("end")
    assert m.state["result"] == {"winners": ["alice"], "ranking": [["alice"], ["bob"]], "draw": False,
                                "reason": "exhausted", "winner": "alice", "realms": {"alice": 1, "bob": 0}}


def test_exhaustion_continue_plays_on(match, S, ev):
    m = match(alice=S(formation={"A": "emberhold"}), turn={"seat": "alice", "phase": "attack"})
    events = m.answer("end")
    assert m.state["result"] is None
    assert ev.find(events, "cards_drawn") == [{"seat": "bob", "count": 0, "wanted": 3, "reason": "turn",
                                               "draw_size": 0, "owner": "bob", "from": "draw", "zone": "hand"}]


def test_phase_prompts_open_even_with_nothing_to_play(match, S):
    m = match(turn=REALM_PHASE)
    assert m.prompt["kind"] == "play_realm" and m.option_ids() == ["done"]
    m.answer("done")
    assert m.prompt["kind"] == "play_pool" and m.option_ids() == ["done"]
    m.answer("done")
    assert m.prompt["kind"] == "choose_realm" and m.option_ids() == ["end"]
