"""The lobby, spectator, replay and operator pages in a real Chromium, against a real
server with bots playing over real sockets."""

from __future__ import annotations

import asyncio

import httpx
from playwright.async_api import expect

from battlehall.client import Client
from battlehall.engine import get_ruleset
from battlehall.server.http.replay_steps import MAX_COUNT as STEPS_PER_REQUEST
from servers import bearer
from wsutil import Raw

PHONE = {"width": 390, "height": 844}
API_KEY = "operator-test-key"  # the keyed_server fixture's


def quiet(_line: str) -> None:
    pass


async def play_out(base: str, created: dict, think_s: float = 0.0) -> list:
    """Bots play every seat to the end; their results."""
    bots = [Client(base, created["match"], token, seed=i, think_s=think_s, on_status=quiet)
            for i, token in enumerate(created["tokens"].values())]
    return await asyncio.wait_for(asyncio.gather(*(bot.run() for bot in bots)), 60)


async def test_lobby_creates_a_match_and_shows_the_links(server, page, shoot):
    lobby = await page(server.url + "/", wait_for="#create-button")
    await lobby.select_option("#ruleset", "duel")
    await lobby.fill("#opt-hp", "7")
    await lobby.click("summary")
    await lobby.check("#spec-public")
    await lobby.fill("#seat-1", "not a name")  # a space is not allowed: the server says which field
    await lobby.click("#create-button")
    alert = lobby.locator("#banner[role=alert]")
    await alert.wait_for()
    assert "seats[1]" in await alert.inner_text()
    assert await lobby.get_attribute("#seat-1", "aria-invalid") == "true"
    await lobby.fill("#seat-1", "bob")
    await lobby.click("#create-button")
    await lobby.wait_for_selector("[data-link=spectator] input")
    match = await lobby.inner_text("#match-id")
    summary = httpx.get(f"{server.url}/matches/{match}").json()
    assert summary["ruleset"] == "duel" and summary["seats"] == ["alice", "bob"]
    assert summary["spectator_settings"]["public"] is True
    links = {}
    for seat in ("alice", "bob"):
        links[seat] = await lobby.input_value(f"[data-link=seat][data-seat={seat}] input")
        assert links[seat].startswith(f"{server.url}/play/{match}#token=")
    spectator = await lobby.input_value("[data-link=spectator] input")
    assert spectator.startswith(f"{server.url}/watch/{match}#token=")
    # Each link's token is the seat's own: a socket with it joins as that seat.
    token = links["bob"].split("#token=")[1]
    conn = await Raw.open(server.url, match)
    assert (await conn.hello(token))["seat"] == "bob"
    await conn.close()
    await shoot(lobby, "lobby-created")
    # Another visitor sees the public match in the list, with a link to watch it.
    other = await page(server.url + "/", viewport=PHONE, wait_for=f"#live tr[data-match='{match}']")
    assert await other.get_attribute(f"#live tr[data-match='{match}'] a", "href") == f"{server.url}/watch/{match}"
    await shoot(other, "lobby-phone")


async def test_lobby_draws_each_option_from_its_schema(server, page, shoot):
    """The lobby in words: rulesets by their titles, each option's control from its schema,
    labelled and with its help, and a link to the ruleset's leaderboard."""
    lobby = await page(server.url + "/", wait_for="#create-button")
    titles = await lobby.locator("#ruleset option").all_inner_texts()
    assert any(t.startswith("Demayth") for t in titles) and any(t.startswith("Spellfire") for t in titles)
    await lobby.select_option("#ruleset", "demigod")
    maps = get_ruleset("demigod").options_doc["map"]["choices"]
    assert len(maps) == 3
    assert await lobby.eval_on_selector("#opt-map", "e => e.tagName") == "SELECT"
    assert await lobby.locator("#opt-map option").all_inner_texts() == maps
    turns = lobby.locator("#opt-turn_limit")
    assert (await turns.get_attribute("type"), await turns.get_attribute("min"),
            await turns.get_attribute("max")) == ("number", "1", "100")
    options = await lobby.inner_text("#options")
    assert "Turn limit" in options and "Line of sight" in options and "Reaction time (ms)" in options
    assert "turn_limit" not in options and "reaction_ms" not in options
    assert "rounds before the match ends" in options  # the option's help, shown
    assert await lobby.eval_on_selector("#opt-los", "e => e.tagName") == "SELECT"
    await shoot(lobby, "lobby-options-demigod")
    link = lobby.locator("#leaderboard-link")
    assert await link.get_attribute("href") == "/leaderboard/demigod" and "Leaderboard" in await link.inner_text()
    await lobby.select_option("#ruleset", "duel")
    assert await lobby.get_attribute("#leaderboard-link", "href") == "/leaderboard/duel"
    assert await lobby.get_by_label("Reaction windows").count() == 0  # duel has no windows
    assert await lobby.get_attribute("#opt-hp", "max") == "1000"
    await lobby.select_option("#ruleset", "demigod")
    await lobby.select_option("#opt-map", maps[-1])
    await lobby.fill("#opt-turn_limit", "9")
    async with lobby.expect_request(lambda r: r.url.endswith("/matches") and r.method == "POST") as sent:
        await lobby.click("#create-button")
    options = (await sent.value).post_data_json["options"]
    assert options["map"] == maps[-1] and options["turn_limit"] == 9 and options["los"] == "lines"
    await lobby.wait_for_selector("[data-link=spectator] input")
    match = await lobby.inner_text("#match-id")
    assert httpx.get(f"{server.url}/matches/{match}").json()["ruleset"] == "demigod"


async def test_lobby_lists_a_short_page_of_public_matches_with_short_labels(server, page):
    long_label = {f"field{i}": "x" * 240 + f"<b>{i}</b>" for i in range(16)}
    made = [server.create(ruleset="duel", label=long_label, spectators={"public": True})["match"] for _ in range(11)]
    private = server.create(ruleset="duel", label={"name": "hidden"})["match"]
    lobby = await page(server.url + "/", wait_for=f"#live tr[data-match='{made[-1]}']")
    assert await lobby.locator("#live tbody tr").count() == 10  # one short page, newest first
    assert await lobby.locator(f"#live tr[data-match='{made[0]}']").count() == 0
    label = await lobby.inner_text(f"#live tr[data-match='{made[-1]}'] .label")
    assert len(label) <= 3 * 60 + 10 and label.endswith("…")  # 3 fields of 60 characters at most
    assert await lobby.locator("#live b").count() == 0  # text, never markup
    assert "listed nowhere" in await lobby.text_content("#public-means")  # what "public" means
    await lobby.click("#more")
    await lobby.wait_for_selector(f"#live tr[data-match='{made[0]}']")
    assert await lobby.locator(f"#live tr[data-match='{private}']").count() == 0


async def test_spectator_page_follows_a_match_and_counts_its_audience(server, page, shoot):
    created = server.create(ruleset="duel", seed=3, options={"hp": 12}, spectators={"delay_ms": 500})
    url = f"{server.url}/watch/{created['match']}#token={created['spectator_token']}"
    watch = await page(url, wait_for="main[data-status=open]")
    second = await page(url, viewport=PHONE, wait_for="main[data-status=open]")
    await expect(watch.locator("#spectators")).to_have_text("2", timeout=10_000)
    assert "delay" in (await watch.inner_text("#delay")).lower()
    assert await watch.locator("button, input, select").count() == 0  # no controls: watching only
    playing = asyncio.ensure_future(play_out(server.url, created, think_s=0.02))
    await watch.wait_for_selector("#log li:nth-child(3)")
    await second.reload()  # a reload in the middle picks the match up again, from its start
    await second.wait_for_selector("main[data-status=open]")
    results = await playing
    # The summary is as of the stream delay too: the end shows there once it is 500 ms old.
    for _ in range(50):
        final = httpx.get(f"{server.url}/matches/{created['match']}").json()
        if final["status"] == "finished":
            break
        await asyncio.sleep(0.1)
    assert final["status"] == "finished"
    for p in (watch, second):
        await p.wait_for_selector("[data-result]", timeout=15_000)
        await expect(p.locator("main")).to_have_attribute("data-seq", str(final["seq"]))
        # Every event once, none lost to the reload (the page was given the history from seq 1).
        assert await p.get_attribute("main", "data-events") == str(final["seq"])
        seqs = await p.eval_on_selector_all("#log li", "items => items.map(li => Number(li.dataset.seq))")
        assert seqs == sorted(set(seqs)) and seqs[-1] == final["seq"]
    assert results[0]["winners"][0] in (await watch.inner_text("#result"))
    await shoot(watch, "watch-duel-ended", full_page=False)
    await shoot(second, "watch-duel-phone")


async def test_watch_page_explains_a_missing_match_and_a_bad_link(server, page):
    watch = await page(f"{server.url}/watch/m_0000000000000000")
    alert = watch.locator("#banner")
    await alert.wait_for()
    assert "no such match" in (await alert.inner_text()).lower()
    created = server.create(ruleset="duel")
    watch = await page(f"{server.url}/watch/{created['match']}#token=not-the-token", wait_for="main[data-status=closed]")
    await expect(watch.locator("#banner[role=alert]")).to_contain_text("key is not valid")
    # A seat's link on the spectator page would put that seat's hand on a stream: refused.
    seat = await page(f"{server.url}/watch/{created['match']}#token={created['tokens']['alice']}",
                      wait_for="main[data-status=refused]")
    await expect(seat.locator("#banner[role=alert]")).to_contain_text("player's link")
    assert await seat.locator("#board *").count() == 0


async def test_replay_page_steps_through_a_finished_match(server, page, shoot):
    created = server.create(ruleset="spellfire", seed=5)
    # A private match: the replay link carries a token in its fragment, sent as a header.
    link = f"{server.url}/replay/{created['match']}#token={created['spectator_token']}"
    early = await page(link, wait_for="#banner:not([hidden])")
    assert "still being played" in await early.inner_text("#banner")
    await play_out(server.url, created)
    replay = httpx.get(f"{server.url}/matches/{created['match']}/replay", headers=bearer(created)).json()
    last = len(replay["log"])
    bare = await page(f"{server.url}/replay/{created['match']}", wait_for="#banner:not([hidden])")
    assert "private" in await bare.inner_text("#banner") and await bare.locator("[data-view-of]").count() == 0
    r = await page(link, wait_for="main[data-status=ready]")
    requested = []
    r.on("request", lambda req: requested.append(req.url))
    main = r.locator("main")
    await expect(main).to_have_attribute("data-step", "0")
    assert await r.locator("[data-view-of=alice]").count() == 1 and await r.locator("[data-view-of=bob]").count() == 1
    logged = await r.eval_on_selector_all("#log li", "items => items.map(li => Number(li.dataset.seq))")
    assert logged and logged == sorted(set(logged)) and logged[-1] == replay["events"][-1]["seq"]
    await r.click("#forward")
    await r.click("#forward")
    await expect(main).to_have_attribute("data-step", "2")
    assert await main.get_attribute("data-seq") == str(replay["log"][2]["seq"] - 1)
    await r.click("#back")
    await expect(main).to_have_attribute("data-step", "1")
    assert replay["log"][0]["seat"] in await r.inner_text("#step-text")
    assert "clock" in replay["log"][0]  # what the answer spent of its clock, in words
    assert "time used" in await r.inner_text("#step-clock") and "bank spent" in await r.inner_text("#step-clock")
    # The scrubber jumps anywhere, its range loaded as it is shown; the keyboard steps too.
    assert last - 3 >= 2 * STEPS_PER_REQUEST  # past the first range the page asked for
    await r.eval_on_selector("#scrubber", "(s, v) => { s.value = v; s.dispatchEvent(new Event('input')); }", str(last - 3))
    await expect(main).to_have_attribute("data-step", str(last - 3))
    await r.keyboard.press("ArrowRight")
    await expect(main).to_have_attribute("data-step", str(last - 2))
    asked = [u for u in requested if "/replay/steps" in u]
    assert asked and all(f"count={STEPS_PER_REQUEST}" in u for u in asked)  # ranges, never the whole match
    await shoot(r, "replay-spellfire")
    phone = await page(link, viewport=PHONE, wait_for="main[data-status=ready]")
    await shoot(phone, "replay-spellfire-phone", full_page=False)
    await phone.close()
    # Played at 10 steps a second, it reaches the end and stops there.
    await r.select_option("#speed", "10")
    await r.click("#play")
    await expect(main).to_have_attribute("data-step", str(last), timeout=5_000)
    await r.wait_for_selector("main[data-playing=false]")
    assert await main.get_attribute("data-seq") == str(replay["events"][-1]["seq"])
    assert await r.locator(".log li.current").count() >= 1
    await r.keyboard.press("Home")
    await expect(main).to_have_attribute("data-step", "0")


async def test_operator_page_lists_and_aborts(keyed_server, page, shoot):
    auth = {"Authorization": f"Bearer {API_KEY}"}
    created = httpx.post(f"{keyed_server.url}/matches", headers=auth,
                         json={"ruleset": "duel", "seats": ["alice", "bob"]}).json()
    match = created["match"]
    op = await page(f"{keyed_server.url}/operator", wait_for="#key")
    answered = []  # every response of the login, to see how the key is checked
    op.on("response", lambda r: answered.append(r))
    await op.fill("#key", "wrong")
    await op.click("button[type=submit]")
    await op.wait_for_selector("#banner[role=alert]")
    assert "not this server's api key" in (await op.inner_text("#banner")).lower()
    await op.fill("#key", API_KEY)
    await op.click("button[type=submit]")
    row = op.locator(f"tr[data-match='{match}']")
    await row.wait_for()
    assert "live" in await row.inner_text()
    # The key is checked by a read behind it, not by aborting a match that does not exist
    # (a POST, and a 404 in the console at every login).
    login = [(r.request.method, r.url.removeprefix(keyed_server.url), r.status) for r in answered]
    assert not [r for r in login if r[0] != "GET" or r[2] == 404], login
    assert ("GET", "/operator/matches", 401) in login and ("GET", "/operator/matches", 200) in login, login
    assert "answers per second" in await op.inner_text("#metrics")
    # The meters read /metrics as prometheus_client writes it (values like 1.0).
    created_meter = op.locator("#metrics .meter", has_text="matches created").locator(".value")
    assert int(await created_meter.inner_text()) >= 1
    # A socket joins: the row shows it at the next refresh.
    bob = Client(keyed_server.url, match, created["tokens"]["bob"], on_status=quiet)
    joined = asyncio.ensure_future(bob.run())
    await expect(row.locator("li[data-seat=bob]")).to_contain_text("1 socket", timeout=10_000)
    await shoot(op, "operator")
    await row.locator("[data-action=abort]").click()
    await row.locator("text=Confirm abort").click()
    await op.wait_for_selector(f"tr[data-match='{match}'][data-status=finished]")
    assert httpx.get(f"{keyed_server.url}/matches/{match}").json()["result"]["reason"] == "aborted"
    assert (await asyncio.wait_for(joined, 10))["reason"] == "aborted"
    # Any retained match can be looked up by its id, finished ones with their replay.
    await op.fill("#find-id", match)
    await op.click("#find button[type=submit]")
    found = op.locator(f"[data-found='{match}'][data-status=finished]")
    await expect(found.locator("a")).to_have_attribute("href", f"{keyed_server.url}/replay/{match}")
    await op.fill("#find-id", "m_0000000000000000")
    await op.click("#find button[type=submit]")
    await expect(op.locator("#found")).to_contain_text("no such match")
    # The key stays for this tab: a reload opens the console at once.
    await op.reload()
    await op.wait_for_selector("main[data-status=open]")


async def test_spectator_page_reconnects_by_itself_after_a_server_restart(start_server, page, shoot):
    """The server dies mid-match: the page says so, keeps trying, and once the server is
    back it resumes where it was: no event lost, none twice."""
    srv = start_server("restarted", env={"BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0"})
    created = srv.create(ruleset="duel", seed=2, options={"hp": 12}, clock={"prompt_ms": None},
                         spectators={"public": True})
    watch = await page(f"{srv.url}/watch/{created['match']}", wait_for="main[data-status=open]")
    playing = asyncio.ensure_future(play_out(srv.url, created, think_s=0.05))
    await watch.wait_for_selector("#log li:nth-child(4)")
    srv.kill()
    await watch.wait_for_selector("main[data-status=reconnecting]")
    banner = watch.locator("#banner")
    await expect(banner).to_contain_text("reconnecting")
    await shoot(watch, "watch-reconnecting", full_page=False)
    await asyncio.get_running_loop().run_in_executor(None, srv.start)
    await watch.wait_for_selector("main[data-status=open]", timeout=20_000)
    await playing
    final = httpx.get(f"{srv.url}/matches/{created['match']}").json()
    await watch.wait_for_selector("[data-result]", timeout=15_000)
    await expect(watch.locator("main")).to_have_attribute("data-seq", str(final["seq"]))
    assert await watch.get_attribute("main", "data-events") == str(final["seq"])  # each event once, none lost
    seqs = await watch.eval_on_selector_all("#log li", "items => items.map(li => Number(li.dataset.seq))")
    assert seqs == sorted(set(seqs)) and seqs[-1] == final["seq"]
    assert await banner.is_hidden()


async def test_inline_cards_are_drawn_from_the_definitions_sent_once(server, page):
    """A setup's inline champion, defined once (in each socket's welcome, and beside the
    replay's steps) and named by id in every view: the player, spectator and replay pages
    show it by its name."""
    setup = {"cards": [{"id": "test-knight", "name": "Sir Inline of Testwood", "type": "champion", "class": "hero",
                        "level": 3, "world": "greyhawk"}],
             "players": {"alice": {"formation": {"A": {"realm": "emberhold"}}, "pool": [{"champion": "test-knight"}],
                                   "hand": ["amberfield"]},
                         "bob": {"formation": {"A": {"realm": "ironbridge"}}, "hand": ["sudden-rout"]}}}
    created = server.create(ruleset="spellfire", seats=["alice", "bob"], seed=5, setup=setup,
                            options={"realms_to_win": 2}, spectators={"public": True})
    match = created["match"]
    player = await page(f"{server.url}/play/{match}#token={created['tokens']['alice']}",
                        wait_for="#play[data-status=open]")
    await expect(player.locator("#app")).to_contain_text("Sir Inline of Testwood")
    watch = await page(f"{server.url}/watch/{match}", wait_for="main[data-seq]")
    await expect(watch.locator("#board")).to_contain_text("Sir Inline of Testwood")
    await play_out(server.url, created)
    replay = await page(f"{server.url}/replay/{match}", wait_for="main[data-status=ready]")
    await expect(replay.locator("[data-view-of=alice]")).to_contain_text("Sir Inline of Testwood")
