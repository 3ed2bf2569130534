// The replay page: a finished match step by step, every seat's view side by side (so every
// hand is shown), with a scrubber, step forward/back and play at a chosen speed.
// GET /matches/{id}/replay gives the events with nothing hidden; GET .../replay/steps the
// views after each answer, re-run by the server from the match's seed and log, a range at
// a time: the page asks for the range around the step it shows, and keeps a few ranges.
// GET .../replay/definitions gives what no view repeats (a setup's inline cards).
// The address names the step shown (#step=N, beside a private match's #token=): a link to a
// moment of the match.
import { request } from "./battlehall.js";
import { clockText } from "./clock_record.js";
import { BASE, banner, describeEvent, draw, el, errorText, fitToBox, fragment, loadDrawing, matchIdFromPath, matchName, resultText,
         watchLink } from "./page.js";

const main = document.getElementById("main");
const note = banner(document.getElementById("banner"));
const scrubber = document.getElementById("scrubber");
const playButton = document.getElementById("play");
const logBox = document.getElementById("log");
const matchId = matchIdFromPath();
// A private match's replay needs one of its tokens (from the link's fragment, never sent in
// the address) or the operator's API key (kept for this tab by the lobby and operator pages).
const token = fragment().get("token") || sessionStorage.getItem("battlehall.apiKey") || undefined;

const PAGE = 32; // steps per request: the server's most (docs/protocol.md, Replay steps)
const KEPT_PAGES = 8; // ranges kept here; farther ones are asked for again when shown
const BUSY_RETRIES = 10;

let replay = null;
let total = 0; // steps: the start and one per answer
let definitions = {};
const pages = new Map(); // first step of a range -> Promise of its steps
let drawing = null;
let current = 0;
let timer = null;
const seatRoots = new Map();
const logItems = new Map(); // seq -> <li>

function revealed(event) {
  // The event's public data with every seat's private part, for the words of the log.
  const data = { ...event.data };
  for (const part of Object.values(event.private || {})) Object.assign(data, part);
  return { seq: event.seq, at: event.at, kind: event.kind, data };
}

async function fetchRange(from) {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await request(BASE, `/matches/${encodeURIComponent(matchId)}/replay/steps?from=${from}&count=${PAGE}`, { apiKey: token })).steps;
    } catch (err) {
      // The server re-runs a few replays at a time and asks the others to come back.
      if (err.code !== "busy" || attempt >= BUSY_RETRIES) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1000 * (1 + Math.random())));
    }
  }
}

/** Step k, from its range (asked for once, then kept while near what is shown). */
async function stepAt(k) {
  const from = k - (k % PAGE);
  if (!pages.has(from)) {
    const loading = fetchRange(from);
    loading.catch(() => pages.delete(from)); // asked again next time
    pages.set(from, loading);
    for (const first of [...pages.keys()].sort((a, b) => Math.abs(b - from) - Math.abs(a - from))) {
      if (pages.size <= KEPT_PAGES) break;
      pages.delete(first);
    }
  }
  return (await pages.get(from))[k - from];
}

/** A judge's (or the operator's) action on the clocks, in words. */
function judgeText(judge) {
  const by = judge.by === "operator" ? "The operator" : `Judge ${judge.by}`;
  if (judge.action === "pause") return `${by} paused the clocks.`;
  if (judge.action === "resume") return `${by} resumed the clocks.`;
  if (judge.action === "add_time") return `${by} added ${(judge.ms / 1000).toFixed(1)} s to ${judge.seat}'s bank.`;
  return `${by}: ${judge.action}.`;
}

function entryText(k, step, before) {
  if (k === 0) return "The start.";
  const entry = step.entry;
  if (entry.abort && entry.reason === "abandoned") return "Nobody played or was connected for too long: the server ended the match as abandoned.";
  if (entry.abort) return "The operator aborted the match.";
  if (entry.resign) return `${entry.resign} resigned.`;
  if (entry.judge) return judgeText(entry.judge);
  if (entry.away) return `${entry.away}'s player was gone too long: the seat was marked away.`;
  if (entry.back) return `${entry.back}'s player came back.`;
  const prompt = Object.values(before.prompts).flat().find((p) => p.id === entry.prompt);
  if (entry.timeout) return `${prompt ? prompt.seat : "A seat"}'s time ran out: the default was applied${prompt ? ` to “${prompt.text || prompt.kind}”` : ""}.`;
  const option = prompt && (prompt.options || []).find((o) => o.id === entry.option);
  const model = { ruleset: replay.ruleset, view: before.views[entry.seat], definitions, seat: entry.seat, role: "replay",
                  prompts: before.prompts[entry.seat] || [], seats: replay.seats };
  const args = entry.args && Object.keys(entry.args).length
    ? ` (${Object.entries(entry.args).map(([name, value]) => `${argName(name, model)} ${argLabel(name, value, model)}`).join(", ")})` : "";
  const asked = prompt ? prompt.text || words(prompt.kind) : "a question";
  const answer = option ? option.text || words(option.id) : words(entry.option);
  return `${entry.seat} answered “${asked}”: ${answer}${args}.`;
}

/** Human words for an identifier ("choose_defender" -> "choose defender"). */
function words(id) {
  return String(id ?? "").replace(/[_-]+/g, " ");
}

/** An argument's name and value in the drawing's words (as the player's page says them). */
function argName(name, model) {
  try {
    const text = drawing.argName && drawing.argName(name, model);
    if (text) return text;
  } catch { /* the plain name */ }
  return words(name);
}

function argLabel(name, value, model) {
  try {
    const text = drawing.argLabel && drawing.argLabel(name, value, model);
    if (text) return text;
  } catch { /* the plain value */ }
  return typeof value === "string" ? value : Array.isArray(value) ? value.join(", ") : JSON.stringify(value);
}

let shown = 0; // the latest show() asked for: an older one that loads later draws nothing

function show(k) {
  current = Math.max(0, Math.min(total - 1, k));
  const asked = ++shown;
  const want = current;
  scrubber.value = String(want);
  setButtons();
  Promise.all([stepAt(want), want ? stepAt(want - 1) : null]).then(([step, before]) => {
    if (asked === shown) drawStep(want, step, before);
    if (want + PAGE / 2 < total) stepAt(want + PAGE / 2).catch(() => {}); // the next range, before it is needed
  }, (err) => {
    if (asked !== shown) return;
    pause();
    note.show("error", errorText(err)); // shown until the page is loaded again
  });
  if (current === total - 1) pause();
}

function setButtons() {
  document.getElementById("back").disabled = current === 0;
  document.getElementById("first").disabled = current === 0;
  document.getElementById("forward").disabled = current === total - 1;
  document.getElementById("last").disabled = current === total - 1;
}

function drawStep(k, step, before) {
  // Who decides at this step: the public part of every seat's open prompts.
  const deciding = {};
  for (const [seat, prompts] of Object.entries(step.prompts || {})) {
    if (prompts && prompts.length) deciding[seat] = prompts.map((p) => ({ id: p.id, seat, kind: p.kind, window: !!p.window, deadline: null }));
  }
  for (const seat of replay.seats) {
    const model = { ruleset: replay.ruleset, view: step.views[seat], definitions, seat, role: "replay",
                    prompts: step.prompts[seat] || [], seats: replay.seats, bots: replay.bots || {}, deciding };
    draw(drawing, seatRoots.get(seat), model, null);
    fitToBox(seatRoots.get(seat), 0.75); // the whole table in its box, a little smaller when it must
  }
  scrubber.setAttribute("aria-valuetext", `step ${k} of ${total - 1}`);
  main.dataset.step = String(k);
  main.dataset.seq = String(step.seq);
  document.getElementById("position").textContent = `Step ${k} of ${total - 1}`;
  // The address follows the step (no new history entry per step): copy it to share the moment.
  // The rest of the fragment (a private match's token) stays as it is.
  const address = fragment();
  if (address.get("step") !== String(k)) {
    address.set("step", String(k));
    history.replaceState(null, "", `#${address}`);
  }
  document.getElementById("step-link").href = `#${address}`;
  document.getElementById("step-text").textContent = entryText(k, step, before);
  // What the answer spent of its clock: time used, lag credited, bank spent.
  const record = step.entry && step.entry.clock;
  document.getElementById("step-clock").textContent = record ? `Clock: ${clockText(record)}.` : "";
  for (const li of logItems.values()) li.classList.remove("current");
  let first = null;
  for (let seq = step.first_seq; seq <= step.seq; seq++) {
    const li = logItems.get(seq);
    if (li) { li.classList.add("current"); first = first || li; }
  }
  if (first) logBox.scrollTop = first.offsetTop - logBox.offsetTop - 8;
}

function play() {
  if (current >= total - 1) show(0);
  const speed = Number(document.getElementById("speed").value) || 1;
  clearInterval(timer);
  // On from the step drawn: one whose range is still loading holds the play back.
  timer = setInterval(() => { if (main.dataset.step === String(current)) show(current + 1); }, 1000 / speed);
  playButton.textContent = "⏸ Pause";
  playButton.setAttribute("aria-label", "Pause");
  main.dataset.playing = "true";
}

function pause() {
  clearInterval(timer);
  timer = null;
  playButton.textContent = "▶ Play";
  playButton.setAttribute("aria-label", "Play");
  main.dataset.playing = "false";
}

/** The step the address names (#step=N), or null. */
function stepInAddress() {
  const step = fragment().get("step");
  return step !== null && /^\d{1,9}$/.test(step) ? Number(step) : null;
}

function wire() {
  window.addEventListener("hashchange", () => {
    const step = stepInAddress();
    if (step !== null && step !== current) { pause(); show(step); }
  });
  document.getElementById("first").addEventListener("click", () => { pause(); show(0); });
  document.getElementById("back").addEventListener("click", () => { pause(); show(current - 1); });
  document.getElementById("forward").addEventListener("click", () => { pause(); show(current + 1); });
  document.getElementById("last").addEventListener("click", () => { pause(); show(total - 1); });
  playButton.addEventListener("click", () => (timer ? pause() : play()));
  document.getElementById("speed").addEventListener("change", () => { if (timer) play(); });
  scrubber.addEventListener("input", () => { pause(); show(Number(scrubber.value)); });
  document.addEventListener("keydown", (e) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
    const keys = { ArrowLeft: () => show(current - 1), ArrowRight: () => show(current + 1), Home: () => show(0), End: () => show(total - 1) };
    if (keys[e.key]) { e.preventDefault(); pause(); keys[e.key](); }
    else if (e.key === " " && !(e.target instanceof HTMLButtonElement)) { e.preventDefault(); timer ? pause() : play(); }
  });
}

async function start() {
  main.dataset.status = "loading";
  try {
    let first;
    [replay, first, { definitions }] = await Promise.all([
      request(BASE, `/matches/${encodeURIComponent(matchId)}/replay`, { apiKey: token }),
      request(BASE, `/matches/${encodeURIComponent(matchId)}/replay/steps?from=0&count=${PAGE}`, { apiKey: token }),
      request(BASE, `/matches/${encodeURIComponent(matchId)}/replay/definitions`, { apiKey: token }),
    ]);
    total = first.total;
    pages.set(0, Promise.resolve(first.steps));
  } catch (err) {
    main.dataset.status = "error";
    if (err.code === "match_live") {
      note.show("info", "This match is still being played: its replay opens when it ends.");
      document.getElementById("summary").append(el("a", { href: watchLink(matchId) }, "Watch it live (with the spectator link if it is not public)"));
    } else if (err.code === "unauthorized") {
      note.show("error", "This match is private: its replay opens only with one of its links (a player's or the spectator link).");
    } else {
      note.show("error", errorText(err));
    }
    return;
  }
  drawing = await loadDrawing(replay.ruleset);
  // The match by its ruleset's title and its players, never its id: "Spellfire: ana vs bot-1".
  const name = await matchName(replay.ruleset, replay.seats);
  document.title = `${name} · Replay · Battlehall`;
  document.getElementById("title").textContent = `Replay of ${name}`;
  const result = el("strong", { dataset: { result: JSON.stringify(replay.result) } }, resultText(replay.result));
  document.getElementById("summary").replaceChildren(result, ` ${total - 1} ${total - 1 === 1 ? "answer" : "answers"}, ${replay.events.length} events.`);
  // The seed, folded: a 78-digit number means nothing at a glance; whoever checks the match
  // opens it, with the commitment the match published when it was made.
  const seed = el("details", { class: "seed", id: "seed" }, el("summary", {}, "Seed (to verify the match)"),
    el("dl", {}, el("dt", {}, "Seed"), el("dd", {}, String(replay.seed ?? "not published")),
      replay.seed_commitment ? [el("dt", {}, "Commitment (SHA-256 of the seed)"), el("dd", {}, replay.seed_commitment)] : null),
    el("p", {}, "The same ruleset, seed, options and answers give the same match: the seed's SHA-256 is the commitment the match was created with."));
  document.getElementById("summary").after(seed);
  const seatsBox = document.getElementById("seats");
  for (const seat of replay.seats) {
    const root = el("div", { class: "seat-root" });
    seatsBox.append(el("section", { class: "panel", dataset: { viewOf: seat }, "aria-label": `${seat}'s view` },
                       el("h2", {}, `What ${seat} sees`), root));
    seatRoots.set(seat, root);
  }
  for (const event of replay.events) {
    const shown = revealed(event);
    const text = describeEvent(drawing, shown, { ruleset: replay.ruleset, seats: replay.seats, role: "replay" });
    if (text === null || text === undefined) continue; // the drawing leaves it out of the log
    const li = el("li", { dataset: { seq: event.seq } }, text); // a sentence: no event numbers
    logItems.set(event.seq, li);
    logBox.append(li);
  }
  scrubber.max = String(total - 1);
  wire();
  main.dataset.status = "ready";
  show(stepInAddress() ?? 0);
}

start();
