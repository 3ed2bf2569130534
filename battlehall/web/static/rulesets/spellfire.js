// spellfire: each seat's formation pyramid (exposed realms marked), its pool of champions
// with their attachments, the hand, the battle with both champions, every card played and
// who is ahead. A card or realm that answers an open prompt is a button: click the realm to
// attack it, the card to play it. Fields and zones this drawing does not know are listed
// plainly rather than dropped.

import {el, useCss, rulesetInfo, who, whose, words, plural, describeCommon, optionsOf, legal, same, detailsLine} from "./common.js";

useCss(new URL("./spellfire.css", import.meta.url).href);

const SLOTS = ["A", "B", "C", "D", "E", "F"];
const ROWS = [["A"], ["B", "C"], ["D", "E", "F"]];
// A realm is exposed when every realm shielding it is razed or missing (docs/spellfire.md).
const SHIELDS = {A: [], B: ["A"], C: ["A"], D: ["B"], E: ["B", "C"], F: ["C"]};
const KNOWN_PLAYER_FIELDS = ["hand", "hand_size", "draw_size", "formation", "unrazed", "pool", "discard"];
const TYPE_WORDS = {magical_item: "magical item", psionic_power: "psionic power", blood_ability: "blood ability",
                    thief_skill: "thief skill", unarmed_combat: "unarmed combat"};

const catalogue = new Map();
try {
  const info = await rulesetInfo("spellfire");
  for (const set of (info && info.card_sets) || []) for (const card of set.cards || []) catalogue.set(card.id, card);
} catch (err) { /* cards are then shown by id */ }

let armed = null;  // {prompt, option}: a card chosen whose argument (slot, champion, side) is picked next
let lastDraw = null;

function def(ref, model) {
  const id = ref && (ref.def || ref.id);
  if (!id) return null;
  if (catalogue.has(id)) return catalogue.get(id);
  // A setup's inline cards: defined once per socket (welcome) or replay, never in a view.
  const custom = ((model.definitions || {}).custom_cards || []).find(c => c && c.id === id);
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

function cardEl(ref, model, controls, opts = {}) {
  const d = def(ref, model) || {};
  const actions = opts.actions === false ? [] : optionsFor(ref && ref.card, model);
  const type = d.type || "unknown";
  const label = [el("span.sf-name", {}, cardName(ref, model)),
    d.level != null ? el("span.sf-level", {title: "level"}, d.level) : null,
    d.bonus ? el("span.sf-bonus", {}, `+${d.bonus}`) : null,
    opts.extra || null];
  const attrs = {class: `sf-card sf-${type}` + (opts.cls ? " " + opts.cls : ""), title: details(ref, model),
                 dataset: {card: ref && ref.card, def: ref && ref.def}};
  if (!actions.length || !controls) {
    return el("div", {...attrs, tabindex: 0}, label);
  }
  const [prompt, option] = actions[0];
  const isArmed = armed && armed.prompt === prompt.id && armed.option === option.id;
  const button = el("button", {...attrs, type: "button", class: attrs.class + " sf-playable" + (isArmed ? " armed" : ""),
                               dataset: {...attrs.dataset, prompt: prompt.id, option: option.id},
                               "aria-label": option.text || cardName(ref, model)}, label);
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

export function render(root, model, controls) {
  last = [root, model, controls];
  const view = model.view;
  if (!view || !view.players) { root.replaceChildren(el("p", {}, "Waiting for the match…")); return; }
  if (armed && !optionsOf(model).some(([p, o]) => p.id === armed.prompt && o.id === armed.option)) armed = null;
  const seats = view.seats || Object.keys(view.players);
  // The viewer's own seat last, nearest the hand; the others above, as around a table.
  const order = seats.filter(s => s !== model.seat).concat(seats.includes(model.seat) ? [model.seat] : []);
  const parts = [turnBar(view, model), detailsLine(root)];
  parts.push(armedBar(model, controls));
  const battle = battleEl(view, model, controls);
  const others = order.filter(s => s !== model.seat).map(s => seatEl(s, view, model, controls));
  parts.push(el("div.sf-others", {}, others));
  if (battle) parts.push(battle);
  if (seats.includes(model.seat)) parts.push(seatEl(model.seat, view, model, controls));
  root.replaceChildren(el("div.sf", {}, parts));
}

function turnBar(view, model) {
  const t = view.turn || {};
  const leader = Object.entries(view.players).map(([s, p]) => [s, p.unrazed ?? 0]).sort((a, b) => b[1] - a[1]);
  const toWin = (view.options || {}).realms_to_win || 6;
  return el("div.sf-turn", {},
    t.seat ? el("span", {}, `Turn ${t.number ?? "?"}: `, el("strong", {}, who(t.seat, model)), ` · ${words(t.phase || "")} phase`) : null,
    el("span.sf-score", {title: `${toWin} unrazed realms win`},
      "Realms: ", leader.map(([s, n], i) => el("span", {class: "sf-score-seat" + (i === 0 && n > (leader[1] || [0, -1])[1] ? " leading" : "")},
        `${who(s, model)} ${n}/${toWin}`)).flatMap((x, i) => i ? [" · ", x] : [x])),
    view.spoils ? el("span.sf-spoils", {}, `${who(view.spoils.seat, model)} ${view.spoils.seat === model.seat ? "decide" : "decides"} the spoils`) : null);
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
    el("button", {type: "button", onclick: () => { armed = null; rerender(); }}, "Cancel"));
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
  const view = model.view || {};
  for (const p of Object.values(view.players || {})) {
    for (const e of p.pool || []) if (e.card === instance) return e;
    for (const c of p.hand || []) if (c.card === instance) return c;
  }
  return null;
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

function formationEl(seat, player, model, controls) {
  const formation = player.formation || {};
  const rows = ROWS.map(row => el("div.sf-row", {}, row.map(slot => {
    const realm = formation[slot];
    const target = armedSlot(model, seat, slot);
    if (!realm) {
      if (target && controls) {
        return el("button.sf-slot.empty.sf-playable", {type: "button", dataset: {prompt: target.prompt.id, option: target.option.id, argSlot: JSON.stringify(slot)},
          onclick: () => { armed = null; controls.choose(target.prompt.id, target.option.id, target.args); }}, `place in ${slot}`);
      }
      return el("div.sf-slot.empty", {title: `slot ${slot}: empty`}, slot);
    }
    const isExposed = !realm.razed && exposed(formation, slot);
    const extra = el("span.sf-slot-tags", {},
      el("span.sf-slotname", {}, slot),
      realm.razed ? el("span.sf-tag.razed", {}, "razed") : isExposed ? el("span.sf-tag.exposed", {title: "exposed: it can be attacked"}, "exposed") : null);
    const realmEl = cardEl(realm, model, controls, {cls: "sf-realm" + (realm.razed ? " is-razed" : "") + (isExposed ? " is-exposed" : ""), extra});
    const holding = realm.holding ? cardEl(realm.holding, model, controls, {cls: "sf-holding", extra: el("span.sf-tag", {}, "holding")}) : null;
    const slotTarget = target && controls ? el("button.choice.sf-target", {type: "button",
      dataset: {prompt: target.prompt.id, option: target.option.id, argSlot: JSON.stringify(slot)},
      onclick: () => { armed = null; controls.choose(target.prompt.id, target.option.id, target.args); }}, `here (${slot})`) : null;
    return el("div.sf-slot", {dataset: {slot}}, realmEl, holding, slotTarget);
  })));
  return el("div.sf-formation", {"aria-label": `${seat}'s formation`}, rows);
}

function poolEl(seat, player, model, controls) {
  const pool = player.pool || [];
  if (!pool.length) return el("div.sf-pool.empty", {}, "pool: no champions");
  return el("div.sf-pool", {"aria-label": `${seat}'s pool`}, pool.map(entry => {
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
    const used = ((model.view.turn || {}).used || []).includes(entry.card);
    return el("div.sf-champion", {}, cardEl(entry, model, controls, {cls: used ? "is-used" : "", extra: used ? el("span.sf-tag", {}, "fought") : null}),
      (entry.attached || []).map(a => cardEl(a, model, controls, {cls: "sf-attached"})), target);
  }));
}

function seatEl(seat, view, model, controls) {
  const player = view.players[seat] || {};
  const mine = seat === model.seat;
  const turn = (view.turn || {}).seat === seat;
  const hand = mine && Array.isArray(player.hand)
    ? el("div.sf-hand", {"aria-label": "your hand"}, player.hand.map(c => cardEl(c, model, controls)))
    : el("div.sf-hand.sf-hand-hidden", {title: "cards in hand"}, Array.from({length: Math.min(player.hand_size || 0, 12)}, () => el("span.sf-back")),
         ` ${plural(player.hand_size || 0, "card")} in hand`);
  const extraZones = Object.entries(player).filter(([k, v]) => !KNOWN_PLAYER_FIELDS.includes(k) && v != null)
    .map(([k, v]) => zoneEl(k, v, model, controls));
  return el("section", {class: "sf-seat" + (mine ? " mine" : "") + (turn ? " turn" : ""), dataset: {seat}},
    el("h3", {}, mine ? `${seat} (you)` : seat, el("span.sf-counts", {},
      ` · ${plural(player.unrazed ?? 0, "unrazed realm")} · draw pile ${player.draw_size ?? "?"} · hand ${player.hand_size ?? "?"}`)),
    el("div.sf-seat-body", {}, formationEl(seat, player, model, controls),
      el("div.sf-seat-right", {}, poolEl(seat, player, model, controls), hand, extraZones,
        discardEl(player.discard || [], model))));
}

function zoneEl(name, value, model, controls) {
  const list = Array.isArray(value) ? value : null;
  if (list && list.every(x => x && typeof x === "object" && (x.card || x.def))) {
    return el("div.sf-zone", {}, el("span.sf-zone-name", {}, words(name) + ": "), list.length ? list.map(c => cardEl(c, model, controls)) : "none");
  }
  return el("div.sf-zone", {}, el("span.sf-zone-name", {}, words(name) + ": "), typeof value === "object" ? JSON.stringify(value) : String(value));
}

function discardEl(discard, model) {
  return el("details.sf-discard", {}, el("summary", {}, `discard pile (${discard.length})`),
    discard.map(c => cardEl(c, model, null, {actions: false})));
}

function battleEl(view, model, controls) {
  const b = view.battle;
  if (!b) return null;
  const sides = b.sides || {};
  const a = sides.attacker, d = sides.defender;
  const ta = a ? a.total ?? 0 : null, td = d ? d.total ?? 0 : null;
  let ahead = "";
  if (a && d) ahead = ta > td ? `${who(a.seat, model)} (attacker) ahead, ${ta} to ${td}` : `${who(d.seat, model)} (defender) ahead, ${td} to ${ta}${ta === td ? " (a tie goes to the defender)" : ""}`;
  const sideEl = (name, s) => el("div", {class: `sf-side sf-${name}`},
    el("h4", {}, `${name === "attacker" ? "Attacker" : "Defender"}: ${who(s ? s.seat : (name === "attacker" ? b.attacker : b.defender), model)}`,
      s ? el("span.sf-total", {}, ` total ${s.total ?? "?"}`) : null),
    s && (s.card || s.def) ? cardEl(s, model, controls, {cls: "sf-fighter", extra: s.from ? el("span.sf-tag", {}, `from ${s.from}`) : null})
      : el("p.sf-none", {}, name === "defender" ? "no defender yet" : "no champion yet"),
    s && s.attached && s.attached.length ? el("div.sf-cards", {}, "with ", s.attached.map(c => cardEl(c, model, controls))) : null,
    s && s.played && s.played.length ? el("div.sf-cards", {}, "played ", s.played.map(c => cardEl(c, model, controls))) : null);
  return el("section.sf-battle", {"aria-label": "the battle"},
    el("h3", {}, `Battle for `, cardEl(b, model, controls, {cls: "sf-battle-realm", actions: false}),
      ` (${whose(b.defender, model)} ${b.slot || ""})`, b.round ? ` · round ${b.round}` : "", b.defeats ? ` · defeats ${b.defeats}` : ""),
    ahead ? el("p.sf-ahead", {}, ahead) : null,
    el("div.sf-sides", {}, sideEl("attacker", a), el("div.sf-vs", {}, "vs"), sideEl("defender", d)));
}

// --- the log ---------------------------------------------------------------------------------
export function describe(event, model) {
  const d = event.data || {};
  const n = ref => cardName(ref, model);
  const s = seat => who(seat, model);
  const cards = list => (list || []).map(n).join(", ");
  switch (event.kind) {
    case "match_started": return `The match begins: ${(d.seats || []).join(", ")}` + (d.decks ? ` (${Object.entries(d.decks).map(([k, v]) => `${k}: ${v}`).join(", ")})` : "") + ".";
    case "turn_started": return `Turn ${d.number}: ${s(d.seat)}.`;
    case "phase": return null;
    case "cards_drawn": return `${s(d.seat)} drew ${plural(d.count, "card")}` + (d.cards && d.cards.length ? `: ${cards(d.cards)}` : "") + (d.count < d.wanted ? ` (wanted ${d.wanted})` : "") + ".";
    case "realm_played": return `${s(d.seat)} played the realm ${n(d)} in slot ${d.slot}.`;
    case "holding_played": return `${s(d.seat)} put the holding ${n(d)} on slot ${d.slot}.`;
    case "champion_to_pool": return `${s(d.seat)} put ${n(d)} into the pool.`;
    case "card_attached": return `${s(d.seat)} attached ${n(d)} to ${n(d.attached_to || findRef(d.champion, model) || {card: d.champion})}.`;
    case "cards_discarded": return `${s(d.seat)} discarded ${cards(d.cards)} (${words(d.reason || "")}).`;
    case "battle_started": return `${s(d.attacker)} attacked ${whose(d.defender, model)} ${n(d)} (${d.slot}).`;
    case "champion_chosen": return `${s(d.seat)} sent ${n(d)} to ${d.side === "attacker" ? "attack" : "defend"}` + (d.attached && d.attached.length ? ` with ${cards(d.attached)}` : "") + ".";
    case "defense_declined": return `${s(d.seat)} did not defend` + (d.card ? ` ${n(d)}` : "") + ".";
    case "attack_withdrawn": return `${s(d.attacker)} went back from ${whose(d.defender, model)} ${n(d)} (${d.slot}); the attack is not spent.`;
    case "powers_activated": return `Powers activated: ` + (d.order || []).map(o => `${n(o)}${o.bonus ? ` +${o.bonus}` : ""}`).join(", ") +
      (d.totals ? ` · attacker ${d.totals.attacker}, defender ${d.totals.defender}` : "") + (d.slain ? ` · the ${d.slain} is slain` : "") + ".";
    case "card_played": return `${s(d.seat)} played ${n(d)}` + (d.side ? ` for the ${d.side}` : "") + (d.outcome ? ` (${words(d.outcome)})` : "") +
      (d.totals ? ` · attacker ${d.totals.attacker}, defender ${d.totals.defender}` : "") + ".";
    case "card_returned": return `${s(d.seat)} took ${plural(d.count, "card")} back from the ${words(d.from || "discard")}` + (d.cards ? `: ${cards(d.cards)}` : "") + ".";
    case "round_ended": return `Round ${d.round} ${d.winner ? `won by the ${d.winner}` : "ended"} (${words(d.how || "")}).`;
    case "champion_returned": return `${n(d)} returned to ${whose(d.seat, model)} pool.`;
    case "realm_holds": return `${n(d)} holds (${plural(d.defeats, "defeat")}).`;
    case "realm_razed": return `${whose(d.seat, model)} ${n(d)} (${d.slot}) was razed.`;
    case "battle_ended": return `The battle for ${n(d)} ended: ${d.razed ? "razed" : "the realm stands"} after ${plural(d.rounds, "round")}.`;
    case "spoils_kept": return `${s(d.seat)} kept the spoils.`;
    case "turn_ended": return null;
    case "prompt": return null;
    default: {
      const common = describeCommon(event, model);
      if (common !== undefined) return common;
      // A kind this drawing does not know yet: its seat and card, if it names them.
      const bits = [];
      if (d.seat) bits.push(s(d.seat));
      if (d.card || d.def) bits.push(n(d));
      if (d.zone) bits.push(`zone: ${words(d.zone)}`);
      return words(event.kind) + (bits.length ? " — " + bits.join(", ") : "");
    }
  }
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
