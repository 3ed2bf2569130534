"""Spellfire's table (rulesets/spellfire.js) drawn on views of a real six-seat match: the
opponents' strips along the top with their numbers and mini pyramids, the realms a prompt
offers to attack in view in the middle, the battle with its totals, your zones labelled and
your hand as cards, arrivals and razings marked, the log in sentences, How to play, and the
whole table inside a desktop's and a phone's board box."""

from __future__ import annotations

import copy
import random
import re

import pytest

from battlehall.engine.ruleset import random_answer
from battlehall.engine.spellfire.game import Spellfire

SEATS = ["ana", "bot-1", "bot-2", "bot-3", "bot-4", "bot-5"]


def snapshots(seed: int = 7) -> dict:
    """Views and prompts of ana's seat in a random six-seat match, by prompt kind (the first
    time each kind opens for ana, and again after turn 30: boards with realms razed, pools)."""
    rs = Spellfire()
    state, events = rs.start(SEATS, seed, {})
    rng = random.Random(3)
    out: dict = {}
    for _ in range(4000):
        prompts = rs.prompts(state)
        if not prompts:
            break
        mine = [p for p in prompts if p["seat"] == "ana"]
        view = rs.view(state, "ana")
        late = view["turn"]["number"] > 30
        for p in mine:
            key = p["kind"] + ("-late" if late else "")
            if key not in out:
                out[key] = {"view": view, "prompts": mine, "spectator": rs.view(state, None)}
        p = prompts[0]
        option, args = random_answer(rng, p)
        rs.answer(state, p["seat"], p["id"], option, args)
    return out


@pytest.fixture(scope="module")
def snaps() -> dict:
    return snapshots()


def model_of(snap: dict, **more) -> dict:
    return {"ruleset": "spellfire", "view": copy.deepcopy(snap["view"]), "seat": "ana", "role": "player",
            "prompts": copy.deepcopy(snap["prompts"]), "seats": SEATS, "bots": {s: "greedy" for s in SEATS[1:]}, **more}


@pytest.fixture(scope="module")
async def blank(server, chromium):
    context = await chromium.new_context(viewport={"width": 1280, "height": 800})
    page = await context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"{server.url}/healthz")
    await page.evaluate("""async () => {
      for (const href of ["/static/app.css", "/static/table.css"]) {
        const l = document.createElement("link"); l.rel = "stylesheet"; l.href = href; document.head.append(l);
        await new Promise(r => { l.onload = r; l.onerror = r; });
      }
      window.sf = await import("/static/rulesets/spellfire.js");
      window.board = (w, h) => {
        document.body.replaceChildren();
        const root = document.createElement("section");
        root.className = "board"; root.setAttribute("aria-label", "Board");
        Object.assign(root.style, {width: w + "px", height: h + "px", boxSizing: "border-box", overflow: "hidden", padding: "6px"});
        document.body.append(root);
        return root;
      };
    }""")
    yield page, errors
    await context.close()


async def test_each_opponent_at_a_glance(blank, snaps):
    page, errors = blank
    snap = snaps["choose_realm-late"]
    out = await page.evaluate("""(model) => {
      const root = board(880, 690);
      sf.render(root, model, {choose: () => {}});
      return [...root.querySelectorAll(".table-opponents .sf-opponent")].map(s => ({
        seat: s.dataset.seat, name: s.querySelector(".seat-name").textContent,
        stats: [...s.querySelectorAll(".stat")].map(x => x.textContent),
        pips: [...s.querySelectorAll(".sf-pip")].map(p => p.classList.contains("razed") ? "razed" : p.classList.contains("up") ? "up" : "empty"),
        backs: s.querySelectorAll(".sf-hand-hidden .sf-back").length}));
    }""", model_of(snap))
    view = snap["view"]
    assert [o["seat"] for o in out] == SEATS[1:]
    for o in out:
        p = view["players"][o["seat"]]
        assert o["name"] == o["seat"]
        assert f"realms {p['unrazed']}/6" in o["stats"]
        assert f"hand {p['hand_size']}" in o["stats"] and f"pool {len(p['pool'])}" in o["stats"]
        expected = ["empty" if not p["formation"].get(s) else "razed" if p["formation"][s]["razed"] else "up"
                    for s in "ABCDEF"]
        assert o["pips"] == expected
        assert o["backs"] == min(p["hand_size"], 4)
    assert errors == []


async def test_the_realms_to_attack_are_in_view_and_a_strip_shows_another_board(blank, snaps):
    page, errors = blank
    snap = snaps["choose_realm-late"]
    owners = [o["owner"] for o in snap["prompts"][0]["options"] if o["card"]]
    assert len(set(owners)) >= 2, "the position should offer realms of two opponents"
    out = await page.evaluate("""([model, second]) => {
      const root = board(880, 690);
      const chosen = [];
      sf.render(root, model, {choose: (...a) => chosen.push(a)});
      const middle = () => root.querySelector(".table-middle .sf-board");
      const first = middle().dataset.seat;
      const aims = [...root.querySelectorAll(".table-middle .sf-board .sf-playable[data-prompt]")].map(b => b.dataset.option);
      root.querySelector(`.sf-opponent[data-seat="${second}"] .sf-peek`).click();
      const then = middle().dataset.seat;
      const target = root.querySelector(".table-middle .sf-board .sf-playable[data-prompt]");
      const box = target.getBoundingClientRect(), mbox = root.querySelector(".table-middle").getBoundingClientRect();
      target.click();
      return {first, aims, then, chosen, visible: box.top >= mbox.top && box.bottom <= mbox.bottom};
    }""", [model_of(snap), owners[-1]])
    offered = {o["id"]: o["owner"] for o in snap["prompts"][0]["options"] if o["card"]}
    assert out["first"] == owners[0]
    assert out["aims"] and all(offered[a] == owners[0] for a in out["aims"])
    assert out["then"] == owners[-1]
    assert out["visible"]
    prompt = snap["prompts"][0]["id"]
    assert len(out["chosen"]) == 1 and out["chosen"][0][0] == prompt and offered[out["chosen"][0][1]] == owners[-1]
    assert errors == []


async def test_the_battle_in_the_middle_with_its_totals(blank, snaps):
    page, errors = blank
    snap = snaps["battle_play-late"] if "battle_play-late" in snaps else snaps["battle_play"]
    b = snap["view"]["battle"]
    out = await page.evaluate("""(model) => {
      const root = board(880, 690);
      sf.render(root, model, {choose: () => {}});
      const battle = root.querySelector(".table-middle .sf-battle");
      return {totals: battle.querySelector(".sf-totals").textContent, ahead: battle.querySelector(".sf-ahead").textContent,
              attacker: battle.querySelector(".sf-attacker .sf-fighter .card-name").textContent,
              defender: battle.querySelector(".sf-defender .sf-fighter .card-name").textContent,
              head: battle.querySelector(".sf-battle-head").textContent};
    }""", model_of(snap))
    ta, td = b["sides"]["attacker"]["total"], b["sides"]["defender"]["total"]
    assert out["totals"] == f"{ta} – {td}"
    ahead = b["sides"]["attacker"]["seat"] if ta > td else b["sides"]["defender"]["seat"]
    assert out["ahead"].startswith("you" if ahead == "ana" else ahead)
    assert out["attacker"] and out["defender"] and "Battle for" in out["head"]
    assert errors == []


async def test_your_zones_are_labelled_and_your_hand_is_cards(blank, snaps):
    page, errors = blank
    snap = snaps["play_pool-late"]
    out = await page.evaluate("""(model) => {
      const root = board(880, 690);
      sf.render(root, model, {choose: () => {}});
      const mine = root.querySelector(".table-mine");
      const hand = [...root.querySelectorAll("[role=region]")].find(r => r.getAttribute("aria-label") === "Your hand");
      return {labels: [...mine.querySelectorAll("abbr.term")].map(a => [a.textContent, a.title]),
              cards: [...hand.querySelectorAll(".card")].map(c => ({text: c.innerText, details: c.dataset.details, def: c.dataset.def})),
              me: mine.querySelector(".seat-summary .seat-name").textContent + mine.querySelector(".seat-summary").textContent};
    }""", model_of(snap))
    labels = dict(out["labels"])
    for name in ("Formation", "Pool", "Discard pile", "Limbo", "Abyss", "Void"):
        assert name in labels and len(labels[name]) > 20, name
    assert out["me"].startswith("ana") and "(you)" in out["me"]
    rs = {c["id"]: c for s in Spellfire().card_sets() for c in s["cards"]}
    assert len(out["cards"]) == len(snap["view"]["players"]["ana"]["hand"])
    for card in out["cards"]:
        d = rs[card["def"]]
        assert d["name"] in card["text"]
        word = (f"{d['spell_class']} spell" if d["type"] == "spell" and d["spell_class"] else d["type"].replace("_", " "))
        assert word in card["text"]
        if d["level"] is not None:
            assert str(d["level"]) in card["text"]
        elif d["bonus"]:
            assert f"+{d['bonus']}" in card["text"]
        assert card["details"].startswith(d["name"] + " · ")
    assert errors == []


async def test_arrivals_and_a_razed_realm_flash(blank, snaps):
    page, errors = blank
    before = model_of(snaps["play_pool-late"])
    after = copy.deepcopy(before)
    ana = after["view"]["players"]["ana"]
    newcomer = ana["hand"][0]
    ana["pool"].append({**newcomer, "attached": []})
    bot = after["view"]["players"]["bot-1"]
    standing = next(s for s in "ABCDEF" if bot["formation"].get(s) and not bot["formation"][s]["razed"])
    bot["formation"][standing]["razed"] = True
    after["view"]["turn"]["seat"] = "bot-1"  # the middle shows bot-1's board
    after["prompts"] = []
    out = await page.evaluate("""([a, b, card, realm]) => {
      const root = board(880, 690);
      sf.render(root, a, null);
      const first = root.querySelectorAll(".arrived, .flash").length;
      sf.render(root, b, null);
      const arrived = [...root.querySelectorAll(".table-mine .sf-pool .arrived")].map(c => c.dataset.card);
      const flash = [...root.querySelectorAll(".flash")].map(c => c.dataset.card);
      root.querySelector('.sf-opponent[data-seat="bot-2"] .sf-peek').click();  // a board shown now is not new
      const shown = root.querySelector(".table-middle .sf-board").dataset.seat;
      return {first, arrived, flash, realm, shown, again: root.querySelectorAll(".table-middle .arrived, .table-middle .flash").length};
    }""", [before, after, newcomer["card"], bot["formation"][standing]["card"]])
    assert out["first"] == 0  # the first drawing animates nothing
    assert out["arrived"] == [newcomer["card"]]
    assert out["flash"] == [out["realm"]]
    assert out["shown"] == "bot-2" and out["again"] == 0
    assert errors == []


@pytest.mark.parametrize("size", [(880, 690), (380, 400), (380, 340)], ids=["desktop", "phone", "small-phone"])
@pytest.mark.parametrize("kind", ["choose_realm-late", "battle_play-late", "play_pool-late", "choose_defender-late"])
async def test_the_table_fits_its_box(blank, snaps, size, kind):
    """Every part of the table lies inside the board's box; only the middle, your board and the
    hand's row of cards scroll inside themselves."""
    page, errors = blank
    if kind not in snaps:
        pytest.skip(f"the match had no {kind}")
    w, h = size
    out = await page.evaluate("""([model, w, h]) => {
      const root = board(w, h);
      sf.render(root, model, {choose: () => {}});
      const box = root.getBoundingClientRect();
      const out = [];
      for (const n of root.querySelectorAll("*")) {
        if (n.closest(".table-middle, .table-mine, .hand-cards, .card-details")) continue;
        const r = n.getBoundingClientRect();
        if (r.width && (r.bottom > box.bottom + 1 || r.right > box.right + 1 || r.left < box.left - 1)) out.push(n.className || n.tagName);
      }
      const hand = [...root.querySelectorAll("[role=region]")].find(r => r.getAttribute("aria-label") === "Your hand").getBoundingClientRect();
      const names = [...root.querySelectorAll(".table-opponents .seat-name")].map(n => n.getBoundingClientRect());
      return {out, hand: hand.bottom <= box.bottom + 1 && hand.height > 40,
              names: names.length === 5 && names.every(r => r.right <= box.right + 1 && r.bottom <= box.bottom)};
    }""", [model_of(snaps[kind]), w, h])
    assert out["out"] == []
    assert out["hand"] and out["names"]
    assert errors == []


def events_of(seed: int = 7) -> list[dict]:
    rs = Spellfire()
    state, events = rs.start(SEATS, seed, {})
    rng = random.Random(3)
    log = list(events)
    for _ in range(4000):
        prompts = rs.prompts(state)
        if not prompts:
            break
        p = prompts[0]
        option, args = random_answer(rng, p)
        log.extend(rs.answer(state, p["seat"], p["id"], option, args))
    return log


EXTRA_EVENTS = [  # kinds of docs/spellfire.md's Events that a random match rarely shows
    {"kind": "rule_played", "data": {"seat": "bot-1", "card": "c9", "def": "tide-of-valor", "owner": "bot-1", "zone": "rule",
                                     "slot": None, "from": "hand", "via": "phase"}},
    {"kind": "dungeon_played", "data": {"seat": "ana", "card": "c8", "def": "deep-halls", "owner": "ana", "zone": "dungeon",
                                        "slot": None, "from": "hand", "via": "spoils"}},
    {"kind": "activated", "data": {"card": "c40", "def": "gauntlets-of-stone", "owner": "bot-1", "zone": "battle", "slot": None,
                                   "seat": "bot-1", "side": "attacker", "step": "7c", "bonus": 0, "round": 1}},
    {"kind": "ally_called", "data": {"seat": "bot-2", "side": "defender", "card": "c41", "def": "torvald-ironhand", "owner": "bot-2",
                                     "zone": "pool", "slot": None, "by": {"card": "c42", "def": "archmage-quillon"},
                                     "totals": {"attacker": 9, "defender": 11}}},
    {"kind": "outcome_cancelled", "data": {"card": "c43", "def": "the-sky-cracks", "owner": "bot-3", "zone": "discard", "slot": None,
                                           "outcome": "realm_razed", "by": {"card": "c44", "def": "unravel-magic"}}},
    {"kind": "sent_to_zone", "data": {"seat": "bot-4", "card": "c45", "def": "torvald-ironhand", "owner": "bot-4", "zone": "limbo",
                                      "slot": None, "attached": [], "from": "battle", "reason": "defeated"}},
    {"kind": "after_combat", "data": {"seat": "bot-4", "card": "c46", "def": "ozrak-the-hollow-tyrant", "owner": "bot-4",
                                      "zone": "pool", "slot": None, "target": {"card": "c47", "def": "torvald-ironhand"}, "to": "discard"}},
    {"kind": "left_limbo", "data": {"seat": "bot-4", "card": "c45", "def": "torvald-ironhand", "owner": "bot-4", "zone": "pool",
                                    "slot": None, "attached": [], "from": "limbo", "to": "pool"}},
    {"kind": "realm_discarded", "data": {"seat": "bot-5", "card": "c48", "def": "amberfield", "owner": "bot-5", "zone": "formation",
                                         "slot": "B", "how": "card"}},
]


async def test_the_log_speaks_in_sentences(blank, snaps):
    page, errors = blank
    log = events_of() + EXTRA_EVENTS
    kinds = sorted({e["kind"] for e in log})
    model = model_of(snaps["choose_realm-late"])
    lines = await page.evaluate("""([model, events]) => events.map(e => [e.kind, sf.describe(e, model)])""",
                                [model, [{"seq": i, **e} for i, e in enumerate(log)]])
    said = {}
    for kind, line in lines:
        if line is None:
            continue
        said.setdefault(kind, line)
        assert not re.search(r"\bc\d+\b|\bp\d+\b|_|zone:|—|undefined|null|\[object", line), (kind, line)
        assert line.rstrip().endswith((".", "!", ")")), (kind, line)
    quiet = {"phase", "turn_ended", "prompt", "prompt_closed"}
    assert set(kinds) - quiet <= set(said), set(kinds) - quiet - set(said)
    assert ["activated", "bot-1 used Gauntlets of Stone in the battle."] in lines
    assert "Limbo" in said["sent_to_zone"] and "until their next turn" in said["sent_to_zone"]
    assert errors == []


async def test_how_to_play_covers_every_prompt_and_term(blank):
    page, errors = blank
    how = await page.evaluate("() => sf.howTo")
    assert "six realms" in how["goal"]
    assert len(how["turn"]) >= 5
    asked = " ".join(name for name, _ in how["prompts"])
    for kind in ("play_rule", "play_realm", "play_pool", "choose_realm", "choose_attacker", "choose_defender",
                 "before_battle", "battle_play", "play_at_once", "respond", "spoils", "discard"):
        assert kind in asked, kind
    terms = " ".join(name for name, _ in how["glossary"]).lower()
    for word in ("pool", "formation", "exposed", "razed", "limbo", "abyss", "void", "spoils", "champion", "ally",
                 "holding", "level"):
        assert word in terms, word
    assert errors == []


@pytest.mark.parametrize("kind", ["choose_realm-late", "battle_play-late", "choose_defender-late", "spoils-late"])
async def test_axe_finds_nothing_serious_on_the_table(blank, snaps, kind):
    """axe-core on the table in the middle of a match (test_accessibility.py checks the first
    decision of a whole page): contrast, names of the buttons, regions."""
    from test_accessibility import AXE

    page, errors = blank
    if kind not in snaps:
        pytest.skip(f"the match had no {kind}")
    await page.evaluate("""(model) => { const root = board(880, 690); root.style.background = "#1e232b";
                                        sf.render(root, model, {choose: () => {}}); }""", model_of(snaps[kind]))
    await page.wait_for_timeout(300)  # past the arrivals' animation
    await page.evaluate(AXE.read_text() + "\n;void 0")
    found = await page.evaluate("""async () => {
      const r = await axe.run(document.querySelector(".board"), {resultTypes: ["violations"]});
      return r.violations.filter(v => v.impact === "critical" || v.impact === "serious")
        .map(v => `${v.id}: ` + v.nodes.slice(0, 3).map(n => n.target.join(" ") + " " + (n.failureSummary || "").slice(0, 160)).join(" | "));
    }""")
    assert found == []
    assert errors == []
