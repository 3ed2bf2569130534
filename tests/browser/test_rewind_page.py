"""A judge's rewind as a player sees it: the page says the match was taken back and links
to the match that goes on, which the same token plays."""

from __future__ import annotations

import httpx
from playwright.async_api import expect
from test_cast_page import API_KEY

from wsutil import Raw

OPEN = "#play[data-status=open]"
AUTH = {"Authorization": f"Bearer {API_KEY}"}


async def test_a_rewound_match_sends_its_players_on_to_the_new_one(keyed_server, page, shoot):
    created = httpx.post(f"{keyed_server.url}/matches", headers=AUTH, timeout=10,
                         json={"ruleset": "duel", "seats": ["alice", "bob"], "clock": {"prompt_ms": None}}).json()
    match = created["match"]
    alice = await page(f"{keyed_server.url}/play/{match}#token={created['tokens']['alice']}", wait_for=OPEN)
    sock = await Raw.open(keyed_server.url, match)  # alice's second socket answers for her
    await sock.send({"t": "hello", "token": created["tokens"]["alice"]})
    welcome = await sock.recv()
    await sock.send({"t": "act", "id": "x1", "prompt": welcome["prompts"][0]["id"], "option": "guard"})
    await sock.recv_until(lambda m: m["t"] == "ack")
    r = httpx.post(f"{keyed_server.url}/matches/{match}/rewind", headers=AUTH,
                   json={"entry": 1, "judge": "jo", "reason": "wrong button"})
    assert r.status_code == 201, r.text
    new = r.json()["match"]
    banner = alice.locator(".result-banner[data-result=judge_rewind]")
    await expect(banner).to_contain_text("A judge took the match back.")
    link = banner.get_by_role("link", name="Go on playing")
    await expect(link).to_have_attribute("href", f"/play/{new}#token={created['tokens']['alice']}")
    await shoot(alice, "player-page-rewound", full_page=False)
    await link.click()
    await alice.wait_for_selector(OPEN)
    assert new in alice.url
    # The same seat, at the start again: its first prompt is open to it.
    await expect(alice.get_by_role("region", name="Your decisions")).to_contain_text("Guard")
    await sock.ws.close()


async def test_the_judge_page_shows_every_seat_live_and_takes_a_match_back(keyed_server, page, shoot):
    created = httpx.post(f"{keyed_server.url}/matches", headers=AUTH, timeout=10,
                         json={"ruleset": "hourglass", "seats": ["alice", "bob"], "clock": {"prompt_ms": None}}).json()
    match = created["match"]
    judge = httpx.post(f"{keyed_server.url}/judges", headers=AUTH, json={"name": "jo"}).json()["token"]
    sock = await Raw.open(keyed_server.url, match)
    await sock.send({"t": "hello", "token": created["tokens"]["alice"]})
    prompt = next(p for p in (await sock.recv())["prompts"] if p["seat"] == "alice")
    option = prompt["options"][0]
    args = {name: values[0] for name, values in (option.get("args") or {}).items()}
    await sock.send({"t": "act", "id": "x1", "prompt": prompt["id"], "option": option["id"], "args": args})
    await sock.recv_until(lambda m: m["t"] == "ack")

    judged = await page(f"{keyed_server.url}/judge/{match}#token={judge}", wait_for="main[data-status=casting]")
    await expect(judged.locator(".view-kind")).to_have_text("judge view: every hand, live")
    await expect(judged.locator("[data-view-of]")).to_have_count(2)  # every seat's hand
    entries = judged.locator("#judge .judge-log li")
    await expect(entries).to_have_count(1)
    await expect(entries.first).to_contain_text("alice:")
    await judged.fill("#judge-reason", "a misplay the judge allowed back")
    await shoot(judged, "judge-page", full_page=False)
    await entries.first.get_by_role("button").click()
    await judged.wait_for_url(lambda url: "/judge/m_" in url and match not in url and url.endswith(f"#token={judge}"))
    await judged.wait_for_selector("main[data-status=casting]")
    await expect(judged.locator("#judge .judge-log li")).to_have_count(0)  # back at the start
    replay = httpx.get(f"{keyed_server.url}/matches/{match}/replay", headers=AUTH).json()
    assert replay["log"][-1]["reason"] == "judge_rewind" and replay["log"][-1]["by"] == "jo"
    assert replay["log"][-1]["note"] == "a misplay the judge allowed back"
    await sock.ws.close()


async def test_the_judge_pauses_and_resumes_a_match_s_clocks_from_the_page(keyed_server, page):
    created = httpx.post(f"{keyed_server.url}/matches", headers=AUTH, timeout=10,
                         json={"ruleset": "duel", "seats": ["alice", "bob"]}).json()
    match = created["match"]
    judge = httpx.post(f"{keyed_server.url}/judges", headers=AUTH, json={"name": "jo"}).json()["token"]
    judged = await page(f"{keyed_server.url}/judge/{match}#token={judge}", wait_for="main[data-status=casting]")
    await judged.get_by_role("button", name="Pause the clocks").click()
    await expect(judged.locator(".judge-clocks [role=status]")).to_have_text("clocks paused")
    sock = await Raw.open(keyed_server.url, match)
    await sock.send({"t": "hello", "token": created["tokens"]["alice"]})
    welcome = await sock.recv()
    assert welcome.get("paused")  # every seat is told
    await judged.get_by_role("button", name="Resume").click()
    await expect(judged.locator(".judge-clocks [role=status]")).to_have_text("clocks running")
    replay_log = httpx.get(f"{keyed_server.url}/matches/{match}/log", headers=AUTH).json()["log"]
    assert [e["judge"]["action"] for e in replay_log if "judge" in e] == ["pause", "resume"]
    assert all(e["judge"]["by"] == "jo" for e in replay_log if "judge" in e)
    await sock.ws.close()
