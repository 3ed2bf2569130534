"""A spellfire match created inside a battle, over the real server: what the setup
triggered is in the match's log, and a plain `hello` shows it."""

from __future__ import annotations

import httpx

from battlehall.client import JSON
from wsutil import Raw

SETUP = {
    "players": {
        "alice": {"pool": [{"champion": "oskar-the-sly"}]},
        "bob": {"formation": {"A": {"realm": "bogmire-fells"}}, "pool": [{"champion": "grey-warden-tamsin"}],
                "hand": ["sudden-rout"]},
    },
    "turn": {"seat": "alice", "used": ["oskar-the-sly"]},
    "battle": {"realm": {"seat": "bob", "slot": "A"}, "defeats": 1,
               "attacker": {"champion": "torvald-ironhand", "attached": ["cloak-of-dusk"]},
               "defender": {"champion": "queen-ysolde", "from": "hand"}},
}
# step D: the realm, Torvald, his cloak and Queen Ysolde activate, in that order
TRIGGERED = ["match_started", "turn_started", "phase", "battle_started", "champion_chosen", "champion_chosen",
             "activated", "activated", "activated", "activated", "powers_activated", "prompt"]


async def test_a_plain_hello_shows_the_battle_the_setup_started(server):
    created = server.create(ruleset="spellfire", seed=3, setup=SETUP)
    alice = await Raw.open(server.url, created["match"], JSON)
    welcome = await alice.hello(created["tokens"]["alice"])
    assert welcome["t"] == "welcome" and welcome["seq"] == len(TRIGGERED)
    battle = welcome["view"]["battle"]
    assert battle["def"] == "bogmire-fells" and battle["round"] == 2 and battle["defeats"] == 1
    assert battle["sides"]["attacker"]["def"] == "torvald-ironhand" and battle["sides"]["defender"]["def"] == "queen-ysolde"
    assert [p["kind"] for p in welcome["prompts"]] == ["battle_play"]
    await alice.close()
    # The log holds what the setup triggered: a client that asks for the history gets it.
    bob = await Raw.open(server.url, created["match"], JSON)
    await bob.hello(created["tokens"]["bob"], resume=0)
    history = [await bob.recv() for _ in TRIGGERED]
    assert [m["kind"] for m in history] == TRIGGERED and [m["seq"] for m in history] == list(range(1, len(TRIGGERED) + 1))
    chosen = [m["data"] for m in history if m["kind"] == "champion_chosen"]
    assert [(c["side"], c["def"], c["from"]) for c in chosen] == [("attacker", "torvald-ironhand", "pool"),
                                                                   ("defender", "queen-ysolde", "hand")]
    await bob.close()


def test_a_bad_battle_is_a_400_naming_the_field(server):
    bad = {**SETUP, "battle": {**SETUP["battle"], "realm": {"seat": "bob", "slot": "C"}}}
    r = httpx.post(server.url + "/matches", json={"ruleset": "spellfire", "seats": ["alice", "bob"], "setup": bad})
    assert r.status_code == 400
    error = r.json()["error"]
    assert error["code"] == "bad_setup" and error["path"] == "setup.battle.realm.slot"
