"""The guest profile in the lobby, the player page and the leaderboard page in a real
Chromium, against a real server with bots playing a rated duel over real sockets."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest
import redis.asyncio as aioredis

from battlehall.client import Client
from battlehall.engine.ruleset import make_result
from battlehall.server.players.ratings import settle
from battlehall.server.storage import profiles as keys
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from battlehall.server.storage.ratings import RatingRecords
from battlehall.server.storage.store import key, pack

API_KEY = "player-pages-key"


def quiet(_line: str) -> None:
    pass


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    redis = EmbeddedRedis(tmp_path_factory.mktemp("pages-redis")).start()
    yield redis.url
    redis.stop()


@pytest.fixture(scope="module")
def srv(start_server, redis_url):
    # With an API key: a rated POST /matches is the operator's (docs/protocol.md "Binding seats to profiles").
    return start_server("players", redis_url=redis_url, env={"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0",
                                                            "BATTLEHALL_API_KEY": API_KEY})


async def stored_profile(lobby) -> dict:
    await lobby.wait_for_selector("#me-shown")
    return json.loads(await lobby.evaluate("localStorage.getItem('battlehall.profile')"))


async def test_the_lobby_makes_a_guest_profile_once_and_renames_it(srv, page, shoot):
    lobby = await page(srv.url + "/")
    mine = await stored_profile(lobby)
    assert mine["profile"].startswith("p_") and len(mine["secret"]) >= 32
    assert await lobby.inner_text("#me-shown") == f"{mine['name']}#{mine['tag']}"
    assert mine["tag"] == mine["profile"][2:6]
    await lobby.reload()
    assert (await stored_profile(lobby))["profile"] == mine["profile"]  # the same player on the next visit
    await lobby.fill("#me-name", "x" * 3 + "\u202e")
    await lobby.click("#me-rename button")
    await lobby.wait_for_selector("#me-message:has-text('name')")
    assert httpx.get(f"{srv.url}/profiles/{mine['profile']}").json()["name"] == mine["name"]
    await lobby.fill("#me-name", "Zoë Lobby")
    await lobby.click("#me-rename button")
    await lobby.wait_for_selector("#me-shown:has-text('Zoë Lobby')")
    assert httpx.get(f"{srv.url}/profiles/{mine['profile']}").json()["name"] == "Zoë Lobby"
    assert (await stored_profile(lobby))["name"] == "Zoë Lobby"
    await shoot(lobby, "lobby-profile")


async def test_an_html_name_is_refused_and_one_in_redis_is_shown_as_text(srv, redis_url, page):
    payload = '<img src=x onerror="window.pwned=1"><b>bold</b>'
    refused = httpx.post(f"{srv.url}/profiles", json={"name": payload})
    assert refused.status_code == 400 and refused.json()["error"]["path"] == "name"
    # A name that bypassed the checks (written into Redis by hand) is still only text.
    made = httpx.post(f"{srv.url}/profiles", json={"name": "Plain"}).json()
    r = aioredis.from_url(redis_url)
    try:
        await r.hset(keys.profile_key(made["profile"]), "name", payload)
    finally:
        await r.aclose()
    player = await page(f"{srv.url}/player/{made['profile']}", wait_for="main[data-status=ready]")
    assert await player.inner_text("#name") == f"{payload}#{made['tag']}"
    assert await player.locator("main img, main b").count() == 0
    assert await player.evaluate("window.pwned") is None


async def test_a_rated_duel_shows_on_the_leaderboard_and_the_player_pages(srv, page, shoot):
    lobby = await page(srv.url + "/")
    mine = await stored_profile(lobby)
    other = httpx.post(f"{srv.url}/profiles", json={"name": "Bo Board"}).json()
    body = {"ruleset": "duel", "seats": ["alice", "bob"], "seed": 4, "rated": True,
            "profiles": {"alice": {"profile": mine["profile"], "secret": mine["secret"]},
                         "bob": {"profile": other["profile"], "secret": other["secret"]}}}
    created = httpx.post(f"{srv.url}/matches", json=body, headers={"Authorization": f"Bearer {API_KEY}"}).json()
    bots = [Client(srv.url, created["match"], t, seed=i, on_status=quiet) for i, t in enumerate(created["tokens"].values())]
    await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 60)
    deadline = time.monotonic() + 10
    ratings = {}
    for profile in (mine["profile"], other["profile"]):
        while "duel" not in (shown := httpx.get(f"{srv.url}/profiles/{profile}").json())["ratings"]:
            assert time.monotonic() < deadline
            await asyncio.sleep(0.1)
        ratings[profile] = shown["ratings"]["duel"]["rating"]
        readable = shown["ratings"]["duel"]
        assert readable["provisional"] is True and readable["display"] == round(1500 + 20 * readable["rating"])
        recent = shown["recent_matches"][0]
        assert (recent["display_before"], recent["display_after"]) == (1500, readable["display"])
    assert ratings[mine["profile"]] != ratings[other["profile"]]
    displays = {profile: round(1500 + 20 * rating) for profile, rating in ratings.items()}

    # The seat's own play page, in the browser whose profile played it: the result and the
    # signed change of its rating in one status block.
    summary = httpx.get(f"{srv.url}/matches/{created['match']}").json()
    await lobby.goto(f"{srv.url}/play/{created['match']}#token={created['tokens']['alice']}")
    banner = lobby.locator(".result-banner[role=status]")
    change = displays[mine["profile"]] - 1500
    await banner.locator(".rating-change", has_text="Rating").wait_for()
    text = await banner.inner_text()
    winners = summary["result"]["winners"]
    assert text.startswith("You won" if "alice" in winners else "You lost" if winners else "Draw"), text
    assert f"Rating 1500 → {displays[mine['profile']]} ({'+' if change >= 0 else '−'}{abs(change)})" in text, text

    board = await page(f"{srv.url}/leaderboard/duel", wait_for="main[data-status=ready]")
    for profile, rating in ratings.items():
        row = board.locator(f"#board tr[data-profile='{profile}']")
        # The readable scale with the provisional mark, the raw conservative rating in the tooltip.
        assert await row.locator(".rating").inner_text() == f"{displays[profile]}?"
        assert await row.locator(".rating abbr").get_attribute("title") == "provisional: few rated matches yet"
        assert await row.locator(".rating").get_attribute("title") == f"conservative rating {rating:.2f}"
        assert await row.locator("a.name").get_attribute("href") == f"/player/{profile}"
    names = await board.locator("#board tbody a.name").all_inner_texts()
    best = max(ratings, key=ratings.get)
    assert names[0] == (f"{mine['name']}#{mine['tag']}" if best == mine["profile"] else f"Bo Board#{other['tag']}")
    await shoot(board, "leaderboard")

    await board.click(f"#board tr[data-profile='{other['profile']}'] a.name")
    await board.wait_for_selector("main[data-status=ready]")
    assert await board.inner_text("#name") == f"Bo Board#{other['tag']}"
    theirs = displays[other["profile"]]
    assert await board.inner_text(".ruleset-rating[data-ruleset=duel] .rating") == f"{theirs}?"
    assert "provisional" in await board.inner_text(".ruleset-rating[data-ruleset=duel] h3")
    change = theirs - 1500
    assert await board.inner_text(f"#recent tr[data-match='{created['match']}'] td.change") == \
        f"1500 → {theirs} ({'+' if change >= 0 else '−'}{abs(change)})"
    replay = board.locator(f"#recent tr[data-match='{created['match']}'] a:has-text('replay')")
    assert await replay.get_attribute("href") == f"/replay/{created['match']}"
    players = board.locator(f"#recent tr[data-match='{created['match']}'] td.players")
    assert await players.inner_text() == f"{mine['name']}#{mine['tag']}, Bo Board#{other['tag']}"
    assert await players.locator("a").nth(0).get_attribute("href") == f"/player/{mine['profile']}"
    await shoot(board, "player")


async def test_two_players_of_one_name_are_told_apart_by_their_tags(srv, redis_url, page, shoot):
    twins = [httpx.post(f"{srv.url}/profiles", json={"name": name}).json() for name in ("Twin", "\u0422win")]
    assert twins[0]["tag"] != twins[1]["tag"]  # "Twin", and one with a Cyrillic T
    meta = {"ruleset": "hourglass", "seats": ["a", "b"], "rated": True,
            "profiles": {"a": twins[0]["profile"], "b": twins[1]["profile"]}}
    r = aioredis.from_url(redis_url)
    try:
        for seq, seat in enumerate(["a", "b", "a", "b"], 1):
            entry = {"seq": seq, "last_seq": seq, "at": seq, "seat": seat, "prompt": f"p{seq}",
                     "option": "x", "args": {}, "act": seq}
            await r.xadd(key("m_twins0000000000", "log"), {"e": pack(entry), "v": pack([])}, id=f"{seq}-0")
        assert await settle(RatingRecords(r), "m_twins0000000000", meta, make_result("fell", [["a"], ["b"]]), 60)
    finally:
        await r.aclose()
    shown = [f"{name}#{made['tag']}" for name, made in zip(("Twin", "\u0422win"), twins)]
    board = await page(f"{srv.url}/leaderboard/hourglass", wait_for="main[data-status=ready]")
    assert sorted(await board.locator("#board tbody a.name").all_inner_texts()) == sorted(shown)
    assert await board.locator("#board tbody a.name .tag").all_inner_texts() != []
    await shoot(board, "leaderboard-twins")
    player = await page(f"{srv.url}/player/{twins[0]['profile']}", wait_for="main[data-status=ready]")
    assert await player.inner_text("#name") == shown[0]
    assert await player.inner_text("#recent td.players") == ", ".join(shown)
