// Display parameters in the page's query string, for broadcasting software (a browser
// source): ?bg=transparent&size=1920x1080&scale=1.5&panels=board,clocks&type=large.
// Any of them (or overlay=1) turns on overlay mode: nothing to click, no scrollbars.
// A value that does not parse is ignored (the default stays) and listed in
// <html data-overlay-ignored>. docs/streaming.md documents them.

export const PANELS = ["title", "spectators", "clocks", "moments", "board", "log"];
const NAMES = ["overlay", "bg", "size", "scale", "panels", "type", "hold"];

/** The parameters of `search` (location.search): {overlay, bg, width, height, scale, panels, large, holdMs, ignored}. */
export function readParams(search) {
  const q = new URLSearchParams(search);
  const out = { overlay: false, bg: null, width: null, height: null, scale: 1, panels: null, large: false,
                holdMs: null, ignored: [] };
  const bad = (name) => out.ignored.push(name);
  if (q.has("overlay")) {
    if (["1", "true", "yes", ""].includes(q.get("overlay"))) out.overlay = true; else bad("overlay");
  }
  if (q.has("bg")) {
    const bg = q.get("bg").toLowerCase();
    if (bg === "transparent") out.bg = "transparent";
    else if (/^[0-9a-f]{3}([0-9a-f]{3})?$/.test(bg)) out.bg = `#${bg}`;
    else bad("bg");
  }
  if (q.has("size")) {
    const m = /^(\d{3,4})x(\d{3,4})$/.exec(q.get("size"));
    if (m && +m[1] >= 200 && +m[1] <= 7680 && +m[2] >= 200 && +m[2] <= 4320) [out.width, out.height] = [+m[1], +m[2]];
    else bad("size");
  }
  if (q.has("scale")) {
    const scale = Number(q.get("scale"));
    if (Number.isFinite(scale) && scale >= 0.25 && scale <= 4) out.scale = scale; else bad("scale");
  }
  if (q.has("panels")) {
    const panels = q.get("panels").split(",").map((p) => p.trim()).filter(Boolean);
    if (panels.length && panels.every((p) => PANELS.includes(p))) out.panels = new Set(panels); else bad("panels");
  }
  if (q.has("type")) {
    if (q.get("type") === "large") out.large = true; else if (q.get("type") !== "normal") bad("type");
  }
  if (q.has("hold")) {
    const hold = Number(q.get("hold"));
    if (Number.isFinite(hold) && hold >= 0 && hold <= 60) out.holdMs = hold * 1000; else bad("hold");
  }
  out.overlay = out.overlay || NAMES.some((name) => name !== "hold" && q.has(name) && !out.ignored.includes(name));
  return out;
}

/** Is the panel shown (every panel is, unless `panels` names some)? */
export function shows(params, panel) {
  return !params.panels || params.panels.has(panel);
}

/** Apply the parameters to the page: classes and variables on <html>, hidden panels. */
export function applyParams(params, doc = document) {
  const root = doc.documentElement;
  if (params.ignored.length) root.dataset.overlayIgnored = params.ignored.join(",");
  if (!params.overlay) return;
  root.classList.add("overlay");
  if (params.bg === "transparent") root.classList.add("transparent");
  else if (params.bg) { // a key colour: every text keeps a solid backdrop over it (stream.css)
    root.classList.add("keyed");
    root.style.setProperty("--overlay-bg", params.bg);
  }
  if (params.width) {
    root.classList.add("fixed-canvas");
    root.style.setProperty("--canvas-w", `${params.width}px`);
    root.style.setProperty("--canvas-h", `${params.height}px`);
  }
  root.style.setProperty("--scale", String(params.scale));
  if (params.large) root.classList.add("large-type");
  for (const node of doc.querySelectorAll("[data-panel]")) {
    if (!shows(params, node.dataset.panel)) node.hidden = true;
  }
  // Nothing interactive: links leave the page (the brand), and nothing takes focus, not
  // even what a drawing makes focusable later (its cards): the whole page is inert.
  for (const node of doc.querySelectorAll("a, button, input, select, textarea")) node.remove();
  const main = doc.querySelector("main") || doc.body;
  if (main) main.inert = true;
  for (const node of doc.querySelectorAll("[tabindex]")) node.setAttribute("tabindex", "-1");
  for (const row of doc.querySelectorAll(".stream-bar, .stream-now")) { // a row with nothing left to show goes too
    if (![...row.querySelectorAll("[data-panel]")].some((n) => !n.hidden)) row.hidden = true;
  }
  const side = doc.querySelector(".stream-side");
  const board = doc.querySelector(".stream-board");
  const layout = doc.querySelector(".stream-layout");
  if (layout) {
    layout.classList.toggle("no-side", !!side && side.hidden);
    layout.classList.toggle("no-board", !!board && board.hidden);
  }
}
