"""The rematch from the player page, in Chromium against the real server: both players of
a finished duel press Rematch and both land on their own seat of one new match, whose
seats are rotated (the other player moves first)."""

from __future__ import annotations

import re

OPEN = "#play[data-status=open]"


async def test_both_players_rematch_from_the_page_and_land_in_one_new_match(server, page):
    created = server.create(ruleset="duel", options={"hp": 1}, clock={"window_min_ms": 0})
    match_id = created["match"]
    alice = await page(f"{server.url}/play/{match_id}#token={created['tokens']['alice']}", wait_for=OPEN)
    bob = await page(f"{server.url}/play/{match_id}#token={created['tokens']['bob']}", wait_for=OPEN)
    assert await alice.locator(".rematch").count() == 0  # nothing to offer while the match is live

    await alice.locator(".prompt-bar [data-option=strike]").click()  # 1 hp: one strike ends it
    offer = alice.locator(".rematch-offer")
    await offer.wait_for()
    assert await offer.inner_text() == "Offer a rematch"
    await offer.click()
    await alice.locator(".rematch-text", has_text="waiting for bob").wait_for()

    await bob.locator(".rematch-text", has_text="alice offers a rematch").wait_for()  # seen by polling
    accept = bob.locator(".rematch-offer")
    assert await accept.inner_text() == "Accept"
    await accept.click()

    pattern = re.compile(r"/play/(m_[0-9a-f]+)#token=([0-9a-f]+)$")
    def moved(url: str) -> bool:
        return bool(pattern.search(url)) and match_id not in url

    await bob.wait_for_url(moved)
    await alice.wait_for_url(moved)
    bob_at, alice_at = pattern.search(bob.url), pattern.search(alice.url)
    new_match = bob_at.group(1)
    assert new_match != match_id and alice_at.group(1) == new_match
    assert bob_at.group(2) != alice_at.group(2)  # each its own seat's token
    assert bob_at.group(2) not in created["tokens"].values()
    await bob.wait_for_selector(OPEN)
    await alice.wait_for_selector(OPEN)
    # Rotated: bob is first now, so his page offers the strike and alice's waits.
    await bob.locator(".prompt-bar [data-option=strike]").wait_for()
    assert await alice.locator(".prompt-bar [data-prompt][data-option]").count() == 0
    assert await bob.locator(".result-banner").is_hidden()
