"""Stops over real sockets against the real server: window prompts passed for a seat,
and nobody else able to tell (docs/protocol.md, Stops)."""

from __future__ import annotations

import asyncio

import httpx
import orjson

from battlehall.client import JSON, Client
from battlehall.engine.ruleset import random_answer
from servers import bearer
from wsutil import Raw

SEATS = ["alice", "bob", "carol"]
HOLD_MS = 200


async def play_with_stops(server, seed: int):
    """A 3-seat match of random bots: alice passes unless playable, bob asks, carol sets none."""
    created = server.create(ruleset="spellfire", seed=seed, seats=SEATS, clock={"window_min_ms": HOLD_MS},
                            options={"turn_limit": 45})
    passer = Client(server.url, created["match"], created["tokens"]["alice"], wire=JSON, seed=1,
                    stops="pass_unless_playable")
    asker = Client(server.url, created["match"], created["tokens"]["bob"], wire=JSON, seed=2, stops="ask")
    third = Client(server.url, created["match"], created["tokens"]["carol"], wire=JSON, seed=3)
    results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in (passer, asker, third))), 120)
    assert results[0] == results[1] == results[2] and results[0]["reason"]  # the match played to its end
    assert all(e["code"] == "unknown_prompt" for c in (passer, asker, third) for e in c.errors)
    replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()
    return passer, asker, replay


async def test_a_seat_that_passes_unless_playable_answers_only_windows_with_a_card_to_play(server):
    # The bots' answers race each other, so which windows alice gets varies from run to
    # run: the first of a few matches in which both got pass-only windows is checked.
    for seed in (21, 22, 23, 24):
        passer, asker, replay = await play_with_stops(server, seed)
        shown = {e["data"]["id"]: {**e["data"], **e.get("private", {}).get(e["data"]["seat"], {})}
                 for e in replay["events"] if e["kind"] == "prompt"}

        def windows(seat, playable, shown=shown):
            return {p for p, d in shown.items() if d["seat"] == seat and "window" in d
                    and (len(d["options"]) > 1) == playable}

        if windows("alice", False) and windows("bob", False):
            break
    only_pass = windows("alice", False)
    assert only_pass and not only_pass & set(passer.answers)  # never answered by its client
    logged = {e["prompt"]: e for e in replay["log"] if "prompt" in e and "seat" in e}
    # ... yet passed, each like an answer, by the server (unless another seat's card closed it first)
    closed = {e["data"]["id"]: e["data"]["reason"] for e in replay["events"] if e["kind"] == "prompt_closed"}
    auto = [p for p in only_pass if closed.get(p) == "answered"]
    assert auto and all(logged[p]["option"] == "pass" and logged[p]["seat"] == "alice" for p in auto)
    assert windows("bob", False) & set(asker.answers)  # asked everything
    # every window prompt of alice with a card to play was hers to answer
    assert windows("alice", True) <= set(passer.answers) | {p for p, why in closed.items() if why == "cancelled"}


def choosing(rng_seed: int):
    """Windows passed, anything else a seeded random answer: the same choices whatever
    the order prompts come in."""
    import random
    rng = random.Random(rng_seed)

    def choose(prompt: dict) -> tuple[str, dict]:
        if "window" in prompt:
            return prompt["default"], {}
        return random_answer(rng, prompt)
    return choose


async def run_once(server, carol_stops: str, bob_think_s: float = 0.35) -> dict:
    created = server.create(ruleset="spellfire", seed=33, seed_public=True, seats=SEATS, clock={"window_min_ms": HOLD_MS, "prompt_ms": None},
                            options={"turn_limit": 8})
    match = created["match"]
    frames: dict[str, list] = {"bob": [], "spectator": []}
    observers = {}
    for name, token in (("bob", created["tokens"]["bob"]), ("spectator", created["spectator_token"])):
        raw = await Raw.open(server.url, match)
        await raw.send({"t": "hello", "token": token})
        assert (await raw.recv())["t"] == "welcome"
        observers[name] = raw
    players = [Client(server.url, match, created["tokens"]["alice"], wire=JSON, think_s=0.25, choose=choosing(1)),
               Client(server.url, match, created["tokens"]["bob"], wire=JSON, think_s=bob_think_s, choose=choosing(2)),
               Client(server.url, match, created["tokens"]["carol"], wire=JSON, choose=choosing(3),
                      stops=carol_stops)]

    async def read(name: str, raw: Raw) -> None:
        while True:
            frame = await raw.ws.recv()
            frames[name].append((asyncio.get_running_loop().time(), frame))
            if orjson.loads(frame).get("kind") == "match_ended":
                return

    await asyncio.wait_for(asyncio.gather(*(c.run() for c in players), *(read(n, r) for n, r in observers.items())), 240)
    for raw in observers.values():
        await raw.close()
    return {"frames": frames, "carol": players[2]}


def stream(frames: list) -> list:
    """What an observer can compare: each message's kind, seq, fields, content and size in
    bytes and, for the closing of one of carol's window prompts, how long after its opening (by
    the server's `at`: the other seats' own answers come when their thinking ends)."""
    shown, first, opened = [], None, {}
    for _, frame in frames:
        m = orjson.loads(frame)
        at = m.get("at")
        first = at if first is None else first
        data = m.get("data", {})
        if m.get("kind") == "prompt" and "window" in data:
            opened[data["id"]] = at
        held = at - opened[data["id"]] if m.get("kind") == "prompt_closed" and data["id"] in opened and data["seat"] == "carol" else None
        fields = sorted(data) if isinstance(data, dict) else None
        without_times = {k: v for k, v in data.items() if k not in ("deadline",)} if isinstance(data, dict) else data
        shown.append((m["t"], m.get("seq"), m.get("kind"), fields, orjson.dumps(without_times), len(frame), held))
    return shown


async def test_nobody_can_tell_an_automatic_pass_from_one_sent_by_hand(server):
    """The same match twice: carol's windows passed by her stops, then by her own client
    the moment they open. Bob's socket and a spectator's get the same messages, field for
    field and byte for byte, and each of carol's passes closes her prompt as long after
    it opened (the window's minimum hold)."""
    # The two matches at once: each is its own, with its own seeded choices.
    auto, by_hand = await asyncio.gather(run_once(server, "pass_unless_playable"), run_once(server, "ask"))
    assert auto["carol"].answers != by_hand["carol"].answers  # she sent fewer answers herself
    assert len(auto["carol"].answers) < len(by_hand["carol"].answers)
    for name in ("bob", "spectator"):
        a, b = stream(auto["frames"][name]), stream(by_hand["frames"][name])
        assert len(a) == len(b) and len(a) > 50
        assert sum(1 for x in a if x[6] is not None) >= 2
        for x, y in zip(a, b):
            assert x[:6] == y[:6]  # kind, seq, fields, content, bytes
            if x[6] is not None and y[6] is not None:  # carol's prompt closes as long after its opening, within the noise
                assert abs(x[6] - y[6]) < 80, (x, y)


def closes_by_window(frames: list) -> dict:
    """Each window's prompt ids in the order they opened, and its prompt_closed events in the
    order an observer gets them: (prompt, seat, reason, at)."""
    windows: dict = {}
    window_of = {}
    for _, frame in frames:
        m = orjson.loads(frame)
        data = m.get("data", {})
        if m.get("kind") == "prompt" and "window" in data:
            window_of[data["id"]] = data["window"]
            windows.setdefault(data["window"], ([], []))[0].append(data["id"])
        elif m.get("kind") == "prompt_closed" and data["id"] in window_of:
            windows[window_of[data["id"]]][1].append((data["id"], data["seat"], data["reason"], m["at"]))
    return windows


async def test_a_window_closes_in_the_same_order_when_a_seat_passes_at_once_beside_an_automatic_pass(server):
    """The same match twice, bob passing every window the moment it opens: carol's windows
    passed by her stops, then by her own client at once. Bob's pass and carol's are held
    together for the window's minimum time and applied in the order of the window's prompts,
    so bob's socket and a spectator's get the same messages, the order of the closes too."""
    auto, by_hand = await asyncio.gather(run_once(server, "pass_unless_playable", bob_think_s=0),
                                         run_once(server, "ask", bob_think_s=0))
    for name in ("bob", "spectator"):
        a, b = stream(auto["frames"][name]), stream(by_hand["frames"][name])
        assert [x[:6] for x in a] == [y[:6] for y in b]  # kind, seq, fields, content, bytes: in order
    windows = closes_by_window(auto["frames"]["spectator"])
    beside = [(opened, closed) for w, (opened, closed) in windows.items()
              if {"bob", "carol"} <= {seat for _, seat, why, _ in closed if why == "answered"}
              and all(p not in auto["carol"].answers for p, seat, _, _ in closed if seat == "carol")
              and len({at for *_, at in closed}) == 1]  # carol's pass automatic, held with bob's
    assert len(beside) >= 2, windows
    for opened, closed in beside:
        assert [p for p, *_ in closed] == opened  # in the order the window's prompts opened


async def test_stops_from_a_spectator_or_with_a_bad_mode_are_refused_and_change_nothing(server):
    created = server.create(ruleset="spellfire", seed=2, seats=SEATS)
    match = created["match"]
    seat = await Raw.open(server.url, match)
    assert (await seat.hello(created["tokens"]["alice"]))["t"] == "welcome"
    for bad in ({"t": "stops"}, {"t": "stops", "mode": "never"}, {"t": "stops", "mode": ["ask"]},
                {"t": "stops", "mode": "x" * 1000}):
        await seat.send(bad)
        error = await seat.recv_until(lambda m: m["t"] == "error")
        assert error["code"] == "bad_message" and "ask, pass_unless_playable, pass_until_my_turn" in error["message"]
        assert len(error["message"]) < 200  # never echoes what it was sent
    watcher = await Raw.open(server.url, match)
    assert (await watcher.hello(created["spectator_token"]))["t"] == "welcome"
    await watcher.send({"t": "stops", "mode": "pass_unless_playable"})
    assert (await watcher.recv_until(lambda m: m["t"] == "error"))["code"] == "spectator"
    await seat.send({"t": "stops", "mode": "ask"})  # the seat's own is taken, and told to it alone
    assert await seat.recv_until(lambda m: m["t"] == "stops") == {"t": "stops", "mode": "ask"}
    await watcher.send({"t": "ping"})
    assert (await watcher.recv_until(lambda m: m["t"] in ("pong", "stops")))["t"] == "pong"
    await seat.close()
    await watcher.close()
