"""A judge's rewind as a player sees it: the page says the match was taken back and links
to the match that goes on, which the same token plays."""

from __future__ import annotations

import httpx
from playwright.async_api import expect
from test_cast_page import API_KEY

from wsutil import Raw

OPEN = "#play[data-status=open]"
AUTH = {"Authorization": f"Bearer {API_KEY}"}


async def test_a_rewound_match_sends_its_players_on_to_the_new_one(keyed_server, page, shoot):
    created = httpx.post(f"{keyed_server.url}/matches", headers=AUTH, timeout=10,
                         json={"ruleset": "duel", "seats": ["alice", "bob"], "clock": {"prompt_ms": None}}).json()
    match = created["match"]
    alice = await page(f"{keyed_server.url}/play/{match}#token={created['tokens']['alice']}", wait_for=OPEN)
    sock = await Raw.open(keyed_server.url, match)  # alice's second socket answers for her
    await sock.send({"t": "hello", "token": created["tokens"]["alice"]})
    welcome = await sock.recv()
    await sock.send({"t": "act", "id": "x1", "prompt": welcome["prompts"][0]["id"], "option": "guard"})
    await sock.recv_until(lambda m: m["t"] == "ack")
    r = httpx.post(f"{keyed_server.url}/matches/{match}/rewind", headers=AUTH,
                   json={"entry": 1, "judge": "jo", "reason": "wrong button"})
    assert r.status_code == 201, r.text
    new = r.json()["match"]
    banner = alice.locator(".result-banner[data-result=judge_rewind]")
    await expect(banner).to_contain_text("A judge took the match back.")
    link = banner.get_by_role("link", name="Go on playing")
    await expect(link).to_have_attribute("href", f"/play/{new}#token={created['tokens']['alice']}")
    await shoot(alice, "player-page-rewound", full_page=False)
    await link.click()
    await alice.wait_for_selector(OPEN)
    assert new in alice.url
    # The same seat, at the start again: its first prompt is open to it.
    await expect(alice.get_by_role("region", name="Your decisions")).to_contain_text("Guard")
    await sock.ws.close()
