// Small helpers shared by the ruleset drawing modules: building elements, loading a
// module's stylesheet, the server's card catalogue, and answering a prompt from the board.

/** el("div.card.big", {title: "x", onclick}, child, "text", [more]) */
export function el(spec, attrs, ...children) {
  const [tag, ...classes] = spec.split(".");
  const node = document.createElement(tag || "div");
  if (classes.length) node.className = classes.join(" ");
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "style" && typeof value === "object") {
      for (const [prop, v] of Object.entries(value)) node.style.setProperty(prop.replace(/[A-Z]/g, c => "-" + c.toLowerCase()), v);
    }
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : String(child));
  }
}

/** Load a stylesheet once (each ruleset module loads its own next to it). */
export function useCss(href) {
  if ([...document.querySelectorAll("link[rel=stylesheet]")].some(l => l.href === href)) return;
  document.head.append(el("link", {rel: "stylesheet", href}));
}

let catalogue = null;
/** The server's GET /rulesets, fetched once: card sets with each card's details. */
export async function rulesetInfo(name) {
  catalogue ||= fetch("/rulesets").then(r => r.json()).catch(() => ({rulesets: []}));
  const all = await catalogue;
  return (all.rulesets || []).find(r => r.name === name) || null;
}

/** A button that answers `promptId` with `optionId` and `args`; carries the test hooks. */
export function choice(controls, promptId, optionId, args, label, attrs = {}) {
  const data = {prompt: promptId, option: optionId};
  for (const [name, value] of Object.entries(args || {})) data["arg" + name[0].toUpperCase() + name.slice(1)] = JSON.stringify(value);
  return el("button.choice", {type: "button", dataset: data, ...attrs,
    onclick: () => controls && controls.choose(promptId, optionId, args || {})}, label);
}

/** Every option of the open prompts as [prompt, option] pairs. */
export function optionsOf(model) {
  const out = [];
  for (const p of model.prompts || []) for (const o of p.options || []) out.push([p, o]);
  return out;
}

/** True when `args` is a legal answer to `option` (every value listed; a combo holds them all). */
export function legal(option, args) {
  const lists = option.args || {};
  const names = Object.keys(lists);
  if (names.length !== Object.keys(args).length) return false;
  const has = (list, v) => list.some(x => same(x, v));
  if (!names.every(n => n in args && has(lists[n], args[n]))) return false;
  if (!option.combos) return true;
  return option.combos.some(c => names.every(n => has(c[n] || [], args[n])));
}

export function same(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The player names as given, but "you" for the viewer's own seat. */
export function who(seat, model) {
  return model && model.role !== "replay" && seat === model.seat ? "you" : String(seat);
}

/** "your" for the viewer's own seat, else "bob's". */
export function whose(seat, model) {
  return who(seat, model) === "you" ? "your" : `${seat}'s`;
}

export function plural(n, word, many = word + "s") {
  return `${n} ${n === 1 ? word : many}`;
}

/** A short, friendly summary of a result (shared by every ruleset's describe). */
export function resultText(result, model) {
  if (!result) return "";
  if (result.reason === "aborted") return "The match was stopped by the operator.";
  if (result.reason === "abandoned") return "Nobody played the match for too long: it was ended.";
  if (result.reason === "judge_rewind") return "A judge took the match back to before a decision; it goes on as a new match.";
  const winners = result.winners || [];
  const why = String(result.reason || "").replace(/_/g, " ");
  if (!winners.length) return `Draw (${why}).`;
  return `${winners.map(s => who(s, model)).join(" and ")} won (${why}).`;
}

/** describe() of the kinds every ruleset shares; null when the kind is the ruleset's. */
export function describeCommon(event, model) {
  const d = event.data || {};
  switch (event.kind) {
    case "prompt":
      return `${who(d.seat, model)} ${d.seat === model.seat ? "are" : "is"} to ${String(d.kind || "answer").replace(/_/g, " ")}` +
        (d.window ? " (reaction window)" : "");
    case "prompt_closed":
      return d.reason === "timeout" ? `${who(d.seat, model)}: time ran out, the default was played` : null;
    case "match_ended":
      return "Match over: " + resultText(d, model);
    case "seat_resigned":
      return `${who(d.seat, model)} resigned`;
    case "seat_away":
      return `${who(d.seat, model)} ${d.seat === model.seat ? "are" : "is"} away` +
        (model && model.whenAway === "bot" ? ": the bot plays the seat until " + (d.seat === model.seat ? "you are" : "they are") + " back" : "");
    case "seat_back":
      return `${who(d.seat, model)} ${d.seat === model.seat ? "are" : "is"} back`;
    case "judge": {  // the operator (or a judge) acted on the clocks: docs/protocol.md, Operator routes
      const by = d.by === "operator" ? "The operator" : `Judge ${d.by}`;
      if (d.action === "pause") return `${by} paused the clocks: nothing runs until they are resumed`;
      if (d.action === "resume") return `${by} resumed the clocks`;
      if (d.action === "add_time") return `${by} added ${Math.round(d.ms / 1000)} s to ${who(d.seat, model)}'s bank`;
      return `${by}: ${String(d.action).replace(/_/g, " ")}`;
    }
    default:
      return undefined;
  }
}

/** A level of the server's bots in the lobby's words. */
export function botLevelText(level) {
  return {greedy: "strong", random: "easy"}[level] || words(level);
}

/** Human words for an identifier like "choose_defender". */
export function words(id) {
  return String(id).replace(/[_-]+/g, " ");
}

const detailed = new WeakSet();
const shownText = new WeakMap();  // root -> the details last shown, kept across redraws

/** The text a card, unit or square shows when pointed at: its data-details (else its title). */
function detailsOf(node) {
  return node.dataset.details || node.getAttribute("title") || "";
}

/** The floating panel that shows the details of whatever card, unit or square is pointed at,
 * focused or tapped in `root` (hover does not exist on a phone, a tap does). It is
 * position: fixed beside the thing pointed at, so it never moves anything under the
 * pointer; its text stays after the pointer leaves, for a screen reader to read again. */
export function detailsLine(root, hint = "Point at or tap a card to read it.") {
  if (!detailed.has(root)) {
    detailed.add(root);
    const show = e => {
      const target = e.target.closest && e.target.closest("[data-details], [title]");
      const panel = root.querySelector(".card-details");
      if (!target || !panel || !root.contains(target) || target === panel || panel.contains(target)) return;
      const text = detailsOf(target);
      if (!text) return;
      panel.textContent = text;
      shownText.set(root, text);
      place(panel, target);
    };
    const hide = e => {
      const panel = root.querySelector(".card-details");
      if (!panel) return;
      const to = e.relatedTarget;
      if (to && to.closest && to.closest("[data-details], [title]") && root.contains(to)) return;
      panel.classList.remove("shown");
    };
    for (const kind of ["mouseover", "focusin", "click"]) root.addEventListener(kind, show);
    for (const kind of ["mouseout", "focusout"]) root.addEventListener(kind, hide);
  }
  return el("div.card-details", {role: "tooltip", "aria-live": "polite"}, shownText.get(root) || hint);
}

/** Put the panel beside `target`, inside the viewport: above it when there is room, else below. */
function place(panel, target) {
  panel.classList.add("shown");
  const box = target.getBoundingClientRect();
  const width = Math.min(22 * 16, window.innerWidth - 16);
  panel.style.width = `${width}px`;
  const left = Math.max(8, Math.min(box.left, window.innerWidth - width - 8));
  panel.style.left = `${left}px`;
  const height = panel.offsetHeight || 80;
  const top = box.top - height - 6 >= 8 ? box.top - height - 6 : Math.min(box.bottom + 6, window.innerHeight - height - 8);
  panel.style.top = `${Math.max(8, top)}px`;
}

// --- the table: regions every ruleset's drawing shares (table.css) ------------------------

/** A term explained where it appears: `<abbr title="Attack Value: ...">AV</abbr>`. */
export function term(text, meaning) {
  return el("abbr.term", {title: meaning}, text);
}

/**
 * A card drawn as a card, from its data: a frame coloured by `frame` (its type), the name,
 * a badge with the number that matters (a level, "+3", "AV 5"), the type line as
 * GET /rulesets spells it, its other numbers, a mark (world, class). `details` is the full
 * text the zoom panel shows. `tag` "button" makes it a control (attrs carry its handlers).
 * size: "mini" (on a board: name and badge), "hand" (everything but the rules text).
 */
export function cardFace({name, type = "", frame = "", badge = null, badgeTitle = null, numbers = [], mark = null,
                          details = "", size = "hand", tag = "div", cls = "", attrs = {}, extra = null}) {
  const classes = ["card", `card-${size}`, frame ? `frame-${frame}` : "", cls].filter(Boolean).join(" ");
  const {class: more, dataset, ...rest} = attrs;
  return el(tag, {tabindex: tag === "button" ? null : 0, ...rest, class: more ? `${classes} ${more}` : classes,
                  dataset: {...(dataset || {}), details: details || name}},
    el("span.card-top", {}, el("span.card-name", {}, name),
      badge !== null && badge !== undefined && badge !== "" ? el("span.card-badge", {title: badgeTitle}, String(badge)) : null),
    type ? el("span.card-type", {}, type) : null,
    numbers.length ? el("span.card-numbers", {}, numbers.filter(Boolean).join(" · ")) : null,
    mark ? el("span.card-mark", {}, mark) : null,
    extra);
}

/** Your hand along the bottom: a region named "Your hand" (or `label`), its cards in a row. */
export function handRegion(cards, label = "Your hand", extra = null) {
  return el("section.table-hand", {role: "region", "aria-label": label},
    el("h3.zone-label", {}, label, el("span.zone-count", {}, ` (${cards.length})`)), extra,
    el("div.hand-cards", {}, cards.length ? cards : el("span.zone-empty", {}, "no cards")));
}

/** A labelled zone (a pool, a formation, a discard pile): its name always shown. */
export function zone(label, content, attrs = {}) {
  return el("section.zone", {"aria-label": label, ...attrs}, el("h4.zone-label", {}, label), content);
}

/**
 * One seat's summary: its name (visible), what plays it, whether it is to act with its
 * clock, whether its player is connected, and the few numbers that decide the game
 * (`stats`: [text, meaning] pairs, drawn as chips with their meaning as a tooltip).
 * The frame (play.js, spectate.js) fills model.deciding (seat -> the public part of its
 * open prompts, with deadlines) and model.presence (seat -> {connected, awayAt}).
 */
export function seatSummary(seat, model, {stats = [], body = null, cls = "", colour = null} = {}) {
  const view = model.view || {};
  const over = !!view.result;
  const deciding = over ? [] : ((model.deciding || {})[seat] || []);
  const level = (model.bots || {})[seat];
  const presence = (model.presence || {})[seat];
  const away = (view.away || []).includes(seat);
  const resigned = (view.resigned || []).includes(seat);
  const you = model.role !== "replay" && seat === model.seat;
  const state = resigned ? "resigned" : away ? "away" : presence && presence.connected === false ? "disconnected" : null;
  const deadline = deciding.map(p => p.deadline).filter(d => d != null).sort((a, b) => a - b)[0];
  const standIn = !level && away && model.whenAway === "bot";  // the greedy bot plays the away seat
  return el("section", {class: "seat-summary" + (deciding.length ? " to-act" : "") + (you ? " you" : "") + (cls ? " " + cls : ""),
                        "aria-label": you ? `${seat} (you)` : seat,
                        dataset: {seat, state: state || null, bot: level || (standIn ? "stand-in" : null)},
                        style: colour ? {"--side": colour} : null},
    el("div.seat-line", {},
      el("span.seat-name", {}, seat), you ? el("span.seat-you", {}, " (you)") : null,
      level ? el("span.seat-bot", {title: `The server's ${botLevelText(level)} bot plays this seat`}, `bot · ${botLevelText(level)}`) : null,
      deciding.length ? el("span.seat-turn", {}, deciding.some(p => !p.window) ? "to act" : "may respond") : null,
      deadline != null ? el("span.clock", {dataset: {deadline, bank: 0}}, "") : null),
    state ? el("div.seat-state", {}, state === "disconnected"
      ? ["disconnected", presence.awayAt ? [" — away in ", el("span.clock.countdown", {dataset: {deadline: presence.awayAt, bank: 0}}, "")] : null]
      : state === "away" ? (model.whenAway === "bot" ? "away — the bot plays for them" : "away") : "resigned") : null,
    stats.length ? el("div.seat-stats", {}, stats.filter(Boolean).map(([text, meaning]) => el("span.stat", {title: meaning || null}, text))) : null,
    body);
}

/**
 * The table: opponents along the top, the contested thing in the middle, your own board
 * and your hand along the bottom. Each part may be null. The board region fills the
 * frame's box (the page does not scroll): the middle scrolls on its own when it must.
 */
export function table({opponents = [], middle = null, mine = null, hand = null, cls = ""}) {
  return el("div", {class: "table" + (cls ? " " + cls : "")},
    opponents.length ? el("div.table-opponents", {role: "list", "aria-label": "Opponents"},
      opponents.map(o => el("div.table-opponent", {role: "listitem"}, o))) : null,
    el("div.table-middle", {}, middle),
    mine ? el("div.table-mine", {}, mine) : null,
    hand);
}

/**
 * What is new since the last drawing, for a short arrival animation (table.css `.arrived`,
 * none under prefers-reduced-motion): `mark(id)` is "arrived" for an id the previous
 * drawing did not have, "" otherwise and on the first drawing (a page opened mid-match
 * animates nothing). Call `next()` once per drawing, before marking.
 */
export class Arrivals {
  constructor() { this.before = null; this.now = new Set(); }
  next() { this.before = this.before === null && !this.now.size ? null : this.now; this.now = new Set(); }
  mark(id) {
    if (id === undefined || id === null) return "";
    this.now.add(String(id));
    return this.before && !this.before.has(String(id)) ? "arrived" : "";
  }
}

/**
 * How a ruleset's How to play is written (each ruleset module exports `howTo` in this shape):
 * {goal: "what you are trying to do", turn: ["a step", ...], prompts: [["the prompt", "what it
 * asks"], ...], glossary: [["term", "what it means"], ...]}. The frame draws it in a dialog.
 */
export function howToEl(howTo, title) {
  if (!howTo) return el("p", {}, "This ruleset has no guide yet.");
  return el("div.howto", {},
    el("h2", {id: "howto-title"}, `How to play ${title || ""}`.trim()),
    howTo.goal ? el("p.howto-goal", {}, howTo.goal) : null,
    (howTo.turn || []).length ? [el("h3", {}, "A turn"), el("ol", {}, howTo.turn.map(t => el("li", {}, t)))] : null,
    (howTo.prompts || []).length ? [el("h3", {}, "What you are asked"),
      el("dl.howto-prompts", {}, howTo.prompts.flatMap(([name, text]) => [el("dt", {}, name), el("dd", {}, text)]))] : null,
    (howTo.glossary || []).length ? [el("h3", {}, "Words on the table"),
      el("dl.howto-glossary", {}, howTo.glossary.flatMap(([name, text]) => [el("dt", {}, name), el("dd", {}, text)]))] : null);
}
