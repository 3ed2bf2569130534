"""People leaving, as a player sees it: the moment an opponent's socket closes the page says
so (with the time left before they are marked away), and in a match that allows it a
Claim button wins it once they are away. The lobby sets what happens when a player
leaves, and Spellfire's decks with a select per seat."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import expect

OPEN = "#play[data-status=open]"


@pytest.fixture(scope="module")
def srv(start_server):
    return start_server("leaving", env={"BATTLEHALL_AWAY_GRACE_S": "4", "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"})


async def test_a_player_who_leaves_is_named_at_once_and_the_other_claims_the_win(srv, page, shoot):
    created = srv.create(ruleset="duel", when_away="claim", clock={"prompt_ms": None})
    match = created["match"]
    alice = await page(f"{srv.url}/play/{match}#token={created['tokens']['alice']}", wait_for=OPEN)
    bob = await page(f"{srv.url}/play/{match}#token={created['tokens']['bob']}", wait_for=OPEN)
    left = alice.locator(".leaving .left-seat[data-seat=bob]")
    await expect(left).to_have_count(0)  # bob is here
    await bob.context.close()
    # at once, outside the log, with the time left: not a minute of "is deciding"
    await expect(left).to_contain_text("bob disconnected — you may claim the win in 0:0", timeout=3_000)
    assert await alice.locator(".log-lines .left-seat").count() == 0
    assert await alice.locator(".board .seat-summary[data-seat=bob][data-state=disconnected]").count() == 1
    claim = alice.locator("button.claim")
    assert await claim.is_hidden()  # not before bob is marked away
    await shoot(alice, "player-page-opponent-disconnected", full_page=False)
    await expect(claim).to_be_visible(timeout=8_000)
    assert await claim.inner_text() == "Claim the win"
    await expect(alice.locator(".away-seats")).to_contain_text("Away: bob — you may claim the win")
    await claim.click()
    banner = alice.locator(".result-banner[role=status]")
    await expect(banner).to_contain_text("You won!")
    summary = httpx.get(f"{srv.url}/matches/{match}", timeout=5).json()
    assert summary["result"]["winners"] == ["alice"]
    await expect(claim).to_be_hidden()
    assert await alice.locator(".board .seat-summary.to-act").count() == 0  # nobody to act after the end


async def test_the_lobby_sets_when_away_and_each_seats_deck(srv, page):
    lobby = await page(srv.url + "/", wait_for="#create-button")
    await lobby.select_option("#ruleset", "spellfire")
    await lobby.select_option("#seat-count", "3")
    decks = lobby.locator("#opt-decks select")
    await expect(decks).to_have_count(3)
    choices = await decks.first.locator("option").all_inner_texts()
    assert choices[0] == "usual" and "embers" in choices
    await lobby.select_option("#when-away", "claim")
    await lobby.select_option("#opt-decks-0", "tides")  # one of three: the lobby asks for all or none
    await lobby.click("#create-button")
    await expect(lobby.locator("#banner")).to_contain_text("choose one for every seat")
    await lobby.select_option("#opt-decks-1", "embers")
    await lobby.select_option("#opt-decks-2", "tides")
    async with lobby.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/matches")) as answered:
        await lobby.click("#create-button")
    response = await answered.value
    assert response.status == 201
    sent = response.request.post_data_json
    assert sent["when_away"] == "claim" and sent["options"]["decks"] == ["tides", "embers", "tides"]
    summary = httpx.get(f"{srv.url}/matches/{(await response.json())['match']}", timeout=5).json()
    assert summary["when_away"] == "claim"
