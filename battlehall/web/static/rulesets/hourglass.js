// hourglass: every battle's tile with its Knights and Bandits (wounds against health), the
// Hourglass Board of the battle in progress with each side's cubes on its top and bottom
// parts, the Battlecards placed (face down until revealed), and the viewer's Battle Hand.
// Targets are given on the board; a card in the hand is clicked to place it.

import {el, useCss, who, whose, words, plural, describeCommon, optionsOf, legal, same, detailsLine} from "./common.js";

useCss(new URL("./hourglass.css", import.meta.url).href);

const COLOURS = ["#4ea1ff", "#ff7a59", "#7bd88f", "#e6c14a", "#c792ea", "#5fd7d7"];
let targets = {};       // knight id -> target chosen on the board (for the open `targets` prompt)
let targetsFor = null;  // the prompt those choices belong to
let selectedKnight = null;
let placing = null;     // the card chosen to place face up, waiting for the card to discard
let last = null;

function colour(side, model) {
  if (side === "bandits") return "#9a8c7a";
  const seats = (model.view && model.view.turn_order) || model.seats || [];
  const i = seats.indexOf(side);
  return COLOURS[(i < 0 ? 0 : i) % COLOURS.length];
}

/** A Knight or Bandit in words: its `name` and owner from the view (or from an open
 * prompt's `about` once it has left its battle); the id is parsed only by older servers. */
function knightName(id, model) {
  const k = knightOf(id, model);
  if (k && k.name) return k.owner === "bandits" ? k.name : `${whose(k.owner, model)} ${k.name}`;
  const m = /^(.*)-(\d+)@(.*)$/.exec(String(id));
  if (!m) return String(id);
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

function cardTitle(kind, model) {
  const c = cardInfo(kind, model);
  if (!c) return kind;
  const mod = (n, v) => v ? `${n} ${v > 0 ? "+" : ""}${v}` : null;
  const stats = [mod("Damage", c.damage), mod("Precision", c.precision), mod("Delay", delayOf(c)),
                 mod("Defense", c.defense), mod("Dodge", c.dodge), mod("Wound", c.wound)].filter(Boolean);
  return `${c.name}: ${stats.join(", ") || "no modifiers"}. ${c.text || ""}`;
}

export function argName(name, model) {
  return name.includes("@") ? knightName(name, model) : null;
}

export function argLabel(name, value, model) {
  const told = aboutOf(value, model);
  if (told && told.text) return told.card ? (told.name || told.text) : told.text;
  if (value === "none") return "no target";
  if (typeof value !== "string") return null;
  if (value.includes("#")) { const k = cardKind(value, model); return k ? (cardInfo(k, model) || {}).name || k : value; }
  if (value.includes("@")) return knightName(value, model);
  if (name === "tile") return words(value);
  if (name === "with") return who(value, model);
  if (name.includes("@")) return null;
  return null;
}

function find(model, kind) {
  for (const p of model.prompts || []) if (p.kind === kind) return p;
  return null;
}

function rerender() { if (last) render(...last); }

export function render(root, model, controls) {
  last = [root, model, controls];
  const view = model.view;
  if (!view || !view.battles) { root.replaceChildren(el("p", {}, "Waiting for the match…")); return; }
  const tp = find(model, "targets");
  if (!tp || tp.id !== targetsFor) { targets = {}; selectedKnight = null; targetsFor = tp && tp.id; }
  const ap = find(model, "attack_card");
  if (!ap) placing = null;
  const current = view.battles.find(b => b.tile === view.current);
  const parts = [
    detailsLine(root),
    el("div.hg-top", {},
      el("span", {}, "Turn order: ", (view.turn_order || []).map(s => who(s, model)).join(" → ")),
      view.resolver ? el("span", {}, " · resolving: ", el("strong", {}, who(view.resolver, model))) : null,
      el("span.hg-tie", {title: "the Tie Breaker: highest priority first"}, " · tie breaker: ",
        (view.tie_breaker || []).map(s => who(s, model)).join(" > "))),
  ];
  if (current) parts.push(currentBattle(current, view, model, controls, tp));
  parts.push(el("div.hg-tiles", {}, view.battles.filter(b => b !== current).map(b => tileEl(b, view, model, controls))));
  parts.push(handEl(view, model, controls));
  parts.push(attributesEl(view, model));
  root.replaceChildren(el("div.hg", {}, parts));
}

function tileEl(b, view, model, controls) {
  const cb = find(model, "choose_battle");
  const opt = cb && (cb.options || []).find(o => ((o.args || {}).tile || []).includes(b.tile));
  const head = opt && controls
    ? el("button.choice.hg-choose", {type: "button", dataset: {prompt: cb.id, option: opt.id, argTile: JSON.stringify(b.tile)},
        onclick: () => controls.choose(cb.id, opt.id, {tile: b.tile})}, `Resolve ${words(b.tile)} next`)
    : null;
  const state = b.done ? "over" : b.started ? "in progress" : "not started";
  return el("section", {class: "hg-tile" + (b.done ? " done" : ""), dataset: {tile: b.tile}},
    el("h3", {}, el("span.hg-tilename", {}, words(b.tile)), el("span.hg-muted", {}, ` · ${state}`)), head,
    el("div.hg-knights", {}, (b.knights || []).map(k => knightEl(k, view, model, null, null))));
}

function currentBattle(b, view, model, controls, tp) {
  const turn = view.turn || {};
  const sides = [...new Set([...Object.keys(b.top || {}), ...Object.keys(b.bottom || {}), ...(b.knights || []).map(k => k.owner)])];
  const myTargets = tp && controls ? tp : null;
  return el("section.hg-current", {dataset: {tile: b.tile}},
    el("h3", {}, "Battle at ", el("span.hg-tilename", {}, words(b.tile)), el("span.hg-muted", {}, ` · battle turn ${b.turns}`),
      turn.attacker ? el("span", {}, " · attacker: ", el("strong", {style: {color: colour(turn.attacker, model)}}, who(turn.attacker, model))) : null),
    (b.alliances || []).length ? el("p.hg-muted", {}, "Alliances: ", b.alliances.map(a => a.map(s => who(s, model)).join(" + ")).join("; ")) : null,
    allianceEl(model, controls),
    el("div.hg-field", {},
      hourglassEl(b, sides, model),
      el("div.hg-sides", {}, sides.map(side => el("div.hg-side", {style: {"--side": colour(side, model)}},
        el("h4", {}, side === "bandits" ? "Bandits" : who(side, model)),
        el("div.hg-knights", {}, (b.knights || []).filter(k => k.owner === side).map(k => knightEl(k, view, model, controls, myTargets))),
        placedEl(side, turn, model))))),
    myTargets ? targetsBar(b, view, model, controls, myTargets) : null);
}

function hourglassEl(b, sides, model) {
  const part = (name, counts) => el("div", {class: `hg-glass-${name}`, "aria-label": `${name} part`},
    sides.filter(s => counts[s]).map(s => el("span.hg-cubes", {title: `${who(s, model)}: ${counts[s]} on the ${name}`},
      Array.from({length: Math.min(counts[s], 12)}, () => el("span.hg-cube", {style: {background: colour(s, model)}})),
      el("span.hg-cube-n", {}, ` ${counts[s]}`))));
  return el("div.hg-glass", {role: "img", "aria-label": "the Hourglass Board: " + sides.map(s =>
      `${who(s, model)} ${(b.top || {})[s] || 0} on top, ${(b.bottom || {})[s] || 0} below`).join("; ")},
    part("top", b.top || {}), el("div.hg-neck"), part("bottom", b.bottom || {}));
}

function knightEl(k, view, model, controls, tp) {
  const health = ((view.attributes || {})[k.owner] || {}).health || 0;
  const mine = k.owner === model.seat;
  const target = (view.turn || {}).targets ? Object.entries(view.turn.targets).filter(([, t]) => t === k.id).map(([a]) => a) : [];
  const pips = Array.from({length: Math.max(health, k.wounds || 0)}, (_, i) => el("span", {class: "hg-pip" + (i < (k.wounds || 0) ? " hurt" : "")}));
  const body = [el("span.hg-kname", {}, knightName(k.id, model)),
    el("span.hg-wounds", {title: `${k.wounds || 0} wounds of ${health} health`}, pips),
    target.length ? el("span.hg-targeted", {title: "targeted by " + target.map(t => knightName(t, model)).join(", ")}, "targeted") : null];
  const a = (view.attributes || {})[k.owner] || {};
  const title = `${knightName(k.id, model)}: ${k.wounds || 0} wounds of ${health} health · Defense ${a.defense ?? "?"}, ` +
    `Dodge ${a.dodge ?? "?"}, Damage ${a.damage ?? "?"}, Precision ${a.precision ?? "?"}, Delay ${delayOf(a)}`;
  const attrs = {class: "hg-knight" + (mine ? " mine" : ""), style: {"--side": colour(k.owner, model)}, dataset: {knight: k.id}, title};
  if (tp && controls) {
    const opt = tp.options[0];
    if (mine && opt.args && k.id in opt.args) {
      const chosen = targets[k.id] ?? opt.args[k.id][0];
      return el("button", {...attrs, type: "button", class: attrs.class + " selectable" + (selectedKnight === k.id ? " selected" : ""),
        "aria-pressed": selectedKnight === k.id ? "true" : "false",
        onclick: () => { selectedKnight = selectedKnight === k.id ? null : k.id; rerender(); }},
        body, el("span.hg-aim", {}, "→ " + aimLabel(chosen, model)));
    }
    if (selectedKnight && opt.args && (opt.args[selectedKnight] || []).includes(k.id)) {
      return el("button", {...attrs, type: "button", class: attrs.class + " aimable", dataset: {...attrs.dataset, target: k.id},
        onclick: () => { targets[selectedKnight] = k.id; selectedKnight = null; rerender(); }}, body);
    }
  }
  return el("div", {...attrs, tabindex: 0}, body);
}

function targetsBar(b, view, model, controls, tp) {
  const opt = tp.options[0];
  const args = {};
  for (const knight of Object.keys(opt.args || {})) args[knight] = targets[knight] ?? opt.args[knight][0];
  const ok = legal(opt, args);
  return el("div.hg-targets", {},
    el("p", {}, selectedKnight ? `Now click the Knight or Bandit that ${knightName(selectedKnight, model)} attacks.`
      : "Click one of your Knights, then its target. Then attack."),
    el("button.choice.hg-go", {type: "button", disabled: !ok, dataset: {prompt: tp.id, option: opt.id},
      onclick: () => controls.choose(tp.id, opt.id, args)}, "Attack: ",
      Object.entries(args).map(([kn, t]) => `${knightName(kn, model)} → ${aimLabel(t, model)}`).join("; ")));
}

/** A target in short words on the board: "bob's Knight 1", or "no target". */
function aimLabel(target, model) {
  return target === "none" ? "no target" : knightName(target, model);
}

function placedEl(side, turn, model) {
  const placed = (turn.placed || {})[side];
  if (placed === undefined || placed === null) return null;
  if (placed === "face_down") return el("div.hg-card.back", {title: "a Battlecard, face down"}, "face down");
  const info = cardInfo(placed, model);
  return el("div.hg-card", {title: cardTitle(placed, model), tabindex: 0}, (info && info.name) || placed);
}

function allianceEl(model, controls) {
  const p = find(model, "alliance");
  if (!p || !controls) return null;
  const buttons = [];
  for (const o of p.options || []) {
    const partners = (o.args || {}).with;
    if (partners) for (const s of partners) buttons.push(el("button.choice", {type: "button", dataset: {prompt: p.id, option: o.id, argWith: JSON.stringify(s)},
      onclick: () => controls.choose(p.id, o.id, {with: s})}, `Offer an alliance to ${who(s, model)}`));
    else buttons.push(el("button.choice", {type: "button", dataset: {prompt: p.id, option: o.id},
      onclick: () => controls.choose(p.id, o.id, {})}, o.text || words(o.id)));
  }
  return el("div.hg-alliance", {}, el("span", {}, "Alliances: "), buttons);
}

function handEl(view, model, controls) {
  if (!view.my_hand) {
    return el("section.hg-hand", {}, el("h4", {}, "Battle Hands"),
      Object.entries(view.hands || {}).map(([s, n]) => el("span.hg-muted", {}, `${who(s, model)}: ${plural(n, "card")} · `)));
  }
  const dp = find(model, "defend");
  const ap = find(model, "attack_card");
  const cards = view.my_hand.map(c => {
    const info = cardInfo(c.kind, model) || {};
    const attrs = {class: "hg-card", title: cardTitle(c.kind, model), dataset: {card: c.card}};
    let action = null;
    if (controls && dp) {
      const o = dp.options.find(o => ((o.args || {}).card || []).includes(c.card));
      if (o) action = {p: dp, o, args: {card: c.card}};
    }
    if (controls && ap && !action) {
      const o = ap.options[0];
      if (!placing) {
        if ((o.args.card || []).includes(c.card)) {
          action = o.args.discard ? {arm: c.card, p: ap, o} : {p: ap, o, args: {card: c.card}};
        }
      } else if (placing !== c.card && legal(o, {card: placing, discard: c.card})) {
        action = {p: ap, o, args: {card: placing, discard: c.card}, discard: true};
      }
    }
    const label = [el("strong", {}, info.name || c.kind), el("span.hg-mods", {}, cardTitle(c.kind, model).split(": ")[1]?.split(". ")[0] || "")];
    if (!action) return el("div", {...attrs, tabindex: 0, class: attrs.class + (placing === c.card ? " placing" : "")}, label);
    const data = {...attrs.dataset, prompt: action.p.id, option: action.o.id};
    if (action.args) for (const [k, v] of Object.entries(action.args)) data["arg" + k[0].toUpperCase() + k.slice(1)] = JSON.stringify(v);
    return el("button", {...attrs, type: "button", class: attrs.class + " playable" + (action.discard ? " discard" : ""), dataset: data,
      onclick: () => {
        if (action.arm) { placing = action.arm; rerender(); return; }
        placing = null;
        controls.choose(action.p.id, action.o.id, action.args);
      }}, label);
  });
  const hint = dp && controls ? `${defendWords(dp, model)}Click the Battlecard to place face down.`
    : ap && controls ? (placing ? "Now click the card to discard (the other players do not see which)." : "Attack: click the Battlecard to place face up.")
    : null;
  return el("section.hg-hand", {},
    el("h4", {}, `${who(model.seat, model) === "you" ? "Your" : whose(model.seat, model)} Battle Hand (${view.my_hand.length}) · discards ${(view.my_discards || []).length}`),
    hint ? el("p.hg-hint", {}, hint, placing ? el("button", {type: "button", onclick: () => { placing = null; rerender(); }}, "Cancel") : null) : null,
    el("div.hg-cards", {}, cards),
    el("p.hg-muted", {}, "Others: ", Object.entries(view.hands || {}).filter(([s]) => s !== model.seat)
      .map(([s, n]) => `${who(s, model)} ${plural(n, "card")} in hand, ${(view.discards || {})[s] || 0} discarded`).join(" · "),
      ` · Bandit deck ${view.bandit_deck ?? 0}`));
}

/** "Your Knight 2 is targeted by alice's Knight 1. " from the defend option's `targeted`. */
function defendWords(prompt, model) {
  const targeted = ((prompt.options || [])[0] || {}).targeted;
  if (!targeted || !targeted.length) return "Defend: ";
  return "Defend: " + targeted.map(t => `${knightName(t.knight.knight, model)} is targeted by ` +
    t.by.map(a => knightName(a.knight, model)).join(" and ")).join("; ") + ". ";
}

function attributesEl(view, model) {
  const rows = Object.entries(view.attributes || {}).map(([s, a]) => el("tr", {},
    el("th", {style: {color: colour(s, model)}}, s === "bandits" ? "Bandits" : who(s, model)),
    ["health", "defense", "dodge", "damage", "precision"].map(k => el("td", {}, a[k])), el("td", {}, delayOf(a))));
  return el("details.hg-attrs", {}, el("summary", {}, "Attributes"),
    el("table", {}, el("tr", {}, el("th", {}, ""), ["Health", "Defense", "Dodge", "Damage", "Precision", "Delay"].map(h => el("th", {}, h))), rows));
}

// --- the log ---------------------------------------------------------------------------------
export function describe(event, model) {
  const d = event.data || {};
  const s = x => x === "bandits" ? "the Bandits" : who(x, model);
  const kind = k => (cardInfo(k, model) || {}).name || k;
  const tile = d.tile ? ` at ${words(d.tile)}` : "";
  switch (event.kind) {
    case "match_started": return `The battle phase begins: ${(d.seats || []).join(", ")}; ${plural((d.battles || []).length, "battle")}.`;
    case "battle_started": return `The battle${tile} starts: ${(d.sides || []).map(s).join(", ")}.`;
    case "player_turn_ended": return d.resolver ? `${s(d.seat)} ${d.seat === model.seat ? "have" : "has"} no battle left: ${s(d.resolver)} resolve${d.resolver === model.seat ? "" : "s"} next.` : null;
    case "alliance_answered": return d.seat === model.seat && "with" in d
      ? (d.with ? `You offered an alliance to ${s(d.with)}.` : "You chose to fight alone.") : null;
    case "alliances_formed": return (d.alliances || []).length ? `Alliances${tile}: ${d.alliances.map(a => a.map(s).join(" + ")).join("; ")}.` : `No alliance${tile}.`;
    case "cubes_placed": return `Cubes placed${tile}: ${Object.entries(d.top || {}).map(([k, v]) => `${s(k)} ${v}`).join(", ")}.`;
    case "hourglass_turned": return `The hourglass turns${tile}: ${plural(d.moved, "cube")} of each side go down, ${s(d.first)} first.`;
    case "battle_turn": return `Battle turn ${d.turn}${tile}: ${s(d.attacker)} attack${d.attacker === model.seat ? "" : "s"}.`;
    case "targets_assigned": {
      const t = Object.entries(d.targets || {});
      return t.length ? `${s(d.attacker)} target${d.attacker === model.seat ? "" : "s"} ` + t.map(([a, b]) => `${knightName(b, model)} with ${knightName(a, model)}`).join(", ") + "." : `${s(d.attacker)} target nobody.`;
    }
    case "discards_drawn": return `${s(d.side || d.seat)} took back the discard pile (${plural(d.cards ?? 0, "card")}).`;
    case "no_card": return `${s(d.side || d.seat)} had no Battlecard to place.`;
    case "card_placed": return `${s(d.side)} placed a Battlecard ${d.face === "up" ? `face up: ${d.name || kind(d.card)}` : d.kind ? `face down (${d.name || kind(d.kind)})` : "face down"}.`;
    case "card_discarded": return `${s(d.side)} discarded a card${d.kind ? ` (${d.name || kind(d.kind)})` : ""}.`;
    case "cards_revealed": return "Revealed: " + Object.entries(d.cards || {}).map(([k, v]) => `${s(k)} ${kind(v)}`).join(", ") + ".";
    case "wounds_changed": return `${knightName(d.knight, model)}: ${d.change > 0 ? "+" : ""}${d.change} wounds from a Battlecard (${d.wounds} now).`;
    case "attack": return `${knightName(d.knight, model)} → ${knightName(d.target, model)}: ${d.outcome}` +
      (d.outcome !== "gone" && d.outcome !== "miss" ? `, ${plural(d.wounds_added ?? 0, "wound")}` : "") + (d.tie && d.tie_to ? ` (tie to ${s(d.tie_to)})` : "") + ".";
    case "knight_returned": return `${knightName(d.knight, model)} is beaten and leaves the battle (${plural(d.wounds ?? 0, "wound")}).`;
    case "side_left": return `${s(d.side)} ${d.side === model.seat ? "have" : "has"} no one left${tile}.`;
    case "turn_ended": return null;
    case "battle_ended": return `The battle${tile} is over (${words(d.reason || "")}): ${(d.remaining || []).map(s).join(", ") || "nobody"} remain${(d.remaining || []).length === 1 ? "s" : ""}.`;
    case "prompt": return null;
    default: return describeCommon(event, model);
  }
}

// --- moments (moments.js): a Knight sent back to its owner's play area -----------------------
export function moment(event, model) {
  const d = event.data || {};
  if (event.kind === "knight_returned") return {kind: "knight_returned", text: `${knightName(d.knight, model)} is sent back!`};
  return null;
}
