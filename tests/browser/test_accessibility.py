"""axe-core (from the npm registry: tests/browser/package.json) in Chromium finds no
critical or serious violation on the pages people play at: the lobby, each ruleset's
player page at its first decision (and with How to play open), the leaderboard and a
player's page. The stream pages are checked in test_stream_table.py."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
FAST = {"BATTLEHALL_BOT_THINK_MS": "50", "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}
RULESETS = ["duel", "spellfire", "hourglass", "demigod"]


async def violations(page) -> list[str]:
    """The critical and serious findings of axe-core on the page as it is now, in words."""
    assert AXE.exists(), f"{AXE} is missing: make install runs npm ci in tests/browser"
    # Evaluated from the test, not as a <script>: the pages' CSP (script-src 'self') would refuse it.
    await page.evaluate(AXE.read_text() + "\n;void 0")
    found = await page.evaluate("""async () => {
      const r = await axe.run(document, {resultTypes: ["violations"]});
      return r.violations.filter(v => v.impact === "critical" || v.impact === "serious")
        .map(v => `${v.id} (${v.impact}): ${v.help} — ` + v.nodes.slice(0, 3).map(n => n.target.join(" ")).join(" | "));
    }""")
    return found


@pytest.fixture(scope="module")
def srv(start_server):
    return start_server("a11y", env=FAST)


async def test_the_lobby(srv, page):
    lobby = await page(srv.url + "/", wait_for="#create-button")
    await lobby.wait_for_selector("#me[data-profile]")
    assert await violations(lobby) == []


@pytest.mark.parametrize("ruleset", RULESETS)
async def test_a_player_page_at_its_first_decision_and_how_to_play(srv, page, ruleset):
    r = httpx.post(f"{srv.url}/bot-matches", json={"ruleset": ruleset, "name": "ana"}, timeout=10)
    assert r.status_code == 201, r.text
    made = r.json()
    play = await page(f"{srv.url}/play/{made['match']}#token={made['token']}")
    await play.wait_for_selector("[aria-label='Your decisions'] [data-prompt-box]", timeout=20_000)
    await play.wait_for_selector("#play:not([data-busy])")
    assert await violations(play) == []
    await play.get_by_role("button", name="How to play").click()
    dialog = play.get_by_role("dialog")
    await dialog.wait_for()
    assert "How to play" in await dialog.inner_text()
    assert await dialog.locator("dt").count() >= 2  # a glossary of the words the table uses
    assert await violations(play) == []
    await dialog.get_by_role("button", name="Close").click()
    await dialog.wait_for(state="hidden")


async def test_the_leaderboard_and_a_players_page(srv, page):
    board = await page(srv.url + "/leaderboard/duel")
    await board.wait_for_load_state("networkidle")
    assert await violations(board) == []
    r = httpx.post(f"{srv.url}/profiles", json={"name": "Ana"}, timeout=10)
    assert r.status_code == 201, r.text
    player = await page(f"{srv.url}/player/{r.json()['profile']}")
    await player.wait_for_load_state("networkidle")
    assert await violations(player) == []
