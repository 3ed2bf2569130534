"""The demigod table (rulesets/demigod.js) in Chromium: the drawing of a real four-side
view from the engine, in a box of the frame's size at 1280x800 and 390x844, fits it with
the grid square and whole; the grid is an ARIA grid labelled a-h and 1-8; every side's
summary names its characters' Hit Points; the hand's cards are cards; pointing at things
never moves the grid; a hurt character flashes and a moved one arrives; the log says what
happened, true to the board, with no ids."""

from __future__ import annotations

import copy

import pytest

from battlehall.engine import get_ruleset

SEATS = ["ana", "bot-1", "bot-2", "bot-3"]
# The board's box as the frame gives it (a header line, the prompt bar and the log beside it
# on a desktop, above and below it on a phone), and the viewport around it.
BOXES = {"desktop": ({"width": 1280, "height": 800}, {"width": 900, "height": 740}),
         "phone": ({"width": 390, "height": 844}, {"width": 374, "height": 480}),
         "phone-short": ({"width": 390, "height": 844}, {"width": 374, "height": 300})}
SMALLEST = {"desktop": 40, "phone": 22, "phone-short": 14}  # a square's side, big enough to aim at


def engine_match(seats=SEATS, seed=3):
    rs = get_ruleset("demigod")
    state, _ = rs.start(seats, seed, None, None)
    return rs, state


def model_of(rs, state, seat="ana"):
    prompts = [p for p in state["prompts"] if p["seat"] == seat]
    return {"ruleset": "demigod", "view": rs.view(state, seat), "seat": seat, "role": "player", "prompts": prompts,
            "seats": list(state["seats"]) if "seats" in state else SEATS, "bots": {s: "greedy" for s in SEATS[1:]},
            "deciding": {p["seat"]: [{"id": p["id"], "seat": p["seat"], "kind": p["kind"], "window": p.get("window"),
                                      "deadline": None}] for p in state["prompts"]},
            "presence": {}}


HARNESS = """async ([model, box]) => {
  for (const href of ["/static/table.css"]) {
    if (![...document.querySelectorAll("link")].some(l => l.href.endsWith(href))) {
      const link = document.createElement("link");
      link.rel = "stylesheet"; link.href = href;
      const loaded = new Promise(r => link.onload = r);
      document.head.append(link);
      await loaded;
    }
  }
  document.body.style.margin = "0";
  document.body.style.background = "#1b1e25";
  document.body.style.color = "#eef0f4";
  document.body.style.fontFamily = "system-ui, sans-serif";
  let root = document.querySelector("section.board");
  if (!root) {
    root = document.createElement("section");
    root.className = "board";
    root.setAttribute("aria-label", "Board");
    document.body.append(root);
  }
  Object.assign(root.style, {width: box.width + "px", height: box.height + "px", overflow: "hidden", boxSizing: "border-box",
                             padding: "6px", position: "absolute", left: "8px", top: "44px"});
  const mod = await import("/static/rulesets/demigod.js");
  for (const link of document.querySelectorAll("link[rel=stylesheet]")) {  // the module's own stylesheet, loaded
    if (!link.sheet) await new Promise(r => { link.addEventListener("load", r); link.addEventListener("error", r); });
  }
  window.__chosen = [];
  window.__mod = mod;
  mod.render(root, model, {choose: (...a) => window.__chosen.push(a)});
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return true;
}"""

GEOMETRY = """() => {
  const root = document.querySelector("section.board");
  const r = n => { const b = n.getBoundingClientRect(); return {top: b.top, left: b.left, bottom: b.bottom, right: b.right,
                                                               width: b.width, height: b.height}; };
  const cells = [...root.querySelectorAll(".dg-sq")].map(r);
  const overflowing = [...root.querySelectorAll(".table > *, .dg-field, .dg-boardbox")]
    .filter(n => n.scrollHeight > n.clientHeight + 1 || n.scrollWidth > n.clientWidth + 1)
    .map(n => `${n.className} ${n.scrollWidth}x${n.scrollHeight} in ${n.clientWidth}x${n.clientHeight}`);
  return {root: r(root), grid: r(root.querySelector("[role=grid]")), cells,
          hand: r(root.querySelector("[aria-label='Your hand']")),
          names: [...root.querySelectorAll(".seat-name")].map(n => ({text: n.textContent, box: r(n)})), overflowing};
}"""


def within(inner, outer, slack=0.5):
    return (inner["top"] >= outer["top"] - slack and inner["left"] >= outer["left"] - slack
            and inner["bottom"] <= outer["bottom"] + slack and inner["right"] <= outer["right"] + slack)


@pytest.fixture
async def harness(server, page):
    async def open_(size, model):
        viewport, box = BOXES[size]
        p = await page(f"{server.url}/healthz", viewport=viewport)
        await p.evaluate(HARNESS, [model, box])
        return p
    return open_


@pytest.mark.parametrize("size", list(BOXES))
@pytest.mark.parametrize("seats", [2, 4])
async def test_the_sides_fit_the_box_with_a_square_whole_grid(harness, shoot, size, seats):
    rs, state = engine_match(SEATS[:seats])
    p = await harness(size, model_of(rs, state))
    g = await p.evaluate(GEOMETRY)
    await shoot(p, f"table-demigod-harness-{seats}-{size}", full_page=False)
    assert len(g["cells"]) == 64
    assert all(within(c, g["root"]) for c in g["cells"]), "a square of the grid lies outside the board's box"
    assert within(g["hand"], g["root"]), g["hand"]
    widths = {round(c["width"]) for c in g["cells"]}
    heights = {round(c["height"]) for c in g["cells"]}
    assert widths == heights and len(widths) == 1, (widths, heights)
    assert min(widths) >= SMALLEST[size], widths
    assert not g["overflowing"], g["overflowing"]
    assert sorted(n["text"] for n in g["names"]) == sorted(SEATS[:seats])
    assert all(within(n["box"], g["root"]) for n in g["names"]), g["names"]


async def test_the_grid_is_an_aria_grid_labelled_a_to_h_and_1_to_8(harness):
    rs, state = engine_match()
    p = await harness("desktop", model_of(rs, state))
    grid = await p.evaluate("""() => {
      const grid = document.querySelector("[role=grid]");
      const rows = [...grid.querySelectorAll(":scope > [role=row]")];
      return {rows: rows.length,
              columns: [...rows[0].querySelectorAll("[role=columnheader]")].map(c => c.textContent),
              side: rows.slice(1).map(r => r.querySelector("[role=rowheader]").textContent),
              cells: rows.slice(1).map(r => r.querySelectorAll("[role=gridcell]").length),
              buttons: [...grid.querySelectorAll("button.dg-cell")].every(b => b.closest("[role=gridcell]")),
              d2: (() => { const b = grid.querySelector('.dg-cell[data-x="3"][data-y="1"]');
                           return b.closest("[role=gridcell]").textContent; })()};
    }""")
    assert grid["rows"] == 9
    assert grid["columns"] == list("abcdefgh")
    assert grid["side"] == [str(n) for n in range(1, 9)]
    assert grid["cells"] == [8] * 8
    assert grid["buttons"]
    assert grid["d2"].startswith("d2")


async def test_each_side_shows_its_characters_hit_points_and_hand(harness):
    rs, state = engine_match()
    state = copy.deepcopy(state)
    state["units"]["bot-1.morwen"]["hp"] = 20
    p = await harness("desktop", model_of(rs, state))
    sides = await p.evaluate("""() => Object.fromEntries([...document.querySelectorAll(".seat-summary")].map(s =>
      [s.dataset.seat, {text: s.innerText, colour: s.style.getPropertyValue("--side")}]))""")
    assert set(sides) == set(SEATS)
    assert "Kaelen 30/30" in sides["ana"]["text"] and "Spearman 10/10" in sides["ana"]["text"]
    assert "Morwen 20/26" in sides["bot-1"]["text"]
    assert "Ghoul 1 9/9" in sides["bot-1"]["text"] and "Ghoul 2 9/9" in sides["bot-1"]["text"]
    assert all(f"hand {n}" in sides[s]["text"] for s, n in rs.view(state, "ana")["hand_counts"].items()), sides
    assert len({s["colour"] for s in sides.values()}) == 4


async def test_a_fallen_character_stays_in_its_side_as_out(harness):
    rs, state = engine_match()
    p = await harness("desktop", model_of(rs, state))
    fewer = copy.deepcopy(state)
    del fewer["units"]["bot-2.spearman1"]
    fewer["order"].remove("bot-2.spearman1")
    await p.evaluate("m => window.__mod.render(document.querySelector('section.board'), m, {choose() {}})", model_of(rs, fewer))
    text = await p.locator(".seat-summary[data-seat='bot-2']").inner_text()
    assert "Spearman out" in text


async def test_the_hand_is_cards_with_type_and_values_and_terms(harness):
    rs, state = engine_match()
    p = await harness("desktop", model_of(rs, state))
    cards = await p.evaluate("""() => [...document.querySelectorAll("[aria-label='Your hand'] .dg-card")].map(c =>
      ({text: c.innerText, details: c.dataset.details, frame: [...c.classList].find(k => k.startsWith("frame-")),
        terms: [...c.querySelectorAll("abbr[title], [title]")].map(a => a.getAttribute("title"))}))""")
    assert len(cards) == len(rs.view(state, "ana")["hand"]) >= 5
    info = {c["details"].split(" · ")[0]: c for c in cards}
    details = rs.card_sets()[0]["details"]
    for name, c in info.items():
        d = details[name]
        assert name in c["text"] and d["type"] in c["text"], c
        assert c["frame"] == f"frame-{d['type']}"
        if d.get("av") is not None:
            assert f"AV {d['av']}" in c["text"]
        if d.get("dv") is not None:
            assert f"DV {d['dv']}" in c["text"].replace("\n", " ")
        assert c["details"].startswith(f"{name} · {d['type']}")
    assert any(t.startswith("Attack Value") or t.startswith("Defense Value") for c in cards for t in c["terms"])


async def test_pointing_at_a_card_or_choosing_a_character_never_moves_the_grid(harness):
    rs, state = engine_match()
    p = await harness("desktop", model_of(rs, state))
    before = await p.locator("[role=grid]").bounding_box()
    hand = await p.locator("[aria-label='Your hand']").bounding_box()
    await p.locator(".dg-card").first.hover()
    await p.locator(".card-details.shown").wait_for()
    assert await p.locator("[role=grid]").bounding_box() == before
    assert await p.locator("[aria-label='Your hand']").bounding_box() == hand
    await p.locator(".dg-cell[data-unit-id], .dg-cell:has(.dg-unit)").last.hover()  # a character's square
    assert "HP" in await p.locator(".card-details.shown").inner_text()
    assert await p.locator("[role=grid]").bounding_box() == before
    await p.locator(".dg-cell.selectable").first.click()
    assert await p.locator(".dg-cell.mark-move").count() > 0
    assert await p.locator(".dg-unitcard").count() == 1  # the chosen character's details beside the grid
    assert await p.locator("[role=grid]").bounding_box() == before
    assert "Kaelen" in await p.locator(".dg-unitcard").inner_text()
    await p.locator(".dg-card.playable").first.click()
    assert await p.locator("[role=grid]").bounding_box() == before


async def test_a_hurt_character_flashes_and_a_moved_one_arrives(harness):
    rs, state = engine_match()
    p = await harness("desktop", model_of(rs, state))
    assert await p.locator(".dg-unit.flash, .dg-unit.arrived").count() == 0  # the first drawing animates nothing
    later = copy.deepcopy(state)
    later["units"]["bot-1.morwen"]["ap"] = 0
    later["units"]["ana.spearman1"]["pos"] = [2, 1]
    await p.evaluate("m => window.__mod.render(document.querySelector('section.board'), m, {choose() {}})", model_of(rs, later))
    flashing = await p.eval_on_selector_all(".dg-unit.flash", "ns => ns.map(n => n.dataset.unitId)")
    arrived = await p.eval_on_selector_all(".dg-unit.arrived", "ns => ns.map(n => n.dataset.unitId)")
    assert flashing == ["bot-1.morwen"] and arrived == ["ana.spearman1"]
    await p.wait_for_timeout(700)
    await p.evaluate("m => window.__mod.render(document.querySelector('section.board'), m, {choose() {}})", model_of(rs, later))
    assert await p.locator(".dg-unit.flash, .dg-unit.arrived").count() == 0


async def test_a_card_drawn_arrives_in_the_hand_and_nothing_moves_under_reduced_motion(harness):
    rs, state = engine_match()
    p = await harness("desktop", model_of(rs, state))
    later = copy.deepcopy(state)
    later["hands"]["ana"].append(later["decks"]["ana"].pop(0))
    later["units"]["bot-1.morwen"]["hp"] -= 2
    render = "m => window.__mod.render(document.querySelector('section.board'), m, {choose() {}})"
    await p.evaluate(render, model_of(rs, later))
    new = later["hands"]["ana"][-1]
    assert await p.eval_on_selector_all(".dg-card.arrived", "ns => ns.map(n => n.dataset.card)") == [new]
    await p.emulate_media(reduced_motion="reduce")
    names = await p.eval_on_selector_all(".dg-card.arrived, .dg-unit.flash",
                                         "ns => ns.map(n => getComputedStyle(n).animationName)")
    assert names and all(n == "none" for n in names), names


DESCRIBE = """([model, events]) => events.map(e => window.__mod.describe(e, model))"""


async def test_the_log_says_what_happened_true_to_the_board(harness):
    rs, state = engine_match(seats=["alice", "bob"])
    model = model_of(rs, state, "alice")
    model["seats"] = ["alice", "bob"]
    p = await harness("desktop", model)
    view = model["view"]
    events = [
        {"kind": "match_started", "data": {"seats": ["alice", "bob"], "map": view["map"], "units": view["units"]}},
        {"kind": "turn_started", "data": {"seat": "bob", "round": 2}},
        {"kind": "declared", "data": {"unit": "bob.ghoul1", "card": "c3", "name": "Strike", "target": [3, 1], "seat": "bob"}},
        {"kind": "targeted", "data": {"units": ["alice.kaelen"]}},
        {"kind": "defence", "data": {"unit": "alice.kaelen", "choice": "react", "card": "c9", "name": "Riposte", "seat": "alice"}},
        # Riposte's 3 damage went into Morwen's Armor: her Health is untouched (26/26).
        {"kind": "damage", "data": {"unit": "bob.morwen", "by": "Riposte", "taken": {"dr": 0, "barrier": 0, "ap": 3, "hp": 0},
                                    "hp": 26, "ap": 0, "barrier": 0}},
        {"kind": "attack_result", "data": {"unit": "alice.kaelen", "av": 5, "dv": 2, "hit": True,
                                           "taken": {"dr": 1, "barrier": 0, "ap": 2, "hp": 0}, "hp": 30, "ap": 3, "barrier": 0}},
        {"kind": "attack_result", "data": {"unit": "alice.kaelen", "av": 2, "dv": 4, "hit": False}},
        {"kind": "moved", "data": {"unit": "alice.spearman1", "from": [1, 0], "to": [3, 1]}},
        {"kind": "defeated", "data": {"unit": "bob.2", "cause": "hp", "pos": [4, 4]}},
        {"kind": "ticks", "data": {"unit": "bob.morwen", "kind": "poison", "added": 5, "total": 5}},
        {"kind": "barrier", "data": {"unit": "bob.morwen", "added": 4, "total": 4}},
    ]
    lines = await p.evaluate(DESCRIBE, [model, events])
    assert lines[0] == "The battle begins on crossroads: you (Kaelen) against bob (Morwen)."
    assert lines[1] == "Round 2: bob's turn."
    assert lines[2] == "Ghoul 1 (bob) plays Strike at d2."
    assert lines[3] == "Your Kaelen is targeted and may defend."
    assert lines[4] == "Your Kaelen reacts with Riposte."
    assert lines[5] == "Riposte strikes back at Morwen (bob): 3 damage (3 by Armor); 26 HP, 0 AP left."
    assert lines[6] == ("Strike hits your Kaelen: AV 5 against DV 2, 3 damage (1 stopped by Damage Reduction, 2 by Armor); "
                        "30 HP, 3 AP left.")
    assert lines[7] == "Strike misses your Kaelen: AV 2 against DV 4."
    assert lines[8] == "Your Spearman moves from b1 to d2."
    assert "bob's 2" not in lines[9] and "bob." not in lines[9] and lines[9].endswith("is defeated: no Hit Points left.")
    assert lines[10] == "Morwen (bob) gains 5 Poison ticks (5 of 20)."
    assert lines[11] == "Morwen (bob) gains a barrier of 4."
    for line in lines:
        assert "alice." not in line and "bob." not in line, line


async def test_every_event_kind_of_the_docs_reads_as_a_sentence(harness):
    rs, state = engine_match(seats=["alice", "bob"])
    model = model_of(rs, state, "alice")
    model["seats"] = ["alice", "bob"]
    p = await harness("desktop", model)
    kinds = {
        "hands": {"counts": {"alice": 2, "bob": 2}},
        "drew": {"seat": "bob", "count": 1, "hand_count": 6, "deck_count": 20},
        "effect": {"unit": "alice.kaelen", "title": "Stone Skin", "source": "Stone Skin", "stat": "dv", "value": 2, "turns": 2,
                   "how": "added"},
        "pushed": {"unit": "bob.morwen", "from": [4, 4], "to": [5, 5]},
        "side_out": {"seat": "bob", "out": ["bob"], "discarded": [{"id": "c4", "name": "Guard"}]},
        "attack_failed": {"unit": "bob.morwen", "card": "c5", "name": "Firebolt", "seat": "bob", "reason": "out_of_range"},
        "turn_ended": {"seat": "alice", "timers": [{"unit": "alice.kaelen", "title": "Stone Skin", "turns": 1}]},
        "effect_ended": {"unit": "alice.kaelen", "title": "Stone Skin"},
        "match_ended": {"winners": ["alice"], "reason": "conquest"},
    }
    lines = await p.evaluate(DESCRIBE, [model, [{"kind": k, "data": d} for k, d in kinds.items()]])
    dealt = {"kind": "hands", "data": {"counts": {"alice": 1, "bob": 1}, "cards": [{"id": "c9", "name": "Parry"}]}}
    replay = {**model, "role": "replay", "seat": "bob"}
    assert await p.evaluate(DESCRIBE, [model, [dealt]]) == ["The hands are dealt: you 1 card, bob 1 card; you hold Parry."]
    assert await p.evaluate(DESCRIBE, [replay, [dealt]]) == ["The hands are dealt: alice 1 card, bob 1 card."]
    said = dict(zip(kinds, lines))
    assert said["drew"] == "bob draws 1 card."
    assert said["effect"] == "Your Kaelen gains Stone Skin: DV +2 for 2 turns."
    assert said["pushed"] == "Morwen (bob) is pushed from e5 to f6."
    assert said["side_out"] == "bob is out, discarding Guard."
    assert said["attack_failed"] == "Firebolt fails: its target is out of range now."
    assert said["turn_ended"] == "End of your turn (Stone Skin on Kaelen, 1 turn left)."
    assert said["effect_ended"] == "Your Kaelen: Stone Skin wears off."
    for kind, line in said.items():
        assert line and line.rstrip().endswith((".", "!", ")")) or kind == "match_ended", (kind, line)
        assert "_" not in line and "c4" not in line, line


async def test_how_to_play_explains_every_term_of_the_table(harness):
    rs, state = engine_match()
    p = await harness("desktop", model_of(rs, state))
    how = await p.evaluate("() => window.__mod.howTo")
    assert how["goal"] and len(how["turn"]) >= 3
    assert {name for name, _ in how["prompts"]} >= {"Your turn", "Defend"}
    glossary = dict(how["glossary"])
    for t in ("AV", "DV", "AP", "DR", "HP", "barrier", "poison", "disease"):
        assert t in glossary and len(glossary[t]) > 20, t
    assert glossary["AV"].startswith("Attack Value") and glossary["DV"].startswith("Defense Value")
    # ...and where they appear: the chosen character's numbers carry their meaning.
    await p.locator(".dg-cell.selectable").first.click()
    titles = await p.eval_on_selector_all(".dg-unitcard abbr.term", "ns => ns.map(n => n.textContent + ': ' + n.title)")
    assert any(t.startswith("HP: Hit Points") for t in titles) and any(t.startswith("AP: Armor Points") for t in titles)


# Four sides close together: ana's Kaelen can aim a Fireball at bot-1's Morwen and her Ghoul.
CLOSE = {
    "map": "crossroads",
    "units": [
        {"id": "ana.kaelen", "side": "ana", "kind": "demigod", "name": "Kaelen", "pos": [1, 2], "hp": 24, "max_hp": 30,
         "ap": 5, "dr": 1, "poison": 3,
         "effects": [{"title": "Stone Skin", "source": "Stone Skin", "stat": "dv", "value": 2, "turns": 1}]},
        {"id": "ana.spearman1", "side": "ana", "kind": "minion", "name": "Spearman", "pos": [2, 1], "hp": 10},
        {"id": "bot-1.morwen", "side": "bot-1", "kind": "demigod", "name": "Morwen", "pos": [5, 2], "hp": 26, "ap": 3},
        {"id": "bot-1.ghoul1", "side": "bot-1", "kind": "minion", "name": "Ghoul", "pos": [5, 3], "hp": 9},
        {"id": "bot-2.kaelen", "side": "bot-2", "kind": "demigod", "name": "Kaelen", "pos": [7, 7], "hp": 30},
        {"id": "bot-3.morwen", "side": "bot-3", "kind": "demigod", "name": "Morwen", "pos": [0, 7], "hp": 26},
    ],
    "hands": {"ana": ["Fireball", "Strike", "Parry", "Riposte"], "bot-1": ["Firebolt", "Guard"], "bot-2": [], "bot-3": []},
    "turn": {"seat": "ana", "round": 2},
}


async def test_aiming_an_area_card_lights_its_targets_and_its_blast(harness, shoot):
    rs = get_ruleset("demigod")
    state, _ = rs.start(SEATS, 1, None, CLOSE)
    p = await harness("desktop", model_of(rs, state))
    await p.locator(".dg-cell.selectable[data-unit='ana.kaelen']").click()
    await p.locator(".dg-card.playable", has_text="Fireball").click()
    targets = p.locator(".dg-cell.mark-target")
    assert await targets.count() > 0
    await p.locator(".dg-cell.mark-target[data-x='5'][data-y='2']").hover()
    caught = await p.eval_on_selector_all(".dg-cell.caught", "ns => ns.map(n => n.dataset.x + ',' + n.dataset.y)")
    assert sorted(caught) == sorted(f"{x},{y}" for x in (4, 5, 6) for y in (1, 2, 3))
    side = await p.locator(".dg-side").inner_text()
    assert "Red squares" in side and "Kaelen" in side and "Stone Skin" in side
    await shoot(p, "table-demigod-harness-aiming", full_page=False)
    await p.locator(".dg-cell.mark-target[data-x='5'][data-y='2']").click()
    chosen = await p.evaluate("() => window.__chosen")
    assert chosen[0][1] == "attack" and chosen[0][2]["target"] == [5, 2] and chosen[0][2]["unit"] == "ana.kaelen"


async def test_a_reaction_window_offers_the_hand_to_defend_with(harness, shoot):
    rs = get_ruleset("demigod")
    setup = {**CLOSE, "turn": {"seat": "bot-1", "round": 2}}
    state, _ = rs.start(SEATS, 1, None, setup)
    turn = state["prompts"][0]
    attack = next(o for o in turn["options"] if o["id"] == "attack")
    bolt = next(c for c in attack["combos"] if c["unit"] == ["bot-1.morwen"] and [1, 2] in c["target"])
    rs.apply(state, turn, "attack", {"unit": "bot-1.morwen", "card": bolt["card"][0], "target": [1, 2]})
    assert state["prompts"][0]["kind"] == "defend" and state["prompts"][0]["seat"] == "ana"
    p = await harness("phone", model_of(rs, state))
    playable = await p.eval_on_selector_all(".dg-card.playable", "ns => ns.map(n => n.innerText.replace(/\\n/g, ' '))")
    assert any("Parry" in t and "react" in t for t in playable) and any("Strike" in t and "defend" in t for t in playable)
    assert "Morwen (bot-1) aims Firebolt at your Kaelen: click a card" in await p.locator(".dg-status").inner_text()
    assert await p.locator(".dg-unit.targeted").count() == 1
    await shoot(p, "table-demigod-harness-defend-phone", full_page=False)
    await p.locator(".dg-card.playable", has_text="Parry").click()
    chosen = await p.evaluate("() => window.__chosen")
    assert chosen[0][1] == "react"


async def test_the_headline_says_the_attack_being_answered_or_whose_turn(harness):
    rs = get_ruleset("demigod")
    state, _ = rs.start(SEATS, 1, None, {**CLOSE, "turn": {"seat": "bot-1", "round": 2}})
    p = await harness("desktop", model_of(rs, state))
    spectator = {**model_of(rs, state), "seat": None, "role": "spectator", "prompts": []}
    assert await p.evaluate("m => window.__mod.headline(m)", spectator) == "Round 2 of 15: bot-1's turn"
    turn = state["prompts"][0]
    attack = next(o for o in turn["options"] if o["id"] == "attack")
    bolt = next(c for c in attack["combos"] if c["unit"] == ["bot-1.morwen"] and [1, 2] in c["target"])
    rs.apply(state, turn, "attack", {"unit": "bot-1.morwen", "card": bolt["card"][0], "target": [1, 2]})
    spectator = {**model_of(rs, state), "seat": None, "role": "spectator", "prompts": []}
    assert await p.evaluate("m => window.__mod.headline(m)", spectator) == \
        "Morwen (bot-1) aims Firebolt at b3: Kaelen (ana) to answer"


async def test_a_spectator_reads_any_character_beside_the_grid(harness):
    rs, state = engine_match()
    spectator = {**model_of(rs, state), "seat": None, "role": "spectator", "prompts": []}
    spectator["view"] = rs.view(state, None)
    p = await harness("desktop", spectator)
    assert await p.locator("[aria-label='Your hand']").count() == 0  # no hand: its size is in each summary
    before = await p.locator("[role=grid]").bounding_box()
    await p.locator(".dg-cell[data-x='7'][data-y='7']").click()  # bot-1's Morwen
    card = await p.locator(".dg-unitcard").inner_text()
    assert "Morwen" in card and "26/26" in card and "bot-1" in card
    assert await p.locator("[role=grid]").bounding_box() == before
    await p.locator(".dg-cell[data-x='7'][data-y='7']").press("Enter")
    assert await p.locator(".dg-unitcard").count() == 0


async def test_the_player_page_shows_how_to_play_with_the_tables_words(server, page, shoot):
    import httpx
    r = httpx.post(f"{server.url}/bot-matches", json={"ruleset": "demigod", "seats": 4, "name": "ana"}, timeout=10)
    assert r.status_code == 201, r.text
    made = r.json()
    play = await page(f"{server.url}/play/{made['match']}#token={made['token']}", viewport=BOXES["desktop"][0])
    await play.wait_for_selector(".dg-table [role=grid]", timeout=20_000)
    await play.get_by_role("button", name="How to play").click()
    dialog = play.get_by_role("dialog")
    await dialog.wait_for()
    terms = await dialog.locator("dt").all_inner_texts()
    for t in ("Your turn", "Defend", "AV", "DV", "AP", "DR", "HP", "barrier", "poison", "disease"):
        assert t in terms, (t, terms)
    await shoot(play, "table-demigod-how-to-play", full_page=False)
