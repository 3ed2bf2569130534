"""The web client as the server serves it: pages, static modules with the types browsers
require, the security headers, and the replay's steps the replay page draws."""

from __future__ import annotations

import asyncio
import re

import httpx
import pytest

from battlehall.client import Client
from battlehall.engine import get_ruleset
from battlehall.server.http.web import WEB, content_type
from servers import bearer

PAGES = ["/", "/play/m_0123456789abcdef", "/watch/m_0123456789abcdef", "/replay/m_0123456789abcdef", "/operator",
         "/tv", "/tv/spellfire"]


@pytest.mark.parametrize("path", PAGES)
def test_pages_are_html_with_a_strict_policy(server, path):
    r = httpx.get(server.url + path)
    assert r.status_code == 200 and r.headers["content-type"] == "text/html; charset=utf-8"
    policy = dict(part.strip().split(" ", 1) for part in r.headers["content-security-policy"].split(";"))
    assert policy["script-src"] == "'self'" and policy["default-src"] == "'self'"
    assert policy["connect-src"] == "'self' ws: wss:"
    assert "unsafe-eval" not in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"
    assert "<script>" not in r.text  # no inline script: the policy would refuse it
    assert re.search(r'<script type="module" src="/static/\w+\.js"></script>', r.text)


def test_every_file_a_page_loads_is_served_with_its_type(server):
    loaded = set()
    for page in WEB.glob("*.html"):
        loaded |= set(re.findall(r'(?:src|href)="(/static/[^"]+)"', page.read_text()))
    loaded.discard("/static/play.js")  # the player page's module ships with the ruleset drawings
    assert "/static/app.css" in loaded
    for js in (WEB / "static").glob("*.js"):
        loaded.add(f"/static/{js.name}")
    for path in sorted(loaded):
        r = httpx.get(server.url + path)
        assert r.status_code == 200, path
        expected = "text/css; charset=utf-8" if path.endswith(".css") else "text/javascript; charset=utf-8"
        assert r.headers["content-type"] == expected, path
        assert "content-security-policy" in r.headers
    assert httpx.get(server.url + "/static/battlehall.d.ts").headers["content-type"] == "text/plain; charset=utf-8"
    # A game served from elsewhere may import the library as a module (a CORS request).
    assert httpx.get(server.url + "/static/battlehall.js").headers["access-control-allow-origin"] == "*"


def test_content_types_do_not_depend_on_the_machine():
    assert content_type("x/battlehall.mjs") == "text/javascript; charset=utf-8"
    assert content_type("battlehall.d.ts") == "text/plain; charset=utf-8"  # mime.types says video/mp2t
    assert content_type("a.CSS") == "text/css; charset=utf-8"


def test_static_files_stay_inside_their_folder(server):
    for path in ("/static/../server/app.py", "/static/%2e%2e/server/app.py", "/static/..%2fweb.py", "/static/nope.js"):
        r = httpx.get(server.url + path)
        assert r.status_code == 404, path
        assert r.json()["error"]["code"] == "not_found"


async def test_replay_steps_re_run_every_answer(server):
    created = server.create(ruleset="duel", seed=4, seed_public=True, options={"hp": 2})
    match = created["match"]
    missing = httpx.get(f"{server.url}/matches/m_0000000000000000/replay/steps")
    assert missing.status_code == 404
    live = httpx.get(f"{server.url}/matches/{match}/replay/steps", headers=bearer(created))
    assert live.status_code == 409 and live.json()["error"]["code"] == "match_live"
    bots = [Client(server.url, match, token, seed=i) for i, token in enumerate(created["tokens"].values())]
    await asyncio.wait_for(asyncio.gather(*(bot.run() for bot in bots)), 20)
    replay = httpx.get(f"{server.url}/matches/{match}/replay", headers=bearer(created)).json()
    body = httpx.get(f"{server.url}/matches/{match}/replay/steps", headers=bearer(created)).json()
    steps = body["steps"]
    assert len(steps) == len(replay["log"]) + 1
    assert steps[0]["entry"] is None and steps[0]["first_seq"] == 1
    for k, entry in enumerate(replay["log"], start=1):
        assert steps[k]["entry"]["option"] == entry["option"] and steps[k]["first_seq"] == entry["seq"]
        assert steps[k]["seq"] == (replay["log"][k]["seq"] - 1 if k < len(replay["log"]) else replay["events"][-1]["seq"])
    # Each seat's view at the end is the engine's, re-run here from the public seed.
    ruleset = get_ruleset("duel")
    state, _ = ruleset.start(["alice", "bob"], 4, {"hp": 2})
    for entry in replay["log"]:
        ruleset.answer(state, entry["seat"], entry["prompt"], entry["option"], entry["args"])
    assert steps[-1]["views"] == {seat: ruleset.view(state, seat) for seat in ("alice", "bob")}
    assert steps[-1]["views"]["alice"]["result"] == body["result"] == replay["result"]
    assert steps[0]["prompts"][replay["log"][0]["seat"]][0]["options"]  # who was asked what, in full


def _luminance(colour: str) -> float:
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def test_colours_are_readable():
    """Every text colour of app.css on every background colour: at least 7:1 (WCAG AAA)."""
    css = (WEB / "static" / "app.css").read_text()
    colours = dict(re.findall(r"--([\w-]+):\s*(#[0-9a-fA-F]{6});", css))
    for text in ("text", "muted", "accent", "good", "warn", "bad"):
        for background in ("bg", "panel", "panel-2"):
            lighter, darker = sorted((_luminance(colours[text]), _luminance(colours[background])), reverse=True)
            ratio = (lighter + 0.05) / (darker + 0.05)
            assert ratio >= 7, f"--{text} on --{background}: {ratio:.1f}:1"
