// The lobby: the rulesets this server runs, a form to create a match, the links to share,
// and the public matches being played now.
import { request } from "./battlehall.js";
import { quickPlay } from "./quick_play.js";
import { BASE, banner, castLink, copyRow, el, errorText, playLink, replayLink, resultText, truncate, watchLink } from "./page.js";

const NAMES = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy",
               "mallory", "niaj", "olivia", "peggy", "rupert", "sybil"];
const KEY = "battlehall.apiKey";
// The list of live matches: one short page, asked for again every 5 s; "More" asks for the next.
const PAGE = 10;
const LABEL_FIELDS = 3; // label fields shown per match
const LABEL_CHARS = 60; // characters of one label value shown
let nextCursor = null;

const main = document.getElementById("main");
const note = banner(document.getElementById("banner"));
const form = document.getElementById("create");
let rulesets = [];

function field(label, input, hint) {
  return el("label", {}, el("span", {}, label), input, hint ? el("small", { class: "muted" }, hint) : null);
}

// Each option's control from its schema in GET /rulesets: a select for a choice, a number
// with its bounds for an integer, a checkbox for a flag; labelled in words, its help shown.
// An option without a known type (a list, a server of an earlier version) is a JSON field.
function optionInput(name, spec) {
  const value = spec.default;
  const id = `opt-${name}`;
  const label = spec.label || name;
  const type = spec.type || (typeof value === "boolean" ? "boolean" : typeof value === "number" ? "integer" : null);
  if (type === "boolean") {
    return el("label", { class: "inline", title: spec.doc || "" },
              el("input", { type: "checkbox", id, name: id, checked: value, dataset: { option: name, kind: "bool" } }),
              el("span", {}, label), el("small", { class: "muted" }, spec.doc || ""));
  }
  if (type === "choice" && Array.isArray(spec.choices)) {
    const select = el("select", { id, name: id, dataset: { option: name, kind: "string" } },
                      spec.choices.map((c) => el("option", { value: c, selected: c === value }, c)));
    select.value = value;
    return field(label, select, spec.doc);
  }
  if (type === "integer") {
    const bounds = Number.isInteger(spec.min) && Number.isInteger(spec.max) ? ` (${spec.min}–${spec.max})` : "";
    return field(`${label}${bounds}`, el("input", { type: "number", id, name: id, value, step: 1,
                                                     min: spec.min ?? null, max: spec.max ?? null,
                                                     dataset: { option: name, kind: "number" } }), spec.doc);
  }
  if (type === "list" && Array.isArray(spec.choices)) {
    // One choice per seat (Spellfire's decks): a select each, redrawn with the seat count;
    // all left at "usual" sends the option's default.
    return el("fieldset", { class: "list-option", id, dataset: { option: name, kind: "list" } },
              el("legend", {}, label), el("div", { class: "list-option-items" }), el("small", { class: "muted" }, spec.doc || ""));
  }
  const kind = typeof value === "string" ? "string" : "json";
  const input = el("input", {
    type: "text", id, name: id, dataset: { option: name, kind },
    value: kind === "json" ? JSON.stringify(value) : value, class: kind === "json" ? "mono" : null,
  });
  return field(label, input, spec.doc);
}

// A list option's selects, one per seat, each "usual" or one of its choices.
function listSelects(count) {
  for (const box of document.querySelectorAll("#options [data-kind=list]")) {
    const r = rulesets.find((x) => x.name === form.ruleset.value);
    const spec = (r.options || {})[box.dataset.option] || {};
    const items = box.querySelector(".list-option-items");
    const old = [...items.querySelectorAll("select")].map((x) => x.value);
    items.replaceChildren(...Array.from({ length: count }, (_, i) => field(`Seat ${i + 1}`,
      el("select", { id: `${box.id}-${i}`, name: `${box.id}-${i}` },
         el("option", { value: "" }, "usual"), (spec.choices || []).map((c) => el("option", { value: c, selected: old[i] === c }, c))))));
  }
}

function seatInputs(count) {
  listSelects(count);
  const box = document.getElementById("seats");
  const old = [...box.querySelectorAll("input")].map((i) => i.value);
  box.replaceChildren();
  for (let i = 0; i < count; i++) {
    box.append(field(`Seat ${i + 1}`, el("input", {
      type: "text", name: `seat-${i}`, id: `seat-${i}`, value: old[i] || NAMES[i], required: true,
      pattern: "[A-Za-z0-9_.\\-]{1,32}", maxlength: 32, autocomplete: "off",
    })));
  }
}

function showRuleset() {
  const r = rulesets.find((x) => x.name === form.ruleset.value);
  document.getElementById("ruleset-summary").textContent = r ? r.summary || "" : "";
  const board = document.getElementById("leaderboard-link");
  board.href = `/leaderboard/${encodeURIComponent(r.name)}`;
  board.textContent = `Leaderboard (${r.title || r.name})`;
  const count = form["seat-count"];
  count.replaceChildren(...Array.from({ length: r.seats.max - r.seats.min + 1 },
                                      (_, i) => el("option", { value: r.seats.min + i }, r.seats.min + i)));
  seatInputs(r.seats.min);
  const box = document.getElementById("options");
  box.replaceChildren(...Object.entries(r.options || {}).map(([name, spec]) => optionInput(name, spec)));
  box.closest("fieldset").hidden = !Object.keys(r.options || {}).length;
  listSelects(r.seats.min);
}

function buildForm() {
  const usable = rulesets.filter((r) => !r.error);
  form.replaceChildren(
    field("Ruleset", el("select", { id: "ruleset", name: "ruleset" },
                        usable.map((r) => el("option", { value: r.name }, `${r.title || r.name} (${r.seats.min === r.seats.max ? r.seats.min : `${r.seats.min}–${r.seats.max}`} seats)`)))),
    el("p", { id: "ruleset-summary", class: "muted small" }),
    el("p", { class: "small" }, el("a", { id: "leaderboard-link", href: "/leaderboard" }, "Leaderboard")),
    el("fieldset", {}, el("legend", {}, "Seats"),
       field("How many", el("select", { id: "seat-count", name: "seat-count" })),
       el("div", { id: "seats", class: "grid" })),
    el("fieldset", {}, el("legend", {}, "Options"), el("div", { id: "options" })),
    field("When a player leaves", el("select", { id: "when-away", name: "when-away" },
      el("option", { value: "nothing" }, "Nothing: their clock runs and their defaults are played"),
      el("option", { value: "claim" }, "The others may claim the win"),
      el("option", { value: "bot" }, "The server's bot plays for them until they are back")),
      "A player is away once they have been gone a minute, or let three decisions in a row run out of time."),
    el("details", {},
       el("summary", {}, "Clock, seed, spectators"),
       el("fieldset", {}, el("legend", {}, "Clock"),
          el("label", { class: "inline" }, el("input", { type: "checkbox", id: "untimed", name: "untimed" }), el("span", {}, "Untimed (prompts never expire)")),
          field("Seconds per prompt", el("input", { type: "number", id: "prompt-s", name: "prompt-s", value: 30, min: 1, step: "any" })),
          field("Time bank per seat, seconds", el("input", { type: "number", id: "bank-s", name: "bank-s", value: 120, min: 0, step: "any" }))),
       el("fieldset", {}, el("legend", {}, "Seed"),
          field("Seed (optional)", el("input", { type: "number", id: "seed", name: "seed", min: 0, step: 1 }),
                "Mixed into a secret seed; the same public seed deals the same cards."),
          el("label", { class: "inline" }, el("input", { type: "checkbox", id: "seed-public", name: "seed-public" }), el("span", {}, "Public seed (anyone who knows it knows every card)"))),
       el("fieldset", {}, el("legend", {}, "Spectators"),
          el("label", { class: "inline" }, el("input", { type: "checkbox", id: "spec-allowed", name: "spec-allowed", checked: true }), el("span", {}, "Spectators allowed")),
          el("label", { class: "inline" }, el("input", { type: "checkbox", id: "spec-public", name: "spec-public" }), el("span", {}, "Public")),
          el("p", { class: "muted small", id: "public-means" },
             "A public match is listed on this page, anyone may watch it without a link, and anyone may read its replay (every card) once it ends. " +
             "A private match is listed nowhere: only its links let people watch it or read its replay."),
          field("Stream delay, seconds", el("input", { type: "number", id: "delay-s", name: "delay-s", value: 0, min: 0, max: 3600, step: "any" })),
          field("At most this many watching", el("input", { type: "number", id: "spec-max", name: "spec-max", value: 10000, min: 0, step: 1 }))),
       el("fieldset", {}, el("legend", {}, "Caster"),
          el("label", { class: "inline" }, el("input", { type: "checkbox", id: "caster", name: "caster" }), el("span", {}, "A caster link")),
          el("p", { class: "muted small" }, "The caster page shows every hand face up, later than it happens by the caster delay: " +
             "at least the server's minimum (a minute unless it is set otherwise)."),
          field("Caster delay, seconds (empty: the server's minimum)", el("input", { type: "number", id: "caster-delay-s", name: "caster-delay-s", min: 0, max: 3600, step: "any" }))),
       el("fieldset", {}, el("legend", {}, "Server key"),
          field("API key (only if this server requires one)",
                el("input", { type: "password", id: "api-key", name: "api-key", autocomplete: "off", value: sessionStorage.getItem(KEY) || "" })))),
    el("div", { class: "row" }, el("button", { type: "submit", class: "primary", id: "create-button" }, "Create the match")),
  );
  form.ruleset.addEventListener("change", showRuleset);
  form["seat-count"].addEventListener("change", () => seatInputs(Number(form["seat-count"].value)));
  showRuleset();
}

function number(name) {
  const raw = form[name].value.trim();
  return raw === "" ? null : Number(raw);
}

function body() {
  const seats = [...document.querySelectorAll("#seats input")].map((i) => i.value.trim());
  const options = {};
  for (const input of document.querySelectorAll("#options [data-option]")) {
    const { option, kind } = input.dataset;
    if (kind === "bool") options[option] = input.checked;
    else if (kind === "number") options[option] = input.value === "" ? null : Number(input.value);
    else if (kind === "string") options[option] = input.value;
    else if (kind === "list") {
      const picked = [...input.querySelectorAll("select")].map((x) => x.value);
      if (picked.every((v) => v === "")) continue;  // the usual ones: the option's default
      if (picked.some((v) => v === "")) {
        throw Object.assign(new Error(`${input.querySelector("legend").textContent}: choose one for every seat, or leave them all usual.`),
                            { path: `options.${option}` });
      }
      options[option] = picked;
    }
    else {
      try { options[option] = JSON.parse(input.value); } catch { throw Object.assign(new Error(`The option ${option} is not valid JSON.`), { path: `options.${option}` }); }
    }
  }
  const out = {
    ruleset: form.ruleset.value, seats, options, when_away: form["when-away"].value,
    clock: { prompt_ms: form.untimed.checked ? null : Math.round(number("prompt-s") * 1000), bank_ms: Math.round((number("bank-s") ?? 0) * 1000) },
    spectators: { allowed: form["spec-allowed"].checked, public: form["spec-public"].checked,
                  delay_ms: Math.round((number("delay-s") ?? 0) * 1000), max: number("spec-max") ?? 10000 },
  };
  const seed = number("seed");
  if (seed !== null) out.seed = seed;
  if (form["seed-public"].checked) out.seed_public = true;
  if (form.caster.checked) {
    const delay = number("caster-delay-s");
    out.caster = delay === null ? {} : { delay_ms: Math.round(delay * 1000) };
  }
  return out;
}

const FIELDS = { when_away: "when-away", seed: "seed", seed_public: "seed-public", "clock.prompt_ms": "prompt-s", "clock.bank_ms": "bank-s",
                 "spectators.delay_ms": "delay-s", "spectators.max": "spec-max", "caster.delay_ms": "caster-delay-s" };

// The form field a 400's `path` names, to point at it.
function fieldFor(path) {
  if (!path) return null;
  let m = path.match(/^seats\[(\d+)\]$/);
  if (m) return document.getElementById(`seat-${m[1]}`);
  if (path === "seats") return form["seat-count"];
  m = path.match(/^options\.([^.[]+)/);
  if (m) return document.getElementById(`opt-${m[1]}`);
  const id = FIELDS[path];
  return id ? document.getElementById(id) : null;
}

async function create(event) {
  event.preventDefault();
  for (const bad of form.querySelectorAll("[aria-invalid]")) bad.removeAttribute("aria-invalid");
  note.clear();
  const button = document.getElementById("create-button");
  button.disabled = true;
  main.dataset.status = "creating";
  const apiKey = form["api-key"].value.trim();
  try {
    const created = await request(BASE, "/matches", { method: "POST", body: body(), apiKey: apiKey || undefined });
    if (apiKey) sessionStorage.setItem(KEY, apiKey);
    showLinks(created);
    main.dataset.status = "created";
    loadLive();
  } catch (err) {
    main.dataset.status = "error";
    const target = fieldFor(err.path);
    let text = errorText(err);
    if (err.code === "bad_setup" || err.code === "bad_request" || err.path) text = `${err.message}${err.path ? ` (${err.path})` : ""}`;
    if (err.code === "unauthorized") {
      text = "This server needs its API key to create matches: enter it under “Server key”.";
      form.querySelector("details").open = true;
    }
    note.show("error", text);
    if (target) {
      target.setAttribute("aria-invalid", "true");
      target.closest("details")?.setAttribute("open", "");
      target.focus();
    }
  } finally {
    button.disabled = false;
  }
}

function showLinks(created) {
  const panel = document.getElementById("links-panel");
  const box = document.getElementById("links");
  const items = Object.entries(created.tokens).map(([seat, token]) =>
    el("li", { dataset: { link: "seat", seat } }, el("strong", {}, `Play as ${seat}`), copyRow(`Link to play as ${seat}`, playLink(created.match, token))));
  if (created.spectator_token) {
    items.push(el("li", { dataset: { link: "spectator" } }, el("strong", {}, "Watch (spectators)"),
                  copyRow("Link to watch", watchLink(created.match, created.spectator_token))));
  }
  if (created.caster_token) {
    items.push(el("li", { dataset: { link: "caster" } }, el("strong", {}, "Cast (every hand face up, delayed)"),
                  copyRow("Caster link", castLink(created.match, created.caster_token))));
  }
  // The replay link carries the spectator token: a private match's replay needs one of its tokens.
  items.push(el("li", { dataset: { link: "replay" } }, el("strong", {}, "Replay (opens when the match ends)"),
                copyRow("Link to the replay", replayLink(created.match, created.spectator_token))));
  box.replaceChildren(el("p", {}, "Match ", el("code", { id: "match-id" }, created.match), ` (${created.ruleset}).`),
                      el("ul", { class: "links" }, items));
  panel.hidden = false;
  panel.querySelector("input")?.focus();
}

function labelText(label) {
  const values = Object.values(label || {});
  const shown = values.slice(0, LABEL_FIELDS).map((v) => truncate(v, LABEL_CHARS));
  return shown.join(" · ") + (values.length > LABEL_FIELDS ? " · …" : "");
}

function matchRow(m) {
  const label = labelText(m.label);
  return el("tr", { dataset: { match: m.match } },
    el("td", {}, el("code", {}, m.match), label ? el("div", { class: "muted small label" }, label) : null),
    el("td", {}, m.ruleset), el("td", {}, truncate(m.seats.join(", "), 120)), el("td", {}, m.spectators),
    el("td", {}, m.status === "live" ? el("a", { href: watchLink(m.match), class: "button" }, "Watch") : resultText(m.result)));
}

function moreButton() {
  const more = document.getElementById("more");
  more.hidden = !nextCursor;
}

// The first page of public live matches (GET /matches lists only those), newest first.
async function loadLive() {
  const box = document.getElementById("live");
  try {
    const { matches, next } = await request(BASE, `/matches?status=live&limit=${PAGE}`);
    nextCursor = next;
    moreButton();
    if (!matches.length) {
      box.replaceChildren(el("p", { class: "muted" }, "No public match is being played right now."));
      return;
    }
    box.replaceChildren(el("div", { class: "table-wrap" }, el("table", {},
      el("thead", {}, el("tr", {}, ["Match", "Ruleset", "Seats", "Watching", ""].map((h) => el("th", { scope: "col" }, h)))),
      el("tbody", { id: "live-rows" }, matches.map(matchRow)))));
  } catch (err) {
    box.replaceChildren(el("p", { class: "banner warn" }, `The list of matches cannot be read: ${errorText(err)}`));
  }
}

// The next page, added under the rows shown (until the next refresh).
async function loadMore() {
  if (!nextCursor) return;
  try {
    const { matches, next } = await request(BASE, `/matches?status=live&limit=${PAGE}&cursor=${encodeURIComponent(nextCursor)}`);
    nextCursor = next;
    moreButton();
    document.getElementById("live-rows")?.append(...matches.map(matchRow));
  } catch (err) {
    note.show("error", `The next matches cannot be read: ${errorText(err)}`);
  }
}

async function start() {
  form.addEventListener("submit", create);
  document.getElementById("refresh").addEventListener("click", loadLive);
  document.getElementById("more").addEventListener("click", loadMore);
  try {
    rulesets = (await request(BASE, "/rulesets")).rulesets;
    buildForm();
    quickPlay(document.getElementById("quick-play"), rulesets, note);
    main.dataset.status = "ready";
  } catch (err) {
    note.show("error", `The server's rulesets cannot be read: ${errorText(err)}`);
    main.dataset.status = "error";
  }
  loadLive();
  setInterval(() => { if (!document.hidden) loadLive(); }, 5000);
}

start();
