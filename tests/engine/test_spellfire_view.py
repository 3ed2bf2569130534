"""What each viewer sees: own hand, sizes of the others, never a draw pile's order or the rng."""

from __future__ import annotations

from spellfire_kit import S, match  # noqa: F401  (pytest fixtures)

from battlehall.engine.spellfire import Spellfire


def test_view_of_a_seat_and_of_a_spectator():
    rs = Spellfire()
    state, _ = rs.start(["alice", "bob"], seed=3)
    alice = rs.view(state, "alice")
    assert [c["card"] for c in alice["players"]["alice"]["hand"]] == state["players"]["alice"]["hand"]
    assert alice["players"]["bob"]["hand"] is None and alice["players"]["bob"]["hand_size"] == 5
    assert alice["players"]["alice"]["draw_size"] == 47 and "draw" not in alice["players"]["alice"]
    assert "rng" not in alice and "cards" not in alice
    spectator = rs.view(state, None)
    assert spectator["players"]["alice"]["hand"] is None and spectator["players"]["bob"]["hand"] is None
    assert spectator["turn"]["seat"] == "alice" and spectator["turn"]["phase"] == "realm"
    assert spectator["battle"] is None and spectator["result"] is None


def test_view_shows_formation_pool_discard_and_battle(match, S):
    m = match(alice=S(pool=[("torvald-ironhand", ["cloak-of-dusk"])], discard=["windfall"], hand=["flame-lance"]),
              bob=S(formation={"A": {"realm": "ironbridge", "holding": "bellkeep-tower"}}, pool=["oskar-the-sly"],
                    hand=["sudden-rout"]),
              turn={"seat": "alice", "phase": "attack"})
    m.answer("ironbridge")
    m.answer("torvald-ironhand")
    view = m.rs.view(m.state, "bob")
    assert view["players"]["bob"]["formation"]["A"]["def"] == "ironbridge"
    assert view["players"]["bob"]["formation"]["A"]["holding"]["def"] == "bellkeep-tower"
    assert view["players"]["bob"]["formation"]["B"] is None
    assert view["players"]["bob"]["pool"][0]["def"] == "oskar-the-sly"
    assert view["players"]["alice"]["discard"][0]["def"] == "windfall"
    assert view["players"]["alice"]["hand"] is None and view["players"]["alice"]["hand_size"] == 1
    battle = view["battle"]
    assert battle["step"] == "defender" and battle["def"] == "ironbridge"
    attacker = battle["sides"]["attacker"]
    assert attacker["def"] == "torvald-ironhand" and attacker["attached"][0]["def"] == "cloak-of-dusk"
    assert attacker["total"] == 8 and battle["sides"]["defender"] is None


def test_prompt_options_are_private(match, S):
    m = match(alice=S(hand=["thornvale"]), turn={"seat": "alice", "phase": "realm"})
    event = [e for e in m.events if e["kind"] == "prompt"][0]
    assert m.rs.redact(event, "bob")["data"] == {"id": event["data"]["id"], "seat": "alice", "kind": "play_realm"}
    assert m.rs.redact(event, "alice")["data"]["options"][0]["id"] == m.iid("thornvale")


def test_response_window_does_not_depend_on_the_hand(match, S):
    """The window opens (same kind, same public fields) whether or not bob could respond."""
    def window(bob_hand):
        m = match(alice=S(pool=["torvald-ironhand"], hand=["hillfolk-skirmishers"]),
                  bob=S(formation={"A": "ironbridge"}, pool=["grey-warden-tamsin"], hand=bob_hand),
                  turn={"seat": "alice", "phase": "attack"})
        m.answer("ironbridge")
        m.answer("torvald-ironhand")
        m.answer("grey-warden-tamsin")
        events = m.answer("hillfolk-skirmishers")
        return [m.rs.redact(e, "alice") for e in events], m.option_ids()
    seen_a, options_a = window(["sudden-rout"])
    seen_b, options_b = window(["free-company"])
    assert seen_a == seen_b
    assert options_a == ["sudden-rout", "pass"] and options_b == ["pass"]
