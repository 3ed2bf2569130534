"""`{"t": "view"}`: a fresh view for the asking viewer, in order with the events it was sent,
redacted as its events are, and as of the stream delay for a delayed spectator."""

from __future__ import annotations

import asyncio
import time

import orjson

from battlehall.client import JSON, MSGPACK
from battlehall.engine import get_ruleset
from leaks import atoms
from servers import ServerProcess
from wsutil import Raw


async def ask_view(conn: Raw) -> dict:
    await conn.send({"t": "view"})
    return await conn.recv_until(lambda m: m["t"] in ("view", "error"))


async def test_view_is_each_viewers_own_and_current(server):
    """Over real sockets, a Spellfire match with a public seed: the same deal re-run here
    gives the state, so each view must equal the engine's view for that viewer, exactly,
    and hold none of that viewer's secrets."""
    created = server.create(ruleset="spellfire", seed=11, seed_public=True)
    ruleset = get_ruleset("spellfire")
    state, _ = ruleset.start(["alice", "bob"], 11)
    conns = {}
    for seat, wire in (("alice", JSON), ("bob", MSGPACK)):
        conns[seat] = await Raw.open(server.url, created["match"], wire)
        welcome = await conns[seat].hello(created["tokens"][seat])
        assert welcome["t"] == "welcome"
    watcher = await Raw.open(server.url, created["match"], JSON)
    assert (await watcher.hello(created["spectator_token"]))["role"] == "spectator"
    seq = welcome["seq"]
    for turn in range(6):
        for viewer, conn in (*conns.items(), (None, watcher)):
            view = await ask_view(conn)
            assert view["t"] == "view" and view["seq"] == seq
            assert view["view"] == ruleset.view(state, viewer)
            leaked = [a for a in atoms(view, []) if a in set(ruleset.secrets(state, viewer))]
            assert not leaked, (viewer, leaked)
            mine = [p for p in ruleset.prompts(state) if p["seat"] == viewer]
            assert [p["id"] for p in view["prompts"]] == [p["id"] for p in mine]
            assert all(p["options"] for p in view["prompts"])  # the seat's own prompts, options and all
        # Answer the first open prompt with its default, on the seat's socket and here.
        prompt = ruleset.prompts(state)[0]
        conn = conns[prompt["seat"]]
        await conn.send({"t": "act", "id": f"v{turn}", "prompt": prompt["id"], "option": prompt["default"]})
        ack = await conn.recv_until(lambda m: m["t"] in ("ack", "error"))
        assert ack["t"] == "ack", ack
        option = next(o for o in prompt["options"] if o["id"] == prompt["default"])
        args = {name: values[0] for name, values in option.get("args", {}).items()}
        seq += len(ruleset.answer(state, prompt["seat"], prompt["id"], prompt["default"], args))
        assert ack["seq"] == seq
        # Everyone's stream reaches this seq before their next view answer.
        for other in (*conns.values(), watcher):
            if other is not conn:
                await other.recv_until(lambda m, seq=seq: m.get("seq") == seq and m["t"] == "event")
    for conn in (*conns.values(), watcher):
        await conn.close()


async def test_delayed_spectator_view_is_as_of_the_delay(server):
    created = server.create(ruleset="duel", seed=3, spectators={"delay_ms": 1200})
    alice = await Raw.open(server.url, created["match"], JSON)
    welcome = await alice.hello(created["tokens"]["alice"])
    watcher = await Raw.open(server.url, created["match"], JSON)
    before = await watcher.hello(created["spectator_token"])
    await alice.send({"t": "act", "id": "g", "prompt": welcome["prompts"][0]["id"], "option": "guard"})
    ack = await alice.recv_until(lambda m: m["t"] == "ack")
    now = await ask_view(watcher)  # within the delay: still the past
    assert now["seq"] == before["seq"] < ack["seq"] and now["delay_ms"] == 1200
    assert now["view"]["guarding"]["alice"] is False and now["prompts"] == []
    await watcher.recv_until(lambda m: m["t"] == "event" and m["seq"] == ack["seq"], timeout=5)
    later = await ask_view(watcher)
    assert later["seq"] == ack["seq"] and later["view"]["guarding"]["alice"] is True
    assert (await ask_view(alice))["view"]["guarding"]["alice"] is True
    await alice.close()
    await watcher.close()


async def test_view_sent_before_the_welcome_is_answered_after_it(server):
    created = server.create(ruleset="duel", seed=3, spectators={"public": True})
    conn = await Raw.open(server.url, created["match"], JSON)
    await conn.send({"t": "hello"})
    await conn.send({"t": "view"})  # sent before the welcome: answered after it
    welcome = await conn.recv()
    view = await conn.recv()
    assert welcome["t"] == "welcome" and view["t"] == "view" and view["seq"] == welcome["seq"]
    assert view["view"] == welcome["view"]
    await conn.close()


def _inline_cards(n: int, text: int) -> list[dict]:
    return [{"id": f"inline-{i}", "name": f"Inline {i}", "type": "champion", "class": "hero", "level": 3,
             "world": "greyhawk", "text": "x" * text} for i in range(n)]


async def test_inline_cards_come_once_per_socket_in_the_welcome(server):
    """200 inline cards of 3 KB each: in the welcome's `definitions`, once; never in a view,
    which stays the size of the board (each `view` used to carry all 600 KB again)."""
    cards = _inline_cards(200, 3000)
    setup = {"cards": cards, "players": {"alice": {"hand": ["inline-0"], "draw": ["inline-1", "inline-2"]},
                                         "bob": {"draw": ["inline-3"]}}}
    created = server.create(ruleset="spellfire", seats=["alice", "bob"], seed=4, setup=setup,
                            spectators={"public": True})
    for token in (created["tokens"]["alice"], None):
        conn = await Raw.open(server.url, created["match"], JSON)
        welcome = await conn.hello(token)
        assert [c["id"] for c in welcome["definitions"]["custom_cards"]] == [c["id"] for c in cards]
        assert "custom_cards" not in welcome["view"]
        for _ in range(3):
            view = await ask_view(conn)
            assert view["t"] == "view" and "definitions" not in view and "custom_cards" not in view["view"]
            assert len(orjson.dumps(view)) < 20_000
        await conn.close()


async def test_what_views_make_the_server_encode_is_counted(tmp_path):
    """With 20,000 bytes a second for views (bursts of 80,000), a socket asking for a view
    again and again gets `rate_limited` once it has drawn its burst, and views again later."""
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_VIEW_BYTES_PER_S": "20000"}).start()
    try:
        created = srv.create(ruleset="spellfire", seats=["alice", "bob"], seed=4)
        conn = await Raw.open(srv.url, created["match"], JSON)
        await conn.hello(created["tokens"]["alice"])
        sizes, refused, started = [], None, time.monotonic()
        for _ in range(60):
            answer = await ask_view(conn)
            if answer["t"] == "error":
                refused = answer
                break
            sizes.append(len(orjson.dumps(answer)))
        assert refused is not None and refused["code"] == "rate_limited", sizes
        refilled = 20_000 * (time.monotonic() - started)
        assert 80_000 <= sum(sizes) < 80_000 + refilled + max(sizes)
        await asyncio.sleep(80_000 / 20_000 / 4 + max(sizes) / 20_000 + 0.5)
        assert (await ask_view(conn))["t"] == "view"  # the budget fills again
        await conn.close()
    finally:
        srv.stop()
