"""Whole matches of every shipped ruleset played in a real browser: two player pages click
the board (or, where the board has no control for an option, the prompt bar), a third
page spectates, one player reloads in the middle and carries on, and the replay page steps
through the finished match. Screenshots of each page go to test-artifacts/screenshots/.

Each match starts from a small explicit position (or options) that ends in a few moves."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest
from play_driver import bar_move, board_move, prompt_key, shot
from playwright.async_api import expect

SPELLFIRE_SETUP = {"players": {
    "alice": {"formation": {"A": {"realm": "emberhold"}},
              "hand": ["amberfield", "torvald-ironhand", "sword-of-morning-star", "hillfolk-skirmishers"]},
    "bob": {"formation": {"A": {"realm": "ironbridge"}}, "pool": [{"champion": "archmage-quillon"}],
            "hand": ["sudden-rout", "mind-spike"]}}}
HOURGLASS_SETUP = {"battles": [{"tile": "ford", "knights": {"alice": 2, "bob": 1}, "bandits": 1}]}
DEMIGOD_SETUP = {
    "map": {"width": 5, "height": 4, "terrain": [[2, 0]]},
    "units": [{"id": "kaelen", "side": "alice", "kind": "demigod", "name": "Kaelen", "pos": [1, 1], "hp": 20},
              {"id": "morwen", "side": "bob", "kind": "demigod", "name": "Morwen", "pos": [2, 2], "hp": 18},
              {"id": "ghoul", "side": "bob", "kind": "minion", "name": "Ghoul", "pos": [4, 3], "hp": 6}],
    "hands": {"alice": ["Strike", "Fireball"], "bob": ["Parry", "Guard"]}}

# One small match per ruleset (the create body's ruleset, options and setup).
MATCHES = {
    "duel": {"ruleset": "duel", "options": {"hp": 6}},
    "spellfire": {"ruleset": "spellfire", "options": {"realms_to_win": 2}, "setup": SPELLFIRE_SETUP},
    "hourglass": {"ruleset": "hourglass", "options": {"alliances": False, "battle_turn_limit": 3},
                  "setup": HOURGLASS_SETUP},
    "demigod": {"ruleset": "demigod", "options": {"turn_limit": 1, "reaction_ms": 5000}, "setup": DEMIGOD_SETUP},
}
OPEN = "#play[data-status=open]"
# What a screenshot of the middle of a match waits for: a battle, cards face down, a target to aim at.
MIDGAME = {"duel": ".duel-fighter.acting .duel-move", "spellfire": ".sf-defender .sf-fighter",
           "hourglass": ".hg-current .hg-card.back", "demigod": ".dg-cell.mark-target"}


async def play_to_the_end(ruleset: str, players: dict) -> tuple[int, int, int]:
    """Each page in turn does what its board offers, or answers from the prompt bar (after
    a few board clicks with the same prompts open, or when the board offers nothing).
    Alice's page is reloaded after the third click. Returns the board and bar clicks, and
    how many times a reaction window was seen marked in a prompt bar."""
    tries: dict = {}
    board = bar = 0
    reloaded = shot_taken = False
    windows = 0
    deadline = time.monotonic() + 30
    while not all([await p.locator("[data-result]").count() for p in players.values()]):
        if time.monotonic() > deadline:
            for seat, page in players.items():
                await shot(page, f"{ruleset}-stuck-{seat}")
            raise AssertionError(f"{ruleset}: the match did not end")
        moved = False
        for seat, page in players.items():
            windows += await page.locator(".prompt.window .window-badge").count()
            await page.wait_for_selector("#play:not([data-busy])")  # nothing on its way to the page
            key = await prompt_key(page)
            if not key:
                continue
            n = tries[seat, key] = tries.get((seat, key), 0) + 1
            if n <= 4 and await board_move(page, ruleset):
                board += 1
            elif await bar_move(page):
                bar += 1
            else:
                continue
            moved = True
            await page.wait_for_timeout(40)
        if not shot_taken:  # the page of the player deciding, if it shows what is wanted
            for page in sorted(players.values(), key=lambda p: p == players["alice"]):
                if await page.locator(MIDGAME[ruleset]).count() and await prompt_key(page):
                    await shot(page, f"{ruleset}-player-midgame", full_page=False)
                    shot_taken = True
                    break
        if not reloaded and board + bar >= 3:
            # A reload in the middle: the page resumes where it was, with its log from the start.
            page = players["alice"]
            before = await page.locator(".log-lines li").count()
            await page.reload()
            await page.wait_for_selector(OPEN)
            await page.wait_for_function("n => document.querySelectorAll('.log-lines li').length >= n", arg=before)
            reloaded = True
        if not moved:
            await players["alice"].wait_for_timeout(50)
    assert reloaded
    return board, bar, windows


@pytest.mark.parametrize("ruleset", list(MATCHES))
async def test_a_whole_match_in_the_browser(server, page, ruleset):
    body = {"seats": ["alice", "bob"], "seed": 5, **MATCHES[ruleset],
            "clock": {"prompt_ms": 60_000, "bank_ms": 60_000, "window_min_ms": 0}}
    created = server.create(**body)
    match_id = created["match"]
    alice, bob, spectator = await asyncio.gather(
        page(f"{server.url}/play/{match_id}#token={created['tokens']['alice']}", wait_for=OPEN),
        page(f"{server.url}/play/{match_id}#token={created['tokens']['bob']}", wait_for=OPEN),
        page(f"{server.url}/watch/{match_id}#token={created['spectator_token']}"))
    players = {"alice": alice, "bob": bob}

    board, bar, windows = await play_to_the_end(ruleset, players)
    assert board > 0, f"{ruleset}: nothing was played from the board"
    if ruleset == "demigod":  # alice's first attack opens a reaction window for bob
        assert windows > 0

    summary = httpx.get(f"{server.url}/matches/{match_id}", timeout=5).json()
    assert summary["status"] == "finished"
    for seat, p in players.items():
        await p.wait_for_function("s => Number(document.querySelector('#play').dataset.seq) >= s", arg=summary["seq"])
        banner = await p.locator("[data-result]").inner_text()
        assert ("You won" in banner) == (seat in summary["result"]["winners"]), banner
        assert await p.locator(".log-lines li").count() > 3
        # What its last answer spent of its clock, from that answer's ack.
        # (the ack's promise may settle after the frames that ended the match are drawn: wait for it)
        await expect(p.locator(".clock-record")).to_contain_text("time used")
    await shot(alice, f"{ruleset}-player-end")

    # The spectator saw the whole match live, with no controls.
    await spectator.wait_for_selector("[data-result]")
    assert await spectator.locator("[data-prompt][data-option]").count() == 0
    if ruleset == "spellfire":  # the hands are shown face down, under the page's own styles
        assert await spectator.locator(".sf-hand-hidden .sf-back").first.is_visible()
    await shot(spectator, f"{ruleset}-spectator")

    # The replay page steps through the finished match, opened by the player's link to it,
    # which carries the player's token (the match is private).
    href = await alice.locator("[data-result] a").get_attribute("href")
    assert href == f"/replay/{match_id}#token={created['tokens']['alice']}"
    replay = await page(f"{server.url}{href}", wait_for="main[data-status=ready]")
    step = await replay.locator("main").get_attribute("data-step")
    await replay.locator("#forward").click()
    await replay.wait_for_function("s => document.querySelector('main').dataset.step !== s", arg=step)
    assert "lag credited" in await replay.locator("#step-clock").inner_text()  # the answer's clock record
    await shot(replay, f"{ruleset}-replay")
