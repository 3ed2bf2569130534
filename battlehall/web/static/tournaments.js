// The tournaments page (/tournaments): the public events being played, coming up and
// finished, a page at a time; and the organiser's form to create one, in words.
import { TournamentApi, request } from "./battlehall.js";
import { BASE, banner, el, errorText, playerName, rulesetTitle } from "./page.js";
import { PHASES, formatText, phaseOf, startText } from "./tournament_words.js";
import { createForm, fieldFor, readForm } from "./tournament_form.js";
import { rememberOrganiser } from "./tournament_entry.js";

const PAGE = 12;
const api = new TournamentApi(BASE);
const KEY = "battlehall.apiKey";
const main = document.getElementById("main");
const note = banner(document.getElementById("banner"));
const form = document.getElementById("create");
const lists = { running: null, upcoming: null, finished: null }; // each list's next cursor

async function card(t) {
  const spec = t.spec || {};
  const phase = phaseOf(t);
  const count = t.players_count ?? (t.players || []).length;
  const cap = phase === "registering" && spec.max_players < 1024 ? ` (at most ${spec.max_players})` : "";
  return el("article", { class: "event", dataset: { tournament: t.tournament } },
    el("h3", {}, el("a", { href: `/tournaments/${encodeURIComponent(t.tournament)}` }, t.name || t.tournament)),
    el("p", { class: "small" }, formatText(spec, await rulesetTitle(spec.ruleset))),
    el("p", { class: "row small" }, el("span", { class: `pill ${phase === "running" ? "live" : phase === "finished" ? "finished" : ""}` }, PHASES[phase] || phase),
       el("span", {}, `${count} players${cap}`), phase === "running" && t.round ? el("span", {}, `round ${t.round}`) : null),
    startText(spec, phase) ? el("p", { class: "muted small" }, startText(spec, phase)) : null,
    t.organiser ? el("p", { class: "muted small" }, "Organised by ", playerName(t.organiser.name, t.organiser.tag)) : null);
}

const EMPTY = { running: "No public tournament is being played right now.",
                upcoming: "No public tournament is open for registration. Organise one below.",
                finished: "No tournament has finished yet." };

let rulesets = []; // GET /rulesets: what the form offers, and each one's options

async function loadList(status, more = false) {
  const box = document.getElementById(status);
  try {
    const page = await api.list({ status, limit: PAGE, cursor: more ? lists[status] : undefined });
    const cards = await Promise.all((page.tournaments || []).map(card));
    if (more) box.append(...cards);
    else box.replaceChildren(...(cards.length ? cards : [el("p", { class: "muted" }, EMPTY[status])]));
    lists[status] = page.next || null;
    document.getElementById(`${status}-more`).hidden = !lists[status];
  } catch (err) {
    box.replaceChildren(el("p", { class: "banner warn" }, `This list cannot be read: ${errorText(err)}`));
  }
}

async function create(event) {
  event.preventDefault();
  for (const bad of form.querySelectorAll("[aria-invalid]")) bad.removeAttribute("aria-invalid");
  note.clear();
  const button = document.getElementById("create-button");
  const apiKey = form["api-key"].value.trim();
  let body;
  try {
    body = readForm(form, rulesets);
  } catch (err) {
    return refused(err);
  }
  button.disabled = true;
  main.dataset.status = "creating";
  try {
    const created = await api.create(body, apiKey || undefined);
    if (apiKey) sessionStorage.setItem(KEY, apiKey);
    rememberOrganiser(created.tournament, created.organiser_token);
    main.dataset.status = "created";
    location.assign(`/tournaments/${encodeURIComponent(created.tournament)}`);
  } catch (err) {
    refused(err);
  } finally {
    button.disabled = false;
  }
}

function refused(err) {
  main.dataset.status = "error";
  const target = fieldFor(form, err.path);
  let text = err.path ? `${err.message} (${err.path})` : errorText(err);
  if (err.code === "unauthorized" && !err.path) {
    text = "This server needs its API key to create tournaments: enter it under “Server key”.";
    form.querySelector("#key-box").open = true;
  }
  note.show("error", text);
  if (target) {
    target.setAttribute("aria-invalid", "true");
    target.closest("details")?.setAttribute("open", "");
    target.focus();
  }
}

async function start() {
  for (const status of Object.keys(lists)) {
    document.getElementById(`${status}-more`).addEventListener("click", () => loadList(status, true));
  }
  const loaded = Promise.all(Object.keys(lists).map((status) => loadList(status)));
  try {
    rulesets = (await request(BASE, "/rulesets")).rulesets.filter((r) => !r.error);
    createForm(form, rulesets, sessionStorage.getItem(KEY) || "");
    form.addEventListener("submit", create);
  } catch (err) {
    note.show("error", `The server's rulesets cannot be read: ${errorText(err)}`);
  }
  await loaded;
  main.dataset.status = "ready";
  // The lists again every 15 s while the page is shown (the first page of each).
  setInterval(() => {
    if (document.hidden) return;
    for (const status of ["running", "upcoming"]) if (!lists[status]) loadList(status);
  }, 15000);
}

start();
