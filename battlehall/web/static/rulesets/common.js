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
/** A line that shows the details (the title) of whatever card, unit or square is pointed
 * at, focused or tapped in `root`: hover does not exist on a phone, a tap does. */
export function detailsLine(root, hint = "Point at or tap a card to read it.") {
  if (!detailed.has(root)) {
    detailed.add(root);
    const show = e => {
      const target = e.target.closest && e.target.closest("[title]");
      const line = root.querySelector(".card-details");
      if (target && line && root.contains(target) && target.title) {
        line.textContent = target.title;
        shownText.set(root, target.title);
      }
    };
    for (const kind of ["mouseover", "focusin", "click"]) root.addEventListener(kind, show);
  }
  return el("div.card-details", {"aria-live": "polite"}, shownText.get(root) || hint);
}
