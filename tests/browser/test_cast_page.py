"""The caster page in Chromium: every hand face up, every frame it is sent at least the
caster delay after what it shows happened (by the log's `at`), across a server restart
(the page reconnects and resumes); the caster link opens no other page, no other link
opens it."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from playwright.async_api import expect

from battlehall.client import JSON, MSGPACK, Client
from battlehall.engine import ruleset_names
from servers import ServerProcess, bearer
from wsutil import Raw

DELAY_MS = 2000  # the server's smallest caster delay here (BATTLEHALL_CASTER_MIN_DELAY_MS)
API_KEY = "operator-test-key"  # the keyed_server fixture's
ENV = {"BATTLEHALL_CASTER_MIN_DELAY_MS": str(DELAY_MS), "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"}

# Each seat's own hand, drawn face up in that seat's panel (duel has no hidden cards).
FACE_UP = {"spellfire": ".sf-hand:not(.sf-hand-hidden)", "hourglass": ".hg-hand h4:has-text('Battle Hand (')",
           "demigod": ".dg-hand h4:has-text('hand (')", "duel": ".duel-fighter"}

# Every frame a socket of the page receives, with the page's clock when it arrived.
RECORD_FRAMES = """
window.__frames = [];
const Native = window.WebSocket;
window.WebSocket = class extends Native {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (e) => window.__frames.push([Date.now(), e.data]));
  }
};
"""


@pytest.fixture(scope="module")
def cast_server(tmp_path_factory):
    srv = ServerProcess(tmp_path_factory.mktemp("cast-pages"), env=ENV).start()
    yield srv
    srv.stop()


def check_frames(frames: list, at_of: dict[int, int]) -> int:
    """Each frame the page got shows nothing newer than the delay: an event's `at`, the
    time of the last event a welcome or view holds, are at least DELAY_MS before it arrived."""
    checked = 0
    for arrived, data in frames:
        message = json.loads(data)
        for m in message["messages"] if message["t"] == "batch" else [message]:
            if m["t"] == "event":
                assert m["at"] + DELAY_MS <= arrived, f"event {m['seq']} shown {arrived - m['at']} ms after it happened"
            elif m["t"] in ("welcome", "view") and m["seq"]:
                assert at_of[m["seq"]] + DELAY_MS <= arrived, f"{m['t']} at seq {m['seq']} too fresh"
            elif m["t"] in ("welcome", "view"):
                assert m["views"] is None
            else:
                continue
            checked += 1
    return checked


@pytest.mark.timeout(180)
@pytest.mark.parametrize("name", ruleset_names())
async def test_the_caster_page_shows_every_hand_only_after_the_delay_across_a_restart(cast_server, chromium, shoot,
                                                                                       name):
    server = cast_server
    created = server.create(ruleset=name, caster={}, clock={"window_min_ms": 0})
    context = await chromium.new_context(viewport={"width": 1400, "height": 900})
    await context.add_init_script(RECORD_FRAMES)
    page = await context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    try:
        await page.goto(f"{server.url}/cast/{created['match']}#token={created['caster_token']}")
        # Before the start is the delay old, nothing is drawn: even the deal waits (the
        # frames' check below holds each welcome to it, however slowly the page loaded).
        await page.wait_for_selector("main[data-status=waiting], main[data-status=casting]")
        if await page.get_attribute("main", "data-status") == "waiting":
            assert await page.locator("[data-view-of]").count() == 0
        players = [Client(server.url, created["match"], token, wire=(JSON, MSGPACK)[i % 2], seed=i, think_s=0.05,
                          on_status=lambda s: None) for i, token in enumerate(created["tokens"].values())]
        playing = [asyncio.create_task(p.run()) for p in players]
        await page.wait_for_selector("main[data-status=casting]", timeout=DELAY_MS + 10_000)
        for seat in created["tokens"]:  # every seat's panel, its hand face up
            await expect(page.locator(f"[data-view-of='{seat}'] {FACE_UP[name]}").first).to_be_visible()
        server.kill()  # a restart: the page reconnects and resumes from the last event it has
        server.start()
        await asyncio.wait_for(asyncio.gather(*playing), 150)
        final = httpx.get(f"{server.url}/matches/{created['match']}").json()
        await page.wait_for_selector("[data-result]", timeout=DELAY_MS + 20_000)
        await expect(page.locator("main")).to_have_attribute("data-seq", str(final["seq"]))
        assert await page.get_attribute("main", "data-events") == str(final["seq"])  # each event once
        for seat in created["tokens"]:
            await expect(page.locator(f"[data-view-of='{seat}'] {FACE_UP[name]}").first).to_be_attached()
        replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()
        frames = await page.evaluate("window.__frames")
        assert check_frames(frames, {e["seq"]: e["at"] for e in replay["events"]}) > final["seq"]
        assert len([f for f in frames if '"t":"welcome"' in f[1]]) >= 2  # it did reconnect
        await shoot(page, f"cast-{name}", full_page=False)
    finally:
        await context.close()
    assert not errors, errors


async def test_the_caster_link_opens_only_the_caster_page(cast_server, page):
    server = cast_server
    created = server.create(ruleset="spellfire", caster={})
    match, caster = created["match"], created["caster_token"]
    # A seat's or the spectator's link on the caster page: refused by the server before any view.
    for token in (created["tokens"]["alice"], created["spectator_token"]):
        cast = await page(f"{server.url}/cast/{match}#token={token}", wait_for="main[data-status=refused]")
        await expect(cast.locator("#banner")).to_contain_text("not the caster link")
        assert await cast.locator("[data-view-of]").count() == 0
    cast = await page(f"{server.url}/cast/{match}", wait_for="main[data-status=refused]")
    assert await cast.locator("[data-view-of]").count() == 0
    # The caster link on the spectator and player pages: refused.
    watch = await page(f"{server.url}/watch/{match}#token={caster}", wait_for="main[data-status=refused]")
    await expect(watch.locator("#banner")).to_contain_text("caster link")
    assert await watch.locator("#board *").count() == 0
    play = await page(f"{server.url}/play/{match}#token={caster}", wait_for="body[data-refused=caster]")
    await expect(play.locator("[role=alert]").first).to_contain_text("caster link")


async def test_the_operator_page_shows_the_caster_link(keyed_server, page):
    auth = {"Authorization": f"Bearer {API_KEY}"}
    created = httpx.post(f"{keyed_server.url}/matches", headers=auth,
                         json={"ruleset": "hourglass", "seats": ["alice", "bob"], "caster": {}}).json()
    plain = httpx.post(f"{keyed_server.url}/matches", headers=auth,
                       json={"ruleset": "hourglass", "seats": ["alice", "bob"]}).json()
    op = await page(f"{keyed_server.url}/operator", wait_for="#key")
    await op.fill("#key", API_KEY)
    await op.click("button[type=submit]")
    link = op.locator(f"tr[data-match='{created['match']}'] a[data-cast]")
    await expect(link).to_have_attribute(
        "href", f"{keyed_server.url}/cast/{created['match']}#token={created['caster_token']}")
    await expect(link.locator("..")).to_contain_text("delay 1:00")
    await op.locator(f"tr[data-match='{plain['match']}']").wait_for()
    assert await op.locator(f"tr[data-match='{plain['match']}'] a[data-cast]").count() == 0
    await link.click()  # the default delay, a minute: the page waits for the start to be that old
    await op.wait_for_selector("main[data-status=waiting]")
    assert await op.locator("[data-view-of]").count() == 0


async def test_the_lobby_creates_a_match_with_a_caster_link(cast_server, page):
    server = cast_server
    lobby = await page(server.url + "/", wait_for="#create-button")
    await lobby.select_option("#ruleset", "duel")
    await lobby.click("summary")
    await lobby.check("#caster")
    await lobby.fill("#caster-delay-s", "1")  # below the server's minimum (2 s here): refused, the field named
    await lobby.click("#create-button")
    alert = lobby.locator("#banner[role=alert]")
    await alert.wait_for()
    assert "caster.delay_ms" in await alert.inner_text()
    assert await lobby.get_attribute("#caster-delay-s", "aria-invalid") == "true"
    await lobby.fill("#caster-delay-s", "3")
    await lobby.click("#create-button")
    await lobby.wait_for_selector("[data-link=caster] input")
    match = await lobby.inner_text("#match-id")
    assert httpx.get(f"{server.url}/matches/{match}").json()["caster_settings"] == {"delay_ms": 3000}
    link = await lobby.input_value("[data-link=caster] input")
    assert link.startswith(f"{server.url}/cast/{match}#token=")
    conn = await Raw.open(server.url, match)
    welcome = await conn.hello(link.split("#token=")[1], role="caster")
    assert welcome["role"] == "caster" and welcome["delay_ms"] == 3000
    await conn.close()
