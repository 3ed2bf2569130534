"""The hourglass table (issue 34): a four-player match drawn in a box the size the frame
gives the board at 1280x800 and at 390x844 fits without scrolling; the Hourglass Board is
drawn with each side's cubes on its two parts; Battlecards placed show as card backs until
revealed; the Battle Hand shows each card's modifiers as words; terms carry their meaning;
the log speaks in sentences without ids; a wound flashes and a placed card arrives; the
How to play covers every prompt."""

from __future__ import annotations

import re

import pytest

from battlehall.bots import bot_answer
from battlehall.engine import get_ruleset
from test_drawings import blank  # noqa: F401  (the page the drawings load in)

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
