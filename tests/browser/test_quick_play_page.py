"""Quick play in the lobby, in real Chromium: two people press Play now for the same
ruleset and seat count, wait, land on the same match's player pages and play it out; each
joins with this browser's guest profile, so the match is rated."""

from __future__ import annotations

import asyncio
import time

import httpx
from play_driver import bar_move, board_move, prompt_key, shot

OPEN = "#play[data-status=open]"


async def play_out(ruleset: str, pages: list, within_s: float = 60) -> None:
    """Each page does what its board offers, else answers from the prompt bar, until both
    show the result."""
    tries: dict = {}
    deadline = time.monotonic() + within_s
    while not all([await p.locator("[data-result]").count() for p in pages]):
        assert time.monotonic() < deadline, f"{ruleset}: the match did not end"
        moved = False
        for i, page in enumerate(pages):
            await page.wait_for_selector("#play:not([data-busy])")
            key = await prompt_key(page)
            if not key:
                continue
            n = tries[i, key] = tries.get((i, key), 0) + 1
            if (n <= 4 and await board_move(page, ruleset)) or await bar_move(page):
                moved = True
                await page.wait_for_timeout(40)
        if not moved:
            await pages[0].wait_for_timeout(50)


async def test_two_players_press_play_now_and_meet_in_one_rated_match(server, page):
    lobbies = await asyncio.gather(*(page(server.url + "/", wait_for="[data-play=duel]") for _ in range(2)))
    await asyncio.gather(*(p.wait_for_selector("#me[data-profile]") for p in lobbies))
    first, second = lobbies
    profiles = [await p.get_attribute("#me[data-profile]", "data-profile") for p in lobbies]
    asked = []  # every request of the first page, to see where its ticket goes
    first.on("request", lambda r: asked.append(r))
    await first.select_option("#queue-seats-duel", "2")
    async with first.expect_request(lambda r: r.method == "POST" and r.url.endswith("/queue")) as joined:
        await first.click("[data-play=duel]")
    sent = await joined.value
    stored = await first.evaluate("() => JSON.parse(localStorage.getItem('battlehall.profile'))")
    assert sent.post_data_json["profile"] == profiles[0] == stored["profile"]
    assert (await sent.all_headers())["authorization"] == f"Bearer {stored['secret']}"  # the proof
    ticket = (await (await sent.response()).json())["ticket"]
    await first.wait_for_selector("#queue-wait:not([hidden]) #queue-cancel")
    await first.wait_for_function("() => document.getElementById('queue-waited').textContent === '1 s'")
    await shot(first, "lobby-quick-play-waiting")
    pressed = time.monotonic()
    await second.click("[data-play=duel]")
    await asyncio.gather(*(p.wait_for_url("**/play/m_*", timeout=10_000) for p in lobbies))
    await asyncio.gather(*(p.wait_for_selector(OPEN) for p in lobbies))
    assert time.monotonic() - pressed < 5, "pairing took more than a few seconds"
    matches = {p.url.split("/play/")[1].split("#")[0] for p in lobbies}
    assert len(matches) == 1, f"two different matches: {matches}"
    assert all("#token=" in p.url for p in lobbies)
    # The ticket (a secret: it gets the seat token) went in a header, never in an address a proxy logs.
    waits = [r for r in asked if r.method == "GET" and r.url.split("?")[0].endswith("/queue")]
    assert waits and all([(await r.all_headers())["authorization"] == f"Bearer {ticket}" for r in waits])
    assert not [r.url for r in asked if ticket in r.url]
    await play_out("duel", lobbies)
    summary = httpx.get(f"{server.url}/matches/{matches.pop()}", timeout=5).json()
    assert summary["status"] == "finished" and summary["label"] == {"queue": "quick play"}
    names = [httpx.get(f"{server.url}/profiles/{p}", timeout=5).json()["name"] for p in profiles]
    assert sorted(summary["seats"]) == sorted(names)  # each seat named after its guest player
    await shot(first, "quick-play-end")
    deadline = time.monotonic() + 10
    for profile in profiles:  # rated once at its end
        while not (shown := httpx.get(f"{server.url}/profiles/{profile}", timeout=5).json())["ratings"]:
            assert time.monotonic() < deadline, shown
            await asyncio.sleep(0.1)
        assert shown["ratings"]["duel"]["matches"] == 1


async def test_cancel_leaves_the_queue(server, page):
    lobby = await page(server.url + "/", wait_for="[data-play=hourglass]")
    await lobby.select_option("#queue-seats-hourglass", "4")
    await lobby.click("[data-play=hourglass]")
    await lobby.wait_for_selector("#queue-cancel")
    async with lobby.expect_response(lambda r: r.request.method == "DELETE" and r.url.endswith("/queue")) as left:
        await lobby.click("#queue-cancel")
    answer = await (await left.value).json()
    assert answer["state"] == "left"  # the server let the ticket go
    # ...named in the Authorization header, not in the address
    assert (await (await left.value).request.all_headers())["authorization"] == f"Bearer {answer['ticket']}"
    await lobby.wait_for_selector("#queue-choices:not([hidden])")
    assert await lobby.locator("#queue-wait").is_hidden()
    await lobby.wait_for_function("() => document.getElementById('main').dataset.queue === 'idle'")
