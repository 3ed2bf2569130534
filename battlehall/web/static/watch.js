// The spectator page: the whole window for the board and the log, no controls, the public
// view only (a seat's link is refused: its view holds that seat's hand), the stream delay
// and the audience shown.
import { BattlehallClient, request } from "./battlehall.js";
import { BASE, banner, describeEvent, draw, duration, el, errorText, fragment, loadDrawing, matchIdFromPath,
         replayLink, resultText, statusText } from "./page.js";

const MAX_LOG = 400;
const main = document.getElementById("main");
const board = document.getElementById("board");
const log = document.getElementById("log");
const note = banner(document.getElementById("banner"));
const statusPill = document.getElementById("status");
const matchId = matchIdFromPath();
const token = fragment().get("token");

let drawing = null;
let summary = null;
let client = null;

function model(view) {
  return { ruleset: summary.ruleset, view, seat: null, role: "spectator", prompts: [], seats: summary.seats };
}

function render(view, seq) {
  draw(drawing, board, model(view), null);
  main.dataset.seq = String(seq);
}

let handled = 0;

function addLog(event) {
  handled += 1;
  main.dataset.events = String(handled); // events handled: each once, none missed (the log may skip some)
  const text = describeEvent(drawing, event, model(client.view));
  if (text === null || text === undefined) return;
  const atBottom = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  log.append(el("li", { dataset: { seq: event.seq } }, el("span", { class: "seq" }, `#${event.seq}`), text));
  while (log.children.length > MAX_LOG) log.firstElementChild.remove();
  if (atBottom) log.scrollTop = log.scrollHeight;
}

function showResult(result) {
  statusPill.textContent = "ended";
  statusPill.className = "pill finished";
  const box = document.getElementById("result");
  box.textContent = resultText(result);
  box.dataset.result = JSON.stringify(result);
  if (!document.getElementById("replay-link")) {
    box.after(el("a", { id: "replay-link", href: replayLink(matchId, token), class: "button" }, "Replay"));
  }
}

async function countSpectators() {
  try {
    const now = await request(BASE, `/matches/${encodeURIComponent(matchId)}`);
    document.getElementById("spectators").textContent = String(now.spectators);
  } catch { /* shown by the connection status */ }
}

async function start() {
  if (!matchId) {
    note.show("error", "This address names no match.");
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
  document.title = `Watch ${summary.seats.join(" vs ")} · Battlehall`;
  document.getElementById("title").textContent = `${summary.ruleset}: ${summary.seats.join(" vs ")}`;
  document.getElementById("spectators").textContent = String(summary.spectators);
  drawing = await loadDrawing(summary.ruleset);

  client = new BattlehallClient({ url: BASE, match: matchId, token, resume: 0 });
  let liveFrom = Infinity;
  client.on("status", (status, detail) => {
    main.dataset.status = status;
    if (client.result) return; // the pill says "ended" from now on
    statusPill.textContent = status === "open" ? "live" : status;
    statusPill.className = `pill ${status === "open" ? "live" : "warn"}`;
    if (status === "open") note.clear();
    else if (status === "reconnecting" || (status === "closed" && detail.code)) note.show(status === "closed" ? "error" : "warn", statusText(status, detail));
  });
  client.on("welcome", (w) => {
    if (w.role !== "spectator") {
      // A seat's link: its view shows that seat's hand, which a stream must never show.
      client.close("a seat's link");
      board.replaceChildren();
      note.show("error", w.role === "caster" ? "This is the caster link, not a spectator's: open it as /cast/… to cast the match."
        : "This is a player's link, not a spectator's: open it as /play/… to play, or use the spectator link to watch.");
      main.dataset.status = "refused";
      return;
    }
    liveFrom = w.seq;
    render(w.view, w.seq);
    if (w.delay_ms) {
      const delay = document.getElementById("delay");
      delay.textContent = `Stream delay ${duration(w.delay_ms)}`;
      delay.hidden = false;
    }
    if (w.view && w.view.result) showResult(w.view.result);
  });
  client.on("event", (e) => {
    addLog(e);
    if (e.seq > liveFrom) client.requestView();
  });
  client.on("view", (v) => render(v.view, v.seq));
  client.on("ended", (result) => { showResult(result); countSpectators(); });
  client.on("error", (err) => {
    if (err.id === undefined) note.show("error", errorText(err));
  });
  try {
    await client.connect();
  } catch (err) {
    if (main.dataset.status !== "refused") note.show("error", errorText(err));
  }
  countSpectators();
  setInterval(() => { if (!document.hidden && client.status !== "closed") countSpectators(); }, 2000);
}

start();
