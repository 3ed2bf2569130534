// demigod: the table of a Demayth battle. Along the top every side at a glance (its
// characters' Hit Points, its hand, whether it is to act); in the middle the grid, labelled
// a-h along the top and 1-8 down the side as the log names its squares, with its terrain
// and every character; beside it (desktop) what is going on and the chosen character; your
// hand along the bottom, each card drawn as a card.
//
// Playing: click one of your characters: the squares it may move to light up (green);
// click a card of your hand: the squares it may aim at light up (red), and its area under
// the pointer; click the square. In a reaction window the hand's cards defend.

import {el, useCss, rulesetInfo, who, whose, words, plural, describeCommon, same, detailsLine,
        cardFace, handRegion, seatSummary, table, term, Arrivals} from "./common.js";

useCss(new URL("./demigod.css", import.meta.url).href);

const COLOURS = ["#4ea1ff", "#ff8a5c", "#7bd88f", "#e6c14a"];
let details = {};
try {
  const info = await rulesetInfo("demigod");
  for (const set of (info && info.card_sets) || []) Object.assign(details, set.details || {});
} catch (err) { /* cards are then shown by name only */ }

// --- words: what the page's terms mean (docs/demigod.md), where they appear and in How to play
const MEANING = {
  AV: "Attack Value: the card's attack value, plus the attacker's weapon and trinket bonuses and its AV effects. If AV is higher than the defender's DV, the attack hits",
  DV: "Defense Value: the value of the card played in defence, plus the defender's shield and armour bonuses and its DV effects. No card played is DV 0",
  AP: "Armor Points: they take the damage a barrier leaves, and are used up",
  DR: "Damage Reduction: it takes its share of every hit (AV minus DV) first, and is never used up",
  HP: "Hit Points (Health): the damage that passes Damage Reduction, barriers and Armor comes off them; at 0 the character is defeated",
  barrier: "Barrier (Temporary AP): it takes damage before Armor Points, and lasts until damage uses it up",
  poison: "Poison ticks: they grow at the start of their side's turn; at 20 the character is defeated",
  disease: "Disease ticks: they grow at the start of their side's turn; at 20 the character is defeated",
  move: "Move: how many squares the character may step in a turn (king steps through empty squares)",
};
const T = name => term(name, MEANING[name]);

let sel = {unit: null, card: null, option: null, prompt: null};  // the choice being built on the board
const NONE = {unit: null, card: null, option: null, prompt: null};
let hover = null;  // the square under the pointer, for the area preview
let look = null;   // a character clicked to read beside the grid (anyone's, a spectator's too)
let last = null;
const roster = new Map();     // unit id -> {name, side, kind, max_hp}: every character seen, fallen ones too
const drawn = new WeakMap();  // root -> {units: id -> {hp, ap, barrier, pos}, fx: id -> {kind, at}}
let declared = null;          // the last attack declared (for the log's attack results)

function rerender() { if (last) render(...last); }
function key(sq) { return `${sq[0]},${sq[1]}`; }
function seatsOf(model) {
  const view = model.view || {};
  return model.seats && model.seats.length ? model.seats : Object.keys(view.hand_counts || {});
}
function colour(side, model) {
  return COLOURS[Math.max(0, seatsOf(model).indexOf(side)) % COLOURS.length];
}
/** [3, 1] -> "d2": x is the letter along the top, y + 1 the number down the side. */
function squareName(sq) { return Array.isArray(sq) ? `${String.fromCharCode(97 + sq[0])}${sq[1] + 1}` : String(sq); }
function signed(v) { return `${v > 0 ? "+" : ""}${v}`; }
function cap(text) { return text ? text[0].toUpperCase() + text.slice(1) : text; }

function learn(units) {
  for (const [id, u] of Object.entries(units || {})) {
    if (!u || typeof u !== "object") continue;
    const known = roster.get(id) || {};
    roster.set(id, {name: u.name || known.name, side: u.side || known.side, kind: u.kind || known.kind,
                    max_hp: u.max_hp ?? known.max_hp});
  }
}

/** A character's name as a player says it: "Kaelen"; "Ghoul 2" when its side has two. */
function unitName(id) {
  const r = roster.get(id);
  if (!r || !r.name) {
    const [side, rest] = String(id).includes(".") ? [String(id).split(".")[0], String(id).split(".").slice(1).join(".")] : [null, String(id)];
    const m = /^([a-z][a-z -]*?)(\d*)$/i.exec(rest);
    if (m && m[1]) return cap(m[1]) + (m[2] ? ` ${m[2]}` : "");
    return "a character";
  }
  const twins = [...roster.entries()].filter(([, o]) => o.side === r.side && o.name === r.name);
  if (twins.length < 2) return r.name;
  const digits = /(\d+)$/.exec(String(id));
  return `${r.name} ${digits ? digits[1] : twins.findIndex(([i]) => i === id) + 1}`;
}
function unitSide(id) {
  const r = roster.get(id);
  if (r && r.side) return r.side;
  return String(id).includes(".") ? String(id).split(".")[0] : null;
}
/** "Morwen (bob)", "your Kaelen": a character with its side, in words. */
function unitWho(id, model) {
  const side = unitSide(id);
  if (side === null) return unitName(id);
  return who(side, model) === "you" ? `your ${unitName(id)}` : `${unitName(id)} (${side})`;
}

function rangeText(c) {
  const range = {self: "self", los: "line of sight", perception: "anywhere (perception)"}[c.range] || "melee";
  return range + (c.reach != null ? `, reach ${c.reach}` : "");
}

/** The full text of a card, as the zoom shows it ("Fireball · spell · AV 3 · line of sight · area 1 · ..."). */
function cardText(name) {
  const c = details[name];
  if (!c) return name;
  const bits = [name, c.type];
  if (c.av != null) bits.push(`AV ${c.av}`);
  if (c.dv != null) bits.push(`DV ${c.dv}`);
  if (c.range) bits.push(c.range === "los" ? "line of sight" : c.range);
  if (c.reach != null) bits.push(`reach ${c.reach}`);
  if (c.area) bits.push(`area ${c.area}`);
  for (const k of ["push", "draw", "poison", "disease", "barrier", "damage", "move"]) if (c[k]) bits.push(`${k} ${c[k]}`);
  if (c.effect) bits.push(`${c.effect.title}: ${c.effect.stat.toUpperCase()} ${signed(c.effect.value)} for ${plural(c.effect.turns, "turn")}`);
  if (c.text) bits.push(c.text);
  return bits.join(" · ");
}

/** What a card does beyond its values, in a few words (its face's last line). */
function cardEffects(c) {
  const bits = [];
  if (c.area) bits.push(`area ${c.area}`);
  if (c.push) bits.push(`push ${c.push}`);
  if (c.draw) bits.push(`draw ${c.draw}`);
  if (c.poison) bits.push(`${c.poison} poison`);
  if (c.disease) bits.push(`${c.disease} disease`);
  if (c.barrier) bits.push(`barrier ${c.barrier}`);
  if (c.damage) bits.push(`${c.damage} damage back`);
  if (c.move) bits.push(`move ${c.move}`);
  if (c.effect) bits.push(`${c.effect.stat.toUpperCase()} ${signed(c.effect.value)} ${plural(c.effect.turns, "turn")}`);
  return bits;
}

function unitText(u) {
  const bits = [`${unitName(u.id)} (${u.side}'s ${u.kind === "demigod" ? "Demigod" : "Minion"})`, `HP ${u.hp}/${u.max_hp}`, `AP ${u.ap}`];
  if (u.barrier) bits.push(`barrier ${u.barrier}`);
  if (u.dr) bits.push(`DR ${u.dr}`);
  bits.push(`move ${u.move}`);
  if (u.poison) bits.push(`poison ${u.poison}/20`);
  if (u.disease) bits.push(`disease ${u.disease}/20`);
  for (const e of u.equipment || []) bits.push(`${e.name} (${e.slot}${e.av ? `, AV +${e.av}` : ""}${e.dv ? `, DV +${e.dv}` : ""})`);
  for (const e of u.effects || []) bits.push(`${e.title}: ${String(e.stat).toUpperCase()} ${signed(e.value)}, ${plural(e.turns, "turn")}`);
  if (u.moved) bits.push("has moved");
  if (u.attacked) bits.push("has attacked");
  return bits.join(" · ");
}

function turnPrompt(model) { return (model.prompts || []).find(p => p.kind === "turn") || null; }
function defendPrompt(model) { return (model.prompts || []).find(p => p.kind === "defend") || null; }
function opt(prompt, id) { return prompt && (prompt.options || []).find(o => o.id === id); }

/** Combos of an option matching the given values (any combo when the option has none). */
function combosOf(option, fixed) {
  if (!option) return [];
  const combos = option.combos || [option.args || {}];
  return combos.filter(c => Object.entries(fixed).every(([k, v]) => (c[k] || []).some(x => same(x, v))));
}

export function argLabel(name, value, model) {
  if (Array.isArray(value)) return `square ${squareName(value)}`;
  const view = model.view || {};
  if (name === "unit" && view.units && view.units[value]) { learn(view.units); return unitName(value); }
  if (name === "card") {
    const c = [...(view.hand || [])].find(c => c.id === value);
    return c ? c.name : value;
  }
  return null;
}

export const argOrder = ["unit", "card", "target", "to"];

// --- How to play (docs/demigod.md, in a player's words) ---------------------------------------
export const howTo = {
  goal: "Each side is a Demigod and its Minions on a grid. Defeat the other Demigods: a side whose Demigod falls is out, " +
    "its Minions with it, and the last side standing wins. If the rounds run out first, the sides still in are ranked by " +
    "the Hit Points their characters have left.",
  turn: [
    "At the start of your turn your characters' Poison and Disease ticks grow, then you draw a card.",
    "Click one of your characters: the green squares are where it may move (once a turn, up to its move).",
    "Click a card of your hand: the red squares are what it may aim at from there; an area card also rings the squares its blast catches. Click a square to attack (each character attacks once a turn).",
    "The defender answers with a card: if your AV is higher than their DV you hit, and AV minus DV is the damage: Damage Reduction takes its share, then barriers, then Armor, then Hit Points.",
    "End your turn from the prompt bar when you are done.",
  ],
  prompts: [
    ["Your turn", "Move your characters and attack with your cards, in any order, then end the turn. Each character moves once and attacks once."],
    ["Attack or cast", "A character, a card and a square: on the board, click the character, then the card, then a red square. " +
      "Battle Cards (any character) strike a square next to it; spells (your Demigod only) reach further, or work on itself (self)."],
    ["Move a character", "Click the character, then a green square: up to its move in king steps, around terrain and other characters."],
    ["End your turn", "When you are done (also what happens when your time runs out)."],
    ["Defend", "One of your characters is targeted, in another side's turn or by an area: it has its own short clock. " +
      "Click a card of your hand marked defend or react, or choose in the bar."],
    ["Do nothing (DV 0)", "No card: your DV is 0, so any AV above 0 hits (what happens when the window's time runs out)."],
    ["Defend with a Battle Card", "Its DV, plus your shield and armour and DV effects, against the attacker's AV."],
    ["Play a Reaction", "Parry, Arcane Ward, Iron Will, Riposte: its effect happens first (a barrier, a bonus, damage back to the attacker), then its DV defends."],
    ["Blink", "A reaction that moves your character up to 2 squares first: click the card, then a green square. Out of range, the attack fails."],
  ],
  glossary: [
    ["AV", MEANING.AV + "."], ["DV", MEANING.DV + "."], ["HP", MEANING.HP + "."], ["AP", MEANING.AP + "."],
    ["DR", MEANING.DR + "."], ["barrier", MEANING.barrier + "."], ["poison", MEANING.poison + "."],
    ["disease", MEANING.disease + "."], ["move", MEANING.move + "."],
    ["Demigod", "Your leader (the square token): it plays Battle Cards and spells. If it falls, your side is out."],
    ["Minion", "A follower (the round token): it plays Battle Cards only."],
    ["battle card", "Six points split between AV and DV (Strike 4/2, Guard 1/5); used in melee, to attack or to defend."],
    ["spell", "A Demigod's card: an attack at a range, or an effect on itself (self)."],
    ["reaction", "Played only when one of your characters is targeted in another side's turn: its effect resolves before the attack."],
    ["melee", "The eight squares next to the character."],
    ["line of sight", "A clear straight or diagonal line: terrain and other characters in between block it, corners do not."],
    ["perception", "Any square of the battlefield, through anything."],
    ["reach", "The most squares away the card may aim."],
    ["area", "The blast: every character within that many squares of the aimed square, friend or foe, is caught (each defends on its own)."],
    ["push", "A character hit is pushed straight away from the attacker, that many squares."],
    ["effect", "A bonus or penalty to AV, DV or DR for some turns of its bearer's side; the same title does not stack, it refreshes."],
    ["round", "Every side still in takes one turn. After the last round the match ends on Hit Points."],
    ["squares", "Letters a-h run along the top of the grid, numbers 1-8 down the side: d2 is the 4th column, 2nd row."],
  ],
};

// --- the table ---------------------------------------------------------------------------------
export function render(root, model, controls) {
  last = [root, model, controls];
  const view = model.view;
  if (!view || !view.map) { root.replaceChildren(el("p", {}, "Waiting for the match…")); return; }
  for (const c of view.custom_cards || []) details[c.name] = c;  // a setup's own cards, beside the shipped set
  learn(view.units);
  const tp = controls ? turnPrompt(model) : null;
  const dp = controls ? defendPrompt(model) : null;
  if (sel.prompt && !(model.prompts || []).some(p => p.id === sel.prompt)) sel = NONE;
  const hand = view.hand || [];
  if (sel.card && !hand.some(c => c.id === sel.card)) sel = {...sel, card: null, option: null};
  if (sel.unit && !(view.units || {})[sel.unit]) sel = NONE;
  if (sel.unit) look = null;

  // What changed since this root's last drawing: a character hurt flashes, one that moved arrives.
  const state = drawn.get(root) || {units: null, fx: new Map(), cards: new Arrivals(), drawnAt: new Map()};
  const now = Date.now();
  for (const [id, u] of Object.entries(view.units || {})) {
    const before = state.units && state.units.get(id);
    if (!before) continue;
    if (u.hp + u.ap + u.barrier < before.hp + before.ap + before.barrier) state.fx.set(id, {kind: "flash", at: now});
    else if (u.pos && before.pos && !same(u.pos, before.pos)) state.fx.set(id, {kind: "arrived", at: now});
  }
  for (const [id, f] of state.fx) if (now - f.at > 600) state.fx.delete(id);
  state.units = new Map(Object.entries(view.units || {}).map(([id, u]) => [id, {hp: u.hp, ap: u.ap, barrier: u.barrier, pos: u.pos}]));
  drawn.set(root, state);
  // A card new in the hand arrives (kept for the animation's length across quick redraws).
  state.cards.next();
  for (const c of view.hand || []) if (state.cards.mark(c.id)) state.drawnAt.set(c.id, now);
  for (const [id, at] of state.drawnAt) if (now - at > 400) state.drawnAt.delete(id);

  const seats = seatsOf(model);
  const opponents = seats.map(s => sideSummary(s, view, model));
  const middle = el("div.dg-field", {}, el("div.dg-inner", {}, gridEl(root, view, model, tp, dp, controls, state), sideEl(view, model, tp, dp)));
  const handEl = handOf(view, model, tp, dp, controls);
  for (const card of handEl ? handEl.querySelectorAll(".dg-card[data-card]") : []) {
    const at = state.drawnAt.get(card.dataset.card);
    if (at !== undefined) { card.classList.add("arrived"); card.style.animationDelay = `-${now - at}ms`; }
  }
  const drawing = table({opponents, middle, hand: handEl, cls: `dg-table dg-sides-${Math.min(4, Math.max(1, seats.length))}`});
  fitTo(root, drawing);
  drawing.append(detailsLine(root, "Point at or tap a character or a card to read it."));  // floating: it takes no room
  root.replaceChildren(drawing);
}

/** A box too short for the whole table makes its parts smaller, so that the grid keeps its
 * room: `data-fit` "short" (a phone's box) or "tiny" on the table, from the box's height,
 * measured now and again whenever the box changes (nothing when its height is not known). */
const observed = new WeakSet();
function fitOf(height) { return !height ? "" : height < 400 ? "tiny" : height < 600 ? "short" : ""; }
function fitTo(root, drawing) {
  const fit = fitOf(root.clientHeight);
  if (fit) drawing.dataset.fit = fit;
  if (observed.has(root) || typeof ResizeObserver !== "function") return;
  observed.add(root);
  new ResizeObserver(() => {
    const now = root.querySelector(":scope > .dg-table");
    if (!now) return;
    const f = fitOf(root.clientHeight);
    if ((now.dataset.fit || "") !== f) { if (f) now.dataset.fit = f; else delete now.dataset.fit; }
  }).observe(root);
}

/** One side at a glance: its characters' Hit Points (the fallen ones crossed out), its hand. */
function sideSummary(seat, view, model) {
  const units = view.units || {};
  const out = (view.out || []).includes(seat);
  const mine = [...roster.entries()].filter(([, r]) => r.side === seat);
  const named = name => [el("span.dg-u-name", {}, name), el("span.dg-u-short", {"aria-hidden": "true"}, short(name))];
  const chips = mine.map(([id]) => {
    const u = units[id];
    const name = unitName(id);
    if (!u) return el("span.dg-u.fallen", {title: `${name} is defeated`}, named(name), " ", el("span.dg-u-hp", {}, "out"));
    const frac = Math.max(0, Math.min(1, u.hp / Math.max(1, u.max_hp)));
    return el("span", {class: "dg-u" + (u.kind === "demigod" ? " god" : ""), style: {"--hp": frac},
                       title: `${name}: ${u.hp} of ${u.max_hp} Hit Points, AP ${u.ap}${u.barrier ? `, barrier ${u.barrier}` : ""}`},
      named(name), " ", el("span.dg-u-hp", {}, String(u.hp), el("span.dg-u-max", {}, `/${u.max_hp}`)));
  });
  const count = (view.hand_counts || {})[seat];
  const deck = (view.deck_counts || {})[seat];
  const handChip = count != null ? el("span.stat.dg-handcount", {title: `${plural(count, "card")} in hand${deck != null ? `, ${deck} in the deck` : ""}`},
    `hand ${count}`) : null;
  const turnSeat = (view.turn || {}).seat;
  const fallback = !model.deciding && !view.result && turnSeat === seat ? el("span.seat-turn", {}, "to act") : null;
  return seatSummary(seat, model, {
    colour: colour(seat, model), cls: out ? "dg-out" : "",
    body: el("div.dg-units", {}, fallback, out ? el("span.dg-outmark", {}, "out of the match") : null, chips, handChip)});
}

/** "Kaelen" -> "Ka", "Ghoul 2" -> "Gh2": a character on a token or a phone's summary. */
function short(name) {
  const number = / (\d+)$/.exec(name);
  return name.slice(0, 2) + (number ? number[1] : "");
}

function gridEl(root, view, model, tp, dp, controls, state) {
  const hand = view.hand || [];
  // What the board offers now: squares to move to, squares to aim at, with the option to send.
  const marks = new Map();  // square key -> {kind: "move"|"target", prompt, option, args}
  if (tp && sel.unit && !sel.card) {
    for (const c of combosOf(opt(tp, "move"), {unit: sel.unit})) for (const to of c.to || [])
      marks.set(key(to), {kind: "move", prompt: tp, option: "move", args: {unit: sel.unit, to}});
  }
  if (tp && sel.unit && sel.card) {
    for (const c of combosOf(opt(tp, "attack"), {unit: sel.unit, card: sel.card})) for (const target of c.target || [])
      marks.set(key(target), {kind: "target", prompt: tp, option: "attack", args: {unit: sel.unit, card: sel.card, target}});
  }
  if (dp && sel.card && sel.option === "react_move") {
    for (const c of combosOf(opt(dp, "react_move"), {card: sel.card})) for (const to of c.to || [])
      marks.set(key(to), {kind: "move", prompt: dp, option: "react_move", args: {card: sel.card, to}});
  }
  const area = sel.card && details[hand.find(c => c.id === sel.card)?.name]?.area || 0;
  const caught = new Set();
  if (hover && marks.get(key(hover))?.kind === "target" && area) {
    for (let dx = -area; dx <= area; dx++) for (let dy = -area; dy <= area; dy++) caught.add(key([hover[0] + dx, hover[1] + dy]));
  }

  const units = Object.values(view.units || {});
  const at = new Map(units.filter(u => u.pos).map(u => [key(u.pos), u]));
  const terrain = new Set((view.map.terrain || []).map(key));
  const attack = view.attack;
  const w = view.map.width, h = view.map.height;
  const letter = x => String.fromCharCode(97 + x);
  const rows = [el("div.dg-row.dg-head", {role: "row"},
    el("span.dg-corner", {role: "gridcell"}),
    Array.from({length: w}, (_, x) => el("span.dg-label", {role: "columnheader"}, letter(x))))];
  for (let y = 0; y < h; y++) {
    const cells = [el("span.dg-label", {role: "rowheader"}, String(y + 1))];
    for (let x = 0; x < w; x++) {
      const sq = [x, y], k = key(sq), u = at.get(k), mark = marks.get(k);
      const cls = ["dg-cell"];
      if (terrain.has(k)) cls.push("terrain");
      if (mark) cls.push("mark-" + mark.kind);
      if (caught.has(k)) cls.push("caught");
      if (attack && attack.square && same(attack.square, sq)) cls.push("aimed");
      const content = u ? unitToken(u, model, attack, state) : terrain.has(k) ? el("span.dg-rock", {"aria-hidden": "true"}, "▲") : null;
      const label = `${squareName(sq)}${terrain.has(k) ? ", terrain" : ""}${u ? ", " + unitText(u) : u === undefined && !terrain.has(k) ? ", empty" : ""}`;
      const data = {x, y};
      if (u || terrain.has(k)) data.details = label;
      let cell;
      if (mark) {
        Object.assign(data, {prompt: mark.prompt.id, option: mark.option, details: `${mark.kind === "move" ? "Move to" : "Aim at"} ${label}`});
        for (const [a, v] of Object.entries(mark.args)) data["arg" + a[0].toUpperCase() + a.slice(1)] = JSON.stringify(v);
        cell = el("button", {type: "button", class: cls.join(" "), dataset: data,
          onmouseenter: () => { if (area && !same(hover, sq)) { hover = sq; rerender(); } },
          onfocus: () => {  // the keyboard sees the area too; the redrawn square keeps the focus
            if (!area || same(hover, sq)) return;
            hover = sq;
            rerender();
            const again = root.querySelector(`button[data-x="${x}"][data-y="${y}"]`);
            if (again) again.focus();
          },
          onclick: () => { const m = mark; sel = NONE; hover = null; controls.choose(m.prompt.id, m.option, m.args); }},
          content, el("span.dg-sr", {}, `${mark.kind === "move" ? "move to" : "aim at"} ${label}`));
      } else if (u && tp && u.side === model.seat && (combosOf(opt(tp, "move"), {unit: u.id}).length || combosOf(opt(tp, "attack"), {unit: u.id}).length)) {
        cell = el("button", {type: "button", class: cls.concat("selectable", sel.unit === u.id ? "selected" : "").join(" ").trim(),
          dataset: {...data, unit: u.id}, "aria-pressed": sel.unit === u.id ? "true" : "false",
          onclick: () => { sel = sel.unit === u.id ? NONE : {unit: u.id, card: null, option: null, prompt: tp.id}; rerender(); }},
          content, el("span.dg-sr", {}, `select ${label}`));
      } else {
        // Any character's square shows it beside the grid when clicked (a spectator's too).
        cell = el("span", {class: cls.join(" ") + (u && look !== u.id ? " lookable" : "") + (u && look === u.id ? " looked" : ""),
                           dataset: data, tabindex: u ? 0 : null, role: u ? "button" : null, "aria-pressed": u ? String(look === u.id) : null,
                           onclick: u ? () => { look = look === u.id ? null : u.id; rerender(); } : null,
                           onkeydown: u ? e => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); look = look === u.id ? null : u.id; rerender();
                             const again = root.querySelector(`.dg-cell[data-x="${x}"][data-y="${y}"]`); if (again) again.focus(); } } : null},
          content, el("span.dg-sr", {}, label));
      }
      cells.push(el("span.dg-sq", {role: "gridcell"}, cell));
    }
    rows.push(el("div.dg-row", {role: "row"}, cells));
  }
  return el("div.dg-boardbox", {},
    el("div.dg-grid", {role: "grid", "aria-label": `The battlefield, ${w} by ${h}: columns a to ${letter(w - 1)}, rows 1 to ${h}`,
      style: {"--w": w, "--h": h}, onmouseleave: () => { if (hover) { hover = null; rerender(); } }}, rows));
}

function unitToken(u, model, attack, state) {
  const hp = Math.max(0, Math.min(1, u.hp / Math.max(1, u.max_hp)));
  const targeted = attack && (attack.targets || []).includes(u.id);
  const cls = ["dg-unit", u.kind];
  if (targeted) cls.push("targeted");
  if (u.side === model.seat) cls.push("mine");
  const fx = state.fx.get(u.id);
  if (fx) cls.push(fx.kind);
  const name = unitName(u.id);
  return el("span", {class: cls.join(" "), style: {"--side": colour(u.side, model), ...(fx ? {animationDelay: `-${Date.now() - fx.at}ms`} : {})},
                     dataset: {unitId: u.id}, "aria-hidden": "true"},
    el("span.dg-initial", {}, short(name)),
    el("span.dg-hpnum", {}, String(u.hp)),
    el("span.dg-hp", {}, el("span", {style: {width: `${hp * 100}%`}})),
    el("span.dg-badges", {},
      u.ap ? el("span.b-ap", {}, u.ap) : null,
      u.barrier ? el("span.b-barrier", {}, u.barrier) : null,
      u.poison ? el("span.b-poison", {}, u.poison) : null,
      u.disease ? el("span.b-disease", {}, u.disease) : null,
      (u.effects || []).length ? el("span.b-effect", {}, "✦") : null));
}

/** Beside the grid: the round, what is going on, what to click, the chosen character. Its
 * size never depends on what it shows, so the grid never moves. */
function sideEl(view, model, tp, dp) {
  const turn = view.turn || {};
  const limit = (view.options || {}).turn_limit;
  const attack = view.attack;
  const chosen = (sel.unit && (view.units || {})[sel.unit]) || (look && (view.units || {})[look]);
  return el("aside.dg-side", {"aria-label": "The battle"},
    el("p.dg-round", {}, `Round ${turn.round ?? "?"}${limit ? ` of ${limit}` : ""}`,
      turn.seat ? [" · ", el("strong", {}, who(turn.seat, model) === "you" ? "your turn" : `${turn.seat}'s turn`)] : null,
      view.map.name ? el("span.dg-muted", {}, ` · ${words(view.map.name)}`) : null),
    el("div.dg-status", {"aria-live": "polite"},
      attack ? el("p.dg-attack", {}, `${unitWho(attack.attacker, model)} aims ${attack.name} at ${squareName(attack.square)}`,
        (attack.targets || []).length ? `: ${(attack.targets || []).map(t => unitWho(t, model)).join(", ")} must answer.` : ".") : null,
      hintEl(model, tp, dp)),
    chosen ? unitCard(chosen, model) : el("div.dg-legend", {},
      el("p", {}, el("span.dg-key.k-move"), " where the character may move"),
      el("p", {}, el("span.dg-key.k-target"), " what the card may aim at"),
      el("p", {}, el("span.dg-key.k-caught"), " caught in its area"),
      el("p.dg-muted", {}, "Square tokens are Demigods, round ones Minions; the bar is their ", T("HP"), ".")));
}

function hintEl(model, tp, dp) {
  let text = null;
  if (dp) {
    const about = ((dp.options || [])[0] || {}).attack || {};
    const mine = about.defender && about.defender.unit ? unitName(about.defender.unit) : null;
    const by = about.attacker && about.attacker.unit ? `${unitWho(about.attacker.unit, model)} aims ${(about.card || {}).name || "an attack"} at ` : "";
    text = sel.option === "react_move" ? "Blink: click the square to move to."
      : by ? cap(`${by}${mine ? `your ${mine}` : "you"}: click a card of your hand to defend, or choose in the bar.`)
      : `${mine ? `Your ${mine} is` : "You are"} targeted: click a card of your hand to defend, or choose in the bar.`;
  }
  else if (tp && !sel.unit && !sel.card) text = "Your turn: click one of your characters (or a card of your hand).";
  else if (tp && sel.unit && !sel.card) text = "Green squares: where it may move. Or click a card to attack with it.";
  else if (tp && sel.card) text = "Red squares: the targets in range. Click one.";
  if (!text) return null;
  return el("p.dg-hint", {}, text, sel.unit || sel.card ? el("button.dg-cancel", {type: "button", onclick: () => { sel = NONE; hover = null; rerender(); }}, "Cancel") : null);
}

/** The chosen character, every number it has, its terms explained. */
function unitCard(u, model) {
  const row = (label, value) => el("div.dg-stat", {}, el("dt", {}, label), el("dd", {}, value));
  return el("section.dg-unitcard", {"aria-label": `${unitName(u.id)}, chosen`, style: {"--side": colour(u.side, model)}},
    el("h3", {}, unitName(u.id), el("span.dg-muted", {}, ` ${who(u.side, model) === "you" ? "yours" : u.side} · ${u.kind === "demigod" ? "Demigod" : "Minion"} · ${u.pos ? squareName(u.pos) : ""}`)),
    el("dl", {},
      row(T("HP"), `${u.hp}/${u.max_hp}`), row(T("AP"), String(u.ap)),
      u.barrier ? row(T("barrier"), String(u.barrier)) : null, u.dr ? row(T("DR"), String(u.dr)) : null,
      row(T("move"), String(u.move)),
      u.poison ? row(T("poison"), `${u.poison}/20`) : null, u.disease ? row(T("disease"), `${u.disease}/20`) : null),
    (u.equipment || []).length ? el("p.dg-equip", {}, u.equipment.map((e, i) => [i ? ", " : "", e.name, " ",
      e.av ? [T("AV"), ` +${e.av}`] : null, e.dv ? [T("DV"), ` +${e.dv}`] : null])) : null,
    (u.effects || []).length ? el("p.dg-effects", {}, u.effects.map(e => `${e.title}: ${String(e.stat).toUpperCase()} ${signed(e.value)}, ${plural(e.turns, "turn")} left`).join("; ")) : null,
    u.moved || u.attacked ? el("p.dg-muted", {}, `This turn it has ${[u.moved && "moved", u.attacked && "attacked"].filter(Boolean).join(" and ")}.`) : null);
}

/** A card of the hand drawn as a card: name, AV/DV badge, type, range, what else it does. */
function face(c, extra) {
  const d = details[c.name] || {};
  const badge = d.av != null ? `AV ${d.av}` : d.dv != null ? `DV ${d.dv}` : null;
  const numbers = [];
  if (d.av != null && d.dv != null) numbers.push(T("DV"), ` ${d.dv}`);
  const effects = cardEffects(d);
  return {
    name: c.name, type: d.type || "", frame: d.type || "", badge, badgeTitle: badge ? MEANING[badge.slice(0, 2)] : null,
    details: cardText(c.name),
    extra: [numbers.length ? el("span.card-numbers", {}, numbers) : null,
      d.type ? el("span.card-mark", {}, rangeText(d), effects.length ? ` · ${effects.join(" · ")}` : "") : null, extra || null],
  };
}

function handOf(view, model, tp, dp, controls) {
  if (!view.hand) return null;  // a spectator: the hand sizes are in the summaries
  const cards = view.hand.map(c => {
    const base = {cls: "dg-card", attrs: {dataset: {card: c.id}}};
    if (dp) {
      for (const o of dp.options || []) {
        if (!((o.args || {}).card || []).includes(c.id)) continue;
        if (o.id === "react_move") {
          return cardFace({...face(c, el("span.dg-act", {}, "react and move")), tag: "button", cls: "dg-card playable" + (sel.card === c.id ? " selected" : ""),
            attrs: {type: "button", dataset: {card: c.id, prompt: dp.id, option: o.id},
              onclick: () => { sel = {unit: null, card: c.id, option: "react_move", prompt: dp.id}; rerender(); }}});
        }
        return cardFace({...face(c, el("span.dg-act", {}, o.id === "react" ? "react" : "defend")), tag: "button", cls: "dg-card playable",
          attrs: {type: "button", dataset: {card: c.id, prompt: dp.id, option: o.id, argCard: JSON.stringify(c.id)},
            onclick: () => controls.choose(dp.id, o.id, {card: c.id})}});
      }
    }
    if (tp) {
      const users = combosOf(opt(tp, "attack"), {card: c.id}).flatMap(k => k.unit || []);
      const ok = sel.unit ? users.includes(sel.unit) : users.length > 0;
      if (ok) {
        return cardFace({...face(c), tag: "button", cls: "dg-card playable" + (sel.card === c.id ? " selected" : ""),
          attrs: {type: "button", dataset: {card: c.id}, "aria-pressed": sel.card === c.id ? "true" : "false",
            onclick: () => {
              const unit = sel.unit && users.includes(sel.unit) ? sel.unit : users[0];
              sel = sel.card === c.id ? {...sel, card: null} : {unit, card: c.id, option: "attack", prompt: tp.id};
              rerender();
            }}});
      }
    }
    return cardFace({...face(c), ...base});
  });
  const label = who(model.seat, model) === "you" ? "Your hand" : `${whose(model.seat, model)} hand`;
  const region = handRegion(cards, cap(label));
  region.classList.add("dg-hand");
  const heading = region.querySelector(".zone-label");  // a heading of the board's own level
  if (heading) heading.replaceWith(el("h4.zone-label", {}, ...heading.childNodes));
  return region;
}

// --- the log -----------------------------------------------------------------------------------
/** What an attack's damage did, layer by layer, and what is left: true to the board. */
function damageText(taken, d) {
  const t = taken || {};
  const total = (t.dr || 0) + (t.barrier || 0) + (t.ap || 0) + (t.hp || 0);
  if (!total) return "no damage";
  const parts = [];
  if (t.dr) parts.push(`${t.dr} stopped by Damage Reduction`);
  if (t.barrier) parts.push(`${t.barrier} by the barrier`);
  if (t.ap) parts.push(`${t.ap} by Armor`);
  if (t.hp) parts.push(`${t.hp} off Health`);
  const left = [`${d.hp} HP`];
  if (d.ap != null) left.push(`${d.ap} AP`);
  if (d.barrier) left.push(`barrier ${d.barrier}`);
  return `${total} damage (${parts.join(", ")}); ${left.join(", ")} left`;
}

const CAUSE = {hp: "is defeated: no Hit Points left", poison: "succumbs to Poison (20 ticks)", disease: "succumbs to Disease (20 ticks)",
  demigod_fell: "leaves the field: its Demigod fell", resigned: "leaves the field: its side resigned"};
const FAILED = {out_of_range: "its target is out of range now", attacker_defeated: "its attacker fell first",
  resigned: "its side resigned", no_target: "nobody is left to hit"};

export function describe(event, model) {
  const d = event.data || {};
  model = model || {};
  learn((model.view || {}).units);
  if (event.kind === "match_started") learn(d.units);
  const u = id => unitWho(id, model);
  // A line opens with a seat's name as it is spelt, else with a capital.
  const seats = new Set([...seatsOf(model), d.seat, ...(d.seats || []), ...[...roster.values()].map(r => r.side)].filter(Boolean));
  const line = text => [...seats].some(s => text.startsWith(s + " ") || text.startsWith(s + "'")) ? text : cap(text);
  const turnOf = seat => who(seat, model) === "you" ? "your turn" : `${seat}'s turn`;
  switch (event.kind) {
    case "match_started": {
      const gods = Object.values(d.units || {}).filter(x => x && x.kind === "demigod");
      const sides = (d.seats || []).map(s => { const g = gods.find(x => x.side === s); return g ? `${who(s, model)} (${g.name})` : who(s, model); });
      return line(`The battle begins on ${words((d.map || {}).name || "the field")}: ${sides.join(" against ")}.`);
    }
    case "hands": {
      const counts = Object.entries(d.counts || {}).map(([s, n]) => `${who(s, model)} ${plural(n, "card")}`);
      const yours = d.cards && d.cards.length && model.seat && who(model.seat, model) === "you";  // a seat's own cards, to it only
      return line(`The hands are dealt${counts.length ? `: ${counts.join(", ")}` : ""}` + (yours ? `; you hold ${d.cards.map(c => c.name).join(", ")}` : "") + ".");
    }
    case "turn_started": return line(`Round ${d.round}: ${turnOf(d.seat)}.`);
    case "drew": {
      const you = who(d.seat, model) === "you";
      if (!d.count) return line(`${you ? "you draw" : `${d.seat} draws`} nothing (the hand is full or the deck empty).`);
      return line(`${you ? "you draw" : `${d.seat} draws`} ${d.cards && d.cards.length ? d.cards.map(c => c.name).join(", ") : plural(d.count, "card")}.`);
    }
    case "moved": return line(d.by ? `${u(d.unit)} steps from ${squareName(d.from)} to ${squareName(d.to)} (${d.by}).`
                                    : `${u(d.unit)} moves from ${squareName(d.from)} to ${squareName(d.to)}.`);
    case "declared": {
      declared = {unit: d.unit, name: d.name};
      const c = details[d.name] || {};
      if (d.discarded || c.range === "self") return line(`${u(d.unit)} casts ${d.name} on itself.`);
      return line(`${u(d.unit)} ${c.type === "spell" ? "casts" : "plays"} ${d.name} at ${squareName(d.target)}.`);
    }
    case "targeted": {
      const list = (d.units || []).map(u);
      if (!list.length) return null;
      return line(`${list.join(", ")} ${list.length === 1 ? "is" : "are"} targeted and may defend.`);
    }
    case "defence":
      if (d.choice === "none") return line(`${u(d.unit)} does not defend (DV 0).`);
      return line(`${u(d.unit)} ${d.choice === "defend" ? "defends with" : "reacts with"} ${d.name || "a card"}.`);
    case "barrier": return line(`${u(d.unit)} gains a barrier of ${d.added}` + (d.total != null && d.total !== d.added ? ` (${d.total} in all).` : "."));
    case "effect": return line(`${u(d.unit)} ${d.how === "refreshed" ? "has" : "gains"} ${d.title}: ${String(d.stat).toUpperCase()} ${signed(d.value)} for ${plural(d.turns, "turn")}` +
      (d.how === "refreshed" ? " again." : "."));
    case "damage": return line(`${d.by || "A reaction"} strikes back at ${u(d.unit)}: ${damageText(d.taken, d)}.`);
    case "attack_result": {
      const by = declared ? `${declared.name}` : "The attack";
      if (!d.hit) return line(`${by} misses ${u(d.unit)}: AV ${d.av} against DV ${d.dv}.`);
      return line(`${by} hits ${u(d.unit)}: AV ${d.av} against DV ${d.dv}, ${damageText(d.taken, d)}.`);
    }
    case "attack_failed": return line(`${d.name || "The attack"} fails: ${FAILED[d.reason] || words(d.reason || "")}.`);
    case "attack_resolved": declared = null; return null;  // its results are the lines before it
    case "pushed": return line(`${u(d.unit)} is pushed from ${squareName(d.from)} to ${squareName(d.to)}.`);
    case "ticks": return line(`${u(d.unit)} gains ${d.added} ${cap(String(d.kind))} ${d.added === 1 ? "tick" : "ticks"} (${d.total} of 20).`);
    case "defeated": return line(`${u(d.unit)} ${CAUSE[d.cause] || `is defeated (${words(d.cause || "")})`}.`);
    case "side_out": return line(`${who(d.seat, model)} ${who(d.seat, model) === "you" ? "are" : "is"} out` +
      ((d.discarded || []).length ? `, discarding ${d.discarded.map(c => c.name).join(", ")}` : "") + ".");
    case "effect_ended": return line(`${u(d.unit)}: ${d.title} wears off.`);
    case "turn_ended": {
      const running = (d.timers || []).map(t => `${t.title} on ${unitName(t.unit)}, ${plural(t.turns, "turn")} left`);
      return line(`End of ${turnOf(d.seat)}${running.length ? ` (${running.join("; ")})` : ""}.`);
    }
    case "prompt": return null;
    default: return describeCommon(event, model);
  }
}

/** The stream's headline (moments.js): the attack being answered, else whose turn of which round. */
export function headline(model) {
  const view = model.view || {};
  if (!view.turn || !view.map) return null;
  learn(view.units);
  const a = view.attack;
  if (a && a.attacker) {
    const targets = (a.targets || []).filter(t => !(a.answered || []).includes(t)).map(t => unitWho(t, model));
    return `${cap(unitWho(a.attacker, model))} aims ${a.name} at ${squareName(a.square)}` + (targets.length ? `: ${targets.join(", ")} to answer` : "");
  }
  const limit = (view.options || {}).turn_limit;
  return `Round ${view.turn.round}${limit ? ` of ${limit}` : ""}: ${who(view.turn.seat, model) === "you" ? "your" : `${view.turn.seat}'s`} turn`;
}

// --- moments (moments.js): a Demigod defeated (its side is out) ------------------------------
export function moment(event, model) {
  const d = event.data || {};
  learn((model.view || {}).units);
  const unit = ((model.view || {}).units || {})[d.unit] || roster.get(d.unit);
  if (event.kind === "defeated" && unit && unit.kind === "demigod") {
    return {kind: "demigod_defeated", text: `${unit.name || "The Demigod"} is defeated: ${who(unit.side, model)} ${unit.side === model.seat ? "are" : "is"} out!`};
  }
  return null;
}
