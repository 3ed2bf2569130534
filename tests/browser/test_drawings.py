"""The ruleset drawings on views they were not written for: fields, zones and event kinds
a newer engine adds are shown plainly, and a partial or empty view never breaks a page."""

from __future__ import annotations

import pytest

RULESETS = ["duel", "spellfire", "hourglass", "demigod", "generic"]

# A Spellfire view with what a newer engine may add: zones (limbo, abyss, void), a rule
# card, a card definition nobody knows, and options that name the card, owner, slot, zone.
SPELLFIRE_VIEW = {
    "seats": ["alice", "bob"],
    "turn": {"seat": "alice", "number": 3, "phase": "pool", "used": []},
    "players": {
        "alice": {"hand": [{"card": "c1", "def": "no-such-card"}, {"card": "c2", "def": "emberhold"}],
                  "hand_size": 2, "draw_size": 10, "unrazed": 1,
                  "formation": {"A": {"card": "c3", "def": "amberfield", "razed": False, "holding": None},
                                "B": None, "C": None, "D": None, "E": None, "F": None},
                  "pool": [], "discard": [],
                  "limbo": [{"card": "c7", "def": "torvald-ironhand"}], "abyss": [], "void": [{"card": "c8", "def": "?"}]},
        "bob": {"hand": None, "hand_size": 4, "draw_size": 9, "unrazed": 0, "formation": {}, "pool": [], "discard": [],
                "dungeon": {"card": "c9", "def": "deep-halls"}},
    },
    "rule_card": {"card": "c10", "def": "the-burning-rule"},
    "battle": None, "spoils": None, "options": {}, "result": None,
}
SPELLFIRE_PROMPT = {"id": "p4", "seat": "alice", "kind": "play_pool", "text": "Phase 3", "default": "done",
                    "options": [{"id": "c1", "text": "Play the new card", "card": "c1", "def": "no-such-card",
                                 "owner": "alice", "zone": "hand"},
                                {"id": "done", "text": "End phase 3"}]}

DRAW = """async ([name, model, events]) => {
  const mod = await import(`/static/rulesets/${name}.js`);
  const root = document.createElement("div");
  document.body.append(root);
  const chosen = [];
  mod.render(root, model, {choose: (...a) => chosen.push(a)});
  const lines = events.map(e => mod.describe(e, model));
  return {text: root.innerText, lines, buttons: root.querySelectorAll("[data-prompt][data-option]").length,
          html: root.innerHTML.length, chosen};
}"""


@pytest.fixture(scope="module")
async def blank(server, chromium):
    context = await chromium.new_context()
    page = await context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"{server.url}/healthz")  # any page of the server: the modules load from its origin
    yield page, errors
    await context.close()


@pytest.mark.parametrize("name", RULESETS)
@pytest.mark.parametrize("view", [None, {}, {"result": None, "unexpected": [1, {"x": None}]}])
async def test_a_drawing_survives_partial_views(blank, name, view):
    page, errors = blank
    model = {"ruleset": name, "view": view, "seat": "alice", "role": "player", "prompts": [], "seats": ["alice", "bob"]}
    events = [{"seq": 1, "kind": "something_new", "data": {"seat": "bob", "card": "c1", "zone": "limbo"}, "at": 0},
              {"seq": 2, "kind": "match_ended", "data": {"winners": ["bob"], "ranking": [["bob"], ["alice"]],
                                                         "draw": False, "reason": "knockout", "winner": "bob"}, "at": 0},
              {"seq": 3, "kind": "prompt_closed", "data": {}, "at": 0}]
    out = await page.evaluate(DRAW, [name, model, events])
    assert out["html"] > 0
    assert "bob won" in out["lines"][1]
    assert errors == []


async def test_spellfire_shows_zones_and_fields_it_does_not_know(blank):
    page, errors = blank
    model = {"ruleset": "spellfire", "view": SPELLFIRE_VIEW, "seat": "alice", "role": "player",
             "prompts": [SPELLFIRE_PROMPT], "seats": ["alice", "bob"]}
    events = [{"seq": 5, "kind": "card_to_limbo", "data": {"seat": "alice", "card": "c7", "def": "torvald-ironhand",
                                                           "zone": "limbo"}, "at": 0}]
    out = await page.evaluate(DRAW, ["spellfire", model, events])
    text = out["text"].lower()
    for zone in ("limbo", "abyss", "void", "dungeon"):
        assert zone in text
    assert "torvald ironhand" in text  # a known card in a new zone is named
    assert "no-such-card" in text      # an unknown card is shown by its id
    assert out["buttons"] == 1         # the unknown card still answers its option
    assert out["lines"] == ["Card to limbo: you, Torvald Ironhand, now in Limbo."]
    assert errors == []


async def test_spellfire_card_answers_its_option(blank):
    page, _ = blank
    model = {"ruleset": "spellfire", "view": SPELLFIRE_VIEW, "seat": "alice", "role": "player",
             "prompts": [SPELLFIRE_PROMPT], "seats": ["alice", "bob"]}
    chosen = await page.evaluate("""async (model) => {
      const mod = await import("/static/rulesets/spellfire.js");
      const root = document.createElement("div");
      document.body.append(root);
      const chosen = [];
      mod.render(root, model, {choose: (...a) => chosen.push(a)});
      root.querySelector('[data-option="c1"]').click();
      return chosen;
    }""", model)
    assert chosen == [["p4", "c1", {}]]


async def test_a_tap_shows_a_cards_details(blank):
    """Phones have no hover: tapping a card (or focusing it) shows what it is."""
    page, errors = blank
    model = {"ruleset": "spellfire", "view": SPELLFIRE_VIEW, "seat": "alice", "role": "player",
             "prompts": [], "seats": ["alice", "bob"]}
    text = await page.evaluate("""async (model) => {
      const mod = await import("/static/rulesets/spellfire.js");
      const root = document.createElement("div");
      document.body.append(root);
      mod.render(root, model, null);
      root.querySelector('[data-card="c3"]').click();
      return root.querySelector(".card-details").textContent;
    }""", model)
    assert text.startswith("Amberfield · realm") and "(c3)" in text
    assert errors == []


async def test_a_demigod_card_shows_its_range_and_area(blank):
    """The card's fields come from GET /rulesets (the demayth set's `details`)."""
    page, errors = blank
    view = {"map": {"name": "x", "width": 3, "height": 3, "terrain": []},
            "units": {"k": {"id": "k", "side": "alice", "kind": "demigod", "name": "Kaelen", "pos": [0, 0], "hp": 5,
                            "max_hp": 9, "ap": 1, "barrier": 0, "dr": 0, "move": 3, "poison": 0, "disease": 0,
                            "equipment": [], "effects": [], "moved": False, "attacked": False}},
            "turn": {"seat": "alice", "round": 1}, "out": [], "hand_counts": {"alice": 1}, "deck_counts": {"alice": 0},
            "discard": {"alice": []}, "hand": [{"id": "c1", "name": "Fireball"}], "attack": None, "result": None}
    model = {"ruleset": "demigod", "view": view, "seat": "alice", "role": "player", "prompts": [], "seats": ["alice"]}
    text = await page.evaluate("""async (model) => {
      const mod = await import("/static/rulesets/demigod.js");
      const root = document.createElement("div");
      document.body.append(root);
      mod.render(root, model, null);
      root.querySelector('[data-card="c1"]').click();
      return root.querySelector(".card-details").textContent;
    }""", model)
    assert text.startswith("Fireball · spell · AV 3 · line of sight · area 1")
    assert errors == []


async def test_a_demigod_setups_inline_card_shows_its_fields(blank):
    """A setup's own cards are not in GET /rulesets: the view's `custom_cards` describes them."""
    page, errors = blank
    view = {"map": {"name": "x", "width": 3, "height": 3, "terrain": []},
            "units": {"k": {"id": "k", "side": "alice", "kind": "demigod", "name": "Kaelen", "pos": [0, 0], "hp": 5,
                            "max_hp": 9, "ap": 1, "barrier": 0, "dr": 0, "move": 3, "poison": 0, "disease": 0,
                            "equipment": [], "effects": [], "moved": False, "attacked": False}},
            "turn": {"seat": "alice", "round": 1}, "out": [], "hand_counts": {"alice": 1}, "deck_counts": {"alice": 0},
            "discard": {"alice": []}, "hand": [{"id": "c1", "name": "Thunder Maul"}], "attack": None, "result": None,
            "custom_cards": [{"name": "Thunder Maul", "type": "battle", "text": "", "range": "melee", "av": 5, "dv": 1,
                              "reach": None, "area": 0, "push": 1, "draw": None, "poison": None, "disease": None,
                              "barrier": None, "damage": None, "move": None}]}
    model = {"ruleset": "demigod", "view": view, "seat": "alice", "role": "player", "prompts": [], "seats": ["alice"]}
    text = await page.evaluate("""async (model) => {
      const mod = await import("/static/rulesets/demigod.js");
      const root = document.createElement("div");
      document.body.append(root);
      mod.render(root, model, null);
      root.querySelector('[data-card="c1"]').click();
      return root.querySelector(".card-details").textContent;
    }""", model)
    assert text.startswith("Thunder Maul · battle · AV 5 · DV 1 · melee · push 1")
    assert errors == []


async def test_demigod_lights_targets_and_the_area_of_the_chosen_card(blank):
    """Choose a character, then an area card: its target squares light up, and the area
    around the square under the pointer or the keyboard's focus."""
    page, errors = blank
    unit = {"side": "alice", "kind": "demigod", "hp": 5, "max_hp": 9, "ap": 0, "barrier": 0, "dr": 0, "move": 3,
            "poison": 0, "disease": 0, "equipment": [], "effects": [], "moved": False, "attacked": False}
    view = {"map": {"name": "x", "width": 5, "height": 5, "terrain": [[4, 4]]},
            "units": {"k": {**unit, "id": "k", "name": "Kaelen", "pos": [0, 0]},
                      "m": {**unit, "id": "m", "side": "bob", "name": "Morwen", "pos": [2, 2]}},
            "turn": {"seat": "alice", "round": 1}, "out": [], "hand_counts": {"alice": 1, "bob": 0},
            "deck_counts": {}, "discard": {}, "hand": [{"id": "c1", "name": "Fireball"}], "attack": None, "result": None}
    prompt = {"id": "p1", "seat": "alice", "kind": "turn", "text": "Your turn", "default": "end", "options": [
        {"id": "attack", "text": "Attack", "args": {"card": ["c1"], "target": [[2, 2], [3, 2]], "unit": ["k"]},
         "combos": [{"card": ["c1"], "target": [[2, 2], [3, 2]], "unit": ["k"]}]},
        {"id": "end", "text": "End"}]}
    model = {"ruleset": "demigod", "view": view, "seat": "alice", "role": "player", "prompts": [prompt],
             "seats": ["alice", "bob"]}
    out = await page.evaluate("""async (model) => {
      const mod = await import("/static/rulesets/demigod.js");
      const root = document.createElement("div");
      document.body.append(root);
      const chosen = [];
      mod.render(root, model, {choose: (...a) => chosen.push(a)});
      root.querySelector('[data-unit="k"]').click();
      root.querySelector('[data-card="c1"]').click();
      const targets = root.querySelectorAll(".mark-target").length;
      root.querySelector('button[data-x="2"][data-y="2"]').focus();
      const caught = [...root.querySelectorAll(".caught")].map(c => c.dataset.x + "," + c.dataset.y);
      const focused = document.activeElement.dataset.x + "," + document.activeElement.dataset.y;
      document.activeElement.click();
      return {targets, caught, focused, chosen};
    }""", model)
    assert out["targets"] == 2
    assert sorted(out["caught"]) == sorted(f"{x},{y}" for x in (1, 2, 3) for y in (1, 2, 3))
    assert out["focused"] == "2,2"
    assert out["chosen"] == [["p1", "attack", {"unit": "k", "card": "c1", "target": [2, 2]}]]
    assert errors == []


async def test_spellfire_event_for_a_side_is_played_in_two_clicks(blank):
    """A seat outside the battle plays an event for one side: the card, then the side."""
    page, errors = blank
    prompt = {"id": "p9", "seat": "alice", "kind": "respond", "window": "w3", "text": "Respond", "default": "pass",
              "options": [{"id": "c2", "text": "Play Emberhold for a side", "args": {"side": ["attacker", "defender"]}},
                          {"id": "pass", "text": "Let it stand"}]}
    model = {"ruleset": "spellfire", "view": SPELLFIRE_VIEW, "seat": "alice", "role": "player",
             "prompts": [prompt], "seats": ["alice", "bob"]}
    out = await page.evaluate("""async (model) => {
      const mod = await import("/static/rulesets/spellfire.js");
      const root = document.createElement("div");
      document.body.append(root);
      const chosen = [];
      mod.render(root, model, {choose: (...a) => chosen.push(a)});
      root.querySelector('.sf-hand [data-option="c2"]').click();
      const sides = [...root.querySelectorAll(".sf-armed [data-arg-side]")].map(b => b.textContent);
      root.querySelector('.sf-armed [data-arg-side="\\\\"defender\\\\""]').click();
      return {sides, chosen};
    }""", model)
    assert out["sides"] == ["for the attacker", "for the defender"]
    assert out["chosen"] == [["p9", "c2", {"side": "defender"}]]
    assert errors == []


async def test_spellfire_armed_choice_says_each_value_as_the_option_tells_it(blank):
    """An option's `args_text` is what the choice buttons say (an older option without it
    falls back to the drawing's own words, above)."""
    page, errors = blank
    prompt = {"id": "p9", "seat": "alice", "kind": "respond", "window": "w3", "text": "Respond", "default": "pass",
              "options": [{"id": "c2", "text": "Play Emberhold for a side", "args": {"side": ["attacker", "defender"]},
                           "args_text": {"side": {"attacker": "for the attacker, bob's Torvald Ironhand",
                                                  "defender": "for the defender, carol's Oskar the Sly"}}},
                          {"id": "pass", "text": "Let Emberhold stand"}]}
    model = {"ruleset": "spellfire", "view": SPELLFIRE_VIEW, "seat": "alice", "role": "player",
             "prompts": [prompt], "seats": ["alice", "bob"]}
    sides = await page.evaluate("""async (model) => {
      const mod = await import("/static/rulesets/spellfire.js");
      const root = document.createElement("div");
      document.body.append(root);
      mod.render(root, model, {choose: () => {}});
      root.querySelector('.sf-hand [data-option="c2"]').click();
      return [...root.querySelectorAll(".sf-armed [data-arg-side]")].map(b => b.textContent);
    }""", model)
    assert sides == ["for the attacker, bob's Torvald Ironhand", "for the defender, carol's Oskar the Sly"]
    assert errors == []


async def test_spellfire_log_names_the_realm_of_a_declined_or_withdrawn_attack(blank):
    page, errors = blank
    model = {"ruleset": "spellfire", "view": SPELLFIRE_VIEW, "seat": "alice", "role": "player", "prompts": [],
             "seats": ["alice", "bob"]}
    realm = {"card": "c3", "def": "amberfield", "owner": "alice", "zone": "formation", "slot": "A"}
    events = [{"seq": 1, "kind": "defense_declined", "data": {"seat": "alice", "round": 1, "attacker": "bob", **realm}},
              {"seq": 2, "kind": "attack_withdrawn", "data": {"attacker": "bob", "defender": "alice", "attacks": 0,
                                                              **realm}}]
    out = await page.evaluate(DRAW, ["spellfire", model, events])
    assert "Amberfield" in out["lines"][0] and "not defend" in out["lines"][0]
    assert "Amberfield" in out["lines"][1] and "not spent" in out["lines"][1]
    assert errors == []
