"""Made for streams, in a real Chromium against real servers and bots over real sockets:
the TV page follows the featured match and moves on to the next in the same page; the
overlay parameters give a transparent page of a fixed size with nothing to click and no
scrollbars; moments are called out as they happen; the replay page opens at #step=N.

With BATTLEHALL_DOCS_SCREENSHOTS=1, test_overlay_of_each_ruleset also writes the
screenshots of docs/streaming.md (docs/screenshots/overlay-<ruleset>.png).
"""

from __future__ import annotations

import asyncio
import base64
import os
import re
import time
from pathlib import Path

import httpx
from playwright.async_api import Browser, expect

from battlehall.client import JSON, Client
from battlehall.server.storage.embedded_redis import EmbeddedRedis
from servers import ServerProcess
from wsutil import Raw

DOCS_SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


def quiet(_line: str) -> None:
    pass


async def play_out(base: str, created: dict, think_s: float = 0.0, seed: int = 0) -> list:
    bots = [Client(base, created["match"], token, seed=seed + i, think_s=think_s, on_status=quiet)
            for i, token in enumerate(created["tokens"].values())]
    return await asyncio.wait_for(asyncio.gather(*(bot.run() for bot in bots)), 120)


async def watchers(base: str, match_id: str, n: int) -> list[Raw]:
    out = []
    for _ in range(n):
        conn = await Raw.open(base, match_id, JSON)
        assert (await conn.hello(None))["role"] == "spectator"
        out.append(conn)
    return out


async def featured_becomes(base: str, match_id: str, ruleset: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient() as http:
        while (await http.get(f"{base}/tv/featured", params={"ruleset": ruleset})).json()["match"] != match_id:
            assert time.monotonic() < deadline, f"{match_id} is not featured"
            await asyncio.sleep(0.2)


async def public_final(base: str, match_id: str, timeout: float = 10) -> dict:
    """The match's public summary once it says the match is finished."""
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient() as http:
        while (summary := (await http.get(f"{base}/matches/{match_id}")).json())["status"] != "finished":
            assert time.monotonic() < deadline, f"{match_id} is not finished: {summary['status']}"
            await asyncio.sleep(0.1)
    return summary


async def pixels(browser: Browser, png: bytes, points: list[tuple[int, int]]) -> dict:
    """The PNG's size and the alpha of each point, read by Chromium itself from a blank page
    (decoded into a canvas: no image library needed)."""
    context = await browser.new_context()
    blank = await context.new_page()
    try:
        return await blank.evaluate("""async ([data, points]) => {
            const img = new Image();
            img.src = "data:image/png;base64," + data;
            await img.decode();
            const canvas = document.createElement("canvas");
            canvas.width = img.width; canvas.height = img.height;
            const ctx = canvas.getContext("2d");
            ctx.drawImage(img, 0, 0);
            const all = ctx.getImageData(0, 0, img.width, img.height).data;
            let clear = 0;
            for (let i = 3; i < all.length; i += 4) if (all[i] === 0) clear += 1;
            return {width: img.width, height: img.height, clear: clear / (img.width * img.height),
                    alpha: points.map(([x, y]) => all[(y * img.width + x) * 4 + 3])};
        }""", [base64.b64encode(png).decode(), points])
    finally:
        await context.close()


NO_SCROLLBARS = """() => [document.documentElement, ...document.querySelectorAll('*')].every(e => {
    const s = getComputedStyle(e);
    if (s.display === "inline" || s.display === "contents") return true;  // no box of its own to scroll
    const borders = parseFloat(s.borderLeftWidth) + parseFloat(s.borderRightWidth);
    const bordersY = parseFloat(s.borderTopWidth) + parseFloat(s.borderBottomWidth);
    return e === document.documentElement
        ? window.innerWidth === e.clientWidth && window.innerHeight === e.clientHeight
        : (e.offsetWidth === 0 || e.offsetWidth - e.clientWidth - borders <= 0)
          && (e.offsetHeight === 0 || e.offsetHeight - e.clientHeight - bordersY <= 0);
})"""


async def test_tv_follows_the_featured_match_and_moves_on_without_a_reload(start_server, page, shoot):
    srv = start_server("tv-page", env={"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"})
    first = srv.create(ruleset="duel", seed=11, options={"hp": 12}, spectators={"public": True})
    second = srv.create(ruleset="duel", seed=12, options={"hp": 12}, spectators={"public": True, "delay_ms": 1000})
    crowd = await watchers(srv.url, first["match"], 2) + await watchers(srv.url, second["match"], 1)
    await featured_becomes(srv.url, first["match"], "duel")
    tv = await page(f"{srv.url}/tv/duel?hold=1", wait_for=f"main[data-match='{first['match']}'][data-status=open]")
    navigations = []
    tv.on("framenavigated", lambda frame: navigations.append(frame.url))
    await tv.evaluate("window.sameDocument = 'still here'")
    assert await tv.inner_text("#title") == "Duel: alice vs bob"  # the ruleset's title, never the match id
    assert await tv.title() == "TV · Duel: alice vs bob · Battlehall"
    await expect(tv.locator("#decisions .decision[data-seat=alice]")).to_be_visible()  # alice strikes first
    played = await play_out(srv.url, first, think_s=0.03)
    final = httpx.get(f"{srv.url}/matches/{first['match']}").json()
    await expect(tv.locator("main")).to_have_attribute("data-ended", first["match"])
    assert played[0]["winners"][0] in await tv.inner_text("#result")
    await shoot(tv, "tv-ended", full_page=False)
    # The next one, in the same page: no navigation, no reload (the page's own variable stays).
    await expect(tv.locator("main")).to_have_attribute("data-match", second["match"], timeout=15_000)
    await expect(tv.locator("main")).to_have_attribute("data-status", "open")
    assert await tv.get_attribute("main", "data-switches") == "2"
    assert await tv.get_attribute("main", "data-ended") is None  # the new match is not over
    assert await tv.evaluate("window.sameDocument") == "still here" and navigations == []
    assert await tv.inner_text("#result") == "" and final["status"] == "finished"
    await expect(tv.locator("#delay")).to_have_text("Stream delay 1 s")  # featured with its delay
    await play_out(srv.url, second, think_s=0.02, seed=5)
    # To a client without a token, a match with a stream delay is as it was that long ago:
    # its final seq once the delay has passed.
    second_final = await public_final(srv.url, second["match"])
    await expect(tv.locator("main")).to_have_attribute("data-seq", str(second_final["seq"]), timeout=15_000)
    await expect(tv.locator("main")).to_have_attribute("data-ended", second["match"])
    # Nothing else is live: the TV says so and keeps the last result up.
    await expect(tv.locator("#banner")).to_contain_text("No live public duel match", timeout=15_000)
    await shoot(tv, "tv-waiting", full_page=False)
    for conn in crowd:
        await conn.close()


async def test_tv_on_any_node_shows_a_match_another_node_runs(tmp_path_factory, page):
    """Two nodes on one Redis: the TV on node b shows the match node a runs (its socket is
    served by b from its copy of the match), then the next, which b runs."""
    redis = EmbeddedRedis(tmp_path_factory.mktemp("redis"), fsync="everysec").start()
    nodes = [ServerProcess(tmp_path_factory.mktemp(name), redis.url,
                           env={"BATTLEHALL_NODE_ID": name, "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0",
                                "BATTLEHALL_PLACEMENT": "local"}).start() for name in ("node-a", "node-b")]
    a, b = nodes
    try:
        on_a = a.create(ruleset="duel", seed=51, options={"hp": 8}, spectators={"public": True})
        crowd = await watchers(a.url, on_a["match"], 1)
        await featured_becomes(b.url, on_a["match"], "duel")
        tv = await page(f"{b.url}/tv/duel?hold=3", wait_for=f"main[data-match='{on_a['match']}'][data-status=open]")
        on_b = b.create(ruleset="duel", seed=52, options={"hp": 8}, spectators={"public": True})
        await play_out(a.url, on_a, think_s=0.02)
        final = httpx.get(f"{a.url}/matches/{on_a['match']}").json()
        await expect(tv.locator("main")).to_have_attribute("data-ended", on_a["match"], timeout=15_000)
        assert await tv.get_attribute("main", "data-events") == str(final["seq"])  # every event, from b's copy
        await expect(tv.locator("main")).to_have_attribute("data-match", on_b["match"], timeout=15_000)
        await expect(tv.locator("main")).to_have_attribute("data-status", "open")
        for conn in crowd:
            await conn.close()
    finally:
        for node in nodes:
            node.stop()
        redis.stop()


async def test_overlay_parameters_give_a_transparent_fixed_size_page(server, page, chromium, shoot):
    created = server.create(ruleset="duel", seed=21, options={"hp": 30}, spectators={"public": True})
    url = f"{server.url}/watch/{created['match']}?bg=transparent&size=960x540&panels=board,clocks,spectators&type=large"
    overlay = await page(url, viewport={"width": 640, "height": 360}, wait_for="main[data-status=open]")
    await overlay.wait_for_selector("#decisions .decision")
    assert await overlay.locator("a, button, input, select, textarea").count() == 0  # nothing to click
    assert await overlay.locator("#log").is_hidden() and await overlay.locator("#title").is_hidden()
    assert await overlay.locator("#spectators").is_visible()
    assert await overlay.evaluate(NO_SCROLLBARS)
    png = await overlay.screenshot(full_page=True, omit_background=True)
    (Path(await shoot(overlay, "overlay-duel-page"))).write_bytes(png)
    # The canvas's size whatever the window's; the background see-through (the top right
    # corner, where the bar shows only the spectator count on the left); the board drawn.
    shot = await pixels(chromium, png, [(955, 4), (955, 535), (4, 535)])
    assert (shot["width"], shot["height"]) == (960, 540)
    assert shot["alpha"] == [0, 0, 0]
    # See-through around the panels, and something drawn: the table fills the board's box
    # (the player's table, larger), each of its parts on a dark backdrop of its own.
    assert 0.1 < shot["clear"] < 0.98
    # The same page without parameters is opaque, and scrolls in a small window as before.
    plain = await page(f"{server.url}/watch/{created['match']}", viewport={"width": 640, "height": 360},
                       wait_for="main[data-status=open]")
    shot = await pixels(chromium, await plain.screenshot(omit_background=True), [(635, 355)])
    assert shot["alpha"] == [255] and shot["clear"] == 0
    # The TV takes the same parameters.
    tv = await page(f"{server.url}/tv?bg=transparent&size=800x450&panels=title,board,moments",
                    viewport={"width": 500, "height": 300}, wait_for="main[data-match], #banner:not([hidden])")
    assert await tv.locator("a, button").count() == 0 and await tv.locator("#log").is_hidden()
    assert await tv.locator(".stream-now").is_visible()  # the moments' row stays
    board_only = await page(f"{server.url}/watch/{created['match']}?panels=board", wait_for="main[data-status=open]")
    assert await board_only.locator(".stream-now").is_hidden() and await board_only.locator(".stream-bar").is_hidden()
    assert await tv.evaluate(NO_SCROLLBARS)
    shot = await pixels(chromium, await tv.screenshot(full_page=True, omit_background=True), [(795, 4), (4, 445)])
    assert (shot["width"], shot["height"]) == (800, 450) and shot["alpha"] == [0, 0]
    # A value that does not parse is ignored, and named.
    odd = await page(f"{server.url}/watch/{created['match']}?size=huge&scale=9&bg=transparent",
                     wait_for="main[data-status=open]")
    assert await odd.get_attribute("html", "data-overlay-ignored") == "size,scale"
    assert await odd.evaluate("document.documentElement.classList.contains('transparent')")


SETUP_RAZE = {  # bob has no champion to defend ironbridge: his only answer declines, and it falls
    "players": {"alice": {"formation": {"A": {"realm": "emberhold"}}},
                "bob": {"formation": {"A": {"realm": "ironbridge"}, "B": {"realm": "thornvale"}}}},
    "turn": {"seat": "alice"},
    "battle": {"realm": {"seat": "bob", "slot": "A"}, "attacker": {"champion": "torvald-ironhand"}},
}


async def test_moments_mark_whose_decision_and_a_razed_realm(server, page, shoot):
    created = server.create(ruleset="spellfire", seed=31, setup=SETUP_RAZE, spectators={"public": True})
    watch = await page(f"{server.url}/watch/{created['match']}", viewport={"width": 1280, "height": 800},
                       wait_for="main[data-status=open]")
    # Whose decision it is, and their clock; the battle's running totals.
    decision = watch.locator("#decisions .decision[data-seat=bob][data-kind=choose_defender]")
    await expect(decision).to_be_visible()
    clock = decision.locator(".clock")
    await expect(clock).to_have_text(re.compile(r"^[0-3]?\d s$"))  # of the default 30 s
    before = int((await clock.inner_text()).split()[0])
    await asyncio.sleep(1.3)
    assert int((await clock.inner_text()).split()[0]) < before  # it runs
    await expect(watch.locator("#headline")).to_contain_text("Battle for Ironbridge")
    await shoot(watch, "moments-spellfire-deciding", full_page=False)
    assert await watch.locator("#moment").is_hidden()
    bob = await Raw.open(server.url, created["match"], JSON)
    welcome = await bob.hello(created["tokens"]["bob"])
    prompt = welcome["prompts"][0]
    await bob.send({"t": "act", "id": "a1", "prompt": prompt["id"], "option": "decline", "args": {}})
    moment = watch.locator("#moment[data-kind=realm_razed]")
    await expect(moment).to_be_visible()
    await expect(moment).to_contain_text("bob's Ironbridge is razed")
    await shoot(watch, "moments-spellfire-razed", full_page=False)
    # The log in words stays, the moment marked in it.
    await expect(watch.locator("#log li.moment[data-moment=realm_razed]")).to_contain_text("razed")
    await expect(watch.locator("#decisions .decision")).to_have_count(0)
    await expect(watch.locator("#moment[data-kind=match_ended]")).to_be_visible(timeout=10_000)
    await bob.close()
    # Moments of the past are not called out again to a late viewer: only the log has them.
    late = await page(f"{server.url}/watch/{created['match']}", wait_for="[data-result]")
    await expect(late.locator("#log li[data-seq]").last).to_be_visible()
    assert await late.get_attribute("main", "data-moments") == "0"


async def test_replay_opens_at_the_step_in_its_address(server, page):
    created = server.create(ruleset="duel", seed=41, options={"hp": 10}, spectators={"public": True})
    await play_out(server.url, created)
    steps = len(httpx.get(f"{server.url}/matches/{created['match']}/replay").json()["log"])
    assert steps > 4
    replay = await page(f"{server.url}/replay/{created['match']}#step=3", wait_for="main[data-status=ready]")
    main = replay.locator("main")
    await expect(main).to_have_attribute("data-step", "3")
    await replay.click("#forward")
    await expect(main).to_have_attribute("data-step", "4")
    assert await replay.evaluate("location.hash") == "#step=4"  # the address names the step shown
    assert await replay.get_attribute("#step-link", "href") == "#step=4"
    await replay.evaluate("location.hash = '#step=1'")  # changed by hand: it goes there
    await expect(main).to_have_attribute("data-step", "1")
    # A step past the end shows the last one; one that is not a number, the start.
    late = await page(f"{server.url}/replay/{created['match']}#step=99999", wait_for="main[data-status=ready]")
    await expect(late.locator("main")).to_have_attribute("data-step", str(steps))
    odd = await page(f"{server.url}/replay/{created['match']}#step=abc", wait_for="main[data-status=ready]")
    await expect(odd.locator("main")).to_have_attribute("data-step", "0")


# One overlay per ruleset, as a broadcast would show it: a live match of bots a little way in.
RULESETS = {"duel": {"options": {"hp": 30}}, "spellfire": {}, "hourglass": {}, "demigod": {}}


async def test_overlay_of_each_ruleset(server, page, chromium, shoot):
    for ruleset, extra in RULESETS.items():
        created = server.create(ruleset=ruleset, seed=7, spectators={"public": True}, **extra)
        url = f"{server.url}/watch/{created['match']}?bg=transparent&size=960x540&scale=0.75"
        overlay = await page(url, viewport={"width": 960, "height": 540}, wait_for="main[data-status=open]")
        bots = [Client(server.url, created["match"], token, seed=i, think_s=0.05, on_status=quiet)
                for i, token in enumerate(created["tokens"].values())]
        playing = [asyncio.ensure_future(bot.run()) for bot in bots]
        await overlay.wait_for_selector("#log li:nth-child(12)", timeout=30_000)
        for task in playing:
            task.cancel()
        await asyncio.gather(*playing, return_exceptions=True)
        await overlay.wait_for_selector("#decisions .decision")
        await asyncio.sleep(0.5)  # the last view drawn
        png = await overlay.screenshot(omit_background=True)
        shot = await pixels(chromium, png, [(958, 2)])
        assert (shot["width"], shot["height"]) == (960, 540) and shot["alpha"] == [0], ruleset
        (Path(await shoot(overlay, f"overlay-{ruleset}", full_page=False))).write_bytes(png)
        if os.environ.get("BATTLEHALL_DOCS_SCREENSHOTS") == "1":
            (DOCS_SHOTS / f"overlay-{ruleset}.png").write_bytes(png)


MOMENT = """async ([name, view, events]) => {
  const mod = await import(`/static/rulesets/${name}.js`);
  const model = {ruleset: name, view, seat: null, role: "spectator", prompts: [], seats: ["alice", "bob"]};
  return {moments: events.map(e => (mod.moment ? mod.moment(e, model) : null)),
          headline: mod.headline ? mod.headline(model) : null};
}"""


async def test_each_ruleset_names_its_moments(server, page):
    blank = await page(f"{server.url}/healthz")  # any page of the server: the modules load from its origin
    hourglass = await blank.evaluate(MOMENT, ["hourglass", {"battles": [{"tile": "old-mill", "knights": [
        {"id": "alice-1@old-mill", "name": "Knight 1", "owner": "alice"}]}]}, [
        {"kind": "knight_returned", "data": {"tile": "old-mill", "knight": "alice-1@old-mill", "owner": "alice", "wounds": 3}},
        {"kind": "attack", "data": {}}]])
    assert hourglass["moments"] == [{"kind": "knight_returned", "text": "alice's Knight 1 is sent back!"}, None]
    demigod = await blank.evaluate(MOMENT, ["demigod", {"units": {
        "bob.mo": {"kind": "demigod", "name": "Morwen", "side": "bob"},
        "bob.gh": {"kind": "minion", "name": "Ghoul", "side": "bob"}}}, [
        {"kind": "defeated", "data": {"unit": "bob.gh", "cause": "hp"}},
        {"kind": "defeated", "data": {"unit": "bob.mo", "cause": "hp"}}]])
    assert demigod["moments"] == [None, {"kind": "demigod_defeated", "text": "Morwen is defeated: bob is out!"}]
    spellfire = await blank.evaluate(MOMENT, ["spellfire", {"battle": {
        "attacker": "alice", "defender": "bob", "card": "c4", "def": "ironbridge", "slot": "A",
        "sides": {"attacker": {"seat": "alice", "total": 9}, "defender": {"seat": "bob", "total": 4}}}}, [
        {"kind": "realm_razed", "data": {"seat": "bob", "card": "c4", "def": "ironbridge", "slot": "A"}}]])
    assert spellfire["moments"][0]["kind"] == "realm_razed" and "razed" in spellfire["moments"][0]["text"]
    assert spellfire["headline"].endswith("alice 9 – 4 bob")
    # Views they were not written for: nothing, never an error.
    for name in ("spellfire", "hourglass", "demigod", "duel"):
        odd = await blank.evaluate(MOMENT, [name, {}, [{"kind": "realm_razed", "data": {}},
                                                       {"kind": "defeated", "data": {"unit": "x"}},
                                                       {"kind": "knight_returned", "data": {}}]])
        assert odd["headline"] in (None, "") and all(m is None or m["text"] for m in odd["moments"]), name
