// The drawing of a ruleset the pages have no module for: the view as a readable tree.
// Every option is still reachable from the page's prompt bar.

import {el, useCss, words, who, describeCommon} from "./common.js";

useCss(new URL("./generic.css", import.meta.url).href);

export const howTo = {
  goal: "This ruleset has no table of its own on these pages: its view is shown as it is, field by field.",
  turn: ["Every decision you have is in the bar beside the board, with its countdown and the answer played if time runs out."],
  prompts: [],
  glossary: [["Default", "The answer played for you when a decision's time runs out."],
             ["Time bank", "Extra time of your own, spent once a decision's own time is out."]],
};

export function render(root, model, controls) {
  const view = model.view;
  root.replaceChildren(el("div.generic", {},
    view == null ? el("p", {}, "Waiting for the match…") : tree(view, 0)));
}

function tree(value, depth) {
  if (value === null || value === undefined) return el("span.g-null", {}, "—");
  if (Array.isArray(value)) {
    if (!value.length) return el("span.g-null", {}, "none");
    if (value.every(v => v === null || typeof v !== "object")) return el("span.g-list", {}, value.map(short).join(", "));
    return el("ol.g-items", {}, value.map(v => el("li", {}, tree(v, depth + 1))));
  }
  if (typeof value === "object") {
    const rows = Object.entries(value).map(([k, v]) => el("div.g-row", {}, el("span.g-key", {}, words(k)), tree(v, depth + 1)));
    return depth > 3 ? el("details", {}, el("summary", {}, `${rows.length} fields`), ...rows) : el("div.g-map", {}, rows);
  }
  return el("span.g-value", {}, short(value));
}

function short(v) {
  return typeof v === "string" ? v : JSON.stringify(v);
}

/** One line for any event: its kind in words and its data in brief. */
export function describe(event, model) {
  const common = describeCommon(event, model);
  if (common !== undefined) return common;
  const d = event.data || {};
  const parts = Object.entries(d).slice(0, 6).map(([k, v]) => `${words(k)}: ${brief(k === "seat" ? who(v, model) : v)}`);
  return `${words(event.kind)}${parts.length ? " — " + parts.join(", ") : ""}`;
}

function brief(v) {
  const text = typeof v === "string" ? v : JSON.stringify(v);
  return text.length > 60 ? text.slice(0, 57) + "…" : text;
}
