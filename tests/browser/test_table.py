"""The table in one screen: in Chromium at 1280x800 and on a phone (390x844), every
ruleset at its smallest and its largest seat count, a player's page of a bot match shows
their hand, their open decision with its countdown and every opponent's name inside the
viewport, and the page itself does not scroll. The regions are found by their ARIA names,
as a screen reader finds them."""

from __future__ import annotations

import httpx
import pytest

from conftest import PHONE

DESKTOP = {"width": 1280, "height": 800}
# The bots answer at once; nothing caps what the tests make from 127.0.0.1.
FAST = {"BATTLEHALL_BOT_THINK_MS": "50", "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0",
        "BATTLEHALL_QUEUE_JOIN_PER_MIN": "0"}
HAND = {"spellfire": "Your hand", "hourglass": "Your Battle Hand", "demigod": "Your hand"}
SEATS = {"spellfire": (2, 6), "hourglass": (2, 4), "demigod": (2, 4), "duel": (2, 2)}

# Where each region lies, in CSS pixels of the viewport, and how far the page scrolls.
GEOMETRY = """([hand]) => {
  const box = node => { if (!node) return null; const r = node.getBoundingClientRect();
                        return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, width: r.width, height: r.height}; };
  const named = (name) => [...document.querySelectorAll("[aria-label]")].find(n => n.getAttribute("aria-label") === name);
  const decisions = named("Your decisions");
  const log = named("What happened");
  const names = [...document.querySelectorAll(".seat-name")]
    .filter(n => !(log && log.contains(n)) && !(decisions && decisions.contains(n)))
    .map(n => ({text: n.textContent.trim(), box: box(n)}));
  return {scroll: {height: document.scrollingElement.scrollHeight, width: document.scrollingElement.scrollWidth},
          viewport: {height: innerHeight, width: innerWidth},
          hand: hand ? box(named(hand)) : null, decisions: box(decisions),
          timer: box(decisions && decisions.querySelector("[role=timer]")),
          board: box(named("Board")), names};
}"""


@pytest.fixture(scope="module")
def srv(start_server):
    return start_server("table", env=FAST)


def inside(box: dict, viewport: dict) -> bool:
    return (box is not None and box["width"] > 0 and box["height"] > 0 and box["top"] >= 0 and box["left"] >= 0
            and box["bottom"] <= viewport["height"] + 0.5 and box["right"] <= viewport["width"] + 0.5)


def bot_match(srv, ruleset: str, seats: int) -> dict:
    r = httpx.post(f"{srv.url}/bot-matches", json={"ruleset": ruleset, "seats": seats, "name": "ana"}, timeout=10)
    assert r.status_code == 201, r.text
    return r.json()


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("ruleset,seats", [(r, n) for r, counts in SEATS.items() for n in sorted(set(counts))])
async def test_the_whole_table_is_in_one_screen(srv, page, shoot, ruleset, seats, size):
    made = bot_match(srv, ruleset, seats)
    viewport = DESKTOP if size == "desktop" else PHONE
    play = await page(f"{srv.url}/play/{made['match']}#token={made['token']}", viewport=viewport)
    # The player's own first decision (the bots answer theirs in 50 ms).
    await play.wait_for_selector("[aria-label='Your decisions'] [data-prompt-box] [role=timer]", timeout=20_000)
    await play.wait_for_selector("#play:not([data-busy])")
    await play.mouse.move(0, 0)
    g = await play.evaluate(GEOMETRY, [HAND.get(ruleset)])
    await shoot(play, f"table-{ruleset}-{seats}-{size}", full_page=False)
    vp = g["viewport"]
    assert g["scroll"]["height"] <= vp["height"] and g["scroll"]["width"] <= vp["width"], \
        f"the page scrolls: {g['scroll']} in {vp}"
    assert inside(g["board"], vp), g["board"]
    assert inside(g["decisions"], vp), g["decisions"]
    assert inside(g["timer"], vp), g["timer"]
    if ruleset in HAND:
        assert inside(g["hand"], vp), f"{HAND[ruleset]}: {g['hand']}"
    opponents = [f"bot-{i}" for i in range(1, seats)]
    shown = {n["text"]: n["box"] for n in g["names"]}
    for name in opponents:
        assert name in shown, f"{name} is not named outside the log and the prompt: {sorted(shown)}"
        assert inside(shown[name], vp), f"{name}: {shown[name]}"
