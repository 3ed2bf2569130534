"""The hourglass table (issue 34): a four-player match drawn in a box the size the frame
gives the board at 1280x800 and at 390x844 fits without scrolling; the Hourglass Board is
drawn with each side's cubes on its two parts; Battlecards placed show as card backs until
revealed; the Battle Hand shows each card's modifiers as words; terms carry their meaning;
the log speaks in sentences without ids; a wound flashes and a placed card arrives; the
How to play covers every prompt."""

from __future__ import annotations

import re

import pytest
from test_drawings import blank  # noqa: F401  (the page the drawings load in)

from battlehall.bots import bot_answer
from battlehall.engine import get_ruleset

RS = get_ruleset("hourglass")
SEATS = ["ana", "bot-1", "bot-2", "bot-3"]
# The box the frame gives the board (below a one-line header, beside or above the prompt
# bar and the log), a little smaller than it will be.
BOXES = {"desktop": {"viewport": {"width": 1280, "height": 800}, "box": {"width": 860, "height": 740}},
         "phone": {"viewport": {"width": 390, "height": 844}, "box": {"width": 380, "height": 540}}}


def play_until(stop, seed: int = 3, seats=SEATS, options=None):
    """A match of greedy bots, ana's prompts included, until `stop(state, prompt, events)`
    is true for a prompt of ana's (returned with the state and every event so far)."""
    state, events = RS.start(list(seats), seed, options or {}, None)
    for _ in range(3000):
        open_ = list(state["prompts"])
        if not open_:
            break
        for prompt in open_:
            if prompt["seat"] == seats[0] and stop(state, prompt, events):
                return state, prompt, events
        prompt = open_[0]
        answer = bot_answer("hourglass", "greedy", prompt["seat"], RS.view(state, prompt["seat"]),
                            RS.definitions(state), prompt, "s")
        events += RS.answer(state, prompt["seat"], prompt["id"], answer.option, answer.args)
    return state, None, events


def model_of(state, seat="ana", role="player"):
    prompts = [p for p in state["prompts"] if p["seat"] == seat]
    deciding = {}
    for p in state["prompts"]:
        deciding.setdefault(p["seat"], []).append({"id": p["id"], "seat": p["seat"], "kind": p["kind"],
                                                   "window": False, "deadline": None})
    return {"ruleset": "hourglass", "view": RS.view(state, seat if role == "player" else None),
            "definitions": RS.definitions(state), "seat": seat if role == "player" else None, "role": role,
            "prompts": prompts if role == "player" else [], "seats": list(state["seats"]),
            "bots": {s: "greedy" for s in state["seats"] if s != "ana"}, "deciding": deciding,
            "presence": {s: {"connected": True} for s in state["seats"]}}


def crossroads_turn(kind: str):
    """ana's `kind` prompt in the crossroads battle, after at least one attack there."""
    def stop(state, prompt, events):
        return (prompt["kind"] == kind and state.get("current") == "crossroads"
                and any(e["kind"] == "attack" for e in events))
    return play_until(stop)


FRAME = """async ([box, model, events]) => {
  for (const href of ["/static/app.css", "/static/play.css", "/static/table.css"]) {
    if (![...document.querySelectorAll("link")].some(l => l.getAttribute("href") === href)) {
      const link = document.createElement("link"); link.rel = "stylesheet"; link.href = href;
      document.head.append(link); await new Promise(r => { link.onload = r; link.onerror = r; });
    }
  }
  document.body.className = "play";
  document.body.style.cssText = "margin:0;background:#14171c;color:#eef1f5;font-family:system-ui,sans-serif;overflow:hidden";
  document.querySelector("#hg-frame")?.remove();
  const frame = document.createElement("main");
  frame.id = "hg-frame";
  frame.className = "play";
  frame.style.cssText = `position:fixed;left:4px;top:44px;width:${box.width}px;height:${box.height}px;display:flex`;
  const root = document.createElement("section");
  root.className = "board";
  root.setAttribute("aria-label", "Board");
  root.style.cssText = "flex:1;min-height:0;min-width:0;overflow:hidden;box-sizing:border-box";
  frame.append(root);
  document.body.append(frame);
  const mod = await import("/static/rulesets/hourglass.js");
  window.__hg = {mod, root, chosen: []};
  mod.render(root, model, {choose: (...a) => window.__hg.chosen.push(a)});
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  const over = [...root.querySelectorAll("*")].filter(n => {
    const r = n.getBoundingClientRect(), b = root.getBoundingClientRect();
    return r.width > 0 && (r.bottom > b.bottom + 1 || r.right > b.right + 1) && !n.closest(".card-details")
      && !n.closest(".hand-cards") && !n.closest(".table-middle") && !n.closest("details:not([open])");
  }).map(n => n.className || n.tagName);
  const hand = [...root.querySelectorAll("[role=region]")].find(n => n.getAttribute("aria-label") === "Your Battle Hand");
  return {text: root.innerText, over, lines: events.map(e => mod.describe(e, model)),
          scroll: {h: root.scrollHeight, ch: root.clientHeight, w: root.scrollWidth, cw: root.clientWidth},
          hand: hand ? hand.getBoundingClientRect().bottom : null, bottom: root.getBoundingClientRect().bottom,
          names: [...root.querySelectorAll(".seat-name")].map(n => n.textContent)};
}"""


async def draw(page, size, model, events=()):
    await page.set_viewport_size(BOXES[size]["viewport"])
    return await page.evaluate(FRAME, [BOXES[size]["box"], model, list(events)])


@pytest.mark.parametrize("size", ["desktop", "phone"])
@pytest.mark.parametrize("kind", ["choose_battle", "targets", "defend", "attack_card"])
async def test_four_players_fit_the_boards_box(blank, shoot, size, kind):  # noqa: F811
    page, errors = blank
    if kind == "choose_battle":
        state, prompt, events = play_until(lambda s, p, e: p["kind"] == "choose_battle")
    else:
        state, prompt, events = crossroads_turn(kind)
    assert prompt is not None, kind
    out = await draw(page, size, model_of(state))
    await shoot(page, f"hourglass-table-{kind}-{size}", full_page=False)
    assert out["over"] == [], f"drawn outside the board's box: {out['over'][:8]}"
    assert out["scroll"]["h"] <= out["scroll"]["ch"] and out["scroll"]["w"] <= out["scroll"]["cw"], out["scroll"]
    assert out["hand"] is not None and out["hand"] <= out["bottom"] + 0.5
    assert {"bot-1", "bot-2", "bot-3"} <= set(out["names"])
    assert not re.search(r"\w+-\d+@[\w-]+|#c\d+", out["text"]), "an id shows on the table"
    assert errors == []


# --- the real page: a four-player bot match, played to the middle of the big battle -------

FAST = {"BATTLEHALL_BOT_THINK_MS": "50", "BATTLEHALL_MAX_CONNECTIONS_PER_IP": "0",
        "BATTLEHALL_QUEUE_JOIN_PER_MIN": "0"}
PAGE_GEOMETRY = """() => {
  const named = n => [...document.querySelectorAll("[aria-label]")].find(x => x.getAttribute("aria-label") === n);
  const box = n => { if (!n) return null; const r = n.getBoundingClientRect(); return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; };
  return {scroll: document.scrollingElement.scrollHeight, height: innerHeight, width: innerWidth,
          scrollWidth: document.scrollingElement.scrollWidth, hand: box(named("Your Battle Hand")),
          glass: box(document.querySelector(".board .hg-glass")), board: box(named("Board")),
          text: named("Board").innerText, log: (named("What happened") || {}).innerText || ""};
}"""


@pytest.fixture(scope="module")
def srv(start_server):
    return start_server("hourglass-table", env=FAST)


@pytest.mark.parametrize("size", ["desktop", "phone"])
async def test_the_big_battle_on_the_players_page_fits_one_screen(srv, page, shoot, size):
    import time

    import httpx
    from play_driver import bar_move, board_move, prompt_key

    made = httpx.post(f"{srv.url}/bot-matches", json={"ruleset": "hourglass", "seats": 4, "name": "ana"}, timeout=10).json()
    play = await page(f"{srv.url}/play/{made['match']}#token={made['token']}", viewport=BOXES[size]["viewport"])
    await play.wait_for_selector("#play[data-status=open]")
    deadline = time.monotonic() + 40
    tries: dict = {}
    while True:
        assert time.monotonic() < deadline, "never got to ana's turn in the crossroads battle"
        await play.wait_for_selector("#play:not([data-busy])")
        key = await prompt_key(play)
        if not key:
            await play.wait_for_timeout(50)
            continue
        in_crossroads = await play.locator(".board .hg-current[data-tile=crossroads]").count()
        attacked = await play.locator(".log-lines li", has_text=" attacks ").count()
        aiming = await play.locator(".board .hg-go").count() and not await play.locator(".board .hg-knight.selected").count()
        if in_crossroads and attacked and (aiming or await play.locator(".board .hg-card.playable").count()):
            break
        n = tries[key] = tries.get(key, 0) + 1
        await play.mouse.move(0, 0)
        if (n <= 4 and await board_move(play, "hourglass")) or await bar_move(play):
            await play.wait_for_timeout(40)
    await play.mouse.move(0, 0)
    await play.wait_for_timeout(300)  # the arrivals and flashes over
    g = await play.evaluate(PAGE_GEOMETRY)
    await shoot(play, f"hourglass-page-battle-{size}", full_page=False)
    assert g["scroll"] <= g["height"] and g["scrollWidth"] <= g["width"], g
    assert g["hand"] and g["hand"]["bottom"] <= g["height"] + 0.5 and g["hand"]["top"] >= 0, g["hand"]
    assert g["glass"] and g["glass"]["top"] >= g["board"]["top"] and g["glass"]["bottom"] <= g["board"]["bottom"], g["glass"]
    # (The frame logs the events of the welcome that come before the drawing's module has
    # loaded with its plain drawing: "Match started — seats: ..." is play.js's, not ours.)
    shown = [line for line in (g["text"] + "\n" + g["log"]).split("\n")
             if re.search(r"\w+-\d+@[\w-]+|#c\d+", line) and not line.startswith("Match started — ")]
    assert not shown, f"an id shows on the page: {shown}"
    from test_accessibility import violations
    # axe-core, in the middle of the big battle (the frame's log, which scrolls, is play.js's own)
    assert [v for v in await violations(play) if "#log-lines" not in v] == []
    if size == "desktop":  # How to play, over the table, from the ruleset's own guide
        await play.get_by_role("button", name="How to play").click()
        dialog = play.locator("dialog.howto-dialog")
        await dialog.wait_for()
        assert await dialog.locator("dt", has_text="Hourglass Board").count() == 1
        assert await dialog.locator("dt", has_text="Defend (defend)").count() == 1
        await shoot(play, "hourglass-page-how-to-play", full_page=False)


# --- the log, the terms, the hand, the movement, How to play --------------------------------

# Every event kind docs/hourglass.md lists, and the kinds every ruleset shares.
KINDS = ["prompt", "match_started", "player_turn_ended", "battle_started", "alliance_answered", "alliances_formed",
         "cubes_placed", "hourglass_turned", "battle_turn", "targets_assigned", "discards_drawn", "no_card",
         "card_placed", "card_discarded", "cards_revealed", "wounds_changed", "attack", "knight_returned",
         "side_left", "turn_ended", "battle_ended", "knights_withdrawn", "turn_called_off", "defender_left",
         "match_ended", "seat_resigned", "seat_away", "seat_back"]
ID = re.compile(r"\w+-\d+@[\w-]+|\w+#c?\d+|\b[a-z]+_[a-z_]+\b")

LOG = """async ([model, events]) => {
  const mod = await import("/static/rulesets/hourglass.js");
  return events.map(e => [e.kind, mod.describe(e, model)]);
}"""


def resigned_events():
    """A match where an Attacker resigns mid-turn and a Defender resigns mid-turn."""
    state, prompt, events = crossroads_turn("defend")      # ana defends: the Attacker resigns
    attacker = state["turn"]["attacker"]
    events += RS.resign(state, attacker)
    state2, prompt2, events2 = crossroads_turn("attack_card")  # ana attacks: a Defender resigns
    defender = next(d for d in state2["turn"]["defenders"] if d != "bandits")
    events2 += RS.resign(state2, defender)
    return (state, events), (state2, events2)


async def test_the_log_says_every_event_in_sentences_without_ids(blank):  # noqa: F811
    page, errors = blank
    state, _, events = play_until(lambda s, p, e: False)
    assert state["result"], "the bots' match did not end"
    (s1, e1), (s2, e2) = resigned_events()
    seen, lines = {}, []
    batches = [(state, events), (s1, e1), (s2, e2)]
    synthetic = [{"kind": "no_card", "data": {"tile": "crossroads", "side": "bot-1"}},
                 {"kind": "seat_away", "data": {"seat": "bot-2"}}, {"kind": "seat_back", "data": {"seat": "bot-2"}},
                 {"kind": "alliances_formed", "data": {"tile": "ford", "alliances": [["ana", "bot-1"]]}},
                 {"kind": "alliance_answered", "data": {"seat": "ana", "with": "bot-1"}}]
    for st, evs in batches:
        for viewer, role in (("ana", "player"), (None, "spectator")):
            model = model_of(st, "ana", role)
            shown = [RS.redact(e, viewer) for e in evs] + synthetic
            for kind, line in await page.evaluate(LOG, [model, shown]):
                if kind == "prompt_closed":
                    continue
                assert isinstance(line, str) and line, f"{kind}: {line!r}"
                assert not ID.search(line), f"an id or an engine word in {kind}: {line}"
                assert line.rstrip()[-1] in ".!", f"not a sentence ({kind}): {line}"
                seen.setdefault(kind, line)
                lines.append(line)
    assert set(KINDS) <= set(seen), f"never described: {sorted(set(KINDS) - set(seen))}"
    assert "You offered an Alliance to bot-1." in lines and "You chose to fight alone." in lines
    assert "ana offered" not in " ".join(lines)  # an offer is the offerer's own
    attacks = [line for line in lines if re.search(r"Knight \d+ attacks |Bandit \d+ attacks ", line)]
    odd = [line for line in attacks if not any(w in line for w in ("a Miss", "a Graze", "a hit", "a Critical Hit"))]
    assert attacks and not odd, odd
    assert errors == []


DRAWN = """async ([model, later]) => {
  const mod = await import("/static/rulesets/hourglass.js");
  const root = document.createElement("section");
  root.className = "board";
  document.body.append(root);
  mod.render(root, model, {choose: () => {}});
  const hand = [...root.querySelectorAll("[role=region]")].find(n => n.getAttribute("aria-label") === "Your Battle Hand");
  const cards = hand ? [...hand.querySelectorAll(".hg-card")].map(c => ({text: c.innerText, details: c.dataset.details})) : [];
  const terms = Object.fromEntries([...root.querySelectorAll("abbr.term")].map(a => [a.textContent, a.title]));
  let moved = null;
  if (later) {
    mod.render(root, later, {choose: () => {}});
    moved = {arrived: [...root.querySelectorAll(".hg-card.arrived")].map(c => c.innerText),
             flash: [...root.querySelectorAll(".hg-knight.flash")].map(k => k.dataset.knight)};
  }
  const out = {cards, terms, moved, glass: root.querySelector(".hg-glass-draw")?.getAttribute("aria-label"),
               cubes: root.querySelectorAll(".hg-glass svg rect").length, backs: root.querySelectorAll(".hg-current .hg-card.back").length,
               opponents: [...root.querySelectorAll(".table-opponents .seat-name")].map(n => n.textContent),
               howTo: mod.howTo};
  root.remove();
  return out;
}"""


async def test_the_battle_hand_terms_and_board_read_as_a_table(blank):  # noqa: F811
    page, errors = blank
    state, prompt, events = crossroads_turn("defend")
    out = await page.evaluate(DRAWN, [model_of(state), None])
    lunge = next((c for c in out["cards"] if c["text"].startswith("Lunge")), None) or out["cards"][0]
    assert "Battlecard" in lunge["text"]
    kinds = {c["kind"] for c in RS.view(state, "ana")["my_hand"]}
    if "lunge" in kinds:
        for words in ("Damage +2", "Precision +1", "Delay +0.5", "Defense -1", "Dodge -1"):
            assert words in lunge["text"], (words, lunge["text"])
        assert lunge["details"].startswith("Lunge: Damage +2, Precision +1, Delay +0.5, Defense -1, Dodge -1. All weight forward.")
    assert len(out["cards"]) == len(RS.view(state, "ana")["my_hand"])
    for word in ("Hourglass Board", "Tie Breaker", "Health", "Defense", "Dodge", "Damage", "Precision", "Delay",
                 "Bandits", "discards"):
        assert word in out["terms"] and len(out["terms"][word]) > 20, word
    assert "Wounds" in out["terms"] or "Wound" in out["terms"]
    battle = next(b for b in state["battles"] if b["tile"] == "crossroads") if isinstance(state["battles"], list) else None
    view = RS.view(state, "ana")
    crossroads = next(b for b in view["battles"] if b["tile"] == "crossroads")
    assert out["cubes"] == sum(crossroads["top"].values()) + sum(crossroads["bottom"].values())
    assert out["glass"].startswith("The Hourglass Board: you ")
    assert out["opponents"] == ["bot-1", "bot-2", "bot-3"]
    del battle
    assert errors == []


async def test_a_placed_card_arrives_face_down_and_a_wounded_knight_flashes(blank):  # noqa: F811
    page, errors = blank
    state, prompt, _ = crossroads_turn("defend")
    before = model_of(state)
    card = prompt["options"][0]["args"]["card"][0]
    RS.answer(state, "ana", prompt["id"], "place", {"card": card})
    out = await page.evaluate(DRAWN, [before, model_of(state)])
    assert any("face down" in a for a in out["moved"]["arrived"]), out["moved"]
    # Through the attack: the targeted Knights' wounds change, and they flash.
    wounds = {k["id"]: k["wounds"] for b in RS.view(state, "ana")["battles"] for k in b["knights"]}
    mid = model_of(state)
    for _ in range(20):
        open_ = [p for p in state["prompts"] if p["seat"] != "ana"]
        if not open_:
            break
        p = open_[0]
        a = bot_answer("hourglass", "greedy", p["seat"], RS.view(state, p["seat"]), RS.definitions(state), p, "s")
        events = RS.answer(state, p["seat"], p["id"], a.option, a.args)
        if any(e["kind"] == "turn_ended" for e in events):
            break
    after = {k["id"]: k["wounds"] for b in RS.view(state, "ana")["battles"] for k in b["knights"]}
    hurt = sorted(k for k, w in after.items() if w > wounds.get(k, w))
    out = await page.evaluate(DRAWN, [mid, model_of(state)])
    assert sorted(out["moved"]["flash"]) == hurt
    assert errors == []


async def test_how_to_play_names_every_prompt_and_term(blank):  # noqa: F811
    page, errors = blank
    state, _, _ = play_until(lambda s, p, e: p["kind"] == "choose_battle")
    how = (await page.evaluate(DRAWN, [model_of(state), None]))["howTo"]
    assert how["goal"] and len(how["turn"]) >= 4
    prompts = " ".join(name for name, _ in how["prompts"])
    for kind in ("choose_battle", "alliance", "targets", "defend", "attack_card"):
        assert kind in prompts, kind
    glossary = {name for name, _ in how["glossary"]}
    for word in ("Delay", "Wounds", "Battlecards", "Health", "Defense", "Dodge", "Damage", "Precision", "Tie Breaker",
                 "Hourglass Board", "Bandits"):
        assert word in glossary, word
    assert all(len(text) > 20 for _, text in how["glossary"])
    assert errors == []


async def test_a_spectator_sees_every_seat_along_the_top_and_no_hand(blank):  # noqa: F811
    page, errors = blank
    state, _, _ = crossroads_turn("targets")
    out = await page.evaluate(DRAWN, [model_of(state, "ana", "spectator"), None])
    assert out["opponents"] == SEATS and out["cards"] == []
    assert errors == []


async def test_aiming_a_knight_lights_its_targets_and_the_attack_sends_them(blank, shoot):  # noqa: F811
    page, errors = blank
    state, prompt, _ = crossroads_turn("targets")
    await draw(page, "desktop", model_of(state))
    mine = page.locator("#hg-frame .hg-knight.selectable")
    first = await mine.first.get_attribute("data-knight")
    await mine.first.click()
    aimable = page.locator("#hg-frame .hg-knight.aimable")
    allowed = prompt["options"][0]["args"][first]
    assert await aimable.count() == len([t for t in allowed if t != "none"])
    await shoot(page, "hourglass-table-aiming-desktop", full_page=False)
    target = await aimable.last.get_attribute("data-target")
    await aimable.last.click()
    await page.locator("#hg-frame .hg-go").click()
    chosen = await page.evaluate("() => window.__hg.chosen")
    assert chosen[-1][0] == prompt["id"] and chosen[-1][2][first] == target
    assert set(chosen[-1][2]) == set(prompt["options"][0]["args"])
    assert errors == []
