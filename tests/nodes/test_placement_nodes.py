"""One placement for every new match, on two real nodes sharing one real Redis: a create
(`POST /matches`), a quick-play group and a rematch, asked of the node with more matches,
are each made on the other, with their seats' profiles bound and the proofs checked
where they were given."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from test_nodes import KEY, Cluster

from battlehall.server.node.placement import BINDING_HEADER, PLACED_HEADER
from battlehall.server.storage import queue
from battlehall.server.storage.profiles import PENDING
from battlehall.server.storage.store import key, unpack

LOADED = 10  # live matches on the busy node before the creates


@pytest.fixture(scope="module")
def nodes(tmp_path_factory):
    """(the cluster, the busy node's index): the one that holds the quick-play matcher,
    given LOADED live matches made there, so that the other is the least loaded."""
    mp = pytest.MonkeyPatch()
    mp.setenv("BATTLEHALL_QUEUE_JOIN_PER_MIN", "0")  # every player joins from 127.0.0.1
    c = Cluster(tmp_path_factory.mktemp("placement"), count=2)
    deadline = time.monotonic() + 10
    while (holder := c.redis.get(queue.MATCHER_LEASE)) is None:
        assert time.monotonic() < deadline, "no node took the matcher's lease"
        time.sleep(0.05)
    busy = int(holder.decode().split(" ")[0][1:])  # "n<i> <run>"
    for _ in range(LOADED):
        here(c, busy, ruleset="duel", seats=["alice", "bob"])
    yield c, busy
    c.stop()
    mp.undo()


def here(cluster: Cluster, node: int, **body) -> dict:
    """A match made on `node` itself, as a create another node placed there is."""
    r = httpx.post(f"{cluster.urls[node]}/matches", json=body, timeout=10,
                   headers={"authorization": f"Bearer {KEY}", PLACED_HEADER: "1"})
    assert r.status_code == 201, r.text
    return r.json()


def runs_it(cluster: Cluster, created: dict) -> int:
    """The node whose lease the match has, checked against the socket URL it was given."""
    owner = int(cluster.owner(created["match"])[1:])
    assert created["ws_url"] == cluster.urls[owner].replace("http", "ws") + f"/ws/{created['match']}"
    return owner


def guest(cluster: Cluster, name: str) -> dict:
    r = httpx.post(f"{cluster.urls[0]}/profiles", json={"name": name})
    assert r.status_code == 201, r.text
    return r.json()


def bound(*guests: dict, seats=("alice", "bob")) -> dict:
    return {"rated": True, "profiles": {s: {"profile": g["profile"], "secret": g["secret"]}
                                        for s, g in zip(seats, guests)}}


def pending(cluster: Cluster, match_id: str) -> bool:
    """Listed for settlement at its end (ratings.py): bound to profiles on its node."""
    return cluster.redis.zscore(PENDING, match_id) is not None


def test_a_create_goes_to_the_least_loaded_node_with_its_binding(nodes):
    cluster, busy = nodes
    plain = cluster.create(via=busy, ruleset="duel")
    assert runs_it(cluster, plain) != busy and not pending(cluster, plain["match"])
    ann, bo = guest(cluster, "Ann Placed"), guest(cluster, "Bo Placed")
    rated = cluster.create(via=busy, ruleset="duel", **bound(ann, bo))
    assert runs_it(cluster, rated) != busy
    assert rated["rated"] is True and rated["profiles"] == {"alice": ann["profile"], "bob": bo["profile"]}
    assert pending(cluster, rated["match"])
    assert cluster.redis.keys("bh:placing:*") == []  # the binding handed over was taken
    wrong = bound(ann, bo)
    wrong["profiles"]["bob"]["secret"] = ann["secret"]
    r = httpx.post(f"{cluster.urls[busy]}/matches", json={"ruleset": "duel", "seats": ["alice", "bob"], **wrong},
                   headers={"authorization": f"Bearer {KEY}"})
    assert r.status_code == 401 and r.json()["error"]["path"] == "profiles.bob.secret"  # proofs checked here
    forged = httpx.post(f"{cluster.urls[busy]}/matches", json={"ruleset": "duel", "seats": ["alice", "bob"]},
                        headers={"authorization": f"Bearer {KEY}", PLACED_HEADER: "1", BINDING_HEADER: "0" * 32})
    assert forged.status_code == 400 and forged.json()["error"]["code"] == "bad_request"  # no binding by that name


async def quick_match(http: httpx.AsyncClient, url: str, players: tuple) -> list[dict]:
    """Each player (a guest profile, or None for none) joins quick play at `url`: their seats."""
    async def join(who: dict | None) -> str:
        headers = {"authorization": f"Bearer {who['secret']}"} if who else {}
        body = {"ruleset": "duel", "seats": 2, **({"profile": who["profile"]} if who else {})}
        r = await http.post(f"{url}/queue", json=body, headers=headers)
        assert r.status_code == 201, r.text
        return r.json()["ticket"]

    async def matched(ticket: str) -> dict:
        deadline = time.monotonic() + 20
        while (status := (await http.get(f"{url}/queue/{ticket}", params={"wait_ms": 2000})).json())["state"] \
                in ("waiting", "forming"):
            assert time.monotonic() < deadline, status
        assert status["state"] == "matched", status
        return status

    tickets = [await join(p) for p in players]
    got = await asyncio.gather(*(matched(t) for t in tickets))
    assert got[0]["match"] == got[1]["match"]
    return list(got)


async def test_quick_play_groups_go_to_the_least_loaded_node_rated_or_not(nodes):
    cluster, busy = nodes
    cy, di = guest(cluster, "Cy Placed"), guest(cluster, "Di Placed")
    async with httpx.AsyncClient(timeout=30) as http:
        for players, rated in (((None, None), False), ((cy, di), True)):
            got = await quick_match(http, cluster.urls[busy], players)
            assert all(g["rated"] is rated for g in got)
            assert runs_it(cluster, got[0]) != busy
            assert pending(cluster, got[0]["match"]) is rated


async def test_a_rematch_goes_to_the_least_loaded_node_rated_or_not(nodes):
    """A quick-play match's rematch (on a server with an API key, the operator's own matches
    are not played again without it: test_rematch.py), asked of the busy node."""
    cluster, busy = nodes
    ed, flo = guest(cluster, "Ed Placed"), guest(cluster, "Flo Placed")
    async with httpx.AsyncClient(timeout=30) as http:
        for players, rated in (((None, None), False), ((ed, flo), True)):
            got = await quick_match(http, cluster.urls[busy], players)
            ended = await http.post(f"{cluster.urls[busy]}/matches/{got[0]['match']}/abort",
                                    headers={"authorization": f"Bearer {KEY}"})
            assert ended.status_code == 200, ended.text
            url = f"{cluster.urls[busy]}/matches/{got[0]['match']}/rematch"
            for seat in got:
                answer = await http.post(url, headers={"authorization": f"Bearer {seat['token']}"})
                assert answer.status_code == 200, answer.text
            made = answer.json()["rematch"]
            assert runs_it(cluster, made) != busy
            assert pending(cluster, made["match"]) is rated


def made_from(cluster: Cluster, match_id: str) -> str | None:
    """The address the match's meta says made it (bot_turns.py shares bots' answers by it)."""
    return unpack(cluster.redis.get(key(match_id, "meta"))).get("made_from")


async def test_a_bot_match_keeps_the_address_that_made_it_on_the_node_it_is_placed_on_and_in_its_rematch(nodes):
    cluster, busy = nodes
    async with httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(local_address="127.0.0.2"), timeout=30) as http:
        r = await http.post(f"{cluster.urls[busy]}/bot-matches", json={"ruleset": "duel"})
        assert r.status_code == 201, r.text
        made = r.json()
        assert runs_it(cluster, made) != busy  # made on the other node, from the binding handed over
        assert made_from(cluster, made["match"]) == "127.0.0.2"
        ended = await http.post(f"{cluster.urls[busy]}/matches/{made['match']}/abort",
                                headers={"authorization": f"Bearer {KEY}"})
        assert ended.status_code == 200, ended.text
        answer = await http.post(f"{cluster.urls[busy]}/matches/{made['match']}/rematch",
                                 headers={"authorization": f"Bearer {made['token']}"})
        assert answer.status_code == 200, answer.text
        again = answer.json()["rematch"]
    assert made_from(cluster, again["match"]) == "127.0.0.2"  # the chain's bots wait in the same lane
