// What every page shares: building elements, reading the address, loading a ruleset's
// drawing module, and saying what the connection is doing in words.
import { explain } from "./battlehall.js";

/** An element: el("a", {href: "/", class: "x", dataset: {seq: 3}, onclick: fn}, "text", child). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "dataset") Object.assign(node.dataset, value);
    else if (name.startsWith("on") && typeof value === "function") node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

/** The match id: the last part of the path (/play/m_..., /watch/m_..., /replay/m_...). */
export function matchIdFromPath() {
  return decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
}

/** The fields of the URL fragment (#token=...): never sent to the server in a request. */
export function fragment() {
  return new URLSearchParams(location.hash.replace(/^#/, ""));
}

/** This server's address (pages talk to the server that served them). */
export const BASE = location.origin;

/** Links to share: the token goes in the fragment. */
export function playLink(match, token) {
  return `${BASE}/play/${encodeURIComponent(match)}#token=${encodeURIComponent(token)}`;
}
export function watchLink(match, token) {
  return `${BASE}/watch/${encodeURIComponent(match)}${token ? `#token=${encodeURIComponent(token)}` : ""}`;
}
/** The caster page: every hand face up, at the caster delay; only the caster token opens it. */
export function castLink(match, token) {
  return `${BASE}/cast/${encodeURIComponent(match)}#token=${encodeURIComponent(token)}`;
}
/** The replay page; a private match's replay opens with one of its tokens, in the fragment. */
export function replayLink(match, token) {
  return `${BASE}/replay/${encodeURIComponent(match)}${token ? `#token=${encodeURIComponent(token)}` : ""}`;
}

/** A player's name with its profile's tag ("Alice#4f2a"): two players whose names look
 * alike have different tags (docs/protocol.md "Display names"). The name is a <bdi>, so a
 * right-to-left name cannot carry the tag to its other side. Text only, never HTML. */
export function playerName(name, tag) {
  return [el("bdi", {}, name), tag ? el("span", { class: "tag" }, `#${tag}`) : null];
}

/** At most `max` characters of `text` (whole code points), with "…" when it was cut. */
export function truncate(text, max) {
  const chars = Array.from(String(text).slice(0, 2 * max + 2));
  return chars.length > max ? chars.slice(0, max - 1).join("") + "…" : chars.join("");
}

// -- ruleset drawing modules -------------------------------------------------------------

/** Draws any view: its JSON, and every option of every prompt as a button. Used when no
 * module for the ruleset (nor rulesets/generic.js) can be loaded. */
export const fallbackDrawing = {
  render(root, model, controls) {
    root.replaceChildren();
    if (model.prompts && model.prompts.length) {
      const bar = el("div", { class: "prompt-bar panel" });
      for (const p of model.prompts) {
        const group = el("div", { class: "row", role: "group", "aria-label": p.text || p.kind },
                         el("strong", {}, p.text || p.kind));
        for (const o of p.options || []) {
          group.append(el("button", {
            type: "button", dataset: { prompt: p.id, option: o.id }, disabled: !controls,
            onclick: () => controls && controls.choose(p.id, o.id, firstArgs(o)),
          }, o.text || o.id, p.default === o.id ? " (default)" : ""));
        }
        bar.append(group);
      }
      root.append(bar);
    }
    root.append(el("pre", { class: "generic-view", "aria-label": "the view" }, JSON.stringify(model.view, null, 2)));
  },
  describe(event) {
    const data = JSON.stringify(event.data);
    return `${event.kind.replaceAll("_", " ")} ${data.length > 120 ? data.slice(0, 117) + "…" : data}`;
  },
};

function firstArgs(option) {
  const source = option.combos && option.combos.length ? option.combos[0] : option.args || {};
  return Object.fromEntries(Object.entries(source).map(([k, v]) => [k, v[0]]));
}

const drawings = new Map();

/** The ruleset's drawing module (rulesets/<name>.js), else rulesets/generic.js, else the fallback. */
export function loadDrawing(ruleset) {
  if (!drawings.has(ruleset)) drawings.set(ruleset, (async () => {
    if (/^[a-z0-9_-]+$/.test(ruleset)) {
      addStyle(`/static/rulesets/${ruleset}.css`);
      try { return await import(`/static/rulesets/${ruleset}.js`); } catch { /* not written yet */ }
    }
    try { return await import("/static/rulesets/generic.js"); } catch { /* not written yet */ }
    return fallbackDrawing;
  })());
  return drawings.get(ruleset);
}

function addStyle(href) {
  if (document.querySelector(`link[href="${href}"]`)) return;
  const link = el("link", { rel: "stylesheet", href });
  link.addEventListener("error", () => link.remove()); // a ruleset without a stylesheet of its own
  document.head.append(link);
}

/** One line for the event log: the module's words, else the fallback's; null to skip. */
export function describeEvent(drawing, event, model) {
  // A judge's end of the match is the judge's, in every ruleset: who ruled what, and why.
  const ended = event.kind === "match_ended" && event.data;
  if (ended && ended.ruling) return `${resultText(ended)}${ended.ruling.note ? ` (${ended.ruling.by}: “${ended.ruling.note}”)` : ""}`;
  try {
    if (drawing.describe) return drawing.describe(event, model);
  } catch (err) {
    console.error("describe failed", err);
  }
  return fallbackDrawing.describe(event);
}

/** Render through the module; a module that throws leaves the fallback drawing and a note. */
export function draw(drawing, root, model, controls) {
  try {
    drawing.render(root, model, controls);
  } catch (err) {
    console.error("render failed", err);
    fallbackDrawing.render(root, model, controls);
    root.prepend(el("p", { class: "banner warn" }, "This board could not be drawn; showing the raw view instead."));
  }
}

// -- what is going on, in words ----------------------------------------------------------

/** A banner element's controller: show(kind, text) with kind "info" | "warn" | "error", clear(). */
export function banner(node) {
  return {
    show(kind, text) {
      node.className = `banner ${kind}`;
      node.setAttribute("role", kind === "error" ? "alert" : "status");
      node.textContent = text;
      node.hidden = false;
    },
    clear() {
      node.hidden = true;
      node.textContent = "";
    },
  };
}

/** The words for a connection status of BattlehallClient. */
export function statusText(status, detail = {}) {
  switch (status) {
    case "connecting": return "Connecting…";
    case "open": return "Connected.";
    case "reconnecting": {
      const wait = detail.retryInMs ? ` in ${Math.max(1, Math.round(detail.retryInMs / 1000))} s` : "";
      return `Connection lost; reconnecting${wait}. Your place in the match is kept.`;
    }
    case "closed": return detail.code ? explain(detail.code, detail.reason) : detail.reason === "ended" ? "The match is over." : "Disconnected.";
    default: return status;
  }
}

/** A sentence for an error from request() or the client. */
export function errorText(err) {
  if (!err) return "";
  if (err.code) return explain(err.code, err.message);
  return err.message || String(err);
}

/** A result in words: "alice wins (realms)", "draw", "aborted". */
export function resultText(result) {
  if (!result) return "";
  if (result.reason === "aborted") return "Aborted by the operator.";
  if (result.reason === "abandoned") return "Abandoned: nobody played it for too long.";
  if (result.reason === "judge_void") return "Voided by a judge: no result.";
  if (result.reason === "judge_ruling" && result.ruling) {
    const ruled = result.ruling.ruling === "game_win" ? "a game win" : "a game loss";
    return `A judge ruled ${ruled} to ${result.ruling.seat}: ${(result.winners || []).join(" and ")} ${(result.winners || []).length > 1 ? "win" : "wins"}.`;
  }
  if (result.draw) return `Draw (${result.reason}).`;
  const winners = result.winners || [];
  if (!winners.length) return `Over: no winner (${result.reason}).`;
  return `${winners.join(" and ")} ${winners.length > 1 ? "win" : "wins"} (${result.reason}).`;
}

/** Milliseconds as "1:05" or "12 s". */
export function duration(ms) {
  if (ms === null || ms === undefined) return "";
  const s = Math.max(0, Math.round(ms / 1000));
  return s >= 60 ? `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}` : `${s} s`;
}

/** A text field with a copy button, for a link to share. */
export function copyRow(label, value, attrs = {}) {
  const input = el("input", { type: "text", readonly: true, value, "aria-label": label, ...attrs });
  const button = el("button", {
    type: "button",
    onclick: async () => {
      input.select();
      try { await navigator.clipboard.writeText(value); button.textContent = "Copied"; } catch { document.execCommand && document.execCommand("copy"); button.textContent = "Selected"; }
      setTimeout(() => { button.textContent = "Copy"; }, 1500);
    },
  }, "Copy");
  return el("div", { class: "copy-row" }, input, button, el("a", { href: value, target: "_blank", rel: "noopener" }, "Open"));
}

// -- what a stream page shows: the match's name, a table that fits its box, running clocks --

let rulesetList = null;

/** The ruleset's title as GET /rulesets gives it ("Spellfire"); its name, capitalised, when
 * the server says none or cannot be asked. */
export async function rulesetTitle(name) {
  rulesetList ||= fetch(`${BASE}/rulesets`).then((r) => r.json()).then((all) => all.rulesets || []).catch(() => []);
  const found = (await rulesetList).find((r) => r.name === name);
  if (found && found.title) return found.title;
  const text = String(name || "").replace(/[_-]+/g, " ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** A match in words, for a heading and a page title: "Spellfire: ana vs bot-1". Seats a
 * server's bot plays are marked "(bot)" when `bots` is given. Never the match id. */
export async function matchName(ruleset, seats, bots = null) {
  const names = (seats || []).map((s) => (bots && bots[s] ? `${s} (bot)` : s));
  return `${await rulesetTitle(ruleset)}: ${names.join(" vs ")}`;
}

/** The clocks a drawing put in `root` (`.clock[data-deadline]`, seatSummary's), in words:
 * "0:23 left", then "time bank 1:05", as the player's page writes them. `now` is the server's clock. */
export function tickClocks(root, now) {
  for (const node of root.querySelectorAll(".clock[data-deadline]")) {
    const left = Number(node.dataset.deadline) - now;
    const bank = Number(node.dataset.bank) || 0;
    const countdown = node.classList.contains("countdown"); // "away in 0:58": the time alone
    const text = left > 0 ? (countdown ? mmss(left) : `${mmss(left)} left`)
      : bank + left > 0 ? `time bank ${mmss(bank + left)}` : "0:00";
    if (node.textContent !== text) node.textContent = text;
  }
}

function mmss(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

const TABLE_PARTS = ".table-opponents, .table-middle, .table-mine, .table-hand, .hand-cards";

/** How much taller (or wider) `root`'s drawing is than its box: its own overflow plus what
 * each region of the table that scrolls inside it hides (a stream cannot scroll, nor can a
 * viewer of the whole table be asked to). 1 when it fits. `zoom`: the zoom its children are drawn at
 * (their sizes are in their own, zoomed, pixels). */
function overflowOf(root, zoom) {
  const h = Math.max(1, root.clientHeight);
  const w = Math.max(1, root.clientWidth);
  let needH = root.scrollHeight;
  let needW = root.scrollWidth;
  // The table's own regions (table.css), whose boxes the table's layout gives: drawn smaller,
  // their content fits. A drawing's own scrolling list (a discard pile of at most 8rem) is
  // its choice, and would not fit at any size.
  for (const node of root.querySelectorAll(TABLE_PARTS)) {
    if (!node.clientHeight && !node.clientWidth) continue;
    const style = getComputedStyle(node);
    if (/(auto|scroll)/.test(style.overflowY) && node.scrollHeight > node.clientHeight + 1) {
      needH += (node.scrollHeight - node.clientHeight) * zoom;
    }
    if (/(auto|scroll)/.test(style.overflowX) && node.scrollWidth > node.clientWidth + 1) {
      needW += (node.scrollWidth - node.clientWidth) * zoom;
    }
  }
  return Math.max(needH / h, needW / w);
}

/** Draw `root`'s content smaller until the whole of it fits its box (no smaller than
 * `min`): the stream pages show every seat's board whatever the window or ?scale=. The
 * box keeps its size; only what is inside shrinks (CSS zoom on the box's children). */
export function fitToBox(root, min = 0.5) {
  const parts = [...root.children];
  if (!parts.length || !root.clientHeight) return 1;
  const set = (zoom) => { for (const part of parts) { if (zoom === 1) part.style.removeProperty("zoom"); else part.style.zoom = String(zoom); } };
  set(1);
  let zoom = 1;
  for (let i = 0; i < 6; i++) {
    const over = overflowOf(root, zoom);
    if (over <= 1.005 || zoom <= min) break;
    zoom = Math.max(min, Math.floor((zoom / Math.max(over, 1.02)) * 100) / 100);
    set(zoom);
  }
  root.dataset.fit = String(zoom);
  return zoom;
}
