"""The tournament pages in Chromium against a real server (docs/tournaments.md): an
organiser creates an 8-player single elimination of duel from /tournaments (a bad field
named on the form first), a player registers from the event's page with the lobby's
profile, seven more register over HTTP, the organiser starts it from the page, the
player is called to their table with their seat's link, and every match is played by
bots on the seats' tokens to a champion, while the standings and the bracket update on
the open pages without a reload; the overlay shows the same bracket on a see-through
canvas. axe-core finds nothing serious on each page at 1280x800 and 390x844."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import httpx
import pytest
from playwright.async_api import expect
from test_accessibility import violations

from battlehall.tournament_client import TournamentClient, TournamentRefused
from conftest import PHONE

WIDE = {"width": 1280, "height": 800}
ENV = {"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0", "BATTLEHALL_TOURNAMENT_CREATE_BURST": "1000",
       "BATTLEHALL_TOURNAMENT_REGISTER_BURST": "1000"}
NAMES = ["Bo", "Cy", "Di", "Ed", "Flo", "Gus", "Hal", "Ivy", "Jo", "Kit", "Lu", "Mo"]
DOCS_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
# Marks a page's window: still there at the end, so nothing reloaded it.
MARK = "() => { window.__stayed = true; }"
STAYED = "() => window.__stayed === true"


async def docs_shot(shoot, page, name: str, full_page: bool = True) -> None:
    """A screenshot for people; with BATTLEHALL_DOCS_SCREENSHOTS=1 also the one the docs show."""
    path = Path(await shoot(page, name, full_page=full_page))
    if os.environ.get("BATTLEHALL_DOCS_SCREENSHOTS") == "1":
        (DOCS_SHOTS / f"{name}.png").write_bytes(path.read_bytes())


@pytest.fixture(scope="module")
def srv(start_server):
    return start_server("tournament-pages", env=ENV)


def profile(base: str, name: str) -> dict:
    r = httpx.post(f"{base}/profiles", json={"name": name}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


def event_status(base: str, tid: str) -> str:
    r = httpx.get(f"{base}/tournaments/{tid}", timeout=10)
    assert r.status_code == 200, r.text
    return r.json()["status"]


async def register_all(base: str, tid: str, everyone: list[dict]) -> None:
    async with TournamentClient(base) as api:
        for who in everyone:
            await api.register(tid, who["profile"], who["secret"])


async def play_every_table(base: str, tid: str, everyone: list[dict], timeout_s: float = 240) -> dict:
    """Each player's every table is played by a bot on the seat's own token (what "your
    match is ready" links to), until the event ends; the event as it ended."""
    async with TournamentClient(base) as api:
        await asyncio.wait_for(asyncio.gather(*(api.play(tid, who["profile"], who["secret"]) for who in everyone)), timeout_s)
        return await api.get(tid)


async def create_from_the_form(lobby, name: str, format_: str) -> str:
    """Create a duel event of `format_` from the form of /tournaments (open on `lobby`); its id."""
    await lobby.fill("#t-name", name)
    await lobby.select_option("#t-ruleset", "duel")
    await lobby.select_option("#t-format", format_)
    await lobby.click("#create-button")
    await lobby.wait_for_url(re.compile(r"/tournaments/t_[0-9a-f]+$"))
    return lobby.url.rsplit("/", 1)[1]


async def test_the_list_links_from_the_lobby_and_the_form_names_a_bad_field(srv, page, shoot):
    lobby = await page(srv.url + "/", wait_for="#create-button")
    await lobby.click("nav >> text=Tournaments")
    await lobby.wait_for_selector("#create-button")
    assert lobby.url == srv.url + "/tournaments"
    await lobby.fill("#t-name", "Too small")
    await lobby.fill("#t-max-players", "1")  # 2 at least: the server names the field, the form points at it
    await lobby.click("#create-button")
    alert = lobby.locator("#banner[role=alert]")
    await alert.wait_for()
    assert "max_players" in await alert.inner_text()
    assert await lobby.get_attribute("#t-max-players", "aria-invalid") == "true"
    # The format's words change with it; the Swiss fields go with another format.
    await lobby.select_option("#t-format", "single_elimination")
    assert "out" in await lobby.inner_text("#t-format-help")
    assert await lobby.locator("#t-swiss").is_hidden()
    await lobby.select_option("#t-format", "swiss")
    await lobby.select_option("#t-ruleset", "spellfire")  # pods of 3 to 6 for Spellfire
    assert await lobby.locator("#t-table-size option").all_inner_texts() == [
        "2: head to head", "3: pods of 3", "4: pods of 4", "5: pods of 5", "6: pods of 6"]
    await lobby.select_option("#t-ruleset", "duel")
    await lobby.fill("#t-max-players", "")
    tid = await create_from_the_form(lobby, "Listed Swiss", "swiss")
    await lobby.wait_for_selector("#start")  # this browser organises it: its token was kept
    for size, viewport in (("wide", WIDE), ("phone", PHONE)):
        shown = await page(srv.url + "/tournaments", viewport=viewport, wait_for=f"#upcoming [data-tournament='{tid}']")
        card = shown.locator(f"#upcoming [data-tournament='{tid}']")
        assert "Listed Swiss" in await card.inner_text() and "Swiss" in await card.inner_text()
        await shoot(shown, f"tournaments-list-{size}")
        assert await violations(shown) == []
    other = await page(f"{srv.url}/tournaments/{tid}", wait_for="#register")
    assert await other.locator("#start").count() == 0  # not the organiser's browser: no Start
    # Until it is given the organiser key: a wrong one is refused (and forgotten), the right one works.
    key = await lobby.input_value("#organiser-key")
    await other.click("text=You organise this tournament?")
    await other.fill("#give-key", "not-the-key")
    await other.click("text=Organise from here")
    await other.click("#start")
    await expect(other.locator("#banner[role=alert]")).to_contain_text("not this tournament's organiser key")
    await other.click("text=You organise this tournament?")
    await other.fill("#give-key", key)
    await other.click("text=Organise from here")
    await other.wait_for_selector("#start")
    assert event_status(srv.url, tid) == "registering"  # nothing was started by the wrong key


async def test_an_eight_player_single_elimination_to_a_champion(srv, page, shoot):
    organiser = await page(srv.url + "/tournaments", wait_for="#create-button")
    tid = await create_from_the_form(organiser, "Friday Knockout", "single_elimination")
    await organiser.wait_for_selector("#start")
    await organiser.evaluate(MARK)

    # A player opens the event and registers with this browser's profile.
    player = await page(f"{srv.url}/tournaments/{tid}", wait_for="#register")
    await player.click("#register")
    await expect(player.locator("#entry-state")).to_have_text("You are registered.")
    stored = await player.evaluate("() => JSON.parse(localStorage.getItem('battlehall.profile'))")
    assert (await player.get_attribute("#profile-box", "data-profile")) == stored["profile"]
    await player.evaluate(MARK)
    phone = await page(f"{srv.url}/tournaments/{tid}", viewport=PHONE, wait_for="#register")
    overlay = await page(f"{srv.url}/overlay/tournament/{tid}?size=1280x720", viewport={"width": 1280, "height": 720})
    await overlay.evaluate(MARK)

    others = [profile(srv.url, name) for name in NAMES[:7]]
    await register_all(srv.url, tid, others)
    # The organiser's page lists them without a reload.
    await expect(organiser.locator("#players li")).to_have_count(8)
    for size, shown in (("wide", organiser), ("phone", phone)):
        await shoot(shown, f"tournament-registering-{size}")
        assert await violations(shown) == []

    await organiser.click("#start")
    # The player is called to their table, with the seat's link prominently.
    link = player.locator("#ready #play-link")
    await link.wait_for()
    assert "Your match is ready" in await player.inner_text("#ready")
    me = {"profile": stored["profile"], "secret": stored["secret"]}
    async with TournamentClient(srv.url) as api:
        table = (await api.my(tid, me["profile"], me["secret"]))["table"]
    assert await link.get_attribute("href") == f"/play/{table['match']}#token={table['token']}"
    await expect(organiser.locator("#rounds details[data-round='1'] tr[data-table]")).to_have_count(4)
    await expect(organiser.locator("#bracket .bracket-match")).to_have_count(7)  # 4 + 2 + 1, drawn before it is played
    # A streamer finds the top table being played, to watch it; each table in play has its Watch link.
    await expect(organiser.locator("#watch-top")).to_have_attribute("href", re.compile(rf"^{re.escape(srv.url)}/watch/m_"))
    await expect(organiser.locator("#rounds details[data-round='1'] tr[data-table] a")).to_have_count(4)
    watch = await organiser.get_attribute(f"#rounds tr[data-table='{table['table']}'] a", "href")
    assert watch == f"{srv.url}/watch/{table['match']}"  # the player's own table: the match their link seats them in
    for size, shown in (("wide", player), ("phone", phone)):
        await shoot(shown, f"tournament-match-ready-{size}")
        assert await violations(shown) == []

    version_before = int(await organiser.get_attribute("#main", "data-version"))
    final = await play_every_table(srv.url, tid, [me, *others])
    assert final["status"] == "finished"
    champion = final["standings"][0]["player"]
    champion_name = next(p["name"] for p in final["players"] if p["player"] == champion)

    for shown in (organiser, player, phone):
        await expect(shown.locator("#champion")).to_contain_text(champion_name, timeout=20_000)
        await expect(shown.locator("#phase")).to_have_text("Finished")
    assert int(await organiser.get_attribute("#main", "data-version")) > version_before
    for shown in (organiser, player, overlay):
        assert await shown.evaluate(STAYED), "the page reloaded"
    # The standings: the champion first, every player ranked.
    await expect(organiser.locator("#standings tbody tr")).to_have_count(8)
    assert await organiser.get_attribute("#standings tbody tr:first-child", "data-player") == champion
    # The bracket: three rounds of 4, 2 and 1 matches, each decided, the final's winner the champion.
    titles = await organiser.locator("#bracket .bracket-round-title").all_inner_texts()
    assert titles == ["Quarter-finals", "Semi-finals", "Final"]
    columns = [await organiser.locator(f"#bracket .bracket-cell[data-round='{r}']").count() for r in (1, 2, 3)]
    assert columns == [4, 2, 1]
    assert await organiser.locator("#bracket .bracket-match .slot.won").count() == 7
    assert await organiser.get_attribute("#bracket .bracket-cell.last .bracket-match", "data-winner") == champion
    # Drawn as a bracket: each later match sits between the two it follows.
    boxes = await organiser.eval_on_selector_all("#bracket .bracket-cell", """cells => cells.map(c => {
      const r = c.querySelector('.bracket-match').getBoundingClientRect();
      return {round: +c.dataset.round, middle: (r.top + r.bottom) / 2, left: r.left}; })""")
    by_round = {r: [b for b in boxes if b["round"] == r] for r in (1, 2, 3)}
    for r in (2, 3):
        for i, box in enumerate(by_round[r]):
            fed = by_round[r - 1][2 * i: 2 * i + 2]
            assert fed[0]["middle"] < box["middle"] < fed[1]["middle"]
            assert box["left"] > fed[0]["left"]
    await expect(player.locator("#ready")).to_be_hidden()
    await docs_shot(shoot, organiser, "tournament", full_page=False)
    for size, shown in (("wide", organiser), ("phone", phone)):
        await shoot(shown, f"tournament-finished-{size}")
        assert await violations(shown) == []

    # The overlay: the same bracket and champion, see-through, nothing to click, nothing scrolls.
    await expect(overlay.locator("#champion")).to_contain_text(champion_name)
    classes = await overlay.get_attribute("html", "class")
    assert "overlay" in classes and "transparent" in classes
    assert await overlay.locator("#bracket .bracket-match").count() == 7
    assert await overlay.locator("a, button").count() == 0
    assert await overlay.evaluate("() => getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
    fits = await overlay.evaluate("""() => { const e = document.scrollingElement;
      return e.scrollHeight <= innerHeight + 1 && e.scrollWidth <= innerWidth + 1; }""")
    assert fits
    await docs_shot(shoot, overlay, "overlay-tournament", full_page=False)
    assert await violations(overlay) == []
    small = await page(f"{srv.url}/overlay/tournament/{tid}?panels=standings&top=4&bg=00ff00&type=large", viewport=PHONE)
    await expect(small.locator("#standings tbody tr")).to_have_count(4)
    await expect(small.locator("#standings table")).to_be_visible()
    table = await small.locator("#standings table").bounding_box()
    assert table and table["width"] > PHONE["width"] * 0.8  # the standings fill the canvas, nothing beside them
    assert await small.locator("#bracket").is_hidden()
    assert "keyed" in await small.get_attribute("html", "class")
    assert await small.get_attribute("html", "data-overlay-ignored") is None  # every parameter understood
    typo = await page(f"{srv.url}/overlay/tournament/{tid}?panels=board,standings&top=999&scale=9")
    await expect(typo.locator("#bracket .bracket-match")).to_have_count(7)  # board: the bracket
    assert await typo.get_attribute("html", "data-overlay-ignored") == "scale,top"
    await expect(typo.locator("#standings tbody tr")).to_have_count(8)  # top's default
    await shoot(small, "tournament-overlay-standings-phone", full_page=False)
    assert await violations(small) == []


async def test_a_twelve_player_spellfire_pod_event_to_a_champion(srv, page, shoot):
    """Pods of four: a Swiss of two rounds, three tables a round, placed by standing, to a
    champion; the bracket stays away (no elimination stage)."""
    organiser = await page(srv.url + "/tournaments", wait_for="#create-button")
    await organiser.fill("#t-name", "Spellfire pods")
    await organiser.select_option("#t-ruleset", "spellfire")
    await organiser.select_option("#t-format", "swiss")
    await organiser.select_option("#t-table-size", "4")
    await organiser.fill("#t-rounds", "2")
    await organiser.click("#create-button")
    await organiser.wait_for_url(re.compile(r"/tournaments/t_[0-9a-f]+$"))
    tid = organiser.url.rsplit("/", 1)[1]
    await expect(organiser.locator("#summary")).to_contain_text("tables of 4")
    player = await page(f"{srv.url}/tournaments/{tid}", viewport=PHONE, wait_for="#register")
    await player.click("#register")
    await expect(player.locator("#entry-state")).to_have_text("You are registered.")
    stored = await player.evaluate("() => JSON.parse(localStorage.getItem('battlehall.profile'))")
    me = {"profile": stored["profile"], "secret": stored["secret"]}
    others = [profile(srv.url, name) for name in NAMES[:11]]
    await register_all(srv.url, tid, others)
    await expect(organiser.locator("#players li")).to_have_count(12)
    await organiser.click("#start")
    await player.locator("#ready #play-link").wait_for()
    await expect(organiser.locator("#rounds details[data-round='1'] tr[data-table]")).to_have_count(3)
    pods = await organiser.locator("#rounds details[data-round='1'] tr[data-table] td:nth-child(2)").all_inner_texts()
    assert all(text.count(",") == 3 for text in pods), pods  # four players a table, listed
    final = await play_every_table(srv.url, tid, [me, *others], timeout_s=420)
    assert final["status"] == "finished" and len(final["rounds"]) == 2
    champion = final["standings"][0]["player"]
    champion_name = next(p["name"] for p in final["players"] if p["player"] == champion)
    for shown in (organiser, player):
        await expect(shown.locator("#champion")).to_contain_text(champion_name, timeout=20_000)
    await expect(organiser.locator("#standings tbody tr")).to_have_count(12)
    assert await organiser.locator("#bracket-panel").is_hidden()
    # A pod's result is its places in words: "first", "second"... or, all of it tied, "draw"
    # (random bots can draw a Spellfire game), table by table as the event recorded it.
    placed = 0
    for played in final["rounds"]:
        for table in played["tables"]:
            groups = table["result"]["places"]
            groups = len(set(groups.values())) if isinstance(groups, dict) else len(groups)
            shown = await organiser.inner_text(
                f"#rounds details[data-round='{played['round']}'] tr[data-table='{table['table']}'] .result")
            assert ("first" in shown) if groups > 1 else (shown == "draw"), (groups, shown)
            placed += groups > 1
    assert placed > 0, "every table of the event drew"
    for size, shown in (("wide", organiser), ("phone", player)):
        await shoot(shown, f"tournament-pods-finished-{size}")
        assert await violations(shown) == []


async def test_check_in_and_drop_from_the_page_and_the_refusals_in_words(srv, page):
    organiser = await page(srv.url + "/tournaments", wait_for="#create-button")
    await organiser.fill("#t-check-in", "10")
    tid = await create_from_the_form(organiser, "Checked Swiss", "swiss")
    player = await page(f"{srv.url}/tournaments/{tid}", wait_for="#register")
    await player.click("#register")
    await expect(player.locator("#entry-state")).to_contain_text("check in before the start")
    await expect(player.locator("#entry-state")).to_be_focused()
    await player.click("#check-in")
    await expect(player.locator("#entry-state")).to_have_text("You are registered and checked in.")
    stored = await player.evaluate("() => JSON.parse(localStorage.getItem('battlehall.profile'))")
    # The organiser's page marks them checked in, without a reload.
    await expect(organiser.locator(f"#players li[data-player='{stored['profile']}']")).to_have_class("checked-in")
    # A second registration of the same profile is refused with its code, and changes nothing.
    async with TournamentClient(srv.url) as api:
        with pytest.raises(TournamentRefused) as refused:
            await api.register(tid, stored["profile"], stored["secret"])
    assert (refused.value.status, refused.value.code) == (409, "already_registered")
    player.once("dialog", lambda dialog: asyncio.ensure_future(dialog.dismiss()))
    await player.click("#drop")  # dismissed: still in
    await expect(player.locator("#entry-state")).to_have_text("You are registered and checked in.")
    player.once("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
    await player.click("#drop")
    await expect(player.locator("#entry-state")).to_contain_text("You have dropped")
    await expect(organiser.locator(f"#players li[data-player='{stored['profile']}']")).to_have_class("checked-in dropped")
    # Starting with nobody left to pair is refused in words on the organiser's page.
    await organiser.click("#start")
    await expect(organiser.locator("#banner[role=alert]")).to_contain_text("At least two players")


async def test_a_swiss_with_a_top_four_cut_draws_the_cut_as_a_bracket(srv, page):
    """The issue's organiser: a Swiss then a cut, from the pages alone; the cut's rounds are
    named as such and drawn as a bracket of the Swiss's top four."""
    organiser = await page(srv.url + "/tournaments", wait_for="#create-button")
    await organiser.fill("#t-rounds", "2")
    await organiser.select_option("#t-cut", "4")
    tid = await create_from_the_form(organiser, "Swiss and cut", "swiss")
    await expect(organiser.locator("#summary")).to_contain_text("then a top-4 cut")
    everyone = [profile(srv.url, name) for name in NAMES[:8]]
    await register_all(srv.url, tid, everyone)
    await expect(organiser.locator("#players li")).to_have_count(8)
    await organiser.click("#start")
    await expect(organiser.locator("#bracket-panel")).to_be_hidden()  # no bracket while the Swiss is played
    final = await play_every_table(srv.url, tid, everyone)
    assert final["status"] == "finished"
    await expect(organiser.locator("#phase")).to_have_text("Finished", timeout=20_000)
    assert await organiser.locator("#bracket .bracket-round-title").all_inner_texts() == ["Semi-finals", "Final"]
    assert await organiser.locator("#bracket .bracket-match").count() == 3
    assert "Top-4 cut" in await organiser.inner_text("#rounds details[data-round='3'] summary")
    cut = {p for m in final["bracket"][0]["matches"] for p in m["players"]}
    assert cut == {s["player"] for s in final["standings"][:4]}


def test_the_overlay_may_be_framed_where_the_operator_says_and_the_event_page_never(start_server):
    framed = start_server("tournament-frames", env={"BATTLEHALL_FRAME_ANCESTORS": "https://casters.example.org"})
    overlay = httpx.get(f"{framed.url}/overlay/tournament/t_0123456789abcdef", timeout=10)
    assert overlay.status_code == 200
    assert "frame-ancestors https://casters.example.org" in overlay.headers["content-security-policy"]
    event_page = httpx.get(f"{framed.url}/tournaments/t_0123456789abcdef", headers={"accept": "text/html"}, timeout=10)
    assert event_page.status_code == 200 and "<!doctype html>" in event_page.text
    assert "frame-ancestors 'none'" in event_page.headers["content-security-policy"]


async def test_the_form_sets_the_games_options_and_names_a_bad_one(srv, page):
    lobby = await page(srv.url + "/tournaments", wait_for="#create-button")
    await lobby.select_option("#t-ruleset", "duel")
    options = lobby.get_by_role("group", name="The games' options")
    await expect(options.get_by_label("Hit points (1–1000)", exact=False)).to_be_visible()
    await lobby.fill("#t-name", "Short duels")
    await lobby.fill("#t-opt-hp", "1001")  # past its bound: the server names it, the form points at it
    await lobby.click("#create-button")
    await expect(lobby.locator("#banner[role=alert]")).to_contain_text("options.hp")
    assert await lobby.get_attribute("#t-opt-hp", "aria-invalid") == "true"
    await lobby.fill("#t-opt-hp", "5")
    await lobby.check("#t-opt-simultaneous")
    await lobby.click("#create-button")
    await lobby.wait_for_url(re.compile(r"/tournaments/t_[0-9a-f]+$"))
    tid = lobby.url.rsplit("/", 1)[1]
    spec = httpx.get(f"{srv.url}/tournaments/{tid}", timeout=10).json()["spec"]
    assert spec["options"] == {"hp": 5, "simultaneous": True}
    await lobby.goto(srv.url + "/tournaments")
    await lobby.wait_for_selector("#create-button")
    await lobby.select_option("#t-ruleset", "spellfire")  # its per-seat decks keep their default; the rest are here
    await expect(lobby.locator("#t-opt-turn_limit")).to_be_visible()
    assert await lobby.locator("#t-opt-decks").count() == 0


async def test_the_form_sets_the_judges_bound_on_added_time_and_names_it_when_too_long(srv, page):
    lobby = await page(srv.url + "/tournaments", wait_for="#create-button")
    await lobby.fill("#t-name", "Judged duels")
    await lobby.select_option("#t-ruleset", "duel")
    await lobby.get_by_text("Clock, no-shows, round clock, points, tie-breaks, judges").click()
    bound = lobby.get_by_role("group", name="Judges").get_by_label("Time judges may add to a seat, minutes")
    assert await bound.input_value() == "10"  # the server's default, 600 s, sent as nothing
    await bound.fill("61")  # an hour is the most: the server names the field, the form points at it
    await lobby.click("#create-button")
    await expect(lobby.locator("#banner[role=alert]")).to_contain_text("judging.max_added_s")
    assert await bound.get_attribute("aria-invalid") == "true"
    await bound.fill("2.5")
    await lobby.click("#create-button")
    await lobby.wait_for_url(re.compile(r"/tournaments/t_[0-9a-f]+$"))
    spec = httpx.get(f"{srv.url}/tournaments/{lobby.url.rsplit('/', 1)[1]}", timeout=10).json()["spec"]
    assert spec["judging"] == {"max_added_s": 150}
