"""Play a bot, in real Chromium: a person presses Play a bot in the lobby, lands on the
player page of a match where the server's bot plays the other seat (labelled as a bot),
and plays it through the page's own controls while the bot answers; and a quick-play
player who closes the tab has the bot finish the match for them, which the other page
shows."""

from __future__ import annotations

import time

import httpx
import pytest
from play_driver import bar_move, board_move, prompt_key, shot

OPEN = "#play[data-status=open]"
# Bots that answer at once, and no caps on what the tests make from 127.0.0.1.
FAST = {"BATTLEHALL_BOT_THINK_MS": "50", "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0",
        "BATTLEHALL_QUEUE_JOIN_PER_MIN": "0"}
# The ruleset whose whole match (its usual options, as Play a bot makes it) is short
# enough to play to its end through the page (a few seconds); the others take 15 s to
# half a minute, so they are played until the bot has answered a few prompts, then
# resigned from the page (test_play_pages.py plays a whole match of each in the browser).
TO_THE_END = {"duel"}
BOT_ANSWERS = 4  # of the longer rulesets: bot answers seen before resigning


@pytest.fixture(scope="module")
def srv(start_server):
    return start_server("bots", env=FAST)


def replay_log(srv, match: str, token: str) -> list[dict]:
    r = httpx.get(f"{srv.url}/matches/{match}/replay", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["log"]


async def play(page, ruleset: str, until, within_s: float) -> None:
    """The page does what its board offers, else answers from the prompt bar, until
    `until()` is true or the match is over."""
    tries: dict = {}
    deadline = time.monotonic() + within_s
    while not await page.locator("[data-result]").count() and not await until():
        if time.monotonic() > deadline:
            await shot(page, f"play-a-bot-{ruleset}-stuck")
            raise AssertionError(f"{ruleset}: the match did not get there in {within_s} s")
        await page.wait_for_selector("#play:not([data-busy])")
        key = await prompt_key(page)
        if not key:
            await page.wait_for_timeout(50)
            continue
        n = tries[key] = tries.get(key, 0) + 1
        # The pointer off the board: where it rests, the card details line follows what is under it, and a
        # board redrawn by the bot's answer may move a taller line under it, then a shorter, and so on.
        await page.mouse.move(0, 0)
        if (n <= 4 and await board_move(page, ruleset)) or await bar_move(page):
            await page.wait_for_timeout(40)


async def never() -> bool:
    return False


async def bot_lines(page, seat: str) -> int:
    """Lines of the page's log saying what the bot's seat did (not that it was asked)."""
    return await page.eval_on_selector_all(
        ".log-lines li:not([data-kind=prompt])",
        "(lines, seat) => lines.filter(l => l.textContent.toLowerCase().startsWith(seat + ' ')).length", seat)


@pytest.mark.parametrize("ruleset", ["duel", "spellfire", "hourglass", "demigod"])
async def test_play_a_bot_from_the_lobby_and_play_with_the_bot_answering(srv, page, shoot, ruleset):
    lobby = await page(srv.url + "/", wait_for=f"[data-bot={ruleset}]")
    await lobby.wait_for_selector("#me[data-profile]")
    profile = await lobby.get_attribute("#me", "data-profile")
    assert await lobby.input_value(f"#bot-level-{ruleset}") == "greedy"  # the bot plays to win unless told
    if ruleset == "duel":
        await shoot(lobby, "lobby-play-a-bot")
        await shoot(lobby, "lobby-play-a-bot-window", full_page=False)  # as docs/screenshots/lobby.png
    stored = await lobby.evaluate("() => JSON.parse(localStorage.getItem('battlehall.profile'))")
    async with lobby.expect_request(lambda r: r.method == "POST" and r.url.endswith("/bot-matches")) as asked:
        await lobby.click(f"[data-bot={ruleset}]")
    sent = await asked.value
    assert sent.post_data_json == {"ruleset": ruleset, "seats": 2, "level": "greedy",
                                   "name": stored["name"], "profile": profile}
    assert (await sent.all_headers())["authorization"] == f"Bearer {stored['secret']}"
    await lobby.wait_for_url("**/play/m_*#token=*", timeout=10_000)
    await lobby.wait_for_selector(OPEN)
    player = lobby
    match = player.url.split("/play/")[1].split("#")[0]
    token = player.url.split("#token=")[1]
    me = stored["name"]

    # Each seat's summary on the table says who plays it.
    bot = player.locator(".board .seat-summary[data-seat=bot-1][data-bot=greedy]")
    await bot.wait_for()
    assert "bot · strong" in await bot.inner_text()
    assert "(you)" in await player.locator(f".board .seat-summary[data-seat='{me}']").inner_text()

    if ruleset in TO_THE_END:
        await play(player, ruleset, never, within_s=50)
    else:
        async def bot_answered():
            return await bot_lines(player, "bot-1") >= BOT_ANSWERS
        await play(player, ruleset, bot_answered, within_s=40)
        assert not await player.locator("[data-result]").count()
        await shoot(player, f"player-page-against-a-bot-{ruleset}")
        await player.locator("button.resign").click()
        await player.locator("button.resign-confirm").click()
        await player.wait_for_selector("[data-result=resigned]")
    await player.wait_for_selector("[data-result]")
    if ruleset == "duel":
        await shoot(player, "player-page-against-a-bot")
    assert await bot_lines(player, "bot-1") >= 1, await player.locator(".log-lines").inner_text()
    summary = httpx.get(f"{srv.url}/matches/{match}", timeout=5).json()
    assert summary["status"] == "finished" and summary["bots"] == {"bot-1": "greedy"}
    if ruleset in TO_THE_END:
        assert summary["result"]["reason"] != "resigned"
    log = replay_log(srv, match, token)
    answers = [e for e in log if "option" in e]
    bots = [e for e in answers if e["seat"] == "bot-1"]
    assert len(bots) >= (1 if ruleset in TO_THE_END else BOT_ANSWERS - 1), log
    assert all(e.get("bot") == "greedy" for e in bots)
    assert not any("bot" in e for e in answers if e["seat"] == me)  # the person's answers are theirs


async def test_the_level_and_seat_count_are_sent_and_a_refusal_is_shown_in_the_lobby(start_server, page):
    limited = start_server("bots-limited", env={**FAST, "BATTLEHALL_CREATE_PER_MIN": "1", "BATTLEHALL_CREATE_BURST": "1"})
    assert httpx.post(f"{limited.url}/bot-matches", json={"ruleset": "duel"}, timeout=10).status_code == 201
    lobby = await page(limited.url + "/", wait_for="[data-bot=spellfire]")
    await lobby.wait_for_selector("#me[data-profile]")
    await lobby.select_option("#queue-seats-spellfire", "3")
    await lobby.select_option("#bot-level-spellfire", "random")
    async with lobby.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/bot-matches")) as answered:
        await lobby.click("[data-bot=spellfire]")
    response = await answered.value
    assert response.status == 429  # this address made its one match of the minute
    sent = response.request.post_data_json
    assert (sent["ruleset"], sent["seats"], sent["level"]) == ("spellfire", 3, "random")
    await lobby.wait_for_selector("#banner.error:not([hidden])")
    text = await lobby.locator("#banner").inner_text()
    assert text.startswith("No match against a bot now: Too many matches started from here:"), text
    assert "try again in" in text  # the server's own words say how long
    assert "/play/" not in lobby.url
    assert await lobby.locator("[data-bot=spellfire]").is_enabled()  # it may be pressed again
    assert await lobby.get_attribute("#main", "data-bot") == "error"


async def test_a_player_who_closes_the_tab_has_the_bot_finish_the_match_for_them(start_server, page, shoot):
    srv = start_server("bots-away", env={**FAST, "BATTLEHALL_AWAY_GRACE_S": "1"})
    lobbies = [await page(srv.url + "/", wait_for="[data-play=duel]") for _ in range(2)]
    for lobby in lobbies:
        await lobby.wait_for_selector("#me[data-profile]")
        await lobby.click("[data-play=duel]")
    for lobby in lobbies:
        await lobby.wait_for_url("**/play/m_*", timeout=10_000)
        await lobby.wait_for_selector(OPEN)
    stays, leaves = lobbies
    match = stays.url.split("/play/")[1].split("#")[0]
    assert leaves.url.split("/play/")[1].split("#")[0] == match
    token = stays.url.split("#token=")[1]
    gone = (await leaves.locator(".whoami").inner_text()).removeprefix("You play ")
    summary = httpx.get(f"{srv.url}/matches/{match}", timeout=5).json()
    assert summary["when_away"] == "bot" and summary["bots"] == {} and gone in summary["seats"]

    # Entries from here on (the server's clock is this machine's): a loaded machine may have
    # marked the seat away and back while its page moved to the match, before the tab closed.
    closed_ms = int(time.time() * 1000)
    await leaves.context.close()  # the tab and its browser are gone
    away = stays.locator(f".away-seats[data-seats='{gone}']")
    await away.wait_for(timeout=10_000)
    assert await away.inner_text() == f"Away: {gone} — the bot plays for them"
    standing_in = stays.locator(f".board .seat-summary[data-seat='{gone}'][data-bot=stand-in]")
    assert "away — the bot plays for them" in await standing_in.inner_text()
    await stays.locator(".log-lines li", has_text=f"{gone} is away: the bot plays the seat").first.wait_for()
    await shoot(stays, "player-page-opponent-away-the-bot-plays")

    await play(stays, "duel", never, within_s=50)
    assert await stays.locator("[data-result]").count()
    log = replay_log(srv, match, token)
    away_at = next(i for i, e in enumerate(log) if e.get("at", 0) >= closed_ms and e.get("away") == gone)
    assert not any(e.get("back") == gone for e in log[away_at:])  # nobody came back for the seat
    theirs = [e for e in log[away_at:] if e.get("seat") == gone and "option" in e]
    assert theirs, "the bot never answered for the closed tab"
    assert all(e.get("bot") == "greedy" for e in theirs), theirs


async def test_the_spectator_page_marks_the_seats_a_bot_plays(srv, page):
    created = srv.create(ruleset="duel", seats=["ana", "bot-1"], bots={"bot-1": "random"},
                         spectators={"allowed": True, "public": True})
    watch = await page(f"{srv.url}/watch/{created['match']}", wait_for="main[data-status=open]")
    assert await watch.inner_text("#title") == "Duel: ana vs bot-1 (bot)"
