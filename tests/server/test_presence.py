"""Presence over a real socket: the moment a seat's last socket closes, every other socket
on the match hears it (with when the seat is marked away), and again when it is back; a
new socket's welcome says who is gone. Nothing of it is logged."""

from __future__ import annotations

import httpx

from servers import ServerProcess, bearer
from wsutil import Raw


def presence(m: dict) -> bool:
    return m["t"] == "presence"


async def test_a_seat_that_leaves_is_told_at_once_with_when_it_is_marked_away(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_AWAY_GRACE_S": "30"}).start()
    try:
        created = srv.create(ruleset="duel")
        match = created["match"]
        alice = await Raw.open(srv.url, match)
        welcome = await alice.hello(created["tokens"]["alice"])
        assert "gone" not in welcome  # bob has not come yet: he has not left
        bob = await Raw.open(srv.url, match)
        bob_welcome = await bob.hello(created["tokens"]["bob"])
        assert "gone" not in bob_welcome
        watcher = await Raw.open(srv.url, match)
        assert "gone" not in await watcher.hello(created["spectator_token"])

        await bob.close()
        left = await alice.recv_until(presence)  # the first presence: bob's coming said nothing
        assert left["seat"] == "bob" and left["connected"] is False
        assert left["away_at"] - welcome["now"] >= 29_000
        assert await watcher.recv_until(presence) == left
        again = await Raw.open(srv.url, match)
        assert list((await again.hello(created["spectator_token"]))["gone"]) == ["bob"]

        bob = await Raw.open(srv.url, match)
        await bob.hello(created["tokens"]["bob"])
        back = await alice.recv_until(presence)
        assert back == {"t": "presence", "seat": "bob", "connected": True, "away_at": None}
        await bob.send({"t": "resign", "id": "r"})
        await bob.recv_until(lambda m: m["t"] == "ack")
        replay = httpx.get(f"{srv.url}/matches/{match}/replay", headers=bearer(created)).json()
        assert [e for e in replay["log"] if "away" in e or "back" in e] == []  # presence is never logged
        for sock in (alice, bob, watcher, again):
            await sock.close()
    finally:
        srv.stop()


async def test_no_presence_is_sent_after_the_end(tmp_path):
    srv = ServerProcess(tmp_path, env={"BATTLEHALL_AWAY_GRACE_S": "30"}).start()
    try:
        created = srv.create(ruleset="duel")
        match = created["match"]
        alice = await Raw.open(srv.url, match)
        await alice.hello(created["tokens"]["alice"])
        bob = await Raw.open(srv.url, match)
        await bob.hello(created["tokens"]["bob"])
        await bob.send({"t": "resign", "id": "r"})
        await alice.recv_until(lambda m: m["t"] == "event" and m["kind"] == "match_ended")
        await bob.close()
        await alice.send({"t": "ping", "id": "p"})
        reply = await alice.recv_until(lambda m: m["t"] != "event")
        assert reply["t"] == "pong"  # not a presence: the match is over
        await alice.close()
    finally:
        srv.stop()
