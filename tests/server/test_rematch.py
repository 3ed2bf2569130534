"""Rematch over HTTP against the real server and its real Redis: offers only after the end,
only with a seat's token, one new match however many acceptances arrive at once, its
seats rotated, and each seat told only its own new token."""

from __future__ import annotations

import asyncio
import re
import time

import httpx

from battlehall.client import Client
from queue_client import wait_matched
from servers import ServerProcess
from wsutil import Raw


def finished_duel(server, **body) -> dict:
    """A duel at 1 hp whose first prompt times out to its default (strike): over at once."""
    created = server.create(ruleset="duel", options={"hp": 1}, clock={"prompt_ms": 50, "bank_ms": 0}, **body)
    wait_finished(server, created["match"])
    return created


def created_count(server, headers: dict | None = None) -> int:
    text = httpx.get(f"{server.url}/metrics", headers=headers).text
    return int(float(re.search(r"^battlehall_matches_created_total (\S+)$", text, re.M).group(1)))


def as_seat(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_two_seats_offer_and_get_one_rotated_match_each_with_only_its_own_token(server):
    created = finished_duel(server, spectators={"delay_ms": 0, "public": True}, label={"event": "cup"})
    url = f"{server.url}/matches/{created['match']}/rematch"
    alice, bob = created["tokens"]["alice"], created["tokens"]["bob"]

    first = httpx.post(url, headers=as_seat(alice))
    assert first.status_code == 200, first.text
    assert first.json() == {"match": created["match"], "seat": "alice", "ended": True, "allowed": True,
                            "offers": ["alice"], "waiting_for": ["bob"], "rematch": None}
    seen_by_bob = httpx.get(url, headers=as_seat(bob)).json()
    assert seen_by_bob["offers"] == ["alice"] and seen_by_bob["rematch"] is None

    accepted = httpx.post(url, headers=as_seat(bob)).json()
    made = accepted["rematch"]
    assert made["seat"] == "bob" and made["seats"] == ["bob", "alice"] and accepted["waiting_for"] == []
    for_alice = httpx.get(url, headers=as_seat(alice)).json()["rematch"]
    assert for_alice["match"] == made["match"] and for_alice["seat"] == "alice"
    assert for_alice["token"] != made["token"]
    assert alice not in (made["token"], for_alice["token"])  # new tokens, not the old ones

    summary = httpx.get(f"{server.url}/matches/{made['match']}").json()
    assert summary["seats"] == ["bob", "alice"]
    assert summary["label"] == {"event": "cup"} and summary["spectator_settings"]["public"] is True
    assert summary["clock"]["prompt_ms"] == 50
    # Whoever moves first strikes first at 1 hp: alice won the first, bob moves first in the rematch.
    assert httpx.get(f"{server.url}/matches/{created['match']}").json()["result"]["winners"] == ["alice"]
    deadline = time.monotonic() + 10
    while (summary := httpx.get(f"{server.url}/matches/{made['match']}").json())["status"] != "finished":
        assert time.monotonic() < deadline, "the rematch did not end"
        time.sleep(0.05)
    assert summary["result"]["winners"] == ["bob"]
    # Each new token is that seat's: the rematch's own rematch route knows them by seat.
    again = httpx.get(f"{server.url}/matches/{made['match']}/rematch", headers=as_seat(made["token"])).json()
    assert again["seat"] == "bob"
    assert httpx.post(url, headers=as_seat(alice)).json()["rematch"]["match"] == made["match"]  # no second match


def test_an_offer_before_the_end_is_refused_and_so_is_any_token_but_a_seats(server):
    live = server.create(ruleset="duel")
    url = f"{server.url}/matches/{live['match']}/rematch"
    refused = httpx.post(url, headers=as_seat(live["tokens"]["alice"]))
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "match_live"
    assert httpx.get(url, headers=as_seat(live["tokens"]["alice"])).json()["offers"] == []  # nothing recorded

    ended = finished_duel(server)
    url = f"{server.url}/matches/{ended['match']}/rematch"
    for headers in (as_seat(ended["spectator_token"]), as_seat(live["tokens"]["alice"]), {}, {"Authorization": "Basic YTpi"}):
        answer = httpx.post(url, headers=headers)
        assert answer.status_code == 401 and answer.json()["error"]["code"] == "unauthorized", headers
        assert answer.headers["www-authenticate"] == "Bearer"
    missing = httpx.post(f"{server.url}/matches/m_0000000000000000/rematch", headers=as_seat("x"))
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "not_found"


async def test_last_acceptances_at_once_make_one_match(server):
    seats = ["a", "b", "c"]
    created = server.create(ruleset="hourglass", seats=seats, seed=3)
    # Two of three resign: the match ends; every seat offers (resigned ones too), all at once.
    for seat in ("b", "c"):
        conn = await Raw.open(server.url, created["match"])
        assert (await conn.hello(created["tokens"][seat]))["t"] == "welcome"
        await conn.send({"t": "resign", "id": 1})
        await conn.recv_until(lambda m: m["t"] == "ack")
        await conn.close()
    url = f"{server.url}/matches/{created['match']}/rematch"
    before = created_count(server)
    async with httpx.AsyncClient(timeout=10) as client:
        answers = await asyncio.gather(*(client.post(url, headers=as_seat(created["tokens"][s])) for s in seats
                                         for _ in range(10)))
    assert all(a.status_code == 200 for a in answers), [a.text for a in answers]
    made = {a.json()["rematch"]["match"] for a in answers if a.json()["rematch"]}
    assert len(made) == 1 and created_count(server) == before + 1
    new = made.pop()
    summary = httpx.get(f"{server.url}/matches/{new}").json()
    assert summary["seats"] == ["b", "c", "a"]
    assert all(a.json()["rematch"]["match"] == new for a in answers if a.json()["rematch"])


async def test_a_rated_quick_play_match_rematches_rated_with_the_same_profiles(tmp_path):
    """A rated match is quick play's (or the operator's): its rematch binds the same profiles,
    rated, and once played it moves both ratings again."""
    server = ServerProcess(tmp_path, env={"BATTLEHALL_QUEUE_JOIN_PER_MIN": "0"}).start()
    try:
        ann = httpx.post(f"{server.url}/profiles", json={"name": "Ann Again"}).json()
        bo = httpx.post(f"{server.url}/profiles", json={"name": "Bo Again"}).json()
        async with httpx.AsyncClient(timeout=30) as http:
            tickets = []
            for who in (ann, bo):
                joined = await http.post(f"{server.url}/queue", json={"ruleset": "duel", "profile": who["profile"]},
                                         headers=as_seat(who["secret"]))
                assert joined.status_code == 201, joined.text
                tickets.append(joined.json()["ticket"])
            got = [await wait_matched(http, server.url, t) for t in tickets]
        assert all(g["rated"] for g in got)
        await play_out(server, got[0]["match"], [g["token"] for g in got])
        url = f"{server.url}/matches/{got[0]['match']}/rematch"
        httpx.post(url, headers=as_seat(got[0]["token"]))
        made = httpx.post(url, headers=as_seat(got[1]["token"])).json()["rematch"]
        tokens = [httpx.get(url, headers=as_seat(g["token"])).json()["rematch"]["token"] for g in got]
        await play_out(server, made["match"], tokens)
        for who, seat in ((ann, got[0]["seat"]), (bo, got[1]["seat"])):
            recent = await recent_until(server, who["profile"], lambda r: any(m["match"] == made["match"] for m in r))
            again = next(m for m in recent if m["match"] == made["match"])
            assert again["rated"] is True and again["seat"] == seat, again
    finally:
        server.stop()


async def play_out(server, match_id: str, tokens: list[str]) -> None:
    """Random legal answers from every seat until the match ends."""
    bots = [Client(server.url, match_id, t, seed=i) for i, t in enumerate(tokens)]
    await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 60)


async def recent_until(server, profile: str, done, within_s: float = 15) -> list[dict]:
    deadline = time.monotonic() + within_s
    while not done(recent := httpx.get(f"{server.url}/profiles/{profile}").json()["recent_matches"]):
        assert time.monotonic() < deadline, recent
        await asyncio.sleep(0.1)
    return recent


def test_a_rematch_spends_the_creation_budget_post_matches_and_bot_matches_spend(tmp_path):
    """A rematch is a creation: its last acceptance takes a token of the address's one budget,
    so a chain of rematches stops where POST /matches would, and so do bot matches."""
    server = ServerProcess(tmp_path, env={"BATTLEHALL_CREATE_BURST": "3", "BATTLEHALL_CREATE_PER_MIN": "1"}).start()
    try:
        current = finished_duel(server)  # one token
        tokens = dict(current["tokens"])
        made = []
        for _ in range(2):  # two rematches: the budget's other two tokens
            url = f"{server.url}/matches/{current['match']}/rematch"
            httpx.post(url, headers=as_seat(tokens["alice"]))
            rematch = httpx.post(url, headers=as_seat(tokens["bob"])).json()["rematch"]
            assert rematch is not None
            tokens = {seat: httpx.get(url, headers=as_seat(old)).json()["rematch"]["token"]
                      for seat, old in tokens.items()}
            current = {"match": rematch["match"]}
            made.append(rematch["match"])
            wait_finished(server, current["match"])
        url = f"{server.url}/matches/{current['match']}/rematch"
        assert httpx.post(url, headers=as_seat(tokens["alice"])).status_code == 200
        refused = httpx.post(url, headers=as_seat(tokens["bob"]))
        assert refused.status_code == 429 and refused.json()["error"]["code"] == "rate_limited", refused.text
        assert int(refused.headers["Retry-After"]) >= 1
        state = httpx.get(url, headers=as_seat(tokens["bob"])).json()
        assert state["rematch"] is None and state["waiting_for"] == ["bob"]  # the refused acceptance is not kept
        assert httpx.post(f"{server.url}/matches", json={"ruleset": "duel", "seats": ["a", "b"]}).status_code == 429
        bot = httpx.post(f"{server.url}/bot-matches", json={"ruleset": "duel"})
        assert bot.status_code == 429 and bot.json()["error"]["code"] == "rate_limited"
        assert created_count(server) == 3 and len(set(made)) == 2
    finally:
        server.stop()


def wait_finished(server, match_id: str) -> None:
    deadline = time.monotonic() + 10
    while httpx.get(f"{server.url}/matches/{match_id}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the match did not end"
        time.sleep(0.05)


async def test_on_a_server_with_an_api_key_only_matches_made_without_it_are_played_again(tmp_path):
    server = ServerProcess(tmp_path, env={"BATTLEHALL_API_KEY": "rematch-op-key"}).start()
    key = {"Authorization": "Bearer rematch-op-key"}
    try:
        made = httpx.post(f"{server.url}/matches", headers=key, json={
            "ruleset": "duel", "seats": ["alice", "bob"], "options": {"hp": 1},
            "clock": {"prompt_ms": 50, "bank_ms": 0}}).json()
        deadline = time.monotonic() + 10
        while httpx.get(f"{server.url}/matches/{made['match']}").json()["status"] != "finished":
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        url = f"{server.url}/matches/{made['match']}/rematch"
        before = created_count(server, key)
        for seat in ("alice", "bob"):
            refused = httpx.post(url, headers=as_seat(made["tokens"][seat]))
            assert refused.status_code == 403 and refused.json()["error"]["code"] == "forbidden", refused.text
        state = httpx.get(url, headers=as_seat(made["tokens"]["alice"])).json()
        assert state["allowed"] is False and state["offers"] == [] and state["rematch"] is None
        assert created_count(server, key) == before

        # A bot match needs no key: its player may play it again (the bots are always willing).
        bot = httpx.post(f"{server.url}/bot-matches", json={"ruleset": "duel"}).json()
        conn = await Raw.open(server.url, bot["match"])
        assert (await conn.hello(bot["token"]))["t"] == "welcome"
        await conn.send({"t": "resign", "id": 1})
        await conn.recv_until(lambda m: m["t"] == "event" and m["kind"] == "match_ended")
        await conn.close()
        url = f"{server.url}/matches/{bot['match']}/rematch"
        again = httpx.post(url, headers=as_seat(bot["token"])).json()
        assert again["allowed"] is True and again["rematch"] is not None, again
        assert httpx.get(f"{server.url}/matches/{again['rematch']['match']}").json()["bots"] == bot["bots"]
    finally:
        server.stop()


async def delayed_and_rematched(server) -> tuple[dict, dict]:
    """A public duel with a 2.5 s stream delay, resigned at once, and its rematch made:
    (the old match's create answer, the rematch as bob's offer answered it)."""
    created = server.create(ruleset="duel", spectators={"public": True, "delay_ms": 2500})
    conn = await Raw.open(server.url, created["match"])
    assert (await conn.hello(created["tokens"]["alice"]))["t"] == "welcome"
    await conn.send({"t": "resign", "id": 1})
    await conn.recv_until(lambda m: m["t"] == "event" and m["kind"] == "match_ended")
    await conn.close()
    url = f"{server.url}/matches/{created['match']}/rematch"
    httpx.post(url, headers=as_seat(created["tokens"]["alice"]))
    return created, httpx.post(url, headers=as_seat(created["tokens"]["bob"])).json()["rematch"]


async def test_the_rematch_of_a_delayed_match_is_listed_once_the_old_ones_end_is_public(server):
    """Listing the rematch would tell that the old match ended: it waits out the stream delay."""
    created, rematch = await delayed_and_rematched(server)

    def listed() -> set:
        return {m["match"] for m in httpx.get(f"{server.url}/matches", params={"limit": 100}).json()["matches"]}
    assert httpx.get(f"{server.url}/matches/{created['match']}").json()["status"] == "live"  # to the public
    assert rematch["match"] not in listed() and created["match"] in listed()
    deadline = time.monotonic() + 10
    while rematch["match"] not in listed():
        assert time.monotonic() < deadline, "the rematch was never listed"
        await asyncio.sleep(0.1)
    assert httpx.get(f"{server.url}/matches/{created['match']}").json()["status"] == "finished"


async def test_the_rematch_of_a_delayed_match_is_not_featured_before_the_old_ones_end_is_public(tmp_path):
    server = ServerProcess(tmp_path).start()
    try:
        created, made = await delayed_and_rematched(server)
        watcher = await Raw.open(server.url, made["match"])  # the one watched match: TV's pick once it may be
        await watcher.ws.send('{"t":"hello"}')
        assert (await watcher.recv())["role"] == "spectator"
        looks = 0
        deadline = time.monotonic() + 10
        while httpx.get(f"{server.url}/tv/featured").json()["match"] != made["match"]:
            looks += 1
            assert time.monotonic() < deadline, "the rematch was never featured"
            await asyncio.sleep(0.1)
        # Featured only once the old match's end was public, after many looks that did not.
        assert httpx.get(f"{server.url}/matches/{created['match']}").json()["status"] == "finished"
        assert looks >= 5, looks
        await watcher.close()
    finally:
        server.stop()
