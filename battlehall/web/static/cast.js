// The caster page: every seat's view side by side, so every hand is drawn face up, and a
// log of every event with each seat's hidden part, all as of the caster delay (the server
// never sends a caster anything sooner). Only the caster link opens it: the hello asks for
// the caster role, and a seat's or the spectator's token is refused before any view.
//
// At /judge/{match} the same page is a judge's: live (a judge token opens it, never a
// stream), with the match's log to take it back to before one of its decisions.
import { BattlehallClient, request } from "./battlehall.js";
import { BASE, banner, describeEvent, draw, duration, el, errorText, fitToBox, fragment, loadDrawing, matchIdFromPath,
         matchName, resultText, statusText, tickClocks } from "./page.js";
import { Decisions } from "./moments.js";

const MAX_LOG = 400;
const main = document.getElementById("main");
const seatsBox = document.getElementById("seats");
const log = document.getElementById("log");
const note = banner(document.getElementById("banner"));
const statusPill = document.getElementById("status");
const matchId = matchIdFromPath();
const token = fragment().get("token");
const JUDGE = location.pathname.startsWith("/judge/");
// An event's caster link, /cast/tournament/{id}#token=<the event's caster token>: its top
// table's cast, then the next round's when that one ends (the event is kept in the fragment).
const EVENT_PATH = /^\/cast\/tournament\/([^/]+)$/.exec(location.pathname);
const event = EVENT_PATH ? { id: decodeURIComponent(EVENT_PATH[1]), token }
  : fragment().get("event") ? { id: fragment().get("event"), token: fragment().get("event_token") } : null;
const EVENT_ASK_MS = 3000;

/** The event's top table's cast, opened in this page once there is one. */
async function castNext(except) {
  for (;;) {
    try {
      const found = await request(BASE, `/tournaments/${encodeURIComponent(event.id)}/cast`, { apiKey: event.token });
      if (found.match && found.match !== except && found.caster_token) {
        const fields = new URLSearchParams({ token: found.caster_token, event: event.id, event_token: event.token });
        location.replace(`/cast/${encodeURIComponent(found.match)}#${fields}`);
        return;
      }
      note.show("info", "No table of this tournament is playing right now: the top table of the next round shows here when it starts.");
      main.dataset.status = "waiting";
    } catch (err) {
      if (err.status === 401 || err.status === 404) return note.show("error", errorText(err));
      note.show("warn", errorText(err));
    }
    await new Promise((done) => setTimeout(done, EVENT_ASK_MS));
  }
}
const ROLE = JUDGE ? "judge" : "caster";

let drawing = null;
let summary = null;
let client = null;
let views = null; // seat -> view, as of the delay; null before the start is that old
const seatRoots = new Map();
const decisions = new Decisions(); // who decides, from the (delayed) public prompt events
let presence = {}; // seat -> {connected, awayAt}, when the server tells a caster

function seatModel(seat) {
  // The drawings' "replay" role: each seat's view drawn for an onlooker, its hand face up
  // (model.seat is the column's seat), every seat named, none "you".
  const deciding = {};
  for (const p of decisions.open.values()) {
    (deciding[p.seat] ||= []).push({ id: p.id, seat: p.seat, kind: p.kind, window: !!p.window, deadline: p.deadline ?? null });
  }
  return { ruleset: summary.ruleset, view: views[seat], definitions: (client && client.definitions) || {}, seat,
           role: "replay", prompts: [], seats: summary.seats, bots: summary.bots || {},
           whenAway: summary.when_away || "nothing", deciding, presence: { ...presence } };
}

function seatRoot(seat) {
  if (!seatRoots.has(seat)) {
    const root = el("div", { class: "seat-root" });
    seatsBox.append(el("section", { class: "panel", dataset: { viewOf: seat }, "aria-label": `${seat}'s hand and view` },
                       el("h2", {}, `${seat}'s hand and table`), root));
    seatRoots.set(seat, root);
  }
  return seatRoots.get(seat);
}

function render(message) {
  main.dataset.seq = String(message.seq);
  views = message.views;
  if (!views) {
    note.show("info", `The match starts on this stream ${duration(message.delay_ms)} after it started.`);
    main.dataset.status = "waiting";
    return;
  }
  note.clear();
  main.dataset.status = "casting";
  for (const seat of summary.seats) draw(drawing, seatRoot(seat), seatModel(seat), null);
  fitAll();
  tick();
}

/** Every column's table in its box, drawn smaller when it must. */
function fitAll() {
  for (const root of seatRoots.values()) fitToBox(root, 0.45);
}

function tick() {
  if (client) for (const root of seatRoots.values()) tickClocks(root, client.serverNow());
}
setInterval(tick, 250);
if (typeof ResizeObserver === "function") {
  let last = "";
  new ResizeObserver(() => {
    const size = `${seatsBox.clientWidth}x${seatsBox.clientHeight}`;
    if (size !== last) { last = size; fitAll(); }
  }).observe(seatsBox);
}

function revealed(event) {
  // The public data with every seat's hidden part, for the words of the log.
  const data = { ...event.data };
  for (const part of Object.values(event.private || {})) Object.assign(data, part);
  return { seq: event.seq, at: event.at, kind: event.kind, data };
}

let handled = 0;

function addLog(event) {
  handled += 1;
  main.dataset.events = String(handled);
  const text = describeEvent(drawing, revealed(event), { ruleset: summary.ruleset, seats: summary.seats, role: "replay" });
  if (text === null || text === undefined) return;
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  log.append(el("li", { dataset: { seq: event.seq, at: event.at } }, text)); // a sentence: no event numbers
  while (log.children.length > MAX_LOG) log.firstElementChild.remove();
  if (atBottom) log.scrollTop = log.scrollHeight;
}

function showResult(result) {
  statusPill.textContent = "ended";
  statusPill.className = "pill finished";
  const box = document.getElementById("result");
  box.textContent = resultText(result);
  box.dataset.result = JSON.stringify(result);
}

function refused(text) {
  client.close("refused");
  seatsBox.replaceChildren();
  note.show("error", text);
  main.dataset.status = "refused";
  statusPill.textContent = "refused";
}

// --- the judge's log: every decision, each one a point to take the match back to -----------
const judgePanel = (() => {
  const box = document.getElementById("judge");
  const list = el("ol", { class: "judge-log" });
  const reason = el("input", { id: "judge-reason", type: "text", maxlength: "500", placeholder: "why (shown in the replay)" });
  let pending = null;

  function entryText(entry) {
    if (entry.abort) return `ended (${String(entry.reason || "aborted").replace(/_/g, " ")})`;
    if (entry.timeout) return `time ran out on ${entry.prompt}`;
    for (const kind of ["resign", "away", "back"]) {
      if (entry[kind]) return `${entry[kind]} ${{ resign: "resigned", away: "was marked away", back: "came back" }[kind]}`;
    }
    return `${entry.seat}: ${String(entry.option).replace(/_/g, " ")}${entry.bot ? " (bot)" : ""}`;
  }

  async function rewindTo(n) {
    try {
      const answer = await request(BASE, `/matches/${encodeURIComponent(matchId)}/rewind`, {
        method: "POST", apiKey: token, body: { entry: n, ...(reason.value ? { reason: reason.value } : {}) } });
      location.assign(`/judge/${encodeURIComponent(answer.match)}#token=${encodeURIComponent(token)}`);
    } catch (err) { note.show("error", errorText(err)); }
  }

  // The match's clocks: paused (every deadline frozen) and running again (docs/protocol.md, Operator routes).
  const clockState = el("span", { class: "pill", role: "status" }, "clocks running");
  async function onClocks(action) {
    try {
      const answer = await request(BASE, `/matches/${encodeURIComponent(matchId)}/${action}`, { method: "POST", body: {}, apiKey: token });
      clockState.textContent = answer.paused ? "clocks paused" : "clocks running";
    } catch (err) { note.show("error", errorText(err)); }
  }
  const clockButtons = el("p", { class: "judge-clocks" },
    el("button", { type: "button", onclick: () => onClocks("pause") }, "Pause the clocks"), " ",
    el("button", { type: "button", onclick: () => onClocks("resume") }, "Resume"), " ", clockState);

  async function load() {
    pending = null;
    try {
      const found = await request(BASE, `/matches/${encodeURIComponent(matchId)}/log`, { apiKey: token });
      const over = found.log.some(e => e.abort);
      list.replaceChildren(...found.log.map((entry, i) => el("li", { dataset: { entry: String(i + 1) } },
        el("span", {}, entryText(entry)), " ",
        over ? "" : el("button", { type: "button", onclick: () => rewindTo(i + 1),
                                   "aria-label": `Take the match back to before entry ${i + 1}: ${entryText(entry)}` },
                       "Take back to before this"))));
    } catch (err) { note.show("error", errorText(err)); }
  }

  return {
    start() {
      box.hidden = false;
      document.querySelector(".stream-bar .pill.view-kind").textContent = "judge view: every hand, live";
      box.append(clockButtons, el("h2", { id: "judge-title" }, "The log: take the match back"),
                 el("label", { for: "judge-reason" }, "Reason "), reason, list);
      load();
    },
    refresh() { if (!pending) pending = setTimeout(load, 300); },
  };
})();

async function start() {
  if (EVENT_PATH) return castNext(null);
  if (!matchId || !token) {
    note.show("error", matchId ? `This page needs the match's ${ROLE} link (with its #token=…).` : "This address names no match.");
    main.dataset.status = "refused";
    return;
  }
  try {
    summary = await request(BASE, `/matches/${encodeURIComponent(matchId)}`);
  } catch (err) {
    note.show("error", errorText(err));
    main.dataset.status = "closed";
    statusPill.textContent = "not available";
    return;
  }
  document.title = `${JUDGE ? "Judge" : "Cast"} · ${await matchName(summary.ruleset, summary.seats)} · Battlehall`; // never the match id
  document.getElementById("title").textContent = await matchName(summary.ruleset, summary.seats, summary.bots);
  drawing = await loadDrawing(summary.ruleset);

  client = new BattlehallClient({ url: BASE, match: matchId, token, resume: 0, role: ROLE });
  if (JUDGE) judgePanel.start();
  let liveFrom = Infinity;
  client.on("status", (status, detail) => {
    if (main.dataset.status === "refused") return;
    if (client.result) return; // the pill says "ended" from now on
    statusPill.textContent = status === "open" ? "live" : status;
    statusPill.className = `pill ${status === "open" ? "live" : "warn"}`;
    if (status === "reconnecting" || (status === "closed" && detail.code)) note.show(status === "closed" ? "error" : "warn", statusText(status, detail));
  });
  client.on("welcome", (w) => {
    if (w.role !== ROLE) return refused(`This is not a ${ROLE} link.`); // the server refuses it first
    liveFrom = w.seq;
    presence = {};
    for (const [seat, awayAt] of Object.entries(w.gone || client.gone || {})) presence[seat] = { connected: false, awayAt: awayAt ?? null };
    const delay = document.getElementById("delay");
    delay.textContent = `Caster delay ${duration(w.delay_ms)}`;
    delay.hidden = JUDGE; // a judge's view is live
    render(w);
    if (w.view && w.view.result) showResult(w.view.result);
  });
  client.on("event", (e) => {
    decisions.apply(e);
    addLog(e);
    if (JUDGE) judgePanel.refresh();
    if (e.seq > liveFrom || !views) client.requestView();
  });
  client.on("view", (v) => render(v));
  const onPresence = (m) => {
    if (!m || m.t !== "presence" || typeof m.seat !== "string") return;
    if (m.connected) delete presence[m.seat]; else presence[m.seat] = { connected: false, awayAt: m.away_at ?? null };
  };
  client.on("presence", (m) => onPresence({ t: "presence", ...m }));
  client.on("message", onPresence);
  client.on("ended", (result) => {
    showResult(result);
    if (event) setTimeout(() => castNext(matchId), EVENT_ASK_MS); // the next round's top table, in turn
  });
  client.on("error", (err) => {
    if (err.code === "wrong_role") refused(`This is a player's or the spectator's link, not the ${ROLE} link: open it as /play/… or /watch/….`);
    else if (err.id === undefined) note.show("error", errorText(err));
  });
  try {
    await client.connect();
  } catch (err) {
    if (main.dataset.status !== "refused") note.show("error", errorText(err));
  }
}

start();
