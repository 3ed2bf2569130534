// demigod: the grid with its terrain and every character (HP, AP, barriers, Poison and
// Disease ticks, effects). Click one of your characters: the squares it may move to light
// up; click a card of your hand: the squares it may aim at light up (and its area, under
// the pointer); click the square. In a reaction window the hand's cards defend.

import {el, useCss, rulesetInfo, who, whose, words, plural, describeCommon, optionsOf, same, detailsLine} from "./common.js";

useCss(new URL("./demigod.css", import.meta.url).href);

const COLOURS = ["#4ea1ff", "#ff7a59", "#7bd88f", "#e6c14a"];
let details = {};
try {
  const info = await rulesetInfo("demigod");
  for (const set of (info && info.card_sets) || []) Object.assign(details, set.details || {});
} catch (err) { /* cards are then shown by name only */ }

let sel = {unit: null, card: null, option: null, prompt: null};  // the choice being built on the board
let hover = null;  // the square under the pointer, for the area preview
let last = null;

function rerender() { if (last) render(...last); }
function key(sq) { return `${sq[0]},${sq[1]}`; }
function colour(side, model) {
  const seats = model.seats && model.seats.length ? model.seats : Object.keys((model.view || {}).hand_counts || {});
  return COLOURS[Math.max(0, seats.indexOf(side)) % COLOURS.length];
}
function squareName(sq) { return Array.isArray(sq) ? `${String.fromCharCode(97 + sq[0])}${sq[1] + 1}` : String(sq); }

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
  if (c.effect) bits.push(`${c.effect.title}: ${c.effect.stat.toUpperCase()} ${c.effect.value > 0 ? "+" : ""}${c.effect.value} for ${plural(c.effect.turns, "turn")}`);
  if (c.text) bits.push(c.text);
  return bits.join(" · ");
}

function unitText(u) {
  const bits = [`${u.name || u.id} (${u.side}'s ${u.kind})`, `HP ${u.hp}/${u.max_hp}`, `AP ${u.ap}`];
  if (u.barrier) bits.push(`barrier ${u.barrier}`);
  if (u.dr) bits.push(`DR ${u.dr}`);
  bits.push(`move ${u.move}`);
  if (u.poison) bits.push(`poison ${u.poison}/20`);
  if (u.disease) bits.push(`disease ${u.disease}/20`);
  for (const e of u.equipment || []) bits.push(`${e.name} (${e.slot}${e.av ? `, AV +${e.av}` : ""}${e.dv ? `, DV +${e.dv}` : ""})`);
  for (const e of u.effects || []) bits.push(`${e.title}: ${String(e.stat).toUpperCase()} ${e.value > 0 ? "+" : ""}${e.value}, ${plural(e.turns, "turn")}`);
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
  if (name === "unit" && view.units && view.units[value]) return view.units[value].name || value;
  if (name === "card") {
    const c = [...(view.hand || [])].find(c => c.id === value);
    return c ? c.name : value;
  }
  return null;
}

export const argOrder = ["unit", "card", "target", "to"];

export function render(root, model, controls) {
  last = [root, model, controls];
  const view = model.view;
  if (!view || !view.map) { root.replaceChildren(el("p", {}, "Waiting for the match…")); return; }
  for (const c of view.custom_cards || []) details[c.name] = c;  // a setup's own cards, beside the shipped set
  const tp = controls ? turnPrompt(model) : null;
  const dp = controls ? defendPrompt(model) : null;
  if (sel.prompt && !(model.prompts || []).some(p => p.id === sel.prompt)) sel = {unit: null, card: null, option: null, prompt: null};
  const hand = view.hand || [];
  if (sel.card && !hand.some(c => c.id === sel.card)) sel = {...sel, card: null, option: null};

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
  const cells = [];
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) {
    const sq = [x, y], k = key(sq), u = at.get(k), mark = marks.get(k);
    const cls = ["dg-cell"];
    if (terrain.has(k)) cls.push("terrain");
    if (mark) cls.push("mark-" + mark.kind);
    if (caught.has(k)) cls.push("caught");
    if (attack && attack.square && same(attack.square, sq)) cls.push("aimed");
    const content = u ? unitToken(u, model, attack) : terrain.has(k) ? el("span.dg-rock", {"aria-hidden": "true"}, "▲") : null;
    const label = `${squareName(sq)}${terrain.has(k) ? ", terrain" : ""}${u ? ", " + unitText(u) : ""}`;
    const data = {x, y};
    if (mark) {
      Object.assign(data, {prompt: mark.prompt.id, option: mark.option});
      for (const [a, v] of Object.entries(mark.args)) data["arg" + a[0].toUpperCase() + a.slice(1)] = JSON.stringify(v);
      cells.push(el("button", {type: "button", class: cls.join(" "), dataset: data, title: label,
        "aria-label": `${mark.kind === "move" ? "move to" : "aim at"} ${label}`,
        onmouseenter: () => { if (area && !same(hover, sq)) { hover = sq; rerender(); } },
        onfocus: () => {  // the keyboard sees the area too; the redrawn square keeps the focus
          if (!area || same(hover, sq)) return;
          hover = sq;
          rerender();
          const again = root.querySelector(`button[data-x="${x}"][data-y="${y}"]`);
          if (again) again.focus();
        },
        onclick: () => { const m = mark; sel = {unit: null, card: null, option: null, prompt: null}; hover = null; controls.choose(m.prompt.id, m.option, m.args); }},
        content));
      continue;
    }
    const mineToAct = u && tp && u.side === model.seat && (combosOf(opt(tp, "move"), {unit: u.id}).length || combosOf(opt(tp, "attack"), {unit: u.id}).length);
    if (mineToAct) {
      cells.push(el("button", {type: "button", class: cls.concat("selectable", sel.unit === u.id ? "selected" : "").join(" "),
        dataset: {...data, unit: u.id}, title: label, "aria-pressed": sel.unit === u.id ? "true" : "false", "aria-label": `select ${label}`,
        onclick: () => { sel = sel.unit === u.id ? {unit: null, card: null, option: null, prompt: null} : {unit: u.id, card: null, option: null, prompt: tp.id}; rerender(); }},
        content));
      continue;
    }
    cells.push(el("div", {class: cls.join(" "), dataset: data, title: label}, content));
  }
  const grid = el("div.dg-grid", {role: "grid", "aria-label": `the battlefield, ${w} by ${h}`,
    style: {gridTemplateColumns: `repeat(${w}, minmax(1.6rem, 3.4rem))`},
    onmouseleave: () => { if (hover) { hover = null; rerender(); } }}, cells);

  root.replaceChildren(el("div.dg", {},
    el("div.dg-top", {},
      el("span", {}, `Round ${(view.turn || {}).round ?? "?"} · `, el("strong", {}, who((view.turn || {}).seat, model)), " to act"),
      view.out && view.out.length ? el("span", {}, ` · out: ${view.out.map(s => who(s, model)).join(", ")}`) : null,
      el("span.dg-muted", {}, ` · map ${view.map.name || "custom"}`)),
    attack ? el("p.dg-attack", {}, `${(view.units[attack.attacker] || {}).name || attack.attacker} uses ${attack.name} on ${squareName(attack.square)}: `,
      (attack.targets || []).map(t => (view.units[t] || {}).name || t).join(", "), " must answer") : null,
    hintEl(model, tp, dp),
    detailsLine(root, "Point at or tap a character or a card to read it."),
    el("div.dg-main", {}, el("div.dg-board", {}, grid), el("div.dg-panel", {},
      handEl(view, model, tp, dp, controls), unitsEl(view, model), countsEl(view, model))),
    ));
}

function hintEl(model, tp, dp) {
  let text = null;
  if (dp) text = sel.option === "react_move" ? "Blink: click the square to move to." : "You are targeted: click a card of your hand to defend with it, or choose in the bar.";
  else if (tp && !sel.unit && !sel.card) text = "Click one of your characters (or a card of your hand).";
  else if (tp && sel.unit && !sel.card) text = "Green squares: where it may move. Or click a card to attack with it.";
  else if (tp && sel.card) text = "Red squares: the targets in range. Click one.";
  if (!text) return null;
  return el("p.dg-hint", {}, text, sel.unit || sel.card ? el("button", {type: "button", onclick: () => { sel = {unit: null, card: null, option: null, prompt: null}; rerender(); }}, "Cancel") : null);
}

function unitToken(u, model, attack) {
  const hp = Math.max(0, Math.min(1, u.hp / Math.max(1, u.max_hp)));
  const targeted = attack && (attack.targets || []).includes(u.id);
  return el("span", {class: "dg-unit " + u.kind + (targeted ? " targeted" : "") + (u.side === model.seat ? " mine" : ""),
                     style: {"--side": colour(u.side, model)}, dataset: {unitId: u.id}},
    el("span.dg-initial", {}, (u.name || u.id).slice(0, 2)),
    el("span.dg-hp", {}, el("span", {style: {width: `${hp * 100}%`}})),
    el("span.dg-badges", {},
      u.ap ? el("span.b-ap", {title: "Armor Points"}, u.ap) : null,
      u.barrier ? el("span.b-barrier", {title: "Temporary AP"}, u.barrier) : null,
      u.poison ? el("span.b-poison", {title: "Poison ticks"}, u.poison) : null,
      u.disease ? el("span.b-disease", {title: "Disease ticks"}, u.disease) : null,
      (u.effects || []).length ? el("span.b-effect", {title: (u.effects || []).map(e => e.title).join(", ")}, "✦") : null));
}

function handEl(view, model, tp, dp, controls) {
  if (!view.hand) return el("div.dg-hand", {}, el("h4", {}, "Hands"),
    Object.entries(view.hand_counts || {}).map(([s, n]) => el("div.dg-muted", {}, `${who(s, model)}: ${plural(n, "card")}`)));
  const cards = view.hand.map(c => {
    const attrs = {class: "dg-card", title: cardText(c.name), dataset: {card: c.id}};
    const body = [el("strong", {}, c.name), el("span.dg-muted", {}, (details[c.name] || {}).type || "")];
    if (dp) {
      for (const o of dp.options || []) {
        if (!((o.args || {}).card || []).includes(c.id)) continue;
        if (o.id === "react_move") {
          return el("button", {...attrs, type: "button", class: attrs.class + " playable" + (sel.card === c.id ? " selected" : ""),
            dataset: {...attrs.dataset, prompt: dp.id, option: o.id},
            onclick: () => { sel = {unit: null, card: c.id, option: "react_move", prompt: dp.id}; rerender(); }}, body, el("span.dg-act", {}, "react and move"));
        }
        return el("button", {...attrs, type: "button", class: attrs.class + " playable",
          dataset: {...attrs.dataset, prompt: dp.id, option: o.id, argCard: JSON.stringify(c.id)},
          onclick: () => controls.choose(dp.id, o.id, {card: c.id})}, body, el("span.dg-act", {}, o.id === "react" ? "react" : "defend"));
      }
    }
    if (tp) {
      const users = combosOf(opt(tp, "attack"), {card: c.id}).flatMap(k => k.unit || []);
      const ok = sel.unit ? users.includes(sel.unit) : users.length > 0;
      if (ok) {
        return el("button", {...attrs, type: "button", class: attrs.class + " playable" + (sel.card === c.id ? " selected" : ""),
          "aria-pressed": sel.card === c.id ? "true" : "false",
          onclick: () => {
            const unit = sel.unit || (new Set(users).size === 1 ? users[0] : users[0]);
            sel = sel.card === c.id ? {...sel, card: null} : {unit, card: c.id, option: "attack", prompt: tp.id};
            rerender();
          }}, body);
      }
    }
    return el("div", {...attrs, tabindex: 0}, body);
  });
  return el("div.dg-hand", {}, el("h4", {}, `${who(model.seat, model) === "you" ? "Your" : whose(model.seat, model)} hand (${view.hand.length})`), el("div.dg-cards", {}, cards));
}

function unitsEl(view, model) {
  const bySide = {};
  for (const u of Object.values(view.units || {})) (bySide[u.side] ||= []).push(u);
  return el("details.dg-units", {open: true}, el("summary", {}, "Characters"),
    Object.entries(bySide).map(([side, list]) => el("div.dg-side", {style: {"--side": colour(side, model)}},
      el("h4", {}, who(side, model)),
      list.map(u => el("div.dg-unitrow", {tabindex: 0, title: unitText(u), dataset: {unit: u.id}},
        el("strong", {}, u.name || u.id), ` ${u.pos ? squareName(u.pos) : "—"} · HP ${u.hp}/${u.max_hp} · AP ${u.ap}`,
        u.barrier ? ` · barrier ${u.barrier}` : "", u.dr ? ` · DR ${u.dr}` : "",
        u.poison ? ` · poison ${u.poison}` : "", u.disease ? ` · disease ${u.disease}` : "",
        (u.effects || []).length ? el("div.dg-effects", {}, u.effects.map(e => `${e.title} (${String(e.stat).toUpperCase()} ${e.value > 0 ? "+" : ""}${e.value}, ${plural(e.turns, "turn")})`).join("; ")) : null,
        u.moved || u.attacked ? el("span.dg-muted", {}, ` ${[u.moved && "moved", u.attacked && "attacked"].filter(Boolean).join(", ")}`) : null)))));
}

function countsEl(view, model) {
  return el("p.dg-muted", {}, Object.keys(view.hand_counts || {}).map(s =>
    `${who(s, model)}: hand ${view.hand_counts[s]}, deck ${(view.deck_counts || {})[s] ?? "?"}, discard ${((view.discard || {})[s] || []).length}`).join(" · "));
}

// --- the log ---------------------------------------------------------------------------------
export function describe(event, model) {
  const d = event.data || {};
  const units = (model.view || {}).units || {};
  const u = id => (units[id] && units[id].name ? `${units[id].name} (${units[id].side})` : String(id).replace(".", "'s "));
  switch (event.kind) {
    case "match_started": return `The battle begins on ${(d.map || {}).name || "the field"}: ${(d.seats || []).join(", ")}.`;
    case "turn_started": return `Round ${d.round}: ${who(d.seat, model)} to act.`;
    case "drew": return `${who(d.seat, model)} drew ${plural(d.count, "card")}` + (d.cards ? `: ${d.cards.map(c => c.name).join(", ")}` : "") + ".";
    case "moved": return `${u(d.unit)} moved ${squareName(d.from)} → ${squareName(d.to)}${d.by ? ` (${d.by})` : ""}.`;
    case "declared": return `${u(d.unit)} uses ${d.name} on ${squareName(d.target)}.`;
    case "targeted": return `Targeted: ${(d.units || []).map(u).join(", ")}.`;
    case "defence": return `${u(d.unit)} ${d.choice === "none" ? "does not defend" : `${d.choice === "react" ? "reacts" : "defends"} with ${d.name}`}.`;
    case "barrier": return `${u(d.unit)} gains a barrier${d.value != null ? ` of ${d.value}` : ""}.`;
    case "effect": return `${u(d.unit)}: ${d.title} (${String(d.stat).toUpperCase()} ${d.value > 0 ? "+" : ""}${d.value}, ${plural(d.turns, "turn")}) ${d.how || ""}.`;
    case "damage": return `${d.by || "A reaction"} hurts ${u(d.unit)} (HP ${d.hp}).`;
    case "attack_result": return `${u(d.unit)}: AV ${d.av} against DV ${d.dv}: ${d.hit ? `hit${d.taken ? ` (${Object.entries(d.taken).filter(([, v]) => v).map(([k, v]) => `${k.toUpperCase()} ${v}`).join(", ") || "no damage"})` : ""}, HP ${d.hp}` : "miss"}.`;
    case "attack_failed": return `The attack fails (${words(d.reason || "")}).`;
    case "attack_resolved": return null;  // its results are the lines before it
    case "pushed": return `${u(d.unit)} is pushed to ${squareName(d.to)}.`;
    case "ticks": return `${u(d.unit)} gains ${d.added} ${d.kind} (${d.total}/20).`;
    case "defeated": return `${u(d.unit)} is defeated (${words(d.cause || "")}).`;
    case "side_out": return `${who(d.seat, model)} ${d.seat === model.seat ? "are" : "is"} out` + ((d.discarded || []).length ? `, discarding ${d.discarded.map(c => c.name).join(", ")}` : "") + ".";
    case "effect_ended": return `${u(d.unit)}: ${d.title} ends.`;
    case "turn_ended": return null;
    case "hands": return null;
    case "prompt": return null;
    default: return describeCommon(event, model);
  }
}

// --- moments (moments.js): a Demigod defeated (its side is out) ------------------------------
export function moment(event, model) {
  const d = event.data || {};
  const unit = ((model.view || {}).units || {})[d.unit];
  if (event.kind === "defeated" && unit && unit.kind === "demigod") {
    return {kind: "demigod_defeated", text: `${unit.name || "The Demigod"} is defeated: ${who(unit.side, model)} ${unit.side === model.seat ? "are" : "is"} out!`};
  }
  return null;
}
