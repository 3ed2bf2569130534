"""An event's caster link in Chromium: it opens its top table's cast (every hand, at the
caster delay), with the event kept so the next round's top table follows."""

from __future__ import annotations

import httpx
from playwright.async_api import expect

from tournament_players import make_players, register_all


async def test_the_event_s_caster_link_opens_its_top_table_s_cast(start_server, page):
    srv = start_server("event-cast", env={"BATTLEHALL_TOURNAMENT_CREATE_PER_MIN": "0",
                                          "BATTLEHALL_TOURNAMENT_REGISTER_PER_MIN": "0",
                                          "BATTLEHALL_CASTER_MIN_DELAY_MS": "2000"})
    created = httpx.post(f"{srv.url}/tournaments", timeout=10,
                         json={"name": "Cast Cup", "ruleset": "duel", "caster": {"delay_ms": 2000}}).json()
    tid = created["tournament"]
    register_all(srv.url, tid, make_players(srv.url, 2, prefix="Cc"))
    httpx.post(f"{srv.url}/tournaments/{tid}/start", headers={"Authorization": f"Bearer {created['organiser_token']}"})
    cast = await page(f"{srv.url}/cast/tournament/{tid}#token={created['caster_token']}")
    await cast.wait_for_url(lambda url: "/cast/m_" in url and f"event={tid}" in url, timeout=15_000)
    match = cast.url.split("/cast/")[1].split("#")[0]
    assert match == httpx.get(f"{srv.url}/tv/featured", params={"tournament": tid}).json()["match"]
    await expect(cast.locator(".view-kind")).to_have_text("caster view: every hand face up")
    await cast.wait_for_selector("main[data-status=casting]", timeout=15_000)  # the start, once it is 2 s old
    await expect(cast.locator("[data-view-of]")).to_have_count(2)
