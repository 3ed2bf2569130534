"""Rematch over HTTP against the real server and its real Redis: offers only after the end,
only with a seat's token, one new match however many acceptances arrive at once, its
seats rotated, and each seat told only its own new token."""

from __future__ import annotations

import asyncio
import time

import re

import httpx


def finished_duel(server, **body) -> dict:
    """A duel at 1 hp whose first prompt times out to its default (strike): over at once."""
    created = server.create(ruleset="duel", options={"hp": 1}, clock={"prompt_ms": 50, "bank_ms": 0}, **body)
    deadline = time.monotonic() + 10
    while httpx.get(f"{server.url}/matches/{created['match']}").json()["status"] != "finished":
        assert time.monotonic() < deadline, "the duel did not end"
        time.sleep(0.05)
    return created


def created_count(server) -> int:
    text = httpx.get(f"{server.url}/metrics").text
    return int(float(re.search(r"^battlehall_matches_created_total (\S+)$", text, re.M).group(1)))


def as_seat(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def test_two_seats_offer_and_get_one_rotated_match_each_with_only_its_own_token(server):
    created = finished_duel(server, spectators={"delay_ms": 0, "public": True}, label={"event": "cup"})
    url = f"{server.url}/matches/{created['match']}/rematch"
    alice, bob = created["tokens"]["alice"], created["tokens"]["bob"]

    first = httpx.post(url, headers=as_seat(alice))
    assert first.status_code == 200, first.text
    assert first.json() == {"match": created["match"], "seat": "alice", "ended": True, "offers": ["alice"],
                            "waiting_for": ["bob"], "rematch": None}
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
    from wsutil import Raw
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


def test_a_rated_match_rematches_rated_with_the_same_profiles(server):
    ann = httpx.post(f"{server.url}/profiles", json={"name": "Ann Again"}).json()
    bo = httpx.post(f"{server.url}/profiles", json={"name": "Bo Again"}).json()
    created = finished_duel(server, rated=True,
                            profiles={"alice": {"profile": ann["profile"], "secret": ann["secret"]},
                                      "bob": {"profile": bo["profile"], "secret": bo["secret"]}})
    url = f"{server.url}/matches/{created['match']}/rematch"
    httpx.post(url, headers=as_seat(created["tokens"]["alice"]))
    new = httpx.post(url, headers=as_seat(created["tokens"]["bob"])).json()["rematch"]["match"]
    # Both played and rated: each profile lists the rematch, rated, as the seat it had.
    deadline = time.monotonic() + 15
    while True:
        recent = httpx.get(f"{server.url}/profiles/{bo['profile']}").json()["recent_matches"]
        if any(m["match"] == new for m in recent):
            break
        assert time.monotonic() < deadline, recent
        time.sleep(0.1)
    again = next(m for m in recent if m["match"] == new)
    assert again["rated"] is True and again["seat"] == "bob", again
    assert any(m["match"] == new for m in httpx.get(f"{server.url}/profiles/{ann['profile']}").json()["recent_matches"])
