"""Demigod over real sockets against the real server and its real Redis: a whole match by
bots with a spectator, and reaction windows answered and timed out."""

from __future__ import annotations

import asyncio

import httpx

from battlehall.client import JSON, MSGPACK, Client
from servers import bearer
from wsutil import Raw


async def test_demigod_match_by_bots_to_the_end_with_a_spectator(server):
    created = server.create(ruleset="demigod", seed=5, seats=["alice", "bob", "carol"], clock={"window_min_ms": 0},
                            options={"turn_limit": 4, "reaction_ms": 2000})
    seats = list(created["tokens"])
    clients = [Client(server.url, created["match"], created["tokens"][s], wire=(JSON, MSGPACK)[i % 2], seed=i)
               for i, s in enumerate(seats)]
    watcher = Client(server.url, created["match"], created["spectator_token"], wire=JSON)
    results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in clients + [watcher])), 180)
    assert all(r == results[0] for r in results) and sorted(sum(results[0]["ranking"], [])) == sorted(seats)
    assert watcher.events[-1]["kind"] == "match_ended"
    # the spectator saw every play of a card, never a hand
    kinds = {e["kind"] for e in watcher.events}
    assert "declared" in kinds and "turn_started" in kinds
    assert all("cards" not in e["data"] for e in watcher.events if e["kind"] == "drew")
    assert httpx.get(f"{server.url}/matches/{created['match']}").json()["status"] == "finished"


def eager(prompt):
    """Attack whenever possible (first legal combination), never move; defend with the last option."""
    options = {o["id"]: o for o in prompt["options"]}
    if prompt["kind"] == "turn":
        if "attack" in options:
            combo = options["attack"]["combos"][0]
            return "attack", {k: v[0] for k, v in combo.items()}
        return "end", {}
    last = prompt["options"][-1]
    return last["id"], {k: v[0] for k, v in (last.get("args") or {}).items()}


async def test_reaction_windows_answered_and_timed_out(server):
    """alice answers her windows at once; bob thinks longer than a window lasts, so his time out
    (and his bank is never spent on them)."""
    units = [{"id": "kael", "side": "alice", "kind": "demigod", "pos": [1, 1], "hp": 40},
             {"id": "mor", "side": "bob", "kind": "demigod", "pos": [2, 1], "hp": 40}]
    setup = {"map": {"width": 4, "height": 4, "terrain": []}, "units": units,
             "hands": {"alice": ["Strike", "Parry", "Parry"], "bob": ["Strike", "Guard", "Guard"]},
             "decks": {"alice": ["Strike", "Strike"], "bob": ["Strike", "Strike"]}}
    created = server.create(ruleset="demigod", seed=1, setup=setup, clock={"window_min_ms": 0, "prompt_ms": 20_000},
                            options={"turn_limit": 2, "reaction_ms": 500})
    alice = Client(server.url, created["match"], created["tokens"]["alice"], choose=eager)
    bob = Client(server.url, created["match"], created["tokens"]["bob"], choose=eager, think_s=1.0)
    await asyncio.wait_for(asyncio.gather(alice.run(), bob.run()), 120)
    replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()["events"]
    windows = {e["data"]["id"]: e["data"] for e in replay if e["kind"] == "prompt" and e["data"]["kind"] == "defend"}
    assert all(w["bank"] is False and w["time_ms"] == 500 for w in windows.values())
    closed = {e["data"]["id"]: e["data"]["reason"] for e in replay if e["kind"] == "prompt_closed"}
    by_seat = {seat: [closed[i] for i, w in windows.items() if w["seat"] == seat] for seat in ("alice", "bob")}
    assert by_seat["alice"] and set(by_seat["alice"]) == {"answered"}
    assert by_seat["bob"] and set(by_seat["bob"]) == {"timeout"}
    defences = [e["data"] for e in replay if e["kind"] == "defence"]
    assert {"unit": "mor", "choice": "none", "seat": "bob"} in defences  # a window timed out: no defence, DV 0
    assert any(d["unit"] == "kael" and d["choice"] == "react" and d["name"] == "Parry" for d in defences)
    assert replay[-1]["kind"] == "match_ended"


async def test_reaction_window_of_an_untimed_match_closes_at_reaction_ms(server):
    """An untimed match (`prompt_ms: null`): the turn prompt has no deadline, but the reaction
    window has its own clock: nobody answers it, and at `reaction_ms` its default (no
    defence, DV 0) is applied and the attack resolves."""
    units = [{"id": "kael", "side": "alice", "kind": "demigod", "pos": [1, 1], "hp": 40},
             {"id": "mor", "side": "bob", "kind": "demigod", "pos": [2, 1], "hp": 40}]
    setup = {"map": {"width": 4, "height": 4, "terrain": []}, "units": units,
             "hands": {"alice": ["Strike"], "bob": ["Guard"]}}
    created = server.create(ruleset="demigod", seed=1, setup=setup, clock={"prompt_ms": None, "window_min_ms": 0},
                            options={"reaction_ms": 700})
    alice = await Raw.open(server.url, created["match"])
    try:
        welcome = await alice.hello(created["tokens"]["alice"])
        turn = welcome["prompts"][0]
        assert turn["kind"] == "turn" and "deadline" not in turn  # the match is untimed
        combo = next(o for o in turn["options"] if o["id"] == "attack")["combos"][0]
        await alice.send({"t": "act", "id": "a1", "prompt": turn["id"], "option": "attack",
                          "args": {k: v[0] for k, v in combo.items()}})
        opened = await alice.recv_until(lambda m: m.get("t") == "event" and m["kind"] == "prompt"
                                        and m["data"]["kind"] == "defend")
        window = opened["data"]
        assert window["time_ms"] == 700 and window["bank"] is False and window["bank_ms"] == 0
        assert window["deadline"] == opened["at"] + 700
        closed = await alice.recv_until(lambda m: m.get("t") == "event" and m["kind"] == "prompt_closed"
                                        and m["data"]["id"] == window["id"], timeout=10)
        assert closed["data"]["reason"] == "timeout" and closed["at"] >= window["deadline"]
        result = await alice.recv_until(lambda m: m.get("t") == "event" and m["kind"] == "attack_result")
        assert result["data"]["dv"] == 0 and result["data"]["hit"] is True
        again = await alice.recv_until(lambda m: m.get("t") == "event" and m["kind"] == "prompt"
                                       and m["data"]["kind"] == "turn")
        assert "deadline" not in again["data"]  # the turn itself still waits for ever
    finally:
        await alice.close()


def test_rulesets_lists_demigod_and_a_bad_setup_is_a_400_naming_its_field(server):
    described = {r["name"]: r for r in httpx.get(server.url + "/rulesets").json()["rulesets"]}
    assert described["demigod"]["seats"] == {"min": 2, "max": 4}
    assert "reaction_ms" in described["demigod"]["options"]
    setup = {"units": [{"id": "a", "side": "alice", "kind": "demigod", "pos": [0, 0]},
                       {"id": "b", "side": "bob", "kind": "demigod", "pos": [0, 0]}]}
    r = httpx.post(server.url + "/matches", json={"ruleset": "demigod", "seats": ["alice", "bob"], "setup": setup})
    assert r.status_code == 400 and r.json()["error"]["path"] == "setup.units[1].pos"
