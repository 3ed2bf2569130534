// The ruleset's options on the organiser's form (every game of the event is played with
// them), drawn from GET /rulesets' schema as the lobby draws a match's: a checkbox, a
// select of choices, a bounded number. A per-seat option (Spellfire's decks) keeps its
// default: a seat of an event's game is no player's in particular.
import { el } from "./page.js";

function control(name, spec) {
  const id = `t-opt-${name}`;
  const label = spec.label || name;
  const data = { option: name };
  if (spec.type === "boolean") {
    return el("label", { class: "inline" }, el("input", { type: "checkbox", id, name: id, checked: !!spec.default, dataset: { ...data, kind: "bool" } }),
              el("span", {}, label), spec.doc ? el("small", { class: "muted" }, spec.doc) : null);
  }
  if (spec.type === "choice" && Array.isArray(spec.choices)) {
    const select = el("select", { id, name: id, dataset: { ...data, kind: "choice" } },
                      spec.choices.map((c) => el("option", { value: c, selected: c === spec.default }, c)));
    return el("label", {}, el("span", {}, label), select, spec.doc ? el("small", { class: "muted" }, spec.doc) : null);
  }
  if (spec.type === "integer") {
    const bounds = Number.isInteger(spec.min) && Number.isInteger(spec.max) ? ` (${spec.min}–${spec.max})` : "";
    return el("label", {}, el("span", {}, `${label}${bounds}`),
              el("input", { type: "number", id, name: id, step: 1, value: spec.default, min: spec.min ?? null, max: spec.max ?? null,
                            dataset: { ...data, kind: "number" } }),
              spec.doc ? el("small", { class: "muted" }, spec.doc) : null);
  }
  return null; // a per-seat list or a free-form value: its default
}

/** Draw `ruleset`'s options into `box` (hidden when it has none the form can set). */
export function drawOptions(box, ruleset) {
  const controls = Object.entries((ruleset && ruleset.options) || {}).map(([name, spec]) => control(name, spec)).filter(Boolean);
  box.querySelector(".grid").replaceChildren(...controls);
  box.hidden = !controls.length;
  box.dataset.ruleset = ruleset ? ruleset.name : "";
}

/** The options set away from their defaults, as POST /tournaments' `options`. */
export function readOptions(box, ruleset) {
  const options = {};
  for (const input of box.querySelectorAll("[data-option]")) {
    const spec = ((ruleset && ruleset.options) || {})[input.dataset.option] || {};
    const kind = input.dataset.kind;
    const chosen = kind === "bool" ? input.checked : kind === "number" ? (input.value === "" ? null : Number(input.value)) : input.value;
    if (chosen !== null && chosen !== spec.default) options[input.dataset.option] = chosen;
  }
  return options;
}
