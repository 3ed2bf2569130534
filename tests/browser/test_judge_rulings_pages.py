"""A judge's rulings from the pages, in Chromium against a real server: the judge page
awards a game loss (refused without a reason first), the replay tells it in words; the
tournament page lists the judges' rulings and its replacement form replaces a player
from the next round; axe-core finds nothing serious on either page."""

from __future__ import annotations

import time

import httpx
from playwright.async_api import expect
from test_accessibility import violations
from test_cast_page import API_KEY

from tournament_players import make_players, register_all

AUTH = {"Authorization": f"Bearer {API_KEY}"}
CASTING = "main[data-status=casting]"


async def test_the_judge_page_awards_a_game_loss_and_the_replay_says_so(keyed_server, page, shoot):
    base = keyed_server.url
    created = httpx.post(f"{base}/matches", headers=AUTH, timeout=10,
                         json={"ruleset": "duel", "seats": ["alice", "bob"], "clock": {"prompt_ms": None}}).json()
    match = created["match"]
    judge = httpx.post(f"{base}/judges", headers=AUTH, json={"name": "jo"}).json()["token"]
    judged = await page(f"{base}/judge/{match}#token={judge}", wait_for=CASTING)
    loss = judged.get_by_role("button", name="Game loss to alice")
    await loss.click()
    await expect(judged.locator("#banner")).to_contain_text("A ruling needs a reason")
    assert httpx.get(f"{base}/matches/{match}", timeout=10).json()["result"] is None  # nothing was sent
    await judged.fill("#judge-reason", "looked at the deck")
    await shoot(judged, "judge-page-rulings", full_page=False)
    assert await violations(judged) == []
    await loss.click()
    await expect(judged.locator("#judge .judge-log li").last).to_contain_text(
        "game loss to alice by jo: looked at the deck")
    result = httpx.get(f"{base}/matches/{match}", timeout=10).json()["result"]
    assert result["reason"] == "judge_ruling" and result["winners"] == ["bob"]

    steps = len(httpx.get(f"{base}/matches/{match}/replay", headers=AUTH, timeout=10).json()["log"])
    replay = await page(f"{base}/replay/{match}#token={created['spectator_token']}&step={steps}",
                        wait_for="main[data-status=ready]")
    await expect(replay.locator("#step-text")).to_have_text(
        "Judge jo ruled a game loss to alice: “looked at the deck”. The match ends with that result.")
    await expect(replay.locator("#log li").last).to_have_text(
        "A judge ruled a game loss to alice: bob wins. (jo: “looked at the deck”)")


def wait_for(base: str, tid: str, done) -> dict:
    deadline = time.monotonic() + 20
    while True:
        shown = httpx.get(f"{base}/tournaments/{tid}", timeout=10).json()
        if done(shown):
            return shown
        assert time.monotonic() < deadline, shown
        time.sleep(0.1)


async def test_the_tournament_page_lists_the_rulings_and_replaces_a_player(keyed_server, page, shoot):
    base = keyed_server.url
    players = make_players(base, 2, prefix="Tp")
    newcomer, = make_players(base, 1, prefix="New")
    created = httpx.post(f"{base}/tournaments", headers=AUTH, timeout=10,
                         json={"name": "Judged Cup", "ruleset": "duel", "rounds": 2,
                               "clock": {"prompt_ms": 60000, "bank_ms": 0}}).json()
    tid = created["tournament"]
    register_all(base, tid, players)
    assert httpx.post(f"{base}/tournaments/{tid}/start", headers=AUTH, timeout=10).status_code == 200
    judge = httpx.post(f"{base}/tournaments/{tid}/judges", json={"name": "jo"}, headers=AUTH,
                       timeout=10).json()["token"]
    shown = wait_for(base, tid, lambda s: s["rounds"] and s["rounds"][0]["tables"][0]["playing"])
    voided = shown["rounds"][0]["tables"][0]["playing"]["match"]
    r = httpx.post(f"{base}/matches/{voided}/ruling", json={"ruling": "void", "reason": "wrong deck"},
                   headers={"Authorization": f"Bearer {judge}"}, timeout=10)
    assert r.status_code == 200, r.text
    wait_for(base, tid, lambda s: s["judged"])

    viewer = await page(f"{base}/tournaments/{tid}#judge={judge}", wait_for="main[data-status=running]")
    rulings = viewer.get_by_role("region", name="Judges' rulings")
    await expect(rulings.locator("li")).to_have_text(
        ["Judge jo voided the game at table 1 (round 1, game 1): it is played again: “wrong deck”."])
    await viewer.select_option("#replace-player", players[0].profile)
    await viewer.fill("#replace-by", newcomer.profile)
    await viewer.fill("#replace-reason", "fell ill")
    await viewer.get_by_role("button", name="Replace").click()
    await expect(viewer.locator("#replace-said")).to_have_text(
        "The replacement is entered: it takes effect from the next round.")
    await expect(rulings.locator("li")).to_have_count(3)  # the void, the replacement, and it waiting
    await expect(rulings.locator("li[data-action=replace]")).to_contain_text(
        f"replaced {players[0].name} by {newcomer.name} from the next round: “fell ill”")
    await shoot(viewer, "tournament-judges-rulings", full_page=False)
    assert await violations(viewer) == []
    event = httpx.get(f"{base}/tournaments/{tid}", timeout=10).json()
    assert event["replacing"] == [{"player": players[0].profile, "replacement": newcomer.profile,
                                   "name": newcomer.name}]
