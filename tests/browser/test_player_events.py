"""The player page lists the tournaments the player entered, each linking to its page."""

from __future__ import annotations

import httpx
from playwright.async_api import expect

from tournament_players import make_players, register_all


async def test_the_player_page_lists_the_player_s_tournaments(start_server, page):
    srv = start_server("player-events", env={"BATTLEHALL_TOURNAMENT_CREATE_PER_MIN": "0"})
    created = httpx.post(f"{srv.url}/tournaments", json={"name": "Sunday Swiss", "ruleset": "duel"}, timeout=10).json()
    ana, = make_players(srv.url, 1, prefix="Ev")
    register_all(srv.url, created["tournament"], [ana])
    shown = await page(f"{srv.url}/player/{ana.profile}", wait_for="main[data-status=ready]")
    events = shown.get_by_role("region", name="Tournaments")
    link = events.get_by_role("link", name="Sunday Swiss")
    await expect(link).to_have_attribute("href", f"/tournaments/{created['tournament']}")
    await expect(events.locator(f"tr[data-tournament='{created['tournament']}']")).to_contain_text("registering")
