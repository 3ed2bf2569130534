"""The player page beyond a whole match: keyboard play, the countdown turning into the time
bank, the default named, who else is deciding, a server restart ridden out, a wrong link
said plainly, the prompt bar's combinations, a phone-sized window, and resigning with a confirm step."""

from __future__ import annotations

import httpx
import pytest

OPEN = "#play[data-status=open]"


async def test_keyboard_play_and_the_time_bank(server, page):
    created = server.create(ruleset="duel", options={"hp": 20},
                            clock={"prompt_ms": 600, "bank_ms": 60_000, "window_min_ms": 0})
    match_id = created["match"]
    alice = await page(f"{server.url}/play/{match_id}#token={created['tokens']['alice']}", wait_for=OPEN)
    bob = await page(f"{server.url}/play/{match_id}#token={created['tokens']['bob']}", wait_for=OPEN)

    # The prompt's own time runs out: the clock becomes the time bank (the rope).
    rope = alice.locator(".prompt-bar .clock.rope")
    await rope.wait_for()
    assert "time bank" in await rope.inner_text()
    assert "Strike" in await alice.locator(".prompt-bar .default").inner_text()  # the default, named
    # bob sees that alice is deciding, and her clock.
    assert "alice is deciding" in await bob.locator(".prompt-bar .others").inner_text()

    # Tab reaches every option; Enter answers with the focused one.
    for _ in range(40):
        await alice.keyboard.press("Tab")
        if await alice.evaluate("() => document.activeElement.dataset.option") == "guard":
            break
    else:
        raise AssertionError("Tab never reached the Guard button")
    await alice.keyboard.press("Enter")
    await alice.locator(".log-lines li", has_text="You raised a guard").wait_for()
    await bob.locator(".log-lines li", has_text="alice raised a guard").wait_for()
    # Now bob decides, and alice waits.
    await bob.locator(".prompt-bar [data-option=strike]").wait_for()
    assert await alice.locator(".prompt-bar [data-prompt][data-option]").count() == 0


async def test_the_page_rides_out_a_server_restart(start_server, page):
    """The server dies mid-match: the page says it is reconnecting, and when the server is
    back it carries on from where it was, its log whole, without a reload."""
    srv = start_server("restart", env={"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"})
    created = srv.create(ruleset="duel", options={"hp": 30})
    match_id = created["match"]
    alice = await page(f"{srv.url}/play/{match_id}#token={created['tokens']['alice']}", wait_for=OPEN)
    await alice.locator(".prompt-bar [data-option=guard]").click()
    await alice.locator(".log-lines li", has_text="You raised a guard").wait_for()
    lines = await alice.locator(".log-lines li").count()

    srv.kill()
    await alice.wait_for_selector("#play[data-status=reconnecting]")
    assert "reconnecting" in (await alice.locator(".status").inner_text()).lower()
    srv.start()
    await alice.wait_for_selector(OPEN, timeout=30_000)

    # bob answers on the restarted server; alice's page shows it and asks her again.
    bob = await page(f"{srv.url}/play/{match_id}#token={created['tokens']['bob']}", wait_for=OPEN)
    await bob.locator(".prompt-bar [data-option=guard]").click()
    await alice.locator(".log-lines li", has_text="bob raised a guard").wait_for()
    await alice.locator(".prompt-bar [data-option=strike]").wait_for()
    assert await alice.locator(".log-lines li").count() == lines + 1
    srv.stop()


async def test_a_wrong_token_is_said_plainly(server, page):
    created = server.create(ruleset="duel")
    wrong = await page(f"{server.url}/play/{created['match']}#token=not-a-token")
    await wrong.wait_for_selector("#play[data-status=closed]")
    assert "token does not belong to this match" in await wrong.locator(".notice").inner_text()
    gone = await page(f"{server.url}/play/m_0000000000000000#token=x")
    await gone.wait_for_selector("#play[data-status=closed]")
    assert "no such match" in await gone.locator(".notice").inner_text()


async def test_the_prompt_bar_offers_only_legal_combinations(server, page):
    """Hourglass: the Attacker places one card and discards another (an option with combos).
    Whatever card is picked in the bar, the discard list leaves it out, and the answer sent
    is accepted."""
    created = server.create(ruleset="hourglass", options={"alliances": False, "battle_turn_limit": 3},
                            setup={"battles": [{"tile": "ford", "knights": {"alice": 1, "bob": 1}}]})
    match_id = created["match"]
    alice = await page(f"{server.url}/play/{match_id}#token={created['tokens']['alice']}", wait_for=OPEN)
    bob = await page(f"{server.url}/play/{match_id}#token={created['tokens']['bob']}", wait_for=OPEN)
    await alice.locator(".prompt-bar button[data-option=assign]").click()        # targets: the default
    await bob.locator(".prompt-bar button[data-option=place]").click()           # bob defends face down
    card = alice.locator(".prompt-bar select[data-arg=card]")
    await card.wait_for()
    labels = await card.locator("option").all_inner_texts()
    assert len(labels) == 8
    await card.select_option(index=5)
    picked = labels[5]
    discard = await alice.locator(".prompt-bar select[data-arg=discard] option").all_inner_texts()
    assert picked not in discard and len(discard) == 7
    await alice.locator(".prompt-bar .prompt:has(select[data-arg=card]) button.choice").click()
    await alice.locator(".log-lines li", has_text=f"You placed a Battlecard face up: {picked}").wait_for()
    assert await alice.locator(".notice").is_hidden()


@pytest.mark.parametrize("ruleset", ["spellfire", "demigod"])
async def test_a_phone_sized_window(server, page, ruleset):
    """On a phone the page is one column, no wider or taller than the screen: the board,
    then what to decide, both in view."""
    from play_driver import shot
    from test_play_pages import MATCHES

    created = server.create(seats=["alice", "bob"], **MATCHES[ruleset])
    alice = await page(f"{server.url}/play/{created['match']}#token={created['tokens']['alice']}",
                       viewport={"width": 390, "height": 844}, wait_for=OPEN)
    await alice.locator(".prompt-bar .prompt").first.wait_for()
    assert await alice.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    assert await alice.evaluate("() => document.documentElement.scrollHeight <= window.innerHeight")
    bar = await alice.locator(".prompt-bar").bounding_box()
    board = await alice.locator(".board").bounding_box()
    assert board["y"] >= 0 and board["y"] + board["height"] <= bar["y"] + 0.5 and bar["y"] + bar["height"] <= 844
    await shot(alice, f"{ruleset}-player-phone")


async def test_resign_from_the_page_asks_first_then_the_other_wins(server, page):
    created = server.create(ruleset="duel")
    match_id = created["match"]
    alice = await page(f"{server.url}/play/{match_id}#token={created['tokens']['alice']}", wait_for=OPEN)
    bob = await page(f"{server.url}/play/{match_id}#token={created['tokens']['bob']}", wait_for=OPEN)
    watcher = await page(f"{server.url}/watch/{match_id}#token={created['spectator_token']}")
    await bob.locator("button.resign").click()
    await bob.locator(".resign-ask").wait_for()
    assert "counts as a loss" in await bob.locator(".resign-ask").inner_text()
    await bob.locator("button.resign-cancel").click()  # changed its mind: nothing was sent
    await bob.wait_for_timeout(300)
    assert httpx.get(f"{server.url}/matches/{match_id}").json()["status"] == "live"
    assert await bob.locator("button.resign").is_visible()

    await bob.locator("button.resign").click()
    await bob.locator("button.resign-confirm").click()
    await bob.wait_for_selector("[data-result=resigned]")
    await alice.wait_for_selector("[data-result=resigned]")
    assert "You won" in await alice.locator(".result-banner").inner_text()
    await bob.locator(".log-lines li", has_text="You resigned").wait_for()
    await alice.locator(".log-lines li", has_text="bob resigned").wait_for()
    assert not await bob.locator("button.resign").is_visible() and not await alice.locator("button.resign").is_visible()
    assert not await watcher.locator("button.resign").count() or not await watcher.locator("button.resign").is_visible()
    summary = httpx.get(f"{server.url}/matches/{match_id}").json()
    assert summary["result"]["winners"] == ["alice"] and summary["result"]["reason"] == "resigned"


async def test_a_player_gone_past_the_grace_is_shown_away_and_back_when_the_page_returns(start_server, page):
    srv = start_server("away", env={"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0", "BATTLEHALL_AWAY_GRACE_S": "2"})
    created = srv.create(ruleset="duel")
    match_id = created["match"]
    alice = await page(f"{srv.url}/play/{match_id}#token={created['tokens']['alice']}", wait_for=OPEN)
    bob_url = f"{srv.url}/play/{match_id}#token={created['tokens']['bob']}"
    bob = await page(bob_url, wait_for=OPEN)
    # (a slow start may have marked a seat away before its page came: it is back since)
    await alice.wait_for_selector(".away-seats", state="hidden")
    aways = await alice.locator(".log-lines li", has_text="bob is away").count()
    await bob.context.close()  # bob's browser is gone
    await alice.wait_for_selector(".away-seats[data-seats=bob]", timeout=10_000)
    assert await alice.locator(".away-seats").inner_text() == "Away: bob"
    await alice.locator(".log-lines li", has_text="bob is away").nth(aways).wait_for()
    backs = await alice.locator(".log-lines li", has_text="bob is back").count()
    await page(bob_url, wait_for=OPEN)
    await alice.locator(".log-lines li", has_text="bob is back").nth(backs).wait_for()
    await alice.wait_for_selector(".away-seats", state="hidden")
