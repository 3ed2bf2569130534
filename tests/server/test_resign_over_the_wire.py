"""A seat resigns over a real socket, against the real server and its real Redis: written
before it is acknowledged, in the replay's log, re-run by `battlehall verify`, and final
across a restart."""

from __future__ import annotations

import asyncio

import httpx

from battlehall.client import MSGPACK, Client
from battlehall.verify import verify
from servers import ServerProcess, bearer
from wsutil import Raw


def is_event(kind: str):
    return lambda m: m["t"] == "event" and m["kind"] == kind


async def test_a_resign_ends_a_two_seat_match_for_the_other_and_survives_a_restart(tmp_path):
    srv = ServerProcess(tmp_path).start()
    try:
        created = srv.create(ruleset="duel")
        match = created["match"]
        watcher = await Raw.open(srv.url, match)
        assert (await watcher.hello(created["spectator_token"]))["t"] == "welcome"
        await watcher.send({"t": "resign", "id": "w1"})
        assert await watcher.recv() == {"t": "error", "id": "w1", "code": "spectator",
                                        "message": "spectators cannot resign"}
        bob = await Raw.open(srv.url, match)
        assert (await bob.hello(created["tokens"]["bob"]))["t"] == "welcome"
        await bob.send({"t": "resign"})
        assert (await bob.recv())["code"] == "bad_message"  # a resign needs an id, as an act does

        await bob.send({"t": "resign", "id": "r1"})
        resigned = await bob.recv_until(is_event("seat_resigned"))
        assert resigned["data"] == {"seat": "bob"}
        ended = await bob.recv_until(is_event("match_ended"))
        ack = await bob.recv_until(lambda m: m["t"] != "event")
        assert ack == {"t": "ack", "id": "r1", "seq": ended["seq"]}  # after its events, as an act's
        assert ended["data"]["winners"] == ["alice"] and ended["data"]["reason"] == "resigned"
        assert (await watcher.recv_until(is_event("seat_resigned")))["seq"] == resigned["seq"]
        await bob.close()
        await watcher.close()

        srv.kill()  # SIGKILL, server and Redis: only what was durable remains
        srv.start()
        summary = httpx.get(f"{srv.url}/matches/{match}").json()
        assert summary["status"] == "finished" and summary["result"]["ranking"] == [["alice"], ["bob"]]
        bob = await Raw.open(srv.url, match, wire=MSGPACK)
        assert (await bob.hello(created["tokens"]["bob"]))["t"] == "welcome"
        await bob.send({"t": "resign", "id": "r1"})  # sent again: the same ack, even after the restart
        assert await bob.recv() == ack
        await bob.send({"t": "resign", "id": "r2"})
        assert (await bob.recv())["code"] == "match_over"
        await bob.close()

        replay = httpx.get(f"{srv.url}/matches/{match}/replay", headers=bearer(created)).json()
        entry = replay["log"][-1]  # the seq of the first event it made (bob's prompt closing)
        assert entry == {"seq": entry["seq"], "at": resigned["at"], "resign": "bob"} and entry["seq"] <= resigned["seq"]
        assert verify(replay) == []
        steps = httpx.get(f"{srv.url}/matches/{match}/replay/steps", params={"from": len(replay["log"]), "count": 1},
                          headers=bearer(created)).json()
        assert steps["steps"][0]["entry"]["resign"] == "bob"
    finally:
        srv.stop()


async def test_in_a_three_seat_match_the_others_play_on_and_the_resigned_seat_is_never_asked_again(server):
    seats = ["alice", "bob", "carol"]
    created = server.create(ruleset="hourglass", seed=21, seats=seats, clock={"window_min_ms": 0})
    match = created["match"]
    carol = await Raw.open(server.url, match)
    assert (await carol.hello(created["tokens"]["carol"]))["t"] == "welcome"
    await carol.send({"t": "resign", "id": 1})
    resigned = await carol.recv_until(is_event("seat_resigned"))
    ack = await carol.recv_until(lambda m: m["t"] != "event")
    assert ack["t"] == "ack" and ack["id"] == 1 and ack["seq"] >= resigned["seq"]
    await carol.send({"t": "resign", "id": 2})
    assert (await carol.recv())["code"] == "bad_seat"  # resigned already

    bots = [Client(server.url, match, created["tokens"][s], seed=i) for i, s in enumerate(seats[:2])]
    results = await asyncio.wait_for(asyncio.gather(*(c.run() for c in bots)), 240)
    assert results[0] == results[1] and results[0]["ranking"][-1] == ["carol"]
    assert "carol" not in results[0]["winners"] and results[0]["reason"] != "resigned"  # played on to the rules' end
    assert not any(c.errors for c in bots)
    # carol saw the match go on, and was never asked anything again
    after = []
    while True:
        message = await carol.recv()
        after.append(message)
        if message.get("kind") == "match_ended":
            break
    assert not [m for m in after if m.get("kind") == "prompt" and m["data"].get("seat") == "carol"]
    await carol.close()

    replay = httpx.get(f"{server.url}/matches/{match}/replay", headers=bearer(created)).json()
    (entry,) = [e for e in replay["log"] if "resign" in e]
    assert entry == {"seq": entry["seq"], "at": resigned["at"], "resign": "carol"} and entry["seq"] <= resigned["seq"]
    assert not [e for e in replay["events"] if e["seq"] > resigned["seq"] and e["kind"] == "prompt"
                and e["data"].get("seat") == "carol"]
    assert verify(replay) == []


async def test_a_seat_gone_past_its_grace_is_marked_away_for_everyone_and_back_when_it_returns(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_AWAY_GRACE_S": "2"}).start()
    try:
        created = srv.create(ruleset="duel")
        match = created["match"]
        alice = await Raw.open(srv.url, match)
        assert (await alice.hello(created["tokens"]["alice"]))["t"] == "welcome"
        watcher = await Raw.open(srv.url, match)
        assert (await watcher.hello(created["spectator_token"]))["t"] == "welcome"
        bob = await Raw.open(srv.url, match)
        assert (await bob.hello(created["tokens"]["bob"]))["t"] == "welcome"
        await bob.close()
        away = await alice.recv_until(is_event("seat_away"), timeout=10)
        assert away["data"] == {"seat": "bob"}
        assert (await watcher.recv_until(is_event("seat_away")))["seq"] == away["seq"]
        await watcher.send({"t": "view"})
        assert (await watcher.recv_until(lambda m: m["t"] == "view"))["view"]["away"] == ["bob"]

        srv.kill()  # the mark is in the log: it survives a restart
        srv.start()
        alice = await Raw.open(srv.url, match)
        welcome = await alice.hello(created["tokens"]["alice"])
        assert welcome["view"]["away"] == ["bob"]
        bob = await Raw.open(srv.url, match)
        assert (await bob.hello(created["tokens"]["bob"]))["view"]["away"] == ["bob"]  # the welcome, then back
        back = await bob.recv_until(is_event("seat_back"))
        assert back["data"] == {"seat": "bob"}
        assert (await alice.recv_until(is_event("seat_back")))["seq"] == back["seq"]
        await alice.send({"t": "view"})
        assert (await alice.recv_until(lambda m: m["t"] == "view"))["view"]["away"] == []

        # the end of the match: bob resigns; the replay has the away and back, and re-runs
        await bob.send({"t": "resign", "id": "r"})
        await bob.recv_until(lambda m: m["t"] == "ack")
        replay = httpx.get(f"{srv.url}/matches/{match}/replay", headers=bearer(created)).json()
        assert [{k: e[k] for k in ("away", "back", "resign") if k in e} for e in replay["log"]] == [
            {"away": "bob"}, {"back": "bob"}, {"resign": "bob"}]
        assert verify(replay) == []
        for sock in (alice, bob, watcher):
            await sock.close()
    finally:
        srv.stop()


async def test_a_claim_of_the_win_resigns_the_seat_away_where_the_match_allows_it(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_AWAY_GRACE_S": "2"}).start()
    try:
        plain = srv.create(ruleset="duel")
        created = srv.create(ruleset="duel", when_away="claim")
        r = httpx.post(f"{srv.url}/matches", json={"ruleset": "duel", "seats": ["a", "b"], "when_away": "robot"})
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_setup" and "when_away" in r.text
        socks = {}
        for name, made in (("plain", plain), ("claim", created)):
            alice = socks[name] = await Raw.open(srv.url, made["match"])
            assert (await alice.hello(made["tokens"]["alice"]))["t"] == "welcome"
            await alice.send({"t": "claim_win", "id": "early"})
            assert (await alice.recv())["code"] == "no_claim"  # nobody is away yet
        for name in socks:  # bob never came: away after the grace
            await socks[name].recv_until(is_event("seat_away"), timeout=10)
        await socks["plain"].send({"t": "claim_win", "id": "c1"})
        assert (await socks["plain"].recv())["code"] == "no_claim"  # this match does not allow it
        alice = socks["claim"]
        await alice.send({"t": "claim_win", "id": "c1"})
        resigned = await alice.recv_until(is_event("seat_resigned"))
        assert resigned["data"] == {"seat": "bob"}
        ended = await alice.recv_until(is_event("match_ended"))
        assert await alice.recv() == {"t": "ack", "id": "c1", "seq": ended["seq"]}
        assert ended["data"]["winners"] == ["alice"] and ended["data"]["reason"] == "resigned"
        replay = httpx.get(f"{srv.url}/matches/{created['match']}/replay", headers=bearer(created)).json()
        assert [{k: e[k] for k in ("away", "resign") if k in e} for e in replay["log"]] == [
            {"away": "bob"}, {"resign": "bob"}]
        assert verify(replay) == []
        for sock in socks.values():
            await sock.close()
    finally:
        srv.stop()


async def test_a_seat_that_lets_its_prompts_time_out_in_a_row_is_away_until_it_answers(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_AWAY_TIMEOUTS": "2", "BATTLEHALL_AWAY_GRACE_S": "0"}).start()
    try:
        created = srv.create(ruleset="duel", options={"hp": 500},
                             clock={"prompt_ms": 600, "bank_ms": 0, "window_min_ms": 0})
        alice = await Raw.open(srv.url, created["match"])
        assert (await alice.hello(created["tokens"]["alice"]))["t"] == "welcome"
        bob = await Raw.open(srv.url, created["match"])
        assert (await bob.hello(created["tokens"]["bob"]))["t"] == "welcome"
        seen = []

        def record(kind):
            def check(m):
                seen.append(m)
                return m["t"] == "event" and m["kind"] == kind and m["data"].get("seat") == "alice"
            return check

        away = await alice.recv_until(record("seat_away"), timeout=10)  # both sockets on all along
        timeouts = [m for m in seen if m.get("kind") == "prompt_closed" and m["data"]["seat"] == "alice"]
        assert len(timeouts) == 2 and all(m["data"]["reason"] == "timeout" for m in timeouts)
        prompt = await alice.recv_until(lambda m: m.get("kind") == "prompt" and m["data"]["seat"] == "alice", 10)
        await alice.send({"t": "act", "id": "a1", "prompt": prompt["data"]["id"], "option": "strike"})
        back = await alice.recv_until(record("seat_back"), timeout=5)
        assert back["seq"] > away["seq"]
        answered = await alice.recv_until(lambda m: m.get("kind") == "prompt_closed" and m["data"]["id"] ==
                                          prompt["data"]["id"])
        assert answered["data"]["reason"] == "answered" and answered["seq"] > back["seq"]  # back, then the answer
        assert (await alice.recv_until(lambda m: m["t"] == "ack"))["id"] == "a1"
        await bob.recv_until(is_event("seat_back"))  # the other seat is told too
        await alice.close()
        await bob.close()
    finally:
        srv.stop()
