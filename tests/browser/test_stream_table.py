"""The pages a stream shows draw the player's table (issue 34, item 9; the replay's words,
item 4), in Chromium against a real server whose bots play:

- the spectator page, the TV and the caster view fill the window with the table and do
  not scroll, at 1280x800, 1920x1080 and 390x844, at a ruleset's largest seat count;
- with a key colour (?bg=00ff00) every text of the board sits on a solid backdrop, never
  on the key colour;
- /tv?scale=1.5 at 1920x1080 shows the whole table, the lower seat's board included;
- nothing of an overlay takes focus (Tab from the top focuses nothing in the board);
- no column of the caster view says "(you)";
- the replay shows no 78-digit seed in plain view (it is folded, with the commitment),
  and no page title holds the match id;
- axe-core finds no critical or serious violation on the watch, TV, caster and replay pages.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx
import pytest
from playwright.async_api import expect

from battlehall.client import Client
from conftest import PHONE

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
FAST = {"BATTLEHALL_BOT_THINK_MS": "50", "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0",
        "BATTLEHALL_CASTER_MIN_DELAY_MS": "1000"}
SIZES = {"desktop": {"width": 1280, "height": 800}, "hd": {"width": 1920, "height": 1080}, "phone": PHONE}
LARGEST = {"spellfire": 6, "hourglass": 4, "demigod": 4, "duel": 2}
KEY = "rgb(0, 255, 0)"


def quiet(_line: str) -> None:
    pass


@pytest.fixture(scope="module")
def srv(start_server):
    return start_server("stream-table", env=FAST)


def live(srv, ruleset: str, seats: int, caster: bool = False) -> dict:
    """A public match: "ana" (nobody plays her: the match waits on her sooner or later) and
    bots in every other seat."""
    names = ["ana"] + [f"bot-{i}" for i in range(1, seats)]
    body = {"ruleset": ruleset, "seats": names, "bots": {n: "greedy" for n in names[1:]},
            "spectators": {"public": True}}
    if caster:
        body["caster"] = {"delay_ms": 1000}
    return srv.create(**body)


# Where things lie (CSS pixels of the viewport), how far the page scrolls.
GEOMETRY = """() => {
  const box = n => { const r = n.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                                                                  width: r.width, height: r.height}; };
  const board = document.querySelector("#board, #seats");
  const seats = [...board.querySelectorAll("[data-seat], .seat-summary")].filter(n => n.getClientRects().length)
    .map(n => ({seat: n.dataset.seat || n.textContent.slice(0, 20), box: box(n)}));
  return {scroll: {height: document.scrollingElement.scrollHeight, width: document.scrollingElement.scrollWidth},
          viewport: {height: innerHeight, width: innerWidth}, board: box(board), seats,
          names: [...board.querySelectorAll(".seat-name")].map(n => n.textContent.trim())};
}"""


def inside(b: dict, vp: dict) -> bool:
    return b["width"] > 0 and b["height"] > 0 and b["top"] >= -0.5 and b["left"] >= -0.5 \
        and b["bottom"] <= vp["height"] + 0.5 and b["right"] <= vp["width"] + 0.5


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("kind", ["watch", "tv"])
async def test_the_stream_pages_show_the_whole_table_in_one_screen(srv, start_server, page, shoot, kind, size):
    if kind == "tv":  # a server of its own: the TV shows the oldest of equally watched matches
        srv = start_server(f"tv-{size}", env=FAST)
    made = live(srv, "spellfire", LARGEST["spellfire"])
    url = f"{srv.url}/watch/{made['match']}" if kind == "watch" else f"{srv.url}/tv/spellfire"
    p = await page(url, viewport=SIZES[size], wait_for=f"main[data-match='{made['match']}'][data-status=open]")
    await p.wait_for_function("document.querySelector('#board').children.length > 0")
    await asyncio.sleep(0.6)  # the bots' first answers drawn
    g = await p.evaluate(GEOMETRY)
    await shoot(p, f"stream-{kind}-spellfire-6-{size}", full_page=False)
    vp = g["viewport"]
    assert g["scroll"]["height"] <= vp["height"] and g["scroll"]["width"] <= vp["width"], f"the page scrolls: {g}"
    assert inside(g["board"], vp), g["board"]
    # Every seat of the table is drawn inside the window (smaller if it must be).
    for s in g["seats"]:
        assert s["box"]["bottom"] <= vp["height"] + 0.5 and s["box"]["right"] <= vp["width"] + 0.5, s
    for seat in ["ana"] + [f"bot-{i}" for i in range(1, 6)]:
        assert seat in g["names"], f"{seat} is not named on the table: {g['names']}"
    # The page's title names the ruleset by its title and the players, never the match id.
    title = await p.title()
    assert "Spellfire: ana vs bot-1" in title and made["match"] not in title, title


async def test_the_table_says_who_decides_and_who_has_left(srv, page):
    """model.deciding from the public prompt events, model.presence from the welcome's
    `gone`: a seat with an open prompt is "to act"; ana, whose player never came, is
    disconnected (where the server tells it)."""
    made = live(srv, "duel", 2)
    p = await page(f"{srv.url}/watch/{made['match']}", wait_for="main[data-status=open]")
    deciding = p.locator("#decisions .decision").first
    await expect(deciding).to_be_visible()
    seat = await deciding.get_attribute("data-seat")
    await expect(p.locator(f"#board .seat-summary[data-seat='{seat}'].to-act")).to_be_visible()
    clock = p.locator(f"#board .seat-summary[data-seat='{seat}'] .clock").first
    await expect(clock).to_have_text(re.compile(r"^\d+:\d\d left$|^time bank"))
    welcome_gone = await p.evaluate("""async (id) => {
        const { BattlehallClient } = await import('/static/battlehall.js');
        const c = new BattlehallClient({url: location.origin, match: id, resume: 0});
        const w = await c.connect(); c.close('test'); return w.gone ?? null; }""", made["match"])
    if welcome_gone is not None and "ana" in welcome_gone:  # a server that says who has left
        await expect(p.locator("#board .seat-summary[data-seat=ana]")).to_have_attribute("data-state", "disconnected")
        await expect(p.locator("#board .seat-summary[data-seat=ana] .seat-state")).to_contain_text("disconnected")


async def background_behind_text(p) -> list:
    """For each visible text of the board: the first opaque background colour behind it,
    walking up from its element (the page's own colour when none is)."""
    return await p.evaluate("""() => {
      const out = [];
      const walker = document.createTreeWalker(document.querySelector('#board'), NodeFilter.SHOW_TEXT);
      for (let t = walker.nextNode(); t; t = walker.nextNode()) {
        if (!t.textContent.trim() || !t.parentElement.getClientRects().length) continue;
        let n = t.parentElement, bg = null;
        for (; n; n = n.parentElement) {
          const c = getComputedStyle(n).backgroundColor;
          const m = c.match(/rgba?\\(([^)]+)\\)/);
          const alpha = m ? (m[1].split(',')[3] === undefined ? 1 : Number(m[1].split(',')[3])) : 0;
          if (alpha >= 0.95) { bg = c; break; }
        }
        out.push({text: t.textContent.trim().slice(0, 30), bg: bg || getComputedStyle(document.body).backgroundColor});
      }
      return out;
    }""")


async def test_a_key_colour_leaves_every_text_of_the_board_on_a_solid_backdrop(srv, page, shoot):
    made = live(srv, "spellfire", 2)
    p = await page(f"{srv.url}/watch/{made['match']}?bg=00ff00&size=1920x1080", viewport=SIZES["hd"],
                   wait_for="main[data-status=open]")
    await p.wait_for_selector("#board .seat-name")
    await asyncio.sleep(0.5)
    assert await p.evaluate("getComputedStyle(document.body).backgroundColor") == KEY  # the key colour is the page's
    texts = await background_behind_text(p)
    assert len(texts) > 5
    on_key = [t for t in texts if t["bg"] == KEY]
    assert not on_key, f"text on the key colour: {on_key[:5]}"
    await shoot(p, "stream-overlay-key-colour-1920", full_page=False)


@pytest.mark.parametrize("ruleset,seats", [("spellfire", 2), ("spellfire", 6), ("hourglass", 4), ("demigod", 4), ("duel", 2)])
async def test_the_tv_at_scale_one_and_a_half_shows_the_lower_seats_board(start_server, page, shoot, ruleset, seats):
    srv = start_server(f"tv-scale-{ruleset}-{seats}", env=FAST)
    made = live(srv, ruleset, seats)
    await asyncio.sleep(0.3)
    tv = await page(f"{srv.url}/tv/{ruleset}?bg=transparent&size=1920x1080&scale=1.5", viewport=SIZES["hd"],
                    wait_for=f"main[data-match='{made['match']}'][data-status=open]")
    await tv.wait_for_selector("#board .seat-name")
    await asyncio.sleep(0.6)
    await shoot(tv, f"stream-tv-scale-1.5-1920-{ruleset}-{seats}", full_page=False)
    g = await tv.evaluate("""() => {
      const board = document.querySelector('#board');
      const parts = [...board.querySelectorAll('.seat-summary, [data-seat], .table-mine, .table-hand, .table-middle')]
        .filter(n => n.getClientRects().length);
      // A part that scrolls inside the table hides what it cannot show: a stream cannot scroll it.
      const hidden = [...board.querySelectorAll('.table-opponents, .table-middle, .table-mine, .table-hand, .hand-cards')].filter(n => /(auto|scroll)/.test(getComputedStyle(n).overflowY)
        && n.clientHeight && n.scrollHeight > n.clientHeight + 2).map(n => n.className);
      return {height: innerHeight, board: board.getBoundingClientRect().bottom, hidden,
              lowest: Math.max(...parts.map(n => n.getBoundingClientRect().bottom)),
              seats: [...board.querySelectorAll('.seat-name')].map(n => n.textContent.trim())};
    }""")
    assert g["board"] <= g["height"] + 0.5, g
    assert g["lowest"] <= g["height"] + 0.5, f"the lower seat's board is cut off: {g}"
    assert set(g["seats"]) >= {"ana"} | {f"bot-{i}" for i in range(1, seats)}, g
    assert not g["hidden"], f"parts of the table cut off inside it: {g['hidden']}"


async def test_nothing_on_an_overlay_takes_focus(srv, page):
    made = live(srv, "spellfire", 2)
    p = await page(f"{srv.url}/watch/{made['match']}?overlay=1", wait_for="main[data-status=open]")
    await p.wait_for_selector("#board .seat-name")
    await asyncio.sleep(0.5)
    focusable = await p.evaluate("""() => [...document.querySelectorAll('#board [tabindex], #board button, #board a')]
        .filter(n => n.tabIndex >= 0 && !n.closest('[inert]')).length""")
    assert focusable == 0
    for _ in range(6):
        await p.keyboard.press("Tab")
        inside_board = await p.evaluate("document.querySelector('#board').contains(document.activeElement)")
        assert not inside_board, await p.evaluate("document.activeElement.outerHTML.slice(0, 200)")
    # Without overlay parameters the spectator page is a page like any other: its cards focus.
    plain = await page(f"{srv.url}/watch/{made['match']}", wait_for="main[data-status=open]")
    await plain.wait_for_selector("#board .seat-name")
    assert not await plain.evaluate("document.querySelector('main').inert")


@pytest.mark.parametrize("ruleset", ["spellfire", "hourglass", "demigod", "duel"])
async def test_no_column_of_the_caster_view_says_you(srv, page, shoot, ruleset):
    made = live(srv, ruleset, 2, caster=True)
    p = await page(f"{srv.url}/cast/{made['match']}#token={made['caster_token']}", viewport=SIZES["hd"],
                   wait_for="main[data-status=casting]")
    await p.wait_for_selector("[data-view-of] .seat-root > *")
    await asyncio.sleep(0.5)
    text = await p.inner_text("#seats")
    assert "(you)" not in text and not re.search(r"\byou\b", await p.inner_text("#seats h2")), text[:400]
    assert await p.locator("[data-view-of] .you, [data-view-of] .seat-you").count() == 0
    g = await p.evaluate(GEOMETRY)
    assert g["scroll"]["height"] <= g["viewport"]["height"], "the caster page scrolls"
    title = await p.title()
    assert made["match"] not in title and ": ana vs bot-1" in title, title
    await shoot(p, f"stream-cast-{ruleset}-1920", full_page=False)


async def finished(srv, ruleset: str) -> dict:
    made = srv.create(ruleset=ruleset, seats=["ana", "bob"], spectators={"public": True},
                      **({"options": {"hp": 8}} if ruleset == "duel" else {}))
    bots = [Client(srv.url, made["match"], token, seed=i, on_status=quiet) for i, token in enumerate(made["tokens"].values())]
    await asyncio.wait_for(asyncio.gather(*(b.run() for b in bots)), 120)
    return made


async def test_the_replay_folds_its_seed_and_titles_the_match_by_its_players(srv, page, shoot):
    made = await finished(srv, "duel")
    replay = httpx.get(f"{srv.url}/matches/{made['match']}/replay").json()
    r = await page(f"{srv.url}/replay/{made['match']}", wait_for="main[data-status=ready]")
    visible = await r.inner_text("main")
    assert not re.search(r"\d{30,}", visible), "a long number in plain view"
    assert str(replay["seed"]) not in visible
    title = await r.title()
    assert title == "Duel: ana vs bob · Replay · Battlehall" and made["match"] not in title, title
    assert made["match"] not in await r.inner_text("h1")
    # The seed is there for whoever checks the match, folded, beside the commitment.
    seed = r.locator("details#seed")
    await expect(seed.locator("summary")).to_have_text("Seed (to verify the match)")
    await seed.locator("summary").click()
    await expect(seed).to_contain_text(str(replay["seed"]))
    if replay.get("seed_commitment"):
        await expect(seed).to_contain_text(replay["seed_commitment"])
    await shoot(r, "stream-replay-duel", full_page=False)
    # No event numbers in the log's words.
    assert not re.search(r"#\d", await r.inner_text("#log"))


async def axe(p) -> list:
    # The pages' Content-Security-Policy (script-src 'self') refuses an injected <script>
    # (add_script_tag); the DevTools protocol's evaluate is not subject to it.
    await p.evaluate(AXE.read_text() + "\n;void 0")
    result = await p.evaluate("axe.run().then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help, "
                              "nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ': ' + n.failureSummary)})))")
    return [v for v in result if v["impact"] in ("critical", "serious")]


@pytest.mark.parametrize("ruleset", ["duel", "spellfire", "hourglass", "demigod"])
@pytest.mark.parametrize("kind", ["watch", "tv", "cast", "replay", "watch-phone"])
async def test_axe_finds_no_serious_violation_on_the_stream_pages(srv, start_server, page, shoot, kind, ruleset):
    if kind == "tv":
        srv = start_server(f"tv-axe-{ruleset}", env=FAST)
    if kind == "replay":
        made = await finished(srv, ruleset)
        p = await page(f"{srv.url}/replay/{made['match']}", wait_for="main[data-status=ready]")
        await p.wait_for_selector("[data-view-of] .seat-root > *")
    elif kind == "cast":
        made = live(srv, ruleset, 2, caster=True)
        p = await page(f"{srv.url}/cast/{made['match']}#token={made['caster_token']}", wait_for="main[data-status=casting]")
        await p.wait_for_selector("[data-view-of] .seat-root > *")
    else:
        made = live(srv, ruleset, 2)
        url = f"{srv.url}/watch/{made['match']}" if kind.startswith("watch") else f"{srv.url}/tv/{ruleset}"
        p = await page(url, viewport=PHONE if kind == "watch-phone" else None,
                       wait_for=f"main[data-match='{made['match']}'][data-status=open]")
        await p.wait_for_selector("#board > *")
    await asyncio.sleep(0.8)
    await shoot(p, f"stream-{kind}-{ruleset}", full_page=False)
    bad = await axe(p)
    assert not bad, "\n".join(f"{v['impact']} {v['id']}: {v['help']}\n  " + "\n  ".join(v["nodes"]) for v in bad)


@pytest.mark.parametrize("ruleset,seats", [("spellfire", 6), ("demigod", 4), ("hourglass", 4)])
async def test_a_match_well_under_way_still_fits_the_tv_at_scale_one_and_a_half(start_server, page, shoot, ruleset, seats):
    """Bots in every seat, some way into the match: the boards have grown, the table still fits."""
    srv = start_server(f"tv-busy-{ruleset}", env=FAST)
    names = [f"bot-{i}" for i in range(1, seats + 1)]
    made = srv.create(ruleset=ruleset, seats=names, bots={n: "greedy" for n in names}, spectators={"public": True})
    tv = await page(f"{srv.url}/tv/{ruleset}?size=1920x1080&scale=1.5&bg=00ff00", viewport=SIZES["hd"],
                    wait_for=f"main[data-match='{made['match']}'][data-status=open]")
    await tv.wait_for_selector("#log li:nth-child(40)", timeout=60_000)
    await asyncio.sleep(0.3)
    await shoot(tv, f"stream-tv-busy-{ruleset}-{seats}", full_page=False)
    g = await tv.evaluate("""() => {
      const board = document.querySelector('#board');
      const hidden = [...board.querySelectorAll('.table-opponents, .table-middle, .table-mine, .table-hand, .hand-cards')].filter(n => /(auto|scroll)/.test(getComputedStyle(n).overflowY)
        && n.clientHeight && n.scrollHeight > n.clientHeight + 2)
        .map(n => `${n.className} ${n.scrollHeight}/${n.clientHeight} ${getComputedStyle(n).overflowY}`);
      const parts = [...board.querySelectorAll('.seat-summary, .table-mine, .table-hand, .table-middle')].filter(n => n.getClientRects().length);
      return {height: innerHeight, width: innerWidth, hidden, fit: board.dataset.fit,
              lowest: Math.max(0, ...parts.map(n => n.getBoundingClientRect().bottom)),
              right: Math.max(0, ...parts.map(n => n.getBoundingClientRect().right))};
    }""")
    assert g["lowest"] <= g["height"] + 0.5 and g["right"] <= g["width"] + 0.5, g
    assert not g["hidden"], f"parts of the table cut off inside it: {g}"
