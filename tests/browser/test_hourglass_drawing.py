"""The hourglass drawing speaks in words from the engine's own fields: a Defender is told
which of its Knights are targeted and by whom, choices are labelled from the options'
`about`, Delay reads 2.5, and an attack without a tie names nobody it went to."""

from __future__ import annotations

from test_drawings import blank  # noqa: F401  (the page the drawings load in)

from battlehall.engine import get_ruleset

RS = get_ruleset("hourglass")

DRAW = """async ([model, events, labels]) => {
  const mod = await import("/static/rulesets/hourglass.js");
  const root = document.createElement("div");
  document.body.append(root);
  mod.render(root, model, {choose: () => {}});
  const delays = [...root.querySelectorAll(".hg-attrs tr")].map(tr => tr.lastChild.textContent);
  return {text: root.innerText, delays, lines: events.map(e => mod.describe(e, model)),
          labels: labels.map(([name, value]) => mod.argLabel(name, value, model))};
}"""


def model_of(state, seat: str) -> dict:
    return {"ruleset": "hourglass", "view": RS.view(state, seat), "seat": seat, "role": "player",
            "prompts": [p for p in state["prompts"] if p["seat"] == seat], "seats": list(state["seats"])}


async def test_the_defender_reads_its_targeted_knights_and_the_choices_in_words(blank):  # noqa: F811
    page, errors = blank
    setup = {"battles": [{"tile": "ford", "knights": {"alice": 2, "bob": [0, 2]},
                          "top": {"alice": 0, "bob": 3}, "bottom": {"alice": 0, "bob": 0}}],
             "current": "ford", "attributes": {"alice": {"delay": 1.5, "precision": 9}, "bob": {"delay": 2}},
             "cards": [{"id": "parry", "name": "Parry", "defense": 2}],
             "hands": {"alice": ["lunge", "feint"], "bob": ["parry", "feint"]}}
    state, _ = RS.start(["alice", "bob"], 1, {"alliances": False}, setup)
    targets = next(p for p in state["prompts"] if p["kind"] == "targets")
    alice = model_of(state, "alice")
    events = RS.answer(state, "alice", targets["id"], "assign", {"alice-1@ford": "bob-2@ford", "alice-2@ford": "none"})
    bob = model_of(state, "bob")
    parry = next(c for c in state["hands"]["bob"] if state["cards"][c] == "parry")
    out = await page.evaluate(DRAW, [bob, [], [["card", parry]]])
    assert "Defend: your Knight 2 is targeted by alice's Knight 1. Click the Battlecard" in out["text"]
    assert out["labels"] == ["Parry"]
    assert out["delays"] == ["Delay", "1.5", "2", "3"]  # alice, bob, the Bandits: as players read it
    out = await page.evaluate(DRAW, [alice, [], [["alice-1@ford", "bob-2@ford"], ["alice-1@ford", "none"]]])
    assert out["labels"] == ["bob's Knight 2 (2 of 6 wounds)", "no target: the Knight stays idle"]
    defend = next(p for p in state["prompts"] if p["kind"] == "defend")
    events += RS.answer(state, "bob", defend["id"], "place", {"card": parry})
    attack_card = next(p for p in state["prompts"] if p["kind"] == "attack_card")
    events += RS.answer(state, "alice", attack_card["id"], "place", {"card": state["hands"]["alice"][0],
                                                                     "discard": state["hands"]["alice"][1]})
    attack = next(e for e in events if e["kind"] == "attack")
    assert attack["data"]["tie"] is False
    out = await page.evaluate(DRAW, [model_of(state, "bob"), [RS.redact(attack, "bob")], []])
    assert out["lines"][0].startswith("alice's Knight 1 attacks your Knight 2: a Critical Hit") and "tie" not in out["lines"][0].lower()
    assert errors == []
