// hourglass (Heirless battles): the table. Along the top each other player's summary
// (Knights in play and their Wounds, Battle Hand, discards, to act with the clock), in the
// middle the battle being resolved: the Hourglass Board drawn as an hourglass with each
// side's cubes on its top and bottom parts, the battle's tile with the Knights and Bandits
// of each side around it (wound pips against Health), the Battlecards placed (card backs
// until revealed), the targeting controls; the other battles as a strip of small tiles.
// Along the bottom your own summary and your Battle Hand, each Battlecard drawn as a card.

import {el, useCss, who, whose, words, plural, describeCommon, legal, detailsLine, term, cardFace,
        handRegion, seatSummary, table, Arrivals} from "./common.js";

useCss(new URL("../table.css", import.meta.url).href);
useCss(new URL("./hourglass.css", import.meta.url).href);

const COLOURS = ["#4ea1ff", "#ff7a59", "#7bd88f", "#e6c14a", "#c792ea", "#5fd7d7"];
const BANDIT_COLOUR = "#a89a86";

// What each word on the table means (docs/hourglass.md), for term() and the glossary.
const MEANS = {
  "Hourglass Board": "The Hourglass Board: every side puts cubes on its top part (as many as its Delay). The side with no cube on top and the fewest cubes on the board attacks next; when every side has cubes on top, the hourglass turns and cubes move to the bottom.",
  "Battlecards": "Battlecards: each player's cards for battle. The Attacker places one face up (its Damage, Precision and Delay count); each Defender places one face down (its Defense, Dodge and Wound count).",
  "Battle Hand": "Battle Hand: the Battlecards you can still place. When it is empty you take back your discard pile.",
  "Wounds": "Wounds: damage a Knight has taken. A Knight whose Wounds reach its side's Health leaves the battle. Wounds are healed when the battle ends.",
  "Health": "Health: the Wounds a Knight (or Bandit) of this side can take; at this many it leaves the battle.",
  "Defense": "Defense: taken off the damage of every blow before it becomes Wounds.",
  "Dodge": "Dodge: the attacker's Precision is measured against it. Precision under half the Dodge misses, under the Dodge grazes (half damage), over twice the Dodge is a Critical Hit (double damage).",
  "Damage": "Damage: the wounds a hit deals, before the target's Defense is taken off.",
  "Precision": "Precision: measured against the target's Dodge to decide a Miss, a Graze, a hit or a Critical Hit.",
  "Delay": "Delay: how many cubes a side puts on top of the Hourglass Board after it attacks (rounded up). The lower, the sooner it attacks again.",
  "Wound": "Wound (on a Battlecard): wounds added to (or, negative, healed on) each of your targeted Knights when the cards are revealed.",
  "Tie Breaker": "The Tie Breaker: the order that settles every tie (who attacks first, a Graze or a hit...). Earlier in the order wins; an Alliance ranks at its lower member.",
  "Bandits": "Bandits: the server's own side. Each Bandit attacks an enemy Knight chosen at random; they never ally, and draw their Battlecards from their own, stronger deck.",
  "Attacker": "The Attacker: the side whose Battle Turn it is. Its Knights each attack one target.",
  "Alliance": "An Alliance: two players who offered it to each other. Allies never target each other and win the battle together.",
  "discards": "Discards: Battlecards already used, face down. You take them back when your Battle Hand is empty.",
};
const t = (word, text = word) => term(text, MEANS[word] || word);

// State of the controls between drawings (one player page draws one board).
let targets = {};       // knight id -> target chosen on the board (for the open `targets` prompt)
let targetsFor = null;  // the prompt those choices belong to
let selectedKnight = null;
let placing = null;     // the card chosen to place face up, waiting for the card to discard
let last = null;
const memory = new WeakMap();  // root -> {arrivals, wounds: Map(knight id -> wounds)}

function colour(side, model) {
  if (side === "bandits") return BANDIT_COLOUR;
  const seats = ((model.view || {}).turn_order) || model.seats || [];
  const i = seats.indexOf(side);
  return COLOURS[(i < 0 ? 0 : i) % COLOURS.length];
}

/** The first letter up at the start of a sentence, for our own words ("you", "your", "the"),
 * never for a player's name, which stays as its player spelt it. */
const cap = s => s && /^(you|your|the|a|an|no)\b/.test(s) ? s[0].toUpperCase() + s.slice(1) : s;
const tileName = tile => tile ? `the ${words(tile)}` : "the battle";
const sideName = (side, model) => side === "bandits" ? "the Bandits" : who(side, model);
const Side = (side, model) => cap(sideName(side, model));
/** "attacks" or "attack" for the viewer's own seat ("you attack"). */
const verb = (side, model, s, plain = s.replace(/s$/, "")) => who(side, model) === "you" || side === "bandits" ? plain : s;

/** A Knight or Bandit in words: its `name` and owner from the view (or from an open
 * prompt's `about` once it has left its battle); the id is parsed only as a last resort. */
function knightName(id, model) {
  const k = knightOf(id, model);
  if (k && k.name) return k.owner === "bandits" ? k.name : `${whose(k.owner, model)} ${k.name}`;
  const m = /^(.*)-(\d+)@(.*)$/.exec(String(id));
  if (!m) return id === "none" ? "nobody" : "a Knight";
  return m[1] === "bandits" || m[1] === "bandit" ? `Bandit ${m[2]}` : `${whose(m[1], model)} Knight ${m[2]}`;
}

function knightOf(id, model) {
  for (const b of ((model.view || {}).battles || [])) for (const k of b.knights || []) if (k.id === id) return k;
  const told = aboutOf(id, model);
  return told && told.knight ? {id, name: told.name, owner: told.owner} : null;
}

/** What an open prompt's option says about an argument name or value (its `about`). */
function aboutOf(value, model) {
  if (typeof value !== "string") return null;
  for (const p of model.prompts || []) for (const o of p.options || []) {
    if (o.about && Object.prototype.hasOwnProperty.call(o.about, value)) return o.about[value];
  }
  return null;
}

/** Delay as players read it: the view's `delay`, or the halves older servers send. */
function delayOf(a) {
  return a.delay ?? (a.delay2 ?? 0) / 2;
}

function cardKind(instance, model) {
  const view = model.view || {};
  const mine = [...(view.my_hand || []), ...(view.my_discards || [])].find(c => c.card === instance);
  return mine ? mine.kind : null;
}

function cardInfo(kind, model) {
  return ((model.view || {}).cards || {})[kind] || null;
}

const OFFENCE = [["Damage", "damage"], ["Precision", "precision"], ["Delay", "delay"]];
const DEFENCE = [["Defense", "defense"], ["Dodge", "dodge"], ["Wound", "wound"]];
const signed = v => `${v > 0 ? "+" : ""}${v}`;

/** A card's modifiers, [[word, value], ...] of one part (attack or defence), blanks left out. */
function mods(c, part) {
  return part.map(([word, key]) => [word, key === "delay" ? delayOf(c) : c[key]]).filter(([, v]) => v);
}

function cardTitle(kind, model) {
  const c = cardInfo(kind, model);
  if (!c) return "a Battlecard";
  const stats = [...mods(c, OFFENCE), ...mods(c, DEFENCE)].map(([w, v]) => `${w} ${signed(v)}`);
  return `${c.name}: ${stats.join(", ") || "no modifiers"}. ${c.text || ""}`.trim() +
    " When you attack, its Damage, Precision and Delay count; when you defend, its Defense, Dodge and Wound.";
}

export function argName(name, model) {
  return name.includes("@") ? knightName(name, model) : null;
}

export function argLabel(name, value, model) {
  const told = aboutOf(value, model);
  if (told && told.text) return told.card ? (told.name || told.text) : told.text;
  if (value === "none") return "no target";
  if (typeof value !== "string") return null;
  if (value.includes("#")) { const k = cardKind(value, model); return k ? (cardInfo(k, model) || {}).name || "a Battlecard" : "a Battlecard"; }
  if (value.includes("@")) return knightName(value, model);
  if (name === "tile") return tileName(value);
  if (name === "with") return who(value, model);
  return null;
}

function find(model, kind) {
  for (const p of model.prompts || []) if (p.kind === kind) return p;
  return null;
}

function rerender() { if (last) render(...last); }

// --- the table --------------------------------------------------------------------------------
export function render(root, model, controls) {
  last = [root, model, controls];
  const view = model.view;
  if (!view || !view.battles) { root.replaceChildren(el("p", {}, "Waiting for the match…")); return; }
  let mem = memory.get(root);
  if (!mem) memory.set(root, mem = {arrivals: new Arrivals(), wounds: null});
  mem.arrivals.next();
  const tp = find(model, "targets");
  if (!tp || tp.id !== targetsFor) { targets = {}; selectedKnight = null; targetsFor = tp && tp.id; }
  if (!find(model, "attack_card")) placing = null;
  const ctx = {view, model, controls: controls || null, mem, tp: controls ? tp : null,
               flashing: woundsChanged(view, mem)};
  const me = model.role === "spectator" || !model.seat || !(view.turn_order || model.seats || []).includes(model.seat) ? null : model.seat;
  const seats = view.turn_order || model.seats || [];
  const opponents = seats.filter(s => s !== me).map(s => summaryEl(s, ctx));
  const hand = view.my_hand ? handEl(ctx) : null;
  const drawn = table({cls: "hg", opponents, middle: middleEl(ctx), mine: me ? mineEl(me, ctx) : null, hand});
  // The zoom panel (position: fixed) inside the table, not beside it: the frame sizes the board's children.
  drawn.append(detailsLine(root, "Point at or tap a Knight or a Battlecard to read it."));
  root.replaceChildren(drawn);
}

/** The Knights whose Wounds grew since the last drawing (they flash); none on the first. */
function woundsChanged(view, mem) {
  const now = new Map();
  for (const b of view.battles || []) for (const k of b.knights || []) now.set(k.id, k.wounds || 0);
  const grew = new Set();
  if (mem.wounds) for (const [id, w] of now) if (w > (mem.wounds.get(id) ?? w)) grew.add(id);
  mem.wounds = now;
  return grew;
}

/** A side's Knights still in a battle not over, and their Wounds. */
function inPlay(side, view) {
  const knights = [];
  for (const b of view.battles || []) if (!b.done) for (const k of b.knights || []) if (k.owner === side) knights.push(k);
  return {knights: knights.length, wounds: knights.reduce((n, k) => n + (k.wounds || 0), 0)};
}

function statsEl(side, view, {hand = true, mine = false} = {}) {
  const {knights, wounds} = inPlay(side, view);
  const chip = (...c) => el("span.stat", {}, ...c);
  return el("div.seat-stats", {},
    chip(plural(knights, "Knight")),
    chip(`${wounds} `, t("Wounds", wounds === 1 ? "Wound" : "Wounds")),
    hand && (view.hands || {})[side] !== undefined ? chip(`${view.hands[side]} in `, t("Battle Hand", "hand")) : null,
    (view.discards || {})[side] !== undefined ? chip(`${view.discards[side]} `, t("discards")) : null,
    view.resolver === side && !view.result && !mine ? chip(el("strong", {}, "resolving")) : null);
}

function summaryEl(side, ctx) {
  return seatSummary(side, ctx.model, {colour: colour(side, ctx.model), body: statsEl(side, ctx.view)});
}

/** Your own seat, just above your Battle Hand: your numbers and your side's attributes. */
function mineEl(me, ctx) {
  const {view, model} = ctx;
  const a = (view.attributes || {})[me] || {};
  const attr = (word, v) => el("span.hg-attr", {}, t(word), " ", String(v ?? "?"));
  return seatSummary(me, model, {colour: colour(me, model), cls: "hg-mine",
    body: el("div.hg-mine-body", {}, statsEl(me, view, {hand: false, mine: true}),
      el("span.hg-attrline", {}, attr("Health", a.health), attr("Defense", a.defense), attr("Dodge", a.dodge),
        attr("Damage", a.damage), attr("Precision", a.precision), attr("Delay", delayOf(a))),
      attributesEl(view, model))});
}

function attributesEl(view, model) {
  const rows = Object.entries(view.attributes || {}).map(([s, a]) => el("tr", {},
    el("th", {}, el("span.hg-swatch", {style: {background: colour(s, model)}}), s === "bandits" ? "Bandits" : who(s, model)),
    ["health", "defense", "dodge", "damage", "precision"].map(k => el("td", {}, a[k])), el("td", {}, delayOf(a))));
  return el("details.hg-attrs", {}, el("summary", {}, "All sides"),
    el("table", {}, el("tr", {}, el("th", {}, ""), ["Health", "Defense", "Dodge", "Damage", "Precision", "Delay"].map(h => el("th", {}, t(h)))), rows));
}

// --- the middle: the battle in progress, and the other battles ----------------------------
function middleEl(ctx) {
  const {view} = ctx;
  const current = view.battles.find(b => b.tile === view.current && !b.done) || null;
  const others = view.battles.filter(b => b !== current);
  const cb = ctx.controls ? find(ctx.model, "choose_battle") : null;
  return el("div.hg-middle", {},
    current ? battleEl(current, ctx) : el("div.hg-waiting", {},
      view.result ? el("p", {}, "Every battle is resolved.")
        : cb ? el("p.hg-hint", {}, "Choose the battle you resolve next: click its tile.")
        : el("p", {}, view.resolver ? `${Side(view.resolver, ctx.model)} ${verb(view.resolver, ctx.model, "chooses")} the next battle.` : "")),
    el("div.hg-strip", {"aria-label": "Battles", role: "list", class: "hg-strip" + (current ? "" : " wide")},
      others.map(b => el("div", {role: "listitem"}, tileEl(b, ctx, cb)))),
    current ? null : orderEl(ctx));
}

function orderEl(ctx) {
  return el("span.hg-order", {}, t("Tie Breaker"), ": ", (ctx.view.tie_breaker || []).map(s => s === "bandits" ? "Bandits" : who(s, ctx.model)).join(" › "));
}

function sidesOf(b) {
  return [...new Set([...(b.knights || []).map(k => k.owner), ...Object.keys(b.top || {}), ...Object.keys(b.bottom || {})])];
}

function tileEl(b, ctx, cb) {
  const {model, controls} = ctx;
  const opt = cb && (cb.options || []).find(o => ((o.args || {}).tile || []).includes(b.tile));
  const counts = {};
  for (const k of b.knights || []) counts[k.owner] = (counts[k.owner] || 0) + 1;
  const state = b.done ? "over" : b.started ? "in progress" : "not fought yet";
  const body = [
    el("span.hg-tile-name", {}, cap(tileName(b.tile))),
    el("span.hg-tile-state", {}, state),
    el("span.hg-tile-sides", {}, Object.entries(counts).map(([s, n]) => el("span.hg-tile-side", {style: {"--side": colour(s, model)}},
      el("span.hg-swatch", {style: {background: colour(s, model)}}), `${s === "bandits" ? "Bandits" : who(s, model)} ${n}`,
      el("span.hg-kmarks", {"aria-hidden": "true"}, Array.from({length: Math.min(n, 8)}, () => el("span.hg-kmark"))))))];
  const details = `${cap(tileName(b.tile))}, ${state}: ` + (Object.entries(counts).map(([s, n]) =>
    s === "bandits" ? plural(n, "Bandit") : `${who(s, model)} ${plural(n, "Knight")}`).join(", ") || "nobody left");
  if (opt && controls) {
    return el("button.hg-tile.hg-choose", {type: "button", dataset: {prompt: cb.id, option: opt.id, argTile: JSON.stringify(b.tile), tile: b.tile, details},
      onclick: () => controls.choose(cb.id, opt.id, {tile: b.tile})}, body, el("span.hg-tile-go", {}, "Resolve next"));
  }
  return el("div", {class: "hg-tile" + (b.done ? " done" : ""), tabindex: 0, dataset: {tile: b.tile, details}}, body);
}

function battleEl(b, ctx) {
  const {view, model} = ctx;
  const turn = view.turn || {};
  const sides = sidesOf(b);
  const attacker = turn.attacker;
  return el("section.hg-current", {dataset: {tile: b.tile}, "aria-label": `Battle at ${tileName(b.tile)}`},
    el("div.hg-head", {},
      el("h3", {}, el("span.hg-wide", {}, "Battle at "), el("span.hg-tilename", {}, tileName(b.tile))),
      el("span.hg-muted", {}, b.turns ? `Battle Turn ${b.turns}` : "starting"),
      attacker ? el("span.hg-attacking", {style: {"--side": colour(attacker, model)}}, `${Side(attacker, model)} ${verb(attacker, model, "attacks")}`) : null,
      (b.alliances || []).length ? el("span.hg-muted", {}, t("Alliance", "Alliances"), ": ", b.alliances.map(a => a.map(s => who(s, model)).join(" + ")).join("; ")) : null,
      orderEl(ctx)),
    controlsEl(b, ctx),
    revealEl(b, ctx),
    el("div.hg-field", {},
      glassEl(b, sides, model),
      el("div.hg-ground", {},
        sides.map(side => sideEl(side, b, ctx)))));
}

/** The alliance buttons or the targeting bar, above the field: what to do now. */
function controlsEl(b, ctx) {
  const {model, controls} = ctx;
  if (!controls) return null;
  const ap = find(model, "alliance");
  if (ap) {
    const buttons = [];
    for (const o of ap.options || []) {
      const partners = (o.args || {}).with;
      if (partners) for (const s of partners) buttons.push(el("button.choice", {type: "button", dataset: {prompt: ap.id, option: o.id, argWith: JSON.stringify(s)},
        onclick: () => controls.choose(ap.id, o.id, {with: s})}, `Offer an Alliance to ${who(s, model)}`));
      else buttons.push(el("button.choice", {type: "button", dataset: {prompt: ap.id, option: o.id},
        onclick: () => controls.choose(ap.id, o.id, {})}, o.id === "alone" ? "Fight alone" : (o.text || words(o.id))));
    }
    return el("div.hg-alliance.hg-controls", {}, el("span.hg-hint", {}, t("Alliance", "Alliances"), ": fight alone, or offer one to another player (it forms if they offer it to you)."), buttons);
  }
  const tp = ctx.tp;
  if (!tp) return null;
  const opt = tp.options[0];
  const args = {};
  for (const knight of Object.keys(opt.args || {})) args[knight] = targets[knight] ?? opt.args[knight][0];
  const ok = legal(opt, args);
  return el("div.hg-targets.hg-controls", {},
    el("p.hg-hint", {}, selectedKnight ? `Now click the Knight or Bandit that ${knightName(selectedKnight, model)} attacks.`
      : "Click one of your Knights, then its target. Then attack."),
    el("button.choice.hg-go", {type: "button", disabled: !ok, dataset: {prompt: tp.id, option: opt.id,
      details: "Attack: " + Object.entries(args).map(([kn, target]) => `${shortName(kn, model)} → ${aimLabel(target, model)}`).join("; ")},
      onclick: () => controls.choose(tp.id, opt.id, args)}, "Attack with these targets"));
}

function shortName(id, model) {
  const k = knightOf(id, model);
  return k && k.owner === model.seat && k.name ? k.name : knightName(id, model);
}

/** A target in short words on the board: "bob's Knight 1", or "no target". */
function aimLabel(target, model) {
  return target === "none" ? "no target" : knightName(target, model);
}

/** The Hourglass Board: an hourglass with each side's cubes on its top and bottom parts. */
function glassEl(b, sides, model) {
  const top = b.top || {}, bottom = b.bottom || {};
  const W = 100, H = 150, NECK = 75, CUBE = 8.6, GAP = 1.6, P = CUBE + GAP;
  const cubes = [];
  // Rows of cubes that fit the bulb: the top part filled from its wide rim down, the bottom from its floor up.
  const width = y => 8 + (84 - 8) * Math.abs(y - NECK) / (NECK - 6);
  const lay = (counts, down) => {
    const list = sides.flatMap(s => Array.from({length: Math.max(0, counts[s] || 0)}, () => s));
    let row = 0, i = 0;
    while (i < list.length && row < 8) {
      const y = down ? 9 + row * P : H - 9 - CUBE - row * P;
      const narrow = down ? y + CUBE : y;
      const n = Math.max(1, Math.floor((width(narrow) - 6) / P));
      const take = list.slice(i, i + n);
      const x0 = W / 2 - (take.length * P - GAP) / 2;
      take.forEach((s, j) => cubes.push(svg("rect", {x: x0 + j * P, y, width: CUBE, height: CUBE, rx: 1.4,
        fill: colour(s, model), stroke: "#0b0d10", "stroke-width": 0.8})));
      i += take.length; row += 1;
    }
    return list.length - i;  // cubes that did not fit (drawn as a number)
  };
  const leftTop = lay(top, true), leftBottom = lay(bottom, false);
  const glass = svg("svg", {viewBox: `0 0 ${W} ${H}`, class: "hg-glass-svg", "aria-hidden": "true", focusable: "false"},
    svg("path", {d: `M6 3 H94 V6 L54 ${NECK} L94 ${H - 6} V${H - 3} H6 V${H - 6} L46 ${NECK} L6 6 Z`, fill: "#262c37", stroke: "#c9a96b", "stroke-width": 2.2, "stroke-linejoin": "round"}),
    cubes,
    leftTop > 0 ? svg("text", {x: 50, y: 62, "text-anchor": "middle", fill: "#eef1f5", "font-size": 10}, `+${leftTop}`) : null,
    leftBottom > 0 ? svg("text", {x: 50, y: 96, "text-anchor": "middle", fill: "#eef1f5", "font-size": 10}, `+${leftBottom}`) : null);
  const said = sides.map(s => `${s === "bandits" ? "Bandits" : who(s, model)} ${top[s] || 0} on top, ${bottom[s] || 0} below`).join("; ");
  return el("figure.hg-glass", {dataset: {details: `${MEANS["Hourglass Board"]} Now: ${said}.`}, tabindex: 0},
    el("figcaption.hg-glass-title", {}, t("Hourglass Board")),
    el("div.hg-glass-draw", {role: "img", "aria-label": `The Hourglass Board: ${said}`}, glass),
    el("span.hg-glass-key", {}, "cubes by side: top · below"));
}

function svg(tag, attrs, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) node.setAttribute(k, String(v));
  for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false) node.append(c instanceof Node ? c : String(c));
  return node;
}

/** One side of the battle: its banner, its Knights (or Bandits), and the Battlecard it placed. */
function sideEl(side, b, ctx) {
  const {view, model} = ctx;
  const turn = view.turn || {};
  const a = (view.attributes || {})[side] || {};
  const knights = (b.knights || []).filter(k => k.owner === side);
  const role = turn.attacker === side ? "attacking" : (turn.defenders || []).includes(side) ? "defending" : null;
  return el("div", {class: "hg-side" + (role ? ` ${role}` : "") + (side === model.seat ? " mine" : ""), style: {"--side": colour(side, model)}, dataset: {side}},
    el("div.hg-banner", {},
      el("span.hg-banner-line", {},
        el("span.hg-side-name", {}, side === "bandits" ? t("Bandits") : who(side, model)),
        role ? el("span.hg-role", {}, role) : null),
      el("span.hg-banner-line", {},
        el("span.hg-side-health", {}, t("Health"), ` ${a.health ?? "?"}`),
        el("span.hg-side-cubes", {}, el("span.hg-cubeicon", {style: {background: colour(side, model)}}),
          `${(b.top || {})[side] || 0} top · ${(b.bottom || {})[side] || 0} below`))),
    el("div.hg-knights", {}, knights.length ? knights.map(k => knightEl(k, ctx)) : el("span.hg-muted", {}, "no one left")),
    placedEl(side, b, ctx));
}

function knightEl(k, ctx) {
  const {view, model, controls, tp} = ctx;
  const health = ((view.attributes || {})[k.owner] || {}).health || 0;
  const wounds = k.wounds || 0;
  const mine = k.owner === model.seat;
  const turn = view.turn || {};
  const by = turn.targets ? Object.entries(turn.targets).filter(([, target]) => target === k.id).map(([a]) => a) : [];
  const aims = turn.targets && turn.targets[k.id] && turn.targets[k.id] !== "none" ? turn.targets[k.id] : null;
  const pips = Array.from({length: Math.max(health, wounds)}, (_, i) => el("span", {class: "hg-pip" + (i < wounds ? " hurt" : "")}));
  const owner = k.owner === "bandits" ? "" : whose(k.owner, model) + " ";
  const body = [
    el("span.hg-kname", {}, k.owner === "bandits" ? "" : el("span.sr-only", {}, owner), k.name || knightName(k.id, model).replace(/^.*'s |^your /, "")),
    el("span.hg-wounds", {}, pips, el("span.hg-wn", {}, `${wounds}/${health}`)),
    by.length ? el("span.hg-targeted", {}, "targeted") : null,
    aims ? el("span.hg-aims", {}, "→ ", knightName(aims, model)) : null];
  const details = `${cap(knightName(k.id, model))}: ${wounds} ${wounds === 1 ? "Wound" : "Wounds"} of ${health} Health.` +
    (by.length ? ` Targeted by ${by.map(x => knightName(x, model)).join(" and ")}.` : "") +
    (aims ? ` Attacks ${knightName(aims, model)}.` : "");
  const cls = "hg-knight" + (mine ? " mine" : "") + (k.owner === "bandits" ? " bandit" : "") + (by.length ? " is-target" : "") +
    (ctx.flashing.has(k.id) ? " flash" : "");
  const attrs = {class: cls, style: {"--side": colour(k.owner, model)}, dataset: {knight: k.id, details}};
  if (tp && controls) {
    const opt = tp.options[0];
    if (mine && opt.args && k.id in opt.args) {
      const chosen = targets[k.id] ?? opt.args[k.id][0];
      return el("button", {...attrs, type: "button", class: cls + " selectable" + (selectedKnight === k.id ? " selected" : ""),
        "aria-pressed": selectedKnight === k.id ? "true" : "false",
        onclick: () => { selectedKnight = selectedKnight === k.id ? null : k.id; rerender(); }},
        body.slice(0, 2), el("span.hg-aim", {}, "→ " + aimLabel(chosen, model)));
    }
    if (selectedKnight && opt.args && (opt.args[selectedKnight] || []).includes(k.id)) {
      return el("button", {...attrs, type: "button", class: cls + " aimable", dataset: {...attrs.dataset, target: k.id},
        onclick: () => { targets[selectedKnight] = k.id; selectedKnight = null; rerender(); }}, body);
    }
  }
  return el("div", {...attrs, tabindex: 0}, body);
}

/** The Battlecard a side placed this Battle Turn: a card back until it is revealed. */
function placedEl(side, b, ctx) {
  const {view, model, mem} = ctx;
  const turn = view.turn || {};
  const placed = (turn.placed || {})[side];
  if (placed === undefined) return null;
  const key = `${b.tile}:${b.turns}:${side}`;
  if (placed === null) return el("span.hg-slot.hg-muted", {}, "no card");
  if (placed === "face_down") {
    return el("div", {class: `hg-card back card card-mini ${mem.arrivals.mark(key + ":down")}`.trim(), tabindex: 0,
      dataset: {details: `${sideName(side, model) === "you" ? "Your" : cap(whose(side, model))} Battlecard, face down until every card is revealed.`}},
      el("span.card-back", {"aria-hidden": "true"}), el("span.hg-back-text", {}, "face down"));
  }
  const info = cardInfo(placed, model) || {};
  const hidden = turn.attacker !== side;  // a Defender's card: face down, its kind seen only by its owner
  return cardFace({name: info.name || "a Battlecard", size: "mini", frame: frameOf(info),
    details: (hidden ? "Your Battlecard, face down: only you see it until the cards are revealed. " : "") + cardTitle(placed, model),
    cls: `hg-card placed${hidden ? " mine-down" : ""} ${mem.arrivals.mark(key + ":" + (hidden ? "down" : placed))}`.trim(),
    badge: hidden ? "face down" : "face up",
    extra: el("span.hg-mini-mods", {}, modsLine(info, turn.attacker === side ? OFFENCE : DEFENCE))});
}

function modsLine(c, part) {
  const list = mods(c, part);
  return list.length ? list.map(([w, v]) => `${w} ${signed(v)}`).join(", ") : "no change";
}

/** The frame colour of a Battlecard: mostly for attacking, for defending, or for healing. */
function frameOf(c) {
  if (!c) return "";
  if ((c.wound || 0) < 0) return "heal";
  const off = (c.damage || 0) + (c.precision || 0), def = (c.defense || 0) + (c.dodge || 0);
  return off > def ? "attack" : def > off ? "defend" : "even";
}

// --- your Battle Hand ---------------------------------------------------------------------
function handEl(ctx) {
  const {view, model, controls} = ctx;
  const dp = controls ? find(model, "defend") : null;
  const ap = controls ? find(model, "attack_card") : null;
  const cards = view.my_hand.map(c => {
    const info = cardInfo(c.kind, model) || {};
    let action = null;
    if (dp) {
      const o = dp.options.find(o => ((o.args || {}).card || []).includes(c.card));
      if (o) action = {p: dp, o, args: {card: c.card}};
    }
    if (ap && !action) {
      const o = ap.options[0];
      if (!placing) {
        if (((o.args || {}).card || []).includes(c.card)) {
          action = o.args.discard ? {arm: c.card, p: ap, o} : {p: ap, o, args: {card: c.card}};
        }
      } else if (placing !== c.card && legal(o, {card: placing, discard: c.card})) {
        action = {p: ap, o, args: {card: placing, discard: c.card}, discard: true};
      }
    }
    const part = (label, list, cls) => el(`span.hg-part.${cls}`, {}, el("span.hg-part-label", {}, label),
      list.length ? list.map(([w, v]) => el("span.hg-mod", {}, t(w), ` ${signed(v)}`)) : el("span.hg-mod.hg-none", {}, "—"));
    const extra = el("span.hg-parts", {},
      part("attacking", mods(info, OFFENCE), "off"), part("defending", mods(info, DEFENCE), "def"));
    const base = {name: info.name || "a Battlecard", type: "Battlecard", frame: frameOf(info), details: cardTitle(c.kind, model), extra};
    const cls = "hg-card" + (placing === c.card ? " placing" : "") + " " + ctx.mem.arrivals.mark("hand:" + c.card);
    if (!action) return cardFace({...base, cls: cls.trim(), attrs: {dataset: {card: c.card}}});
    const data = {card: c.card, prompt: action.p.id, option: action.o.id};
    if (action.args) for (const [k, v] of Object.entries(action.args)) data["arg" + k[0].toUpperCase() + k.slice(1)] = JSON.stringify(v);
    return cardFace({...base, tag: "button", cls: (cls + " playable" + (action.discard ? " discard" : "")).trim(),
      attrs: {type: "button", dataset: data, onclick: () => {
        if (action.arm) { placing = action.arm; rerender(); return; }
        placing = null;
        controls.choose(action.p.id, action.o.id, action.args);
      }}});
  });
  const hint = dp ? [el("span.hg-hint-more", {}, defendWords(dp, model)), "Click the Battlecard to place face down."]
    : ap ? (placing ? "Now click the card to discard (the others do not see which)." : [el("span.hg-hint-more", {}, attackWords(ap, model)), "Click the Battlecard to place face up."])
    : null;
  const mineSeat = model.role !== "replay" && model.seat;
  const label = mineSeat ? "Your Battle Hand" : `${model.seat}'s Battle Hand`;
  const region = handRegion(cards, label, el("div.hg-hand-line", {},
    el("span.hg-muted", {}, `${(view.my_discards || []).length} in `, t("discards"), el("span.hg-deck", {}, " · ", plural(view.bandit_deck ?? 0, "card"), " in the ", t("Bandits"), "' deck")),
    hint ? el("span.hg-hint", {}, hint) : null,
    placing ? el("button.hg-cancel", {type: "button", onclick: () => { placing = null; rerender(); }}, "Cancel") : null));
  region.classList.add("hg-hand");
  const h = region.querySelector("h3");  // a heading the caster page finds as it always did
  if (h) h.replaceWith(el("h4.zone-label", {}, ...h.childNodes));
  return region;
}

/** "Your Knight 2 is targeted by alice's Knight 1. " from the defend option's `targeted`. */
function defendWords(prompt, model) {
  const targeted = ((prompt.options || [])[0] || {}).targeted;
  if (!targeted || !targeted.length) return "Defend: ";
  return "Defend: " + targeted.map(x => `${knightName(x.knight.knight, model)} is targeted by ` +
    x.by.map(a => knightName(a.knight, model)).join(" and ")).join("; ") + ". ";
}

function attackWords(prompt, model) {
  const attacks = ((prompt.options || [])[0] || {}).attacks;
  if (!attacks || !attacks.length) return "Attack: ";
  return "Attack: " + attacks.map(x => `${knightName(x.knight.knight, model)} → ${knightName(x.target.knight, model)}`).join(", ") + ". ";
}

// --- for streams: what the battle is at -------------------------------------------------------
export function headline(model) {
  const view = model.view || {};
  const b = (view.battles || []).find(x => x.tile === view.current);
  if (!b || !view.turn || !view.turn.attacker) return "";
  return `Battle at ${tileName(b.tile)}, Battle Turn ${b.turns}: ${sideName(view.turn.attacker, model)} ${verb(view.turn.attacker, model, "attacks")}`;
}

// --- what the last Battle Turn revealed ---------------------------------------------------------
// The view holds a Battle Turn only while it is open: its cards are revealed and its attacks
// settled in the same moment it ends. The log's events (described before the view that
// follows them is drawn) keep the last reveal of each battle, to show it on the board.
const recent = new Map();  // tile -> {seq, turn, attacker, cards: side -> kind, attacks: [...]}

function remember(event) {
  const d = event.data || {};
  const tile = d.tile;
  if (!tile) return;
  if (event.kind === "battle_turn") recent.set(tile, {...(recent.get(tile) || {}), pending: {turn: d.turn, attacker: d.attacker}});
  else if (event.kind === "cards_revealed") {
    const pending = (recent.get(tile) || {}).pending || {};
    recent.set(tile, {seq: event.seq ?? Math.random(), turn: pending.turn, attacker: pending.attacker, cards: d.cards || {}, attacks: []});
  } else if (event.kind === "attack" && recent.has(tile)) (recent.get(tile).attacks ||= []).push(d);
  else if (event.kind === "knight_returned" && recent.has(tile)) (recent.get(tile).beaten ||= []).push(d.knight);
  else if (event.kind === "battle_ended" || event.kind === "match_started") recent.delete(tile);
}

function revealEl(b, ctx) {
  const r = recent.get(b.tile);
  if (!r || !r.cards || !(r.turn === b.turns || r.turn === b.turns - 1)) return null;
  const {model, mem} = ctx;
  const counts = {};
  for (const a of r.attacks || []) counts[a.outcome] = (counts[a.outcome] || 0) + 1;
  const said = Object.entries(counts).map(([o, n]) => o === "gone" ? `${n} with no one left to hit`
    : `${n} ${o === "miss" ? (n === 1 ? "Miss" : "Misses") : o === "graze" ? (n === 1 ? "Graze" : "Grazes") : o === "critical" ? (n === 1 ? "Critical Hit" : "Critical Hits") : (n === 1 ? "hit" : "hits")}`);
  const beaten = (r.beaten || []).length;
  return el("div.hg-reveal", {},
    el("span.hg-reveal-label", {}, el("span.hg-wide", {}, `Battle Turn ${r.turn} `), "revealed:"),
    Object.entries(r.cards).map(([side, kind]) => {
      const info = cardInfo(kind, model) || {};
      return el("span.hg-reveal-side", {style: {"--side": colour(side, model)}},
        el("span.hg-swatch", {style: {background: colour(side, model)}}), side === "bandits" ? "Bandits" : who(side, model), " ",
        kind ? cardFace({name: info.name || "a Battlecard", size: "mini", frame: frameOf(info), details: cardTitle(kind, model),
          cls: `hg-card revealed ${mem.arrivals.mark(`reveal:${r.seq}:${side}`)}`.trim()}) : el("span.hg-muted", {}, "no card"));
    }),
    said.length ? el("span.hg-reveal-result", {}, said.join(", ") + (beaten ? `; ${plural(beaten, "Knight")} beaten` : "")) : null);
}

// --- the log --------------------------------------------------------------------------------
const OUTCOME = {miss: "a Miss", graze: "a Graze", hit: "a hit", critical: "a Critical Hit"};

export function describe(event, model) {
  const d = event.data || {};
  try { remember(event); } catch (e) { /* the board's memory only */ }
  const s = x => sideName(x, model);
  const S = x => Side(x, model);
  const v = (x, word, plain) => verb(x, model, word, plain);
  // A card kind by its name; pages that describe without a view (the caster's, the replay's) by its id in words.
  const kind = k => (cardInfo(k, model) || {}).name || (k ? words(k).replace(/\b\w/g, c => c.toUpperCase()) : "a Battlecard");
  const at = d.tile ? ` at ${tileName(d.tile)}` : "";
  const list = xs => xs.length < 2 ? xs.join("") : xs.slice(0, -1).join(", ") + " and " + xs[xs.length - 1];
  const cubes = o => list(Object.entries(o || {}).map(([k, n]) => `${s(k)} ${n}`));
  switch (event.kind) {
    case "match_started": {
      const battles = (d.battles || []).map(b => tileName(b.tile));
      return `The battles begin between ${list((d.seats || []).map(s))}: ${plural(battles.length, "battle")} (${list(battles)}).`;
    }
    case "battle_started": return `The battle${at} starts: ${list((d.sides || []).map(s))}.`;
    case "player_turn_ended": return d.resolver
      ? `${S(d.seat)} ${v(d.seat, "has", "have")} no battle left to resolve; ${s(d.resolver)} ${v(d.resolver, "resolves", "resolve")} next.`
      : `${S(d.seat)} ${v(d.seat, "has", "have")} no battle left to resolve: every player has had a turn.`;
    case "alliance_answered": return d.seat === model.seat && "with" in d
      ? (d.with ? `You offered an Alliance to ${s(d.with)}.` : "You chose to fight alone.")
      : `${S(d.seat)} ${v(d.seat, "has", "have")} decided.`;
    case "alliances_formed": return (d.alliances || []).length
      ? `Alliances${at}: ${d.alliances.map(a => list(a.map(s))).join("; ")} fight together.` : `No Alliance${at}: everyone fights alone.`;
    case "cubes_placed": return `Everyone puts cubes on the Hourglass Board${at}: ${cubes(d.top)}.`;
    case "hourglass_turned": return `The hourglass turns${at}: each side moves ${plural(d.moved ?? 0, "cube")} to the bottom, ${s(d.first)} first.`;
    case "battle_turn": return `Battle Turn ${d.turn}${at}: ${s(d.attacker)} ${v(d.attacker, "attacks")}.`;
    case "targets_assigned": {
      const aimed = Object.entries(d.targets || {}).filter(([, b]) => b && b !== "none");
      return aimed.length ? `${S(d.attacker)} ${v(d.attacker, "targets", "target")} ` + list(aimed.map(([a, b]) => `${knightName(b, model)} with ${knightName(a, model).replace(/^(your|.*'s) /, "")}`)) + "."
        : `${S(d.attacker)} ${v(d.attacker, "targets", "target")} nobody this turn.`;
    }
    case "discards_drawn": return `${S(d.side || d.seat)} ${v(d.side || d.seat, "takes", "take")} back the discard pile (${plural(d.cards ?? 0, "card")} in hand now).`;
    case "no_card": return `${S(d.side || d.seat)} ${v(d.side || d.seat, "has", "have")} no Battlecard to place.`;
    case "card_placed":
      return `${S(d.side)} placed a Battlecard ${d.face === "up" ? `face up: ${d.name || kind(d.card)}` : d.name || d.kind ? `face down (${d.name || kind(d.kind)})` : "face down"}.`;
    case "card_discarded": return `${S(d.side)} discarded a Battlecard${d.name || d.kind ? ` (${d.name || kind(d.kind)})` : ", face down"}.`;
    case "cards_revealed": {
      const shown = Object.entries(d.cards || {});
      return shown.length ? "The Battlecards are revealed: " + list(shown.map(([k, c]) => `${s(k)} ${c ? kind(c) : "none"}`)) + "." : "The Battlecards are revealed.";
    }
    case "wounds_changed": {
      const n = Math.abs(d.change || 0);
      return d.change < 0 ? `${cap(knightName(d.knight, model))} heals ${plural(n, "Wound")} from a Battlecard (${d.wounds ?? 0} now).`
        : `${cap(knightName(d.knight, model))} takes ${plural(n, "Wound")} from a Battlecard (${d.wounds ?? 0} now).`;
    }
    case "attack": {
      const a = cap(knightName(d.knight, model)), target = knightName(d.target, model);
      if (d.outcome === "gone") return `${a} has no one to attack: ${target} already left the battle.`;
      const what = OUTCOME[d.outcome] || words(d.outcome || "an attack");
      const tie = d.tie && d.tie_to ? ` The Tie Breaker favoured ${s(d.tie_to)}.` : "";
      const hurt = d.outcome === "miss" ? "no Wound" : `${plural(d.wounds_added ?? 0, "Wound")} (${d.wounds ?? 0} now)`;
      return `${a} attacks ${target}: ${what} (Precision ${d.precision ?? "?"} against Dodge ${d.dodge ?? "?"}), ${hurt}.${tie}`;
    }
    case "knight_returned": return `${cap(knightName(d.knight, model))} is beaten and leaves the battle${at}, back to ${d.owner === "bandits" ? "the Bandits' camp" : whose(d.owner, model) + " play area"}.`;
    case "side_left": return `${S(d.side)} ${v(d.side, "has", "have")} no one left${at}, and ${d.side === model.seat ? "your" : "their"} cubes leave the Hourglass Board.`;
    case "turn_ended": return `${S(d.attacker)} ${v(d.attacker, "puts", "put")} ${plural(d.cubes ?? 0, "cube")} back on top${at}.`;
    case "battle_ended": {
      const left = d.remaining || [];
      if (d.reason === "turn_limit") return `The battle${at} is called off after its last Battle Turn: every Knight stays.`;
      return `The battle${at} is over: ${left.length ? list(left.map(s)) + (left.length === 1 ? (left[0] === model.seat ? " hold" : " holds") : " hold") + " the tile" : "nobody holds the tile"}.`;
    }
    case "knights_withdrawn": return `${S(d.seat)} resigned: ${plural((d.knights || []).length, "Knight")} leave${(d.knights || []).length === 1 ? "s" : ""} the battle${at}.`;
    case "turn_called_off": return `The Battle Turn${at} is called off: ${s(d.attacker)} resigned.`;
    case "defender_left": return `${S(d.side)} left the battle${at}: the attacks on ${d.side === model.seat ? "your" : "their"} Knights are dropped.`;
    case "prompt": {
      const asked = {choose_battle: ["chooses", "choose", "the next battle to resolve"], alliance: ["decides", "decide", "whether to fight alone or offer an Alliance"],
        targets: ["chooses", "choose", "targets for the attack"], defend: ["places", "place", "a Battlecard face down to defend"],
        attack_card: ["places", "place", "a Battlecard face up to attack"]}[d.kind];
      if (!asked || !d.seat) return null;
      return `${S(d.seat)} ${v(d.seat, asked[0], asked[1])} ${asked[2]}${at}.`;
    }
    case "seat_resigned": return `${S(d.seat)} resigned.`;
    case "seat_away": return `${S(d.seat)} ${v(d.seat, "is", "are")} away` +
      (model && model.whenAway === "bot" ? `: the bot plays ${d.seat === model.seat ? "your" : "their"} seat until ${d.seat === model.seat ? "you are" : "they are"} back.` : ".");
    case "seat_back": return `${S(d.seat)} ${v(d.seat, "is", "are")} back.`;
    default: return describeCommon(event, model);
  }
}

// --- moments (moments.js): a Knight sent back to its owner's play area -----------------------
export function moment(event, model) {
  const d = event.data || {};
  if (event.kind === "knight_returned" && d.knight) return {kind: "knight_returned", text: `${knightName(d.knight, model)} is sent back!`};
  return null;
}

// --- How to play ------------------------------------------------------------------------------
export const howTo = {
  goal: "Win battles. Your Knights fight other players' Knights and the Bandits on tiles; when a battle ends, whoever still has Knights there holds the tile. The player holding the most tiles (then with the most Knights left) wins.",
  turn: [
    "Players take turns in order; on your turn you resolve, one after another, every battle you still have Knights in.",
    "At the start of a battle, each side puts as many cubes on top of the Hourglass Board as its Delay (rounded up).",
    "The side with no cube on top and the fewest cubes on the board is the Attacker. When every side has cubes on top, the hourglass turns: cubes move to the bottom.",
    "The Attacker gives each of its Knights a target. Each Defender places one Battlecard face down; then the Attacker places one face up and discards another.",
    "The cards are revealed. Each attack compares the Attacker's Precision with the target's Dodge: a Miss, a Graze (half Damage), a hit, or a Critical Hit (double Damage). Defense is taken off the damage; the rest become Wounds.",
    "A Knight whose Wounds reach its side's Health leaves the battle. The Attacker puts cubes back on top (its Delay, with its card's Delay), and the next Battle Turn starts.",
    "A battle is over when only one player (or Alliance, or the Bandits) has Knights left in it.",
  ],
  prompts: [
    ["Choose a battle (choose_battle)", "You have several battles to resolve: click the tile of the one to fight first."],
    ["Alliance (alliance)", "Fight alone, or offer an Alliance to one other player of the battle. If they offer it to you too, you fight together and share the win; any other offer lapses."],
    ["Targets (targets)", "You attack: click one of your Knights, then the Knight or Bandit it attacks (or leave it without a target). When each Knight has its target, press Attack."],
    ["Defend (defend)", "Your Knights are targeted: click a Battlecard of your Battle Hand to place face down. Its Defense, Dodge and Wound count for your targeted Knights this turn."],
    ["Attack card (attack_card)", "Click the Battlecard to place face up (its Damage, Precision and Delay count), then the card to discard; nobody else sees which."],
  ],
  glossary: Object.entries(MEANS).map(([word, meaning]) => [word, meaning.replace(/^[^:]*: (.)/, (_, c) => c.toUpperCase())]),
};
