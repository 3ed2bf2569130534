// spellfire: a table. Along the top each opponent at a glance (name, to act and clock, realms
// standing of the six that win, hand and pool sizes, a mini formation pyramid); tap one to see
// their whole board in the middle. The middle holds the battle (attacker against defender,
// champions, every card played, the running totals and who is ahead), else the board of the
// opponent shown: the one whose realms the open prompt offers to attack, the one tapped, or the
// seat in turn. Along the bottom your own formation, pool and other zones, then your hand.
// A card or realm that answers an open prompt is a button (.sf-playable): click the realm to
// attack it, the card to play it; a card with a choice of place arms, and its places
// (.sf-target) light up. Fields and zones this drawing does not know are listed plainly.

import {el, useCss, rulesetInfo, who, whose, words, plural, describeCommon, optionsOf, legal, same, detailsLine,
        cardFace, handRegion, seatSummary, table, term, Arrivals, resultText} from "./common.js";

useCss(new URL("./spellfire.css", import.meta.url).href);

const SLOTS = ["A", "B", "C", "D", "E", "F"];
const ROWS = [["A"], ["B", "C"], ["D", "E", "F"]];
// A realm is exposed when every realm shielding it is razed or missing (docs/spellfire.md).
const SHIELDS = {A: [], B: ["A"], C: ["A"], D: ["B"], E: ["B", "C"], F: ["C"]};
const KNOWN_PLAYER_FIELDS = ["hand", "hand_size", "draw_size", "formation", "unrazed", "pool", "discard", "limbo", "abyss", "void"];
const TYPE_WORDS = {magical_item: "magical item", psionic_power: "psionic power", blood_ability: "blood ability",
                    thief_skill: "thief skill", unarmed_combat: "unarmed combat"};
const WORLDS = {forgotten_realms: "Forgotten Realms", greyhawk: "Greyhawk", ravenloft: "Ravenloft", dark_sun: "Dark Sun",
                dragonlance: "Dragonlance", birthright: "Birthright", add: "AD&D", spelljammer: "Spelljammer"};
const MINE_FIRST = ["play_rule", "play_realm", "play_pool", "spoils", "discard", "choose_attacker", "choose_defender"];
const SIDE_COLOURS = ["#7fb2ff", "#ff9a76", "#8fe08a", "#e7a6ff", "#ffd166", "#6fe0d8"];

// Terms a player meets on the table, each explained where it appears and in How to play.
const TERMS = {
  formation: "Formation: your realms in a pyramid of six slots (A on top; B and C; D, E and F). Six unrazed realms win.",
  pool: "Pool: your champions in play, with the magical items and artifacts attached to them. They attack and defend from here.",
  discard: "Discard pile: cards used up, defeated or thrown away. Face up: anyone may look.",
  draw: "Draw pile: the cards you have not drawn yet. You draw 3 at the start of each turn, and one as spoils of victory.",
  limbo: "Limbo: a champion sent here is out of play until its owner's next turn begins, then it comes back to the pool.",
  abyss: "The Abyss: out of the game. Nothing comes back from it.",
  void: "The Void: out of the game. Nothing comes back from it.",
  exposed: "Exposed: no unrazed realm shields it, so it can be attacked. A shields B and C; B shields D; B and C shield E; C shields F.",
  razed: "Razed: defeated in a battle. It counts for nothing, cannot be attacked, and a new realm may be played over it.",
  spoils: "Spoils of victory: the winner of a battle draws a card and may play it at once, even a realm or a champion.",
  dungeon: "Dungeon: each player may have one in play; it works in its owner's battles.",
  rule: "Rule card: one is in play at a time, for everyone, until another replaces it.",
  level: "Level: a champion's or ally's strength in a battle. Bonuses (+n) add to its side's total.",
};
const ZONE_WORDS = {battle: "the battle", pool: "the pool", formation: "the formation", hand: "the hand",
                    discard: "the discard pile", draw: "the draw pile", limbo: "Limbo", abyss: "the Abyss", void: "the Void",
                    rule: "play as the rule card", dungeon: "play as a dungeon", realm: "the realm"};
const OUTCOMES = {realm_razed: "the realm is razed", realm_discarded: "the realm is discarded",
                  attacker_discarded: "the attacking champion is discarded", defender_discarded: "the defending champion is discarded",
                  both_discarded: "both champions are discarded"};

const catalogue = new Map();
try {
  const info = await rulesetInfo("spellfire");
  for (const set of (info && info.card_sets) || []) for (const card of set.cards || []) catalogue.set(card.id, card);
} catch (err) { /* cards are then shown by id */ }

let armed = null;  // {prompt, option}: a card chosen whose argument (slot, champion, side) is picked next
const tables = new WeakMap();  // root -> what this table remembers between drawings

function memory(root) {
  if (!tables.has(root)) tables.set(root, {arrivals: new Arrivals(), razings: new Arrivals(), picked: null});
  return tables.get(root);
}

function def(ref, model) {
  const id = ref && (ref.def || ref.id);
  if (!id) return null;
  if (catalogue.has(id)) return catalogue.get(id);
  // A setup's inline cards: defined once per socket (welcome) or replay, never in a view.
  const custom = (((model && model.definitions) || {}).custom_cards || []).find(c => c && c.id === id);
  return custom || null;
}

export function cardName(ref, model) {
  if (!ref) return "?";
  const d = def(ref, model);
  return (d && d.name) || ref.name || ref.def || ref.card || "a card";
}

function details(ref, model) {
  const d = def(ref, model) || {};
  const bits = [cardName(ref, model)];
  const kind = [d.type && (TYPE_WORDS[d.type] || d.type), d.class, d.world && words(d.world)].filter(Boolean).join(", ");
  if (kind) bits.push(kind);
  if (d.level != null) bits.push(`level ${d.level}`);
  if (d.bonus) bits.push(`+${d.bonus}`);
  if (d.attack_bonus) bits.push(`+${d.attack_bonus} attacking`);
  if (d.defend_bonus) bits.push(`+${d.defend_bonus} defending`);
  if (d.powers && d.powers.length) bits.push("powers: " + d.powers.map(words).join(", "));
  if (d.slays) bits.push(`slays ${d.slays}`);
  if (d.text) bits.push(d.text);
  if (ref.card) bits.push(`(${ref.card})`);
  return bits.join(" · ");
}

/** The type line as GET /rulesets spells it ("magical item"), a spell with its class ("wizard spell"). */
function typeWord(d) {
  if (!d || !d.type) return "card";
  if (d.type === "spell" && d.spell_class) return `${d.spell_class} spell`;
  return TYPE_WORDS[d.type] || words(d.type);
}

function frameOf(d) {
  if (!d || !d.type) return "unknown";
  if (d.type === "spell" && d.spell_class) return `${d.spell_class}-spell`;
  return d.type.replace(/_/g, "-");
}

/** The number that matters on a card: a level, else its bonus. */
function badgeOf(d) {
  if (!d) return [null, null];
  if (d.level != null) return [String(d.level), "level"];
  if (d.bonus) return [`+${d.bonus}`, `adds ${d.bonus} to its side`];
  if (d.type === "realm" || d.type === "holding") {
    if (d.defend_bonus) return [`+${d.defend_bonus}`, `its defender gets +${d.defend_bonus}`];
  } else if (d.attack_bonus && !d.defend_bonus) return [`+${d.attack_bonus}`, `+${d.attack_bonus} attacking`];
  return [null, null];
}

function numbersOf(d) {
  if (!d) return [];
  const out = [];
  if (d.type !== "realm" && d.type !== "holding") {
    if (d.attack_bonus && (d.level != null || d.defend_bonus)) out.push(`+${d.attack_bonus} attacking`);
    if (d.defend_bonus) out.push(`+${d.defend_bonus} defending`);
  }
  if (d.defends_as) out.push(`defends as ${d.defends_as}`);
  if (d.slays) out.push(`slays ${d.slays}`);
  return out;
}

function markOf(d) {
  if (!d) return null;
  const bits = [d.class, d.world && (WORLDS[d.world] || words(d.world))].filter(Boolean);
  return bits.length ? bits.join(" · ") : null;
}

/** The options of the open prompts that a card instance answers (its id, or a `card` field). */
function optionsFor(instance, model) {
  if (!instance) return [];
  return optionsOf(model).filter(([p, o]) => o.id === instance || o.card === instance);
}

/** Every legal argument assignment of an option (small in Spellfire: one argument, a few values). */
function answers(option) {
  const names = Object.keys(option.args || {});
  if (!names.length) return [{}];
  const groups = option.combos || [option.args];
  const out = [];
  for (const group of groups) {
    let partial = [{}];
    for (const n of names) partial = partial.flatMap(a => (group[n] || []).map(v => ({...a, [n]: v})));
    for (const a of partial) if (!out.some(x => same(x, a)) && legal(option, a)) out.push(a);
  }
  return out;
}

/** A card drawn as a card; a button when it answers an open prompt. */
function cardEl(ref, model, controls, opts = {}) {
  const d = def(ref, model) || {};
  const actions = opts.actions === false ? [] : optionsFor(ref && ref.card, model);
  const type = d.type || "unknown";
  const [badge, badgeTitle] = badgeOf(d);
  const cls = [`sf-card sf-${type}`, opts.cls, opts.arrive].filter(Boolean).join(" ");
  const face = {name: cardName(ref, model), type: typeWord(d), frame: frameOf(d), badge, badgeTitle,
                numbers: numbersOf(d), mark: markOf(d), details: details(ref, model), size: opts.size || "mini",
                extra: opts.extra || null};
  const dataset = {card: ref && ref.card, def: ref && ref.def};
  if (!actions.length || !controls) return cardFace({...face, cls, attrs: {dataset}});
  const [prompt, option] = actions[0];
  const isArmed = armed && armed.prompt === prompt.id && armed.option === option.id;
  const button = cardFace({...face, tag: "button", cls: cls + " sf-playable" + (isArmed ? " armed" : ""),
    attrs: {type: "button", dataset: {...dataset, prompt: prompt.id, option: option.id},
            title: option.text || null, "aria-pressed": isArmed ? "true" : null}});
  button.addEventListener("click", () => {
    const all = answers(option);
    if (all.length === 1) { armed = null; controls.choose(prompt.id, option.id, all[0]); return; }
    armed = isArmed ? null : {prompt: prompt.id, option: option.id};
    rerender();
  });
  return button;
}

let last = null;
function rerender() {
  if (last) render(...last);
}

/** The realms the open prompts offer to attack, by their owner: seat -> [[prompt, option]]. */
function targetsBySeat(model) {
  const out = {};
  for (const [p, o] of optionsOf(model)) {
    if (p.kind !== "choose_realm" || !o.card || !o.owner || o.owner === model.seat) continue;
    (out[o.owner] ||= []).push([p, o]);
  }
  return out;
}

/** Whose board the middle shows when no battle is on. */
function shownSeat(others, view, model, mem, targets) {
  const withTargets = others.filter(s => targets[s]);
  if (withTargets.length) return withTargets.includes(mem.picked) ? mem.picked : withTargets[0];
  if (mem.picked && others.includes(mem.picked)) return mem.picked;
  if (view.battle) {  // under the battle: the realm under attack, else the attacker's board
    if (others.includes(view.battle.defender)) return view.battle.defender;
    if (others.includes(view.battle.attacker)) return view.battle.attacker;
  }
  const turn = (view.turn || {}).seat;
  if (turn && others.includes(turn)) return turn;
  return others[0] || null;
}

/** What is new since the last drawing, whether it is drawn now or not (a board shown only
 * now is not new): cards arrived in a formation, a pool, the battle, your hand; realms razed. */
function changes(view, mem) {
  mem.arrivals.next();
  mem.razings.next();
  mem.razings.mark("start");  // so that the first razing after the first drawing flashes
  const arrived = new Set(), razedNow = new Set();
  const seen = key => { if (mem.arrivals.mark(key)) arrived.add(key); };
  for (const p of Object.values(view.players || {})) {
    for (const slot of SLOTS) {
      const r = (p.formation || {})[slot];
      if (!r) continue;
      seen(`formation:${r.card}`);
      if (r.holding) seen(`formation:${r.holding.card}`);
      if (r.razed && mem.razings.mark(`razed:${r.card}`)) razedNow.add(r.card);
    }
    for (const e of p.pool || []) { seen(`pool:${e.card}`); for (const a of e.attached || []) seen(`pool:${a.card}`); }
    for (const c of Array.isArray(p.hand) ? p.hand : []) seen(`hand:${c.card}`);
  }
  for (const side of Object.values(((view.battle || {}).sides) || {})) {
    if (!side) continue;
    if (side.card) seen(`battle:${side.card}`);
    for (const list of [side.attached, side.played, side.brought]) for (const c of list || []) seen(`battle:${c.card}`);
  }
  return {arrived, razedNow};
}

/** Whether the root's height follows its content (a replay's panel) rather than a box that
 * does not scroll (the player's page, the streams): then nothing on the table folds. */
function unboxed(root, mem) {
  if (mem.free !== undefined) return mem.free;
  const probe = el("div", {style: {height: "1200px"}});
  root.append(probe);
  const low = root.getBoundingClientRect().height;
  probe.style.height = "2400px";
  const high = root.getBoundingClientRect().height;
  probe.remove();
  if (!low && !high) return false;  // not in the document yet: ask again next time
  mem.free = high > low + 1;
  return mem.free;
}

function seatsOf(view) {
  return (view.seats || Object.keys(view.players || {})).filter(s => (view.players || {})[s]);
}

export function render(root, model, controls) {
  last = [root, model, controls];
  const view = model.view;
  if (!view || !view.players) { root.replaceChildren(el("p", {}, "Waiting for the match…")); return; }
  if (armed && !optionsOf(model).some(([p, o]) => p.id === armed.prompt && o.id === armed.option)) armed = null;
  const mem = memory(root);
  const {arrived, razedNow} = changes(view, mem);
  const ctx = {model, controls, view, mem, root, razedNow, arrive: key => (arrived.has(key) ? "arrived" : "")};
  const seats = seatsOf(view);
  const me = seats.includes(model.seat) ? model.seat : null;
  const bottom = me || seats[0] || null;  // an onlooker sees the first seat along the bottom
  const others = seats.filter(s => s !== bottom);
  const targets = targetsBySeat(model);
  const shown = shownSeat(others, view, model, mem, targets);
  ctx.shown = shown;
  ctx.targets = targets;

  const opponents = others.map(s => opponentEl(s, ctx));
  const battle = battleEl(ctx);
  const middle = [statusEl(ctx)];
  if (battle) middle.push(battle);
  if (shown) middle.push(boardEl(shown, ctx, {attackable: targets[shown]}));
  const mine = bottom ? boardEl(bottom, ctx, {mine: true}) : null;
  const hand = me ? handEl(me, ctx) : null;
  // What the open prompt is about: your own board (placing realms, champions, choosing a
  // fighter) or the middle (a realm to attack, the battle's cards); a small table gives it more room.
  const kinds = (model.prompts || []).map(p => p.kind);
  const focus = kinds.some(k => MINE_FIRST.includes(k)) ? "sf-focus-mine" : "sf-focus-middle";
  const free = unboxed(root, mem);
  root.replaceChildren(el("div", {class: `sf ${focus}` + (free ? " sf-free" : "") + (view.battle ? " sf-battling" : "") + (Object.keys(targets).length ? " sf-aiming" : "")}, armedBar(model, controls), table({opponents, middle, mine, hand, cls: "sf-table" + (me ? "" : " sf-onlooker")}),
    detailsLine(root)));
}

// --- the top: each opponent at a glance ------------------------------------------------------
function opponentEl(seat, ctx) {
  const {view, model, mem, targets} = ctx;
  const p = view.players[seat] || {};
  const toWin = (view.options || {}).realms_to_win || 6;
  const formation = p.formation || {};
  const razed = SLOTS.filter(s => formation[s] && formation[s].razed).length;
  const pool = (p.pool || []).length;
  const aims = (targets[seat] || []).length;
  const stats = [
    [`realms ${p.unrazed ?? 0}/${toWin}`, `${plural(p.unrazed ?? 0, "realm")} standing, ${razed} razed; ${toWin} standing win`],
    [`hand ${p.hand_size ?? 0}`, `${plural(p.hand_size ?? 0, "card")} in hand`],
    [`pool ${pool}`, `${plural(pool, "champion")} in the pool`],
    aims ? [`${aims} to attack`, "realms of theirs you may attack now: shown in the middle"] : null,
  ];
  const shownNow = ctx.shown === seat;
  const pick = () => { mem.picked = mem.picked === seat && !aims ? null : seat; rerender(); };
  const peek = el("button.sf-peek", {type: "button", "aria-pressed": shownNow ? "true" : "false",
                                     "aria-label": `${shownNow ? "Showing" : "Show"} ${seat}'s board; ${p.hand_size || 0} cards in hand`, onclick: e => { e.stopPropagation(); pick(); }},
    miniFormation(formation, targets[seat]),
    hiddenHand(p.hand_size || 0, 4));
  const idx = (view.seats || []).indexOf(seat);
  const summary = seatSummary(seat, model, {stats, body: peek, colour: SIDE_COLOURS[idx % SIDE_COLOURS.length],
    cls: "sf-opponent" + (shownNow ? " shown" : "") + (aims ? " has-targets" : "") + ((view.turn || {}).seat === seat ? " in-turn" : "")});
  summary.addEventListener("click", pick);
  return summary;
}

/** Six small squares in the formation's pyramid: standing, razed, empty (and a target of yours). */
function miniFormation(formation, aims) {
  const aimed = new Set((aims || []).map(([, o]) => o.slot));
  return el("span.sf-mini", {"aria-hidden": "true"}, ROWS.map(row => el("span.sf-mini-row", {}, row.map(slot => {
    const r = formation[slot];
    const state = !r ? "empty" : r.razed ? "razed" : "up";
    return el("span", {class: `sf-pip ${state}` + (aimed.has(slot) ? " aim" : "") + (r && r.holding && !r.razed ? " held" : "")});
  }))));
}

function hiddenHand(n, max) {
  return el("span.sf-hand.sf-hand-hidden", {},
    Array.from({length: Math.min(n, max)}, () => el("span.sf-back")), el("span.sf-hand-n", {}, String(n)));
}

// --- the middle: what the turn is, the battle, a board -------------------------------------
function statusEl(ctx) {
  const {view, model} = ctx;
  const t = view.turn || {};
  const bits = [];
  if (view.result) bits.push(el("strong", {}, cap(endText(view.result, model))));
  else if (t.seat) bits.push(el("span", {}, `Turn ${t.number ?? "?"}: `, el("strong", {}, t.seat === model.seat && model.role !== "replay" ? "your" : `${t.seat}'s`),
    ` ${phaseWords(t.phase)}`));
  if (view.rule) bits.push(el("span.sf-rule", {}, term("Rule in play", TERMS.rule), ": ",
    cardEl(view.rule, model, null, {actions: false, cls: "sf-inline"})));
  if (view.spoils) bits.push(el("span.sf-spoils", {}, `${who(view.spoils.seat, model)} ${view.spoils.seat === model.seat ? "decide" : "decides"} the `,
    term("spoils", TERMS.spoils)));
  return el("div", {class: "sf-status" + (view.battle ? " in-battle" : "")}, bits);
}

function phaseWords(phase) {
  return {rule: "rule card phase", draw: "draw phase", realm: "realm phase (play a realm, a holding)",
          pool: "pool phase (champions, items)", attack: "attack phase", discard: "discard phase"}[phase] || (phase ? `${words(phase)} phase` : "turn");
}

function battleEl(ctx) {
  const {view, model, controls, mem} = ctx;
  const b = view.battle;
  if (!b) return null;
  const sides = b.sides || {};
  const a = sides.attacker, d = sides.defender;
  const ta = a ? a.total ?? 0 : 0, td = d ? d.total ?? 0 : 0;
  let ahead = "";
  if (a && d) {
    ahead = ta > td ? `${who(a.seat, model)} (attacker) ${a.seat === model.seat ? "are" : "is"} ahead`
                    : `${who(d.seat, model)} (defender) ${d.seat === model.seat ? "are" : "is"} ahead${ta === td ? ": a tie goes to the defender" : ""}`;
  }
  const sideEl = (name, s) => {
    const seat = s ? s.seat : (name === "attacker" ? b.attacker : b.defender);
    const champion = s && (s.card || s.def)
      ? cardEl(s, model, controls, {size: "hand", cls: "sf-fighter", arrive: ctx.arrive(`battle:${s.card}`),
                                    extra: s.from ? el("span.sf-tag", {}, s.from === "realm" ? "the realm itself" : `from ${whose(seat, model)} ${s.from}`) : null})
      : el("p.sf-none", {}, name === "defender" ? (b.step === "defender" ? "choosing a defender…" : "no defender yet") : "no champion yet");
    const with_ = list => (list || []).map(c => cardEl(c, model, controls, {arrive: ctx.arrive(`battle:${c.card}`)}));
    return el("div", {class: `sf-side sf-${name}` + (s && ((name === "attacker" && ta > td) || (name === "defender" && td >= ta)) && a && d ? " ahead" : "")},
      el("h4", {}, name === "attacker" ? "Attacker" : "Defender", " · ", el("span.sf-side-seat", {}, who(seat, model))),
      champion,
      s && (s.attached || []).length ? el("div.sf-cards", {}, el("span.sf-cards-label", {}, "with"), with_(s.attached)) : null,
      s && (s.brought || []).length ? el("div.sf-cards", {}, el("span.sf-cards-label", {}, "allies"), with_(s.brought)) : null,
      s && (s.played || []).length ? el("div.sf-cards", {}, el("span.sf-cards-label", {}, "played"), with_(s.played)) : null);
  };
  const realm = cardEl(b, model, controls, {cls: "sf-battle-realm sf-inline", actions: false});
  const pending = b.pending ? el("p.sf-pending", {}, cardName(b.pending, model), " will take effect once everyone has let it stand: ",
    OUTCOMES[b.pending.outcome] || words(b.pending.outcome || "")) : null;
  return el("section.sf-battle", {"aria-label": "The battle"},
    el("div.sf-battle-head", {}, el("span", {}, "Battle for "), realm,
      el("span", {}, ` ${whose(b.defender, model)} realm, slot ${b.slot || "?"}`),
      b.round ? el("span.sf-round", {}, ` · round ${b.round}`) : null,
      b.defeats ? el("span.sf-round", {}, ` · ${plural(b.defeats, "defeat")}`) : null),
    el("div.sf-sides", {},
      sideEl("attacker", a),
      el("div.sf-score", {}, el("span.sf-totals", {"aria-label": `attacker ${ta}, defender ${td}`}, a && d ? `${ta} – ${td}` : a ? `${ta}` : "–"),
        ahead ? el("span.sf-ahead", {}, ahead) : null),
      sideEl("defender", d)),
    pending);
}

// --- a seat's board: formation, pool, the other zones -------------------------------------
function boardEl(seat, ctx, {mine = false, attackable = null} = {}) {
  const {view, model, controls} = ctx;
  const p = view.players[seat] || {};
  const label = mine && seat === model.seat && model.role !== "replay" ? "Your board" : `${seat}'s board`;
  const toWin = (view.options || {}).realms_to_win || 6;
  const extra = Object.entries(p).filter(([k, v]) => !KNOWN_PLAYER_FIELDS.includes(k) && v != null)
    .map(([k, v]) => zoneEl(k, v, model, controls));
  const dungeon = (view.dungeons || {})[seat];
  const head = mine ? mineSummary(seat, ctx) : el("h3.sf-board-head", {},
    `${seat}'s board`, el("span.sf-counts", {}, ` · realms ${p.unrazed ?? 0}/${toWin} · hand ${p.hand_size ?? 0} · draw pile ${p.draw_size ?? "?"}`),
    attackable ? el("span.sf-aim-note", {}, ` · choose a realm to attack`) : null,
    null);
  return el("section", {class: "sf-board" + (mine ? " mine" : " theirs"), "aria-label": label, dataset: {seat}},
    head,
    el("div.sf-board-body", {},
      sfZone("formation", `${label}: formation`, [term("Formation", TERMS.formation), el("span.zone-count", {}, ` realms ${p.unrazed ?? 0}/${toWin}`)],
        formationEl(seat, p, ctx)),
      sfZone("pool", `${label}: pool`, [term("Pool", TERMS.pool), el("span.zone-count", {}, ` (${(p.pool || []).length})`)],
        poolEl(seat, p, ctx)),
      el("div.sf-side-zones", {},
        mine ? null : countZone("Draw pile", TERMS.draw, p.draw_size),
        discardEl(p.discard || [], model),
        ["limbo", "abyss", "void"].filter(z => Array.isArray(p[z]) && (p[z].length || mine)).map(z => cardZone(z, p[z], ctx)),
        dungeon ? el("div.sf-zone", {}, term("Dungeon", TERMS.dungeon), ": ", cardEl(dungeon, model, null, {actions: false})) : null,
        extra)));
}

/** Your own seat's line above your board: your name, to act and clock, your numbers. */
function mineSummary(seat, ctx) {
  const {view, model} = ctx;
  const p = view.players[seat] || {};
  const toWin = (view.options || {}).realms_to_win || 6;
  const idx = (view.seats || []).indexOf(seat);
  return seatSummary(seat, model, {cls: "sf-me", colour: SIDE_COLOURS[idx % SIDE_COLOURS.length], stats: [
    [el("span.sf-dup", {}, `realms ${p.unrazed ?? 0}/${toWin}`), `${plural(p.unrazed ?? 0, "realm")} standing; ${toWin} standing win`],
    [el("span.sf-dup", {}, `hand ${p.hand_size ?? 0}`), `${plural(p.hand_size ?? 0, "card")} in hand; over 8 at the end of a turn you discard`],
    [el("span.sf-dup", {}, `pool ${(p.pool || []).length}`), `${plural((p.pool || []).length, "champion")} in the pool`],
    [`draw pile ${p.draw_size ?? "?"}`, TERMS.draw]]});
}

function sfZone(name, ariaLabel, label, content) {
  return el("section", {class: `zone sf-zone-${name}`, "aria-label": ariaLabel}, el("h4.zone-label", {}, label), content);
}

function countZone(name, meaning, n) {
  return el("div.sf-zone", {}, term(name, meaning), ` ${n ?? "?"}`);
}

function cardZone(name, list, ctx) {
  const label = {limbo: "Limbo", abyss: "Abyss", void: "Void"}[name];
  return el("div.sf-zone", {dataset: {zone: name}}, term(label, TERMS[name]), ` ${list.length}`,
    list.length ? el("div.sf-zone-cards", {}, list.map(c => [cardEl(c, ctx.model, null, {actions: false}),
      (c.attached || []).map(a => cardEl(a, ctx.model, null, {actions: false, cls: "sf-attached"}))])) : null);
}

function exposed(formation, slot) {
  return SHIELDS[slot].every(s => !formation[s] || formation[s].razed);
}

/** The slots of an armed realm or holding, drawn as targets in the pyramid. */
function armedSlot(model, seat, slot) {
  if (!armed || seat !== model.seat) return null;
  const found = optionsOf(model).find(([p, o]) => p.id === armed.prompt && o.id === armed.option);
  if (!found) return null;
  const [prompt, option] = found;
  const ok = answers(option).find(a => a.slot === slot && Object.keys(a).length === 1);
  return ok ? {prompt, option, args: ok} : null;
}

function formationEl(seat, player, ctx) {
  const {model, controls, mem} = ctx;
  const formation = player.formation || {};
  const rows = ROWS.map(row => el("div.sf-row", {}, row.map(slot => {
    const realm = formation[slot];
    const target = armedSlot(model, seat, slot);
    if (!realm) {
      if (target && controls) {
        return el("button.sf-slot.empty.sf-playable.sf-target", {type: "button", dataset: {prompt: target.prompt.id, option: target.option.id, argSlot: JSON.stringify(slot)},
          onclick: () => { armed = null; controls.choose(target.prompt.id, target.option.id, target.args); }}, `place in ${slot}`);
      }
      return el("div.sf-slot.empty", {title: `slot ${slot}: empty`}, slot);
    }
    const isExposed = !realm.razed && exposed(formation, slot);
    const newlyRazed = realm.razed && ctx.razedNow.has(realm.card) ? " flash" : "";
    const extra = el("span.sf-slot-tags", {},
      el("span.sf-slotname", {}, slot),
      realm.razed ? el("span.sf-tag.razed", {}, term("razed", TERMS.razed)) : isExposed ? el("span.sf-tag.exposed", {}, term("exposed", TERMS.exposed)) : null,
      realm.holding ? el("span.sf-tag.sf-held", {title: `holding: ${cardName(realm.holding, model)}`}, "holding") : null);
    const realmEl = cardEl(realm, model, controls, {cls: "sf-realm" + (realm.razed ? " is-razed" : "") + (isExposed ? " is-exposed" : "") + newlyRazed,
                                                   extra, arrive: ctx.arrive(`formation:${realm.card}`)});
    const holding = realm.holding ? cardEl(realm.holding, model, controls, {cls: "sf-on-realm", arrive: ctx.arrive(`formation:${realm.holding.card}`),
      extra: el("span.sf-tag", {}, "holding")}) : null;
    const slotTarget = target && controls ? el("button.choice.sf-target", {type: "button",
      dataset: {prompt: target.prompt.id, option: target.option.id, argSlot: JSON.stringify(slot)},
      onclick: () => { armed = null; controls.choose(target.prompt.id, target.option.id, target.args); }}, `here (${slot})`) : null;
    return el("div.sf-slot", {dataset: {slot}}, realmEl, holding, slotTarget);
  })));
  return el("div.sf-formation", {}, rows);
}

function poolEl(seat, player, ctx) {
  const {model, controls, mem} = ctx;
  const pool = player.pool || [];
  if (!pool.length) return el("div.sf-pool.empty", {}, el("span.zone-empty", {}, "no champions"));
  return el("div.sf-pool", {}, pool.map(entry => {
    let target = null;
    if (armed && controls) {
      const found = optionsOf(model).find(([p, o]) => p.id === armed.prompt && o.id === armed.option);
      if (found) {
        const args = answers(found[1]).find(a => a.champion === entry.card);
        if (args) target = el("button.choice.sf-target", {type: "button",
          dataset: {prompt: found[0].id, option: found[1].id, argChampion: JSON.stringify(entry.card)},
          onclick: () => { armed = null; controls.choose(found[0].id, found[1].id, args); }}, "attach here");
      }
    }
    const used = (((model.view || {}).turn || {}).used || []).includes(entry.card);
    return el("div.sf-champion", {},
      cardEl(entry, model, controls, {cls: used ? "is-used" : "", arrive: ctx.arrive(`pool:${entry.card}`),
                                      extra: used ? el("span.sf-tag", {}, "fought") : null}),
      (entry.attached || []).map(a => cardEl(a, model, controls, {cls: "sf-attached", arrive: ctx.arrive(`pool:${a.card}`)})), target);
  }));
}

function zoneEl(name, value, model, controls) {
  const list = Array.isArray(value) ? value : value && typeof value === "object" && (value.card || value.def) ? [value] : null;
  if (list && list.every(x => x && typeof x === "object" && (x.card || x.def))) {
    return el("div.sf-zone", {}, el("span.sf-zone-name", {}, words(name) + ": "), list.length ? list.map(c => cardEl(c, model, controls)) : "none");
  }
  return el("div.sf-zone", {}, el("span.sf-zone-name", {}, words(name) + ": "), typeof value === "object" ? JSON.stringify(value) : String(value));
}

function discardEl(discard, model) {
  return el("details.sf-discard", {}, el("summary", {}, term("Discard pile", TERMS.discard), ` ${discard.length}`),
    el("div.sf-zone-cards", {}, discard.slice().reverse().map(c => cardEl(c, model, null, {actions: false}))));
}

// --- the bottom: your hand --------------------------------------------------------------------
function handEl(seat, ctx) {
  const {view, model, controls, mem} = ctx;
  const p = view.players[seat] || {};
  const label = model.role === "replay" ? `${seat}'s hand` : "Your hand";
  const cards = Array.isArray(p.hand)
    ? p.hand.map(c => cardEl(c, model, controls, {size: "hand", arrive: ctx.arrive(`hand:${c.card}`)}))
    : [hiddenHand(p.hand_size || 0, 8)];
  const region = handRegion(cards, label);
  region.classList.add("sf-hand");
  return region;
}

function armedBar(model, controls) {
  if (!armed || !controls) return null;
  const found = optionsOf(model).find(([p, o]) => p.id === armed.prompt && o.id === armed.option);
  if (!found) return null;
  const [prompt, option] = found;
  const buttons = answers(option).map(args => el("button.choice.sf-target", {
    type: "button", dataset: {prompt: prompt.id, option: option.id, ...argData(args)},
    onclick: () => { armed = null; controls.choose(prompt.id, option.id, args); }}, argsText(args, model, option)));
  return el("div.sf-armed", {role: "group", "aria-label": "Choose where"},
    el("span", {}, `${option.text || option.id}: `), buttons,
    el("button.sf-cancel", {type: "button", onclick: () => { armed = null; rerender(); }}, "Cancel"));
}

function argData(args) {
  const out = {};
  for (const [k, v] of Object.entries(args)) out["arg" + k[0].toUpperCase() + k.slice(1)] = JSON.stringify(v);
  return out;
}

/** An answer's arguments in words: the option's own `args_text` when it has it. */
function argsText(args, model, option) {
  const told = (option && option.args_text) || {};
  return Object.entries(args).map(([k, v]) => (told[k] || {})[v] || argLabel(k, v, model) || String(v)).join(", ");
}

export function argLabel(name, value, model) {
  if (name === "slot") return `slot ${value}`;
  if (name === "side") return `for the ${value}`;
  if (typeof value === "string" && /^c\d+$/.test(value)) {
    const ref = findRef(value, model);
    if (!ref) return value;
    return name === "sacrifice" ? `giving ${cardName(ref, model)}` : `on ${cardName(ref, model)}`;
  }
  return null;
}

function findRef(instance, model) {
  const view = (model && model.view) || {};
  for (const p of Object.values(view.players || {})) {
    for (const e of p.pool || []) if (e.card === instance) return e;
    for (const c of p.hand || []) if (c.card === instance) return c;
    for (const slot of SLOTS) {
      const r = (p.formation || {})[slot];
      if (r && r.card === instance) return r;
    }
  }
  return null;
}

// --- the log, in a player's words ---------------------------------------------------------------
function list(names) {
  if (names.length <= 1) return names.join("");
  return names.slice(0, -1).join(", ") + " and " + names[names.length - 1];
}

function cap(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

function zoneWord(zone) {
  return ZONE_WORDS[zone] || words(zone);
}

export function describe(event, model) {
  const d = event.data || {};
  const n = ref => cardName(ref, model);
  const s = seat => who(seat, model);
  const poss = seat => whose(seat, model);            // "your", "bob's"
  const Poss = seat => (who(seat, model) === "you" ? "Your" : `${seat}'s`);
  const their = seat => (who(seat, model) === "you" ? "your" : "their");
  const verb = (seat, youForm, theyForm) => (who(seat, model) === "you" ? youForm : theyForm);
  const cards = refs => list((refs || []).map(n));
  const spoils = d.via === "spoils" ? " as spoils of victory" : "";
  const totals = t => (t ? ` (${t.attacker} – ${t.defender})` : "");
  switch (event.kind) {
    case "match_started": {
      const decks = d.decks ? Object.entries(d.decks).map(([seat, deck]) => `${s(seat)} ${verb(seat, "play", "plays")} ${cap(words(deck))}`) : [];
      return `The match begins: ${list(d.seats || [])}` + (decks.length ? `; ${list(decks)}` : "") + ".";
    }
    case "turn_started": return `Turn ${d.number}: ${who(d.seat, model) === "you" ? "your" : `${d.seat}'s`} turn.`;
    case "phase": return null;
    case "turn_ended": return null;
    case "rule_played": return `${s(d.seat)} put the rule card ${n(d)} into play${spoils}; it holds for everyone.`;
    case "dungeon_played": return `${s(d.seat)} opened the dungeon ${n(d)}${spoils}.`;
    case "cards_drawn": {
      const what = d.cards && d.cards.length ? `: ${cards(d.cards)}` : "";
      const short = d.count < d.wanted ? ` (the draw pile had only ${d.count})` : "";
      if (d.reason === "spoils") return d.count ? `${s(d.seat)} ${verb(d.seat, "draw", "draws")} a card as spoils of victory${what}.` : `${s(d.seat)} would draw spoils, but the draw pile is empty.`;
      if (d.reason === "start") return `${s(d.seat)} drew a starting hand of ${plural(d.count, "card")}${what}.`;
      return `${s(d.seat)} drew ${plural(d.count, "card")}${what}${short}.`;
    }
    case "cards_discarded": {
      const what = d.cards && d.cards.length ? cards(d.cards) : "a card";
      const many = (d.cards || []).length > 1;
      const why = {replaced: "replaced", realm_razed: "with the razed realm", realm_discarded: "with the discarded realm",
                   no_realms: `${their(d.seat)} last realm has fallen`, defeated: "defeated", round_over: "the round is over",
                   event: "the event is spent", countered: "countered", rule_discarded: "the rule card is gone",
                   after_combat: "after combat", sacrifice: "given for an avatar", cosmos: "a copy of it is already in play",
                   played: "played as spoils"}[d.reason];
      if (d.reason === "hand_limit") return `${s(d.seat)} discarded ${what} to keep to the hand limit.`;
      return `${Poss(d.seat)} ${what} ${many ? "go" : "goes"} to the discard pile${why ? ` (${why})` : ""}.`;
    }
    case "card_returned": return `${s(d.seat)} took ${d.cards && d.cards.length ? cards(d.cards) : plural(d.count || 1, "card")} back from ${their(d.seat)} discard pile into ${their(d.seat)} hand.`;
    case "realm_played": return `${s(d.seat)} played the realm ${n(d)} in slot ${d.slot} of ${their(d.seat)} formation${spoils}.`;
    case "holding_played": {
      const realm = ((((model.view || {}).players || {})[d.seat] || {}).formation || {})[d.slot];
      return `${s(d.seat)} put the holding ${n(d)} on ${realm ? `${n(realm)} (slot ${d.slot})` : `the realm in slot ${d.slot}`}${spoils}.`;
    }
    case "champion_to_pool": return `${s(d.seat)} put the champion ${n(d)} into ${their(d.seat)} pool${spoils}.`;
    case "card_attached": return `${s(d.seat)} gave ${n(d)} to ${n(d.attached_to || findRef(d.champion, model) || {card: d.champion})}${spoils}.`;
    case "battle_started": return `${s(d.attacker)} ${verb(d.attacker, "attack", "attacks")} ${poss(d.defender)} ${n(d)} (slot ${d.slot}).`;
    case "champion_chosen": {
      const from = d.from === "hand" ? ` from ${their(d.seat)} hand` : d.from === "pool" ? ` from ${their(d.seat)} pool` : "";
      const kit = d.attached && d.attached.length ? `, bringing ${cards(d.attached)}` : "";
      if (d.from === "realm") return `${n(d)} defends itself.`;
      return d.side === "attacker" ? `${s(d.seat)} ${verb(d.seat, "send", "sends")} ${n(d)}${from} to attack${kit}.`
                                   : `${s(d.seat)} ${verb(d.seat, "defend", "defends")} with ${n(d)}${from}${kit}.`;
    }
    case "defense_declined": return `${s(d.seat)} did not defend ${n(d)}: it falls.`;
    case "activated": return activatedText(d, model);
    case "powers_activated": {
      const b = (model.view || {}).battle;
      const t = d.totals || {};
      const names = b ? [`${s(b.attacker)} ${t.attacker}`, `${t.defender} ${s(b.defender)}`] : [`attacker ${t.attacker}`, `${t.defender} defender`];
      return `The champions are counted: ${names[0]} – ${names[1]}` + (d.slain ? `; the ${d.slain}'s champion is slain` : "") + ".";
    }
    case "ally_called": return `${s(d.seat)} ${verb(d.seat, "call", "calls")} ${n(d)} from ${their(d.seat)} pool as an ally` +
      (d.by ? ` of ${n(d.by)}` : "") + `${totals(d.totals)}.`;
    case "card_played": {
      if (d.via === "spoils") return `${s(d.seat)} played ${n(d)} at once as spoils of victory.`;
      const side = d.side ? ` for the ${d.side}` : "";
      const when = d.before_battle ? " before the fight" : "";
      const cancelled = (d.effects || []).includes("cancelled") ? "; its power is cancelled" : "";
      const outcome = d.outcome ? `: ${OUTCOMES[d.outcome] || words(d.outcome)} once everyone lets it stand` : "";
      return `${s(d.seat)} played ${n(d)}${side}${when}${totals(d.totals)}${cancelled}${outcome}.`;
    }
    case "outcome_pending": return `${n(d)} waits for answers: if nobody stops it, ${OUTCOMES[d.outcome] || words(d.outcome || "")}.`;
    case "outcome_cancelled": return `${n(d)} no longer takes effect` + (d.by ? `: ${n(d.by)} took it out of the battle` : "") + ".";
    case "round_ended": {
      if (!d.winner) return `Round ${d.round} ends with no winner: both champions are gone.`;
      const how = {declined: "nobody defended", slain: "a champion was slain", card: "by a card", resigned: "a side left the match",
                   realm_razed: "the realm was razed by a card", realm_discarded: "the realm was discarded by a card",
                   attacker_discarded: "the attacking champion was discarded", both_discarded: "both champions were discarded"}[d.how];
      const score = d.totals && d.how === "combat" ? `, ${Math.max(d.totals.attacker, d.totals.defender)} to ${Math.min(d.totals.attacker, d.totals.defender)}` : "";
      return `${s(d.winner_seat || d[d.winner])} ${verb(d.winner_seat || d[d.winner], "win", "wins")} round ${d.round} as the ${d.winner}${score}${how ? ` (${how})` : ""}.`;
    }
    case "champion_returned": return `${n(d)} goes back to ${poss(d.seat)} pool` + (d.attached && d.attached.length ? ` with ${cards(d.attached)}` : "") +
      (d.by_power ? ", saved by a power" : "") + ".";
    case "sent_to_zone": return `${Poss(d.seat)} ${n(d)} is sent to ${zoneWord(d.zone)}` + (d.attached && d.attached.length ? ` with ${cards(d.attached)}` : "") +
      (d.zone === "limbo" ? `, until ${their(d.seat)} next turn` : d.zone === "abyss" || d.zone === "void" ? ", out of the game" : "") + ".";
    case "after_combat": return d.to ? `After combat, ${n(d)} sends ${n(d.target)} to ${zoneWord(d.to)}.` : `After combat, ${n(d)} finds nobody left to strike.`;
    case "left_limbo": return d.to === "discard" ? `${Poss(d.seat)} ${n(d)} leaves Limbo for the discard pile: a copy of it is in play.`
                                                 : `${Poss(d.seat)} ${n(d)} comes back from Limbo to ${their(d.seat)} pool.`;
    case "realm_holds": return `${Poss(d.seat)} ${n(d)} holds: it must be defeated twice (${plural(d.defeats, "defeat")} so far).`;
    case "realm_razed": return `${Poss(d.seat)} ${n(d)} (slot ${d.slot}) was razed.`;
    case "realm_discarded": return `${Poss(d.seat)} ${n(d)} (slot ${d.slot}) was discarded from the formation.`;
    case "battle_ended": {
      const fate = d.discarded ? "it was discarded" : d.razed ? "it fell" : "it stands";
      const winner = d.spoils ? ` ${s(d.spoils)} ${verb(d.spoils, "draw", "draws")} the spoils.` : "";
      if (!d.rounds && !d.razed && !d.discarded) return `The attack on ${n(d)} ends before any champion fought: it stands.`;
      return `The battle for ${n(d)} is over after ${plural(d.rounds, "round")}: ${fate}.${winner}`;
    }
    case "attack_withdrawn": return `${s(d.attacker)} went back from ${poss(d.defender)} ${n(d)} (slot ${d.slot}); the attack is not spent.`;
    case "spoils_kept": return `${s(d.seat)} kept the spoils${d.card || d.def ? ` (${n(d)})` : ""} in ${their(d.seat)} hand.`;
    case "match_ended": return endText(d, model);
    case "prompt": return null;
    default: {
      const common = describeCommon(event, model);
      if (common !== undefined) return common;
      // A kind this drawing does not know yet: its seat and card, and where the card is now.
      const bits = [];
      if (d.seat) bits.push(s(d.seat));
      if (d.card || d.def) bits.push(n(d));
      if (d.zone) bits.push(`now in ${zoneWord(d.zone)}`);
      return cap(words(event.kind)) + (bits.length ? ": " + bits.join(", ") : "") + ".";
    }
  }
}

function activatedText(d, model) {
  const n = ref => cardName(ref, model);
  const owner = d.seat ? whose(d.seat, model) : "";
  const Owner = d.seat ? (who(d.seat, model) === "you" ? "Your" : `${d.seat}'s`) : "";
  const side = d.side ? ` for the ${d.side}` : "";
  const plus = d.bonus ? ` (+${d.bonus}${side})` : "";
  if (d.cancelled) return `${n(d)} has no power this round: it was cancelled.`;
  if (d.slays) return `${n(d)} slays the ${d.slays}'s champion!`;
  if ((d.effects || []).includes("brings_ally_waits")) return `${n(d)} may call an ally in once ${d.seat === model.seat ? "you are" : "its side is"} behind.`;
  if ((d.cancels || []).length) return `${n(d)} cancels ${list(d.cancels.map(n))}.`;
  if (d.step === "7" || d.step === "8") return `${Owner ? Owner + " " : ""}${n(d)} fights for the ${d.side} at ${d.bonus ?? 0}.`;
  switch (d.zone) {
    case "rule": return `The rule card ${n(d)} acts${plus || " for everyone"}.`;
    case "dungeon": return `${Owner} dungeon ${n(d)} acts${plus}.`;
    case "formation": return `${Owner} ${n(d)} (slot ${d.slot}) helps its defender${plus}.`;
    case "pool": return `${Owner} ${n(d)} joins the battle as an ally${plus}.`;
    default: return `${who(d.seat, model)} used ${n(d)} in the battle${plus}.`;
  }
}

function endText(d, model) {
  const winners = d.winners || [];
  const toWin = (((model.view || {}).options) || {}).realms_to_win || 6;
  if (!winners.length || d.reason === "aborted" || d.reason === "resigned") return "Match over: " + resultText(d, model);
  const names = list(winners.map(s => who(s, model)));
  if (d.reason === "realms") return `Match over: ${names} won with ${toWin} realms standing.`;
  if (d.reason === "turn_limit") return `Match over: ${names} won with the most realms when the turn limit was reached.`;
  if (d.reason === "exhausted") return `Match over: ${names} won with the most realms once every draw pile was empty.`;
  return "Match over: " + resultText(d, model);
}

// --- moments (moments.js): the battle's running totals, a razed realm ------------------------
export function headline(model) {
  const b = (model.view || {}).battle;
  if (!b) return null;
  const sides = b.sides || {};
  const total = side => (side ? side.total ?? 0 : 0);
  return `Battle for ${cardName(b, model)}: ${who(b.attacker, model)} ${total(sides.attacker)} – ${total(sides.defender)} ${who(b.defender, model)}`;
}

export function moment(event, model) {
  const d = event.data || {};
  if (event.kind === "realm_razed") return {kind: "realm_razed", text: `${whose(d.seat, model)} ${cardName(d, model)} is razed!`};
  return null;
}

// --- How to play (docs/spellfire.md, in a player's words) ---------------------------------------
export const howTo = {
  goal: "Have six realms standing (not razed) in your formation at the end of a turn. You build a pyramid of realms, " +
        "bring champions into your pool, and attack the other players' realms to raze them, while defending your own.",
  turn: [
    "Rule cards: if the match holds rule cards or dungeons, you may put one of each into play.",
    "Draw: you draw 3 cards.",
    "Realm: you may play one realm into your formation (the first empty slot, or over a razed realm) and one holding onto a realm of the same world.",
    "Pool: put any number of champions into your pool, and give them magical items and artifacts (one artifact each).",
    "Attack: choose an exposed realm of any opponent and a champion to attack it; the owner defends with a champion or lets it fall. " +
      "Both sides' totals are compared; the side behind plays cards one at a time (allies, spells, items) until it is ahead or stops. " +
      "Every card played gives every other player a chance to respond. The attacker razes the realm by winning the round; the winner draws the spoils.",
    "Discard: if you hold more than 8 cards, discard down to 8.",
  ],
  prompts: [
    ["Play a rule card (play_rule)", "Put a rule card or dungeon from your hand into play, or go on with Done."],
    ["Play a realm (play_realm)", "Play a realm into a slot of your formation, or a holding onto one of your realms; Done ends the phase."],
    ["Fill your pool (play_pool)", "Put champions into your pool and attach magical items and artifacts to them; Done ends the phase."],
    ["Choose a realm (choose_realm)", "Click an opponent's realm to attack it (tap their strip at the top to see their board), or End the attack phase."],
    ["Choose an attacker (choose_attacker)", "Pick the champion, from your hand or pool, that attacks the realm. Back lets you choose another realm once a turn."],
    ["Choose a defender (choose_defender)", "Pick a champion to defend your realm, or Decline: the realm is razed and the battle ends."],
    ["Before the battle (before_battle)", "Play a card that works before the fight, or pass; it ends when both sides pass in a row."],
    ["Battle play (battle_play)", "Your side is behind: play one card to catch up (an ally, a spell your champion can use, an item), or Stop and lose the round."],
    ["Play at once (play_at_once)", "A card you played lets you play one more card at once, or pass."],
    ["Respond (respond)", "Someone played a card: answer with an event or a play-at-any-time card, or let it stand. A player outside the battle may help either side with an event."],
    ["Spoils of victory (spoils)", "You won a battle and drew a card: play it at once if it can be played, or keep it in your hand."],
    ["Discard (discard)", "You hold more than the hand limit: choose a card to throw away."],
  ],
  glossary: [
    ["Formation", TERMS.formation],
    ["Exposed", TERMS.exposed],
    ["Razed", TERMS.razed],
    ["Pool", TERMS.pool],
    ["Champion", "A card that fights: it attacks and defends, with a level and a special power. Heroes, wizards, clerics, thieves, psionicists, regents and monsters."],
    ["Ally", "A card played in a battle for your side; its level adds to your total, and it is discarded after the round."],
    ["Holding", "A card played on one of your realms of the same world; it helps that realm's defender."],
    ["Magical item, artifact", "Cards attached to a champion; they stay with it after a battle it wins. One artifact per champion, of its world."],
    ["Spells and powers", "Wizard spells, cleric spells, psionic powers, blood abilities, thief skills and unarmed combat: cards only champions of the right class can use in a battle."],
    ["Event", "A card any player may play in answer to a card, even outside the battle."],
    ["Level", TERMS.level],
    ["Total", "A side's strength in a battle: its champion's level plus every bonus. The bigger total wins the round; a tie goes to the defender."],
    ["Spoils", TERMS.spoils],
    ["Limbo", TERMS.limbo],
    ["Abyss", TERMS.abyss],
    ["Void", TERMS.void],
    ["Discard pile", TERMS.discard],
    ["Draw pile", TERMS.draw],
    ["Rule card", TERMS.rule],
    ["Dungeon", TERMS.dungeon],
  ],
};
