// The player page, /play/{match}#token=T: a game table in one screen. The board (drawn by
// the ruleset's module: opponents along the top, your hand along the bottom) fills the
// screen beside the prompt bar (every option of every open prompt, its countdown), the
// result, who has left, and the log in words; How to play opens in the page. Built on the
// client library (battlehall.js).

import {BattlehallClient} from "/static/battlehall.js";
import * as generic from "/static/rulesets/generic.js";
import {el, useCss, legal, same, resultText, describeCommon, words, rulesetInfo, howToEl} from "/static/rulesets/common.js";
import {rematchBox} from "/static/rematch.js";
import {storedProfile} from "/static/profile.js";
import {clockText} from "/static/clock_record.js";

useCss("/static/table.css");
useCss("/static/play.css");

const LOG_LINES = 300;  // the log keeps the latest lines; the replay page has them all
const STATUS_WORDS = {
  connecting: "Connecting…", open: "Connected", reconnecting: "Connection lost: reconnecting…",
  closed: "Disconnected",
};
const ERROR_WORDS = {
  unauthorized: "This link's token does not belong to this match: ask for your seat's link again.",
  not_found: "There is no such match (it may have ended more than a week ago).",
  unavailable: "The server cannot reach its storage right now: your move was not recorded yet. It is sent again by itself.",
  rate_limited: "Too many clicks at once: your move is sent again in a moment.",
  unknown_prompt: "That decision had already closed.",
  illegal_option: "That option is not open any more.",
  bad_args: "That combination is not allowed.",
  match_over: "The match is over.",
  spectator: "Spectators cannot play.",
  full: "This match has as many spectators as it allows.",
  internal: "The server hit a bug; the match is unchanged. Try again.",
  bad_seat: "You have resigned already.",
  no_claim: "Nobody is away now, so there is no win to claim.",
};

const matchId = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const token = new URLSearchParams(location.hash.slice(1)).get("token");

// --- the page's elements ---------------------------------------------------------------
const mount = document.getElementById("app") || document.querySelector("main") || document.body;
const statusEl = el("span.status", {role: "status", "aria-live": "polite"}, "Connecting…");
const titleEl = el("h1.match-title", {}, "Loading the match…");
const whoEl = el("span.whoami");
const noticeEl = el("div.notice", {role: "alert", hidden: true});
// What the seat's last answer spent of its clock, from its ack (docs/protocol.md, Lag).
const lastMoveEl = el("p.clock-record.muted", {"aria-live": "polite", hidden: true});
const resultEl = el("div.result-banner", {hidden: true, role: "status", "aria-live": "polite"});
const boardEl = el("section.board", {"aria-label": "Board"});
const promptsEl = el("section.prompt-bar", {role: "region", "aria-label": "Your decisions"});
// The seat's stops: which reaction windows it is asked; the server passes the others.
const STOPS_WORDS = {
  ask: "Always ask me",
  pass_unless_playable: "Pass unless I have a card for it",
  pass_until_my_turn: "Pass everything until my turn",
};
const stopsSelect = el("select.stops", {id: "stops", name: "stops", disabled: true},
  Object.entries(STOPS_WORDS).map(([mode, text]) => el("option", {value: mode}, text)));
const stopsEl = el("label.stops-setting", {hidden: true}, el("span.stops-word", {}, "Reaction windows"), stopsSelect);
const stopsKey = `battlehall.stops.${matchId}`;  // kept in this browser, sent again after each welcome
stopsSelect.addEventListener("change", () => {
  if (client) client.setStops(stopsSelect.value);
  try { localStorage.setItem(stopsKey, stopsSelect.value); } catch (e) { /* storage off: this page only */ }
  drawPrompts(true);
});
const logList = el("ol.log-lines", {tabindex: 0});  // it scrolls: the keyboard may scroll it too
// The log folds (a phone starts with it folded): its heading is the toggle.
const logToggle = el("button.log-toggle", {type: "button", "aria-expanded": "true", "aria-controls": "log-lines"}, "What happened");
logList.id = "log-lines";
const logEl = el("section.play-log", {role: "region", "aria-label": "What happened"}, el("h2", {}, logToggle), logList);
function foldLog(folded) {
  logEl.classList.toggle("folded", folded);
  logToggle.setAttribute("aria-expanded", folded ? "false" : "true");
  logList.hidden = folded;
}
logToggle.addEventListener("click", () => foldLog(!logEl.classList.contains("folded")));
if (window.matchMedia && window.matchMedia("(max-width: 50rem)").matches) foldLog(true);
// Who has left (said at once, outside the log), and the Claim button where the match allows it.
const awayEl = el("span.away-seats", {hidden: true});  // seats marked away (the server's mark)
const leavingText = el("span.leaving-text");
const claimButton = el("button.claim", {type: "button", hidden: true}, "Claim the win");
const leavingEl = el("div.leaving", {role: "status", "aria-live": "polite", hidden: true}, leavingText, awayEl, " ", claimButton);
// Resigning is for good: the button asks once more before it sends anything.
const resignButton = el("button.resign", {type: "button", hidden: true}, "Resign");
const resignYes = el("button.resign-confirm", {type: "button"}, "Yes, resign");
const resignNo = el("button.resign-cancel", {type: "button"}, "Keep playing");
const resignAsk = el("span.resign-ask", {role: "group", "aria-label": "Resign?", hidden: true},
  "Resign this match? It counts as a loss. ", resignYes, " ", resignNo);
// How to play: the ruleset's own guide (its module's howTo), in a dialog over the table.
const howToButton = el("button.howto-open", {type: "button", "aria-haspopup": "dialog"}, "How to play");
const howToBody = el("div.howto-body");
const howToClose = el("button.howto-close", {type: "button"}, "Close");
const howToDialog = el("dialog.howto-dialog", {"aria-labelledby": "howto-title"}, howToBody, el("p.howto-actions", {}, howToClose));
howToButton.addEventListener("click", () => {
  howToBody.replaceChildren(howToEl(rules.howTo || generic.howTo, model.title || words(model.ruleset || "")));
  howToDialog.showModal();
});
howToClose.addEventListener("click", () => howToDialog.close());
const brand = el("a.brand", {href: "/", title: "Back to the lobby"}, "Battlehall");
const root = el("div.play", {id: "play", "data-status": "connecting", "data-seq": "0"},
  el("header.play-head", {}, brand, titleEl, whoEl, statusEl, howToButton, stopsEl, resignButton, resignAsk),
  el("div.play-main", {}, boardEl,
    el("aside.play-side", {}, resultEl, leavingEl, noticeEl, promptsEl, lastMoveEl, logEl)),
  howToDialog);
mount.replaceChildren(root);

// --- state -----------------------------------------------------------------------------
const model = {ruleset: null, view: null, definitions: {}, seat: null, role: "player", prompts: [], seats: [], seq: 0, matchId,
               bots: {}, whenAway: "nothing", title: null, windows: true,  // bots: seat -> level, from the match's summary
               deciding: {}, presence: {}};  // who decides now (public prompts), whose player has left
let rules = generic;          // the ruleset's drawing module
let client = null;
let prompts = new Map();      // id -> prompt object, open for this seat
let viewSeq = -1;             // the seq the current view is as of
let lastSeq = 0;              // the last event seen
let loggedSeq = 0;
let clockOffset = 0;          // server clock minus ours
const pending = new Set();    // prompts answered and waiting for their ack
const othersOpen = new Map(); // id -> the public part of another seat's open prompt (who is deciding)
const selections = new Map(); // "prompt/option" -> {arg: value} chosen in the prompt bar
let viewAsked = false, viewAgain = false;
let promptsKey = "";

// The page's <main> carries the same test hooks as the player's root (data-status, data-seq).
const host = document.querySelector("main");
function hook(name, value) {
  for (const node of host ? [root, host] : [root]) {
    if (value === null) delete node.dataset[name];
    else node.dataset[name] = value;
  }
}

// data-busy while an answer waits for its ack or the view is being fetched: what is drawn
// may change at any moment (tests wait for it to go).
function markBusy() {
  hook("busy", pending.size || viewAsked || (welcomed && !drawingLoaded) ? "true" : null);
}

function setStatus(status, reason) {
  hook("status", status);
  statusEl.textContent = STATUS_WORDS[status] || status;
  statusEl.className = "status status-" + status;
  if (status === "closed" && reason) statusEl.textContent += ` (${reason})`;
}

function notice(text) {
  noticeEl.hidden = !text;
  noticeEl.textContent = text || "";
}

const controls = {
  async choose(promptId, optionId, args) {
    if (pending.has(promptId) || !client) return;
    const prompt = prompts.get(promptId);
    const option = prompt && (prompt.options || []).find(o => o.id === optionId);
    if (!option || !legal(option, args || {})) { notice("That choice is not open."); return; }
    pending.add(promptId);
    markBusy();
    drawPrompts(true);
    try {
      const ack = await client.act(promptId, optionId, args || {});
      notice("");
      if (ack && ack.clock) {
        lastMoveEl.hidden = false;
        lastMoveEl.textContent = `Your last move: ${clockText(ack.clock)}.`;
      }
    } catch (err) {
      notice(ERROR_WORDS[err && err.code] || (err && err.message) || String(err));
    } finally {
      pending.delete(promptId);
      markBusy();
      drawPrompts(true);
    }
  },
};

let resigning = false;  // a resign sent, waiting for its ack

/** Who has left, said at once and outside the log: a seat whose player's socket closed
 * ("disconnected — the bot plays for them in 0:58"), then a seat marked away; the Claim
 * button where the match allows it; and the Resign button, for a seat's player while the
 * match is on and the seat has not resigned. */
function drawResign() {
  const view = model.view || {};
  const out = view.resigned || [];
  const away = view.result ? [] : (view.away || []).filter(s => !out.includes(s));  // out for good
  const bots = model.bots || {};
  const gone = view.result ? [] : Object.keys(model.presence).filter(s => !model.presence[s].connected && s !== model.seat &&
                                                                          !away.includes(s) && !out.includes(s) && !bots[s]);
  awayEl.hidden = !away.length;
  awayEl.dataset.seats = away.join(" ");
  const standIn = model.whenAway === "bot";  // the greedy bot plays an away seat until its player is back
  awayEl.classList.toggle("bot-plays", standIn);
  const them = away.length === 1 && away[0] === model.seat ? "you" : "them";
  awayEl.textContent = away.length ? `Away: ${away.map(s => s === model.seat ? "you" : s).join(", ")}` +
    (standIn ? ` — the bot plays for ${them}` : model.whenAway === "claim" && them === "them" ? " — you may claim the win" : "") : "";
  const then = {bot: "the bot plays for them", claim: "you may claim the win", nothing: "they are marked away"}[model.whenAway] || "they are marked away";
  leavingText.replaceChildren(...gone.flatMap(seat => {
    const at = model.presence[seat].awayAt;
    return [el("span.left-seat", {dataset: {seat}}, el("strong", {}, seat), " disconnected",
      at ? [` — ${then} in `, el("span.clock.countdown", {dataset: {deadline: at, bank: 0}}, "")] : null, ". ")];
  }));
  const player = !!client && model.role === "player" && !!model.seat && !view.result && !out.includes(model.seat);
  claimButton.hidden = !(player && model.whenAway === "claim" && away.some(s => s !== model.seat));
  leavingEl.hidden = !gone.length && !away.length;
  const can = player && !resigning;
  resignButton.hidden = !can || !resignAsk.hidden;
  if (!can) resignAsk.hidden = true;
  tickClocks();
}

claimButton.addEventListener("click", async () => {
  claimButton.disabled = true;
  try {
    await client.claimWin();
    notice("");
  } catch (err) {
    notice(ERROR_WORDS[err && err.code] || (err && err.message) || String(err));
  } finally {
    claimButton.disabled = false;
    drawResign();
  }
});

resignButton.addEventListener("click", () => {
  resignAsk.hidden = false;
  drawResign();
  resignNo.focus();  // the safe choice is the one a stray Enter takes
});
resignNo.addEventListener("click", () => {
  resignAsk.hidden = true;
  drawResign();
  resignButton.focus();
});
resignYes.addEventListener("click", async () => {
  resignAsk.hidden = true;
  resigning = true;
  drawResign();
  try {
    await client.resign();
    notice("");
  } catch (err) {
    notice(ERROR_WORDS[err && err.code] || (err && err.message) || String(err));
  } finally {
    resigning = false;
    drawResign();
  }
});

// --- drawing -----------------------------------------------------------------------------
function focusKey(node) {
  if (!node || node === document.body || !root.contains(node)) return null;
  const data = Object.entries(node.dataset || {});
  return data.length ? node.tagName + JSON.stringify(data) : null;
}

function restoreFocus(container, key) {
  if (!key || container.contains(document.activeElement)) return;
  for (const node of container.querySelectorAll("*")) {
    if (focusKey(node) === key) { node.focus(); return; }
  }
}

/** Who decides now, by seat: the public part of every open prompt (this seat's own too). */
function decidingNow() {
  const out = {};
  if (model.view && model.view.result) return out;
  for (const p of othersOpen.values()) (out[p.seat] ||= []).push(p);
  if (model.seat) for (const p of prompts.values()) (out[model.seat] ||= []).push(p);
  return out;
}

/** Whose player has left, from the client's `gone` (the welcome's, then each presence). */
function presenceNow() {
  const out = {};
  for (const [seat, at] of Object.entries((client && client.gone) || {})) out[seat] = {connected: false, awayAt: at};
  return out;
}

function drawBoard() {
  if (!drawingLoaded) return;  // ensureSummary draws it once the drawing is loaded
  const key = boardEl.contains(document.activeElement) ? focusKey(document.activeElement) : null;
  model.prompts = [...prompts.values()].filter(p => !pending.has(p.id));
  model.deciding = decidingNow();
  model.presence = presenceNow();
  try {
    const playing = model.role === "player" && model.view && !model.view.result;
    rules.render(boardEl, model, playing ? controls : null);
  } catch (err) {
    console.error("the ruleset's drawing failed; showing the plain view", err);
    generic.render(boardEl, model, controls);
  }
  restoreFocus(boardEl, key);
  tickClocks();
}

function argOrder(option) {
  const names = Object.keys(option.args || {});
  const hint = rules.argOrder || ["unit", "tile", "card", "champion", "place", "slot", "side", "with", "discard", "to", "target"];
  return names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  function rank(n) { const i = hint.indexOf(n); return i < 0 ? hint.length : i; }
}

function argName(name) {
  try {
    const text = rules.argName && rules.argName(name, model);
    if (text) return text;
  } catch (err) { /* the plain name */ }
  return words(name);
}

function argLabel(name, value) {
  try {
    const text = rules.argLabel && rules.argLabel(name, value, model);
    if (text) return text;
  } catch (err) { /* fall through to the plain value */ }
  return typeof value === "string" ? value : JSON.stringify(value);
}

// The values an argument may take given the values chosen before it (in argOrder): without
// combos, every listed value; with combos, those of the combos holding every earlier choice.
function valuesFor(option, order, i, chosen) {
  const name = order[i];
  if (!option.combos) return option.args[name];
  const out = [];
  for (const combo of option.combos) {
    if (!order.slice(0, i).every(n => (combo[n] || []).some(v => same(v, chosen[n])))) continue;
    for (const v of combo[name] || []) if (!out.some(x => same(x, v))) out.push(v);
  }
  return out;
}

/** The arguments currently chosen for an option, made legal (first legal value where needed). */
function currentArgs(prompt, option) {
  const order = argOrder(option);
  const wanted = selections.get(prompt.id + "/" + option.id) || {};
  const chosen = {};
  order.forEach((name, i) => {
    const values = valuesFor(option, order, i, chosen);
    chosen[name] = values.some(v => same(v, wanted[name])) ? wanted[name] : values[0];
  });
  return chosen;
}

/** A prompt's countdown; this seat's own are timers (role="timer") for screen readers. */
function clockEl(prompt, own = false) {
  const role = own ? "timer" : null;
  if (prompt.deadline == null) return el("span.clock.untimed", {role}, "no time limit");
  return el("span.clock", {role, dataset: {deadline: prompt.deadline, bank: prompt.bank_ms || 0}}, "");
}

function mmss(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

function tickClocks() {
  const now = Date.now() + clockOffset;
  for (const node of root.querySelectorAll(".clock[data-deadline]")) {
    const left = Number(node.dataset.deadline) - now;
    const bank = Number(node.dataset.bank);
    if (node.classList.contains("countdown")) {  // a time to something, not a clock running out
      node.textContent = mmss(left);
      continue;
    }
    if (left > 0) {
      node.textContent = `${mmss(left)} left`;
      node.classList.toggle("low", left < 10000);
      node.classList.remove("rope");
      node.style.removeProperty("--rope");
    } else if (bank + left > 0) {
      node.textContent = `time bank ${mmss(bank + left)}`;
      node.classList.add("rope");
      node.style.setProperty("--rope", `${Math.max(0, Math.min(1, (bank + left) / Math.max(bank, 1))) * 100}%`);
    } else {
      node.textContent = "time is up";
      node.classList.add("rope");
      node.style.setProperty("--rope", "0%");
    }
  }
}
setInterval(tickClocks, 250);

function drawPrompts(force = false) {
  const open = [...prompts.values()];
  const key = open.map(p => p.id + (pending.has(p.id) ? "*" : "")).join(",") + "|" + [...othersOpen.keys()].join(",");
  if (!force && key === promptsKey) return;
  promptsKey = key;
  const focus = promptsEl.contains(document.activeElement) ? focusKey(document.activeElement) : null;
  const parts = [];
  if (!open.length) {
    const ended = model.view && model.view.result;
    parts.push(el("p.waiting", {}, ended ? "The match is over." : "Nothing to decide now."));
  }
  const others = [...othersOpen.values()];
  if (others.length && !(model.view && model.view.result)) {
    const gone = (client && client.gone) || {};
    parts.push(el("ul.others", {"aria-label": "Who else is deciding"}, others.map(p => el("li", {class: p.window ? "window" : ""},
      p.window ? el("span.window-badge", {}, "Reaction window") : null,
      ` ${p.seat}${botPlays(p.seat) ? " (bot)" : ""}${p.seat in gone ? " (disconnected)" : ""} ${p.window ? "may respond" : "is deciding"}` +
        `${promptName(p.kind) ? ` (${promptName(p.kind)})` : ""} `,
      clockEl(p)))));
  }
  for (const prompt of open) parts.push(promptBox(prompt));
  promptsEl.replaceChildren(...parts);
  tickClocks();
  restoreFocus(promptsEl, focus);
}

/** A prompt's kind in the ruleset's words ("choose a defender"), or nothing. */
function promptName(kind) {
  try {
    const told = rules.promptName && rules.promptName(kind);
    if (told) return told;
  } catch (err) { /* none */ }
  return "";
}

/** True when the server's bot answers for the seat now: a bot's seat, or an away seat it stands in for. */
function botPlays(seat) {
  const away = (model.view && model.view.away) || [];
  return !!(model.bots || {})[seat] || (model.whenAway === "bot" && away.includes(seat));
}

function promptBox(prompt) {
  const busy = pending.has(prompt.id);
  const def = (prompt.options || []).find(o => o.id === prompt.default);
  const auto = client && client.passedForMe(prompt);
  const head = el("div.prompt-head", {},
    prompt.window ? el("span.window-badge", {title: "Other players may answer this window too"}, "Reaction window") : null,
    auto ? el("span.auto-pass", {title: "Your reaction window setting passes it for you"}, "Passing for you") : null,
    el("strong.prompt-text", {}, prompt.text || promptName(prompt.kind) || words(prompt.kind)),
    clockEl(prompt, true));
  const list = el("ul.options");
  for (const option of prompt.options || []) list.append(el("li", {}, optionRow(prompt, option, busy)));
  return el("div.prompt", {class: "prompt" + (prompt.window ? " window" : "") + (busy ? " busy" : ""),
                           dataset: {promptBox: prompt.id}, "aria-busy": busy ? "true" : null},
    head, list,
    def ? el("p.default", {}, "If time runs out: ", el("em", {}, def.text || def.id)) : null);
}

function optionRow(prompt, option, busy) {
  const order = argOrder(option);
  const row = [];
  if (order.length) {
    const chosen = currentArgs(prompt, option);
    order.forEach((name, i) => {
      const values = valuesFor(option, order, i, chosen);
      if (values.length === 1) {  // nothing to choose: say what it is
        row.push(el("span.arg.fixed", {dataset: {arg: name}}, argLabel(name, values[0])));
        return;
      }
      const select = el("select", {dataset: {prompt: prompt.id, option: option.id, arg: name},
                                   "aria-label": `${option.text || option.id}: ${argName(name)}`, disabled: busy},
        values.map((v, j) => el("option", {value: String(j), selected: same(v, chosen[name])}, argLabel(name, v))));
      select.addEventListener("change", () => {
        const picked = {...currentArgs(prompt, option), [name]: values[Number(select.value)]};
        selections.set(prompt.id + "/" + option.id, picked);
        drawPrompts(true);
        drawBoard();
      });
      row.push(el("label.arg", {}, el("span", {}, argName(name)), select));
    });
  }
  const button = el("button.choice", {type: "button", disabled: busy,
                                      class: "choice" + (option.id === prompt.default ? " is-default" : ""),
                                      dataset: {prompt: prompt.id, option: option.id}},
    option.text || option.id, option.id === prompt.default ? el("span.default-mark", {}, " (default)") : null);
  button.addEventListener("click", () => controls.choose(prompt.id, option.id, currentArgs(prompt, option)));
  return el("div.option", {}, button, row.length ? el("div.args", {}, row) : null);
}

const unlogged = [];  // events that came before the ruleset's drawing (which words them)

function logEvent(ev) {
  if (!drawingLoaded) { unlogged.push(ev); return; }
  if (ev.seq <= loggedSeq) return;
  loggedSeq = ev.seq;
  let line;
  try {
    line = rules.describe(ev, model);
    if (line === undefined) line = describeCommon(ev, model);
    if (line === undefined) line = generic.describe(ev, model);
  } catch (err) {
    line = generic.describe(ev, model);
  }
  if (!line) return;
  // A sentence starts with a capital, but a seat's name is written as its player chose it.
  if (!model.seats.some(seat => line.startsWith(seat))) line = line[0].toUpperCase() + line.slice(1);
  logList.append(el("li", {dataset: {seq: ev.seq, kind: ev.kind}}, line));
  while (logList.children.length > LOG_LINES) logList.firstElementChild.remove();
  logList.scrollTop = logList.scrollHeight;
}

let rematch = null;  // the rematch box (rematch.js), made at the end
const ratingChangeEl = el("span.rating-change");
let ratingAsked = false;
const RATING_POLLS = 10;  // the profile shows a rated match a moment after its end (ratings.py)

// The signed change of this seat's rating, once this browser's profile (the lobby's, in
// localStorage) lists this match on this seat in its recent matches; nothing if it never
// does (another browser's seat, an unrated match, a server that keeps no profiles).
async function showRatingChange() {
  const mine = storedProfile();
  if (ratingAsked || !mine || model.role !== "player" || !model.seat) return;
  ratingAsked = true;
  for (let i = 0; i < RATING_POLLS; i++) {
    try {
      const r = await fetch(`/profiles/${encodeURIComponent(mine.profile)}`, {headers: {Accept: "application/json"}});
      if (r.status === 404) return;
      if (r.ok) {
        const found = ((await r.json()).recent_matches || []).find(m => m.match === matchId && m.seat === model.seat);
        if (found) {
          if (!found.rated) return;
          const change = found.display_after - found.display_before;
          ratingChangeEl.textContent = `Rating ${found.display_before} → ${found.display_after} ` +
            `(${change >= 0 ? "+" : "−"}${Math.abs(change)}). `;
          return;
        }
      }
    } catch (e) { /* offline a moment: ask again */ }
    await new Promise(done => setTimeout(done, 1000));
  }
}

function headline(result, mine) {
  if (model.role !== "player" || !model.seat || result.reason === "aborted") return "Match over. ";
  if (mine) return "You won! ";
  return (result.winners || []).length ? "You lost. " : "Draw. ";
}

function showResult(result) {
  if (!result) return;
  resignButton.hidden = resignAsk.hidden = true;
  if (result.reason === "judge_rewind" && result.rewound_to) return showRewound(result.rewound_to);
  const mine = model.seat && (result.winners || []).includes(model.seat);
  resultEl.hidden = false;
  resultEl.dataset.result = result.reason || "ended";
  resultEl.className = "result-banner" + (mine ? " won" : "");
  resultEl.replaceChildren(
    el("strong", {}, headline(result, mine)),
    mine ? `(${words(result.reason || "")}) ` : resultText(result, model) + " ",
    ratingChangeEl,
    el("a", {href: `/replay/${encodeURIComponent(matchId)}${token ? `#token=${encodeURIComponent(token)}` : ""}`}, "Watch the replay"));
  showRatingChange();
  if (model.role === "player" && model.seat && token) {  // the same players may play again
    rematch = rematch || rematchBox(matchId, token, model.seat);
    resultEl.append(rematch.node);
    rematch.start();
  }
}

// A judge took the match back to before a decision: it goes on as another match, which
// the same token plays (docs/protocol.md, Rewind).
function showRewound(next) {
  const page = model.role === "player" ? "play" : "watch";
  const link = `/${page}/${encodeURIComponent(next)}${token ? `#token=${encodeURIComponent(token)}` : ""}`;
  resultEl.hidden = false;
  resultEl.dataset.result = "judge_rewind";
  resultEl.className = "result-banner";
  resultEl.replaceChildren(el("strong", {}, "A judge took the match back. "),
                           "It goes on from before that decision. ",
                           el("a", {href: link}, model.role === "player" ? "Go on playing" : "Watch it go on"));
}

// --- the view ------------------------------------------------------------------------------
function takeView(seq, view, openPrompts, now) {
  if (seq < viewSeq) return;
  viewSeq = seq;
  model.view = view;
  if (now) clockOffset = now - Date.now();
  prompts = new Map((openPrompts || []).map(p => [p.id, p]));
  for (const id of [...selections.keys()]) if (!prompts.has(id.split("/")[0])) selections.delete(id);
  drawPrompts();
  drawBoard();
  drawResign();
  if (view && view.result) showResult(view.result);
}

function askView() {
  if (viewAsked) { viewAgain = true; return; }
  viewAsked = true;
  markBusy();
  client.requestView();
}

function onEvent(ev) {
  if (ev.seq > lastSeq) lastSeq = ev.seq;
  hook("seq", String(lastSeq));
  logEvent(ev);
  // Who else is deciding: every seat's prompts are public in part (seat, kind, window, clock).
  const pd = ev.data || {};
  if (ev.kind === "prompt" && pd.seat !== model.seat) othersOpen.set(pd.id, pd);
  else if (ev.kind === "prompt_closed") othersOpen.delete(pd.id);
  else if (ev.kind === "match_ended") othersOpen.clear();
  if (ev.kind === "prompt" || ev.kind === "prompt_closed") drawPrompts();
  if (ev.seq <= viewSeq) return;  // history older than the view in hand
  const d = ev.data || {};
  if (ev.kind === "prompt" && d.seat === model.seat && d.options) {
    prompts.set(d.id, d);
    drawPrompts();
  } else if (ev.kind === "prompt_closed") {
    if (prompts.delete(d.id)) drawPrompts();
  } else if (ev.kind === "match_ended") {
    showResult(d);
  }
  askView();
}

// --- start -----------------------------------------------------------------------------------
async function loadRules(name) {
  try {
    return await import(`/static/rulesets/${encodeURIComponent(name)}.js`);
  } catch (err) {
    console.warn(`no drawing for ruleset ${name}; showing the plain view`, err);
    return generic;
  }
}

/** The match's ruleset, seats and clock, and the ruleset's drawing; "gone" for no such match. */
async function loadSummary() {
  let summary;
  try {
    const r = await fetch(`/matches/${encodeURIComponent(matchId)}`);
    if (r.status === 404) { notice(ERROR_WORDS.not_found); setStatus("closed"); return "gone"; }
    summary = await r.json();
  } catch (err) {
    notice("The server cannot be reached. Trying again…");
    return "unreachable";  // the socket keeps trying; the welcome loads it again
  }
  model.ruleset = summary.ruleset;
  model.seats = summary.seats || [];
  model.clock = summary.clock;
  model.bots = summary.bots || {};
  model.whenAway = summary.when_away || "nothing";
  const info = await rulesetInfo(summary.ruleset);
  model.title = (info && info.title) || words(summary.ruleset);
  model.windows = !info || info.windows !== false;
  const players = model.seats.join(" vs ");
  titleEl.replaceChildren(el("span.ruleset-name", {}, model.title), players ? el("span.players", {}, ` · ${players}`) : null);
  document.title = `${model.title}${players ? `: ${players}` : ""} · Battlehall`;
  rules = await loadRules(summary.ruleset);
  return "loaded";
}

let summaryState = null;   // the summary being loaded (null: to ask again)
let drawingLoaded = false; // the ruleset's drawing is here (or the plain one, the server being down)
let welcomed = false;

/** Load the summary once (again after it failed); then draw everything with the drawing. */
function ensureSummary() {
  summaryState ||= loadSummary().then(result => {
    if (result === "unreachable") summaryState = null;  // the plain view until it loads
    if (result !== "gone") {
      drawingLoaded = true;
      markBusy();
      for (const ev of unlogged.splice(0)) logEvent(ev);
      showStops();
      if (model.view) { drawBoard(); drawPrompts(true); drawResign(); }
    }
    return result;
  });
  return summaryState;
}

/** The Reaction windows setting: a player's, in rulesets with reaction windows only. */
function showStops() {
  stopsEl.hidden = !welcomed || !drawingLoaded || model.role !== "player" || !model.windows;
}

async function start() {
  if (!matchId) { notice("No match in this address."); return; }
  if (!token) {
    notice("This address has no seat token (#token=…). Use the seat link given when the match was created, " +
           "or watch it instead.");
    promptsEl.replaceChildren(el("a", {href: `/watch/${encodeURIComponent(matchId)}`}, "Watch this match"));
    setStatus("closed");
    return;
  }
  // The match's summary (its ruleset and the drawing's module) and the socket at once: a
  // welcome that comes first waits for the drawing (drawBoard draws nothing till then).
  const summary = ensureSummary();
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  client = new BattlehallClient({url: `${scheme}//${location.host}/ws/${encodeURIComponent(matchId)}`, token,
                                 codec: "json", resume: 0,  // 0: the whole history, for the log
                                 maxBackoffMs: 2000});     // a player wants back in soon
  client.on("status", (s, detail) => {
    const status = typeof s === "string" ? s : s.status;
    const why = (detail && detail.reason) || (typeof s === "object" ? s.reason : undefined);
    setStatus(status, why);
    if (status === "open") notice("");
  });
  client.on("welcome", msg => {
    if (msg.role === "caster") {  // the caster link opens the caster page only
      client.close("the caster link");
      notice("This is the caster link, not a player's: open it as /cast/… to cast the match.");
      setStatus("closed");
      document.body.dataset.refused = "caster";
      return;
    }
    model.seat = msg.seat;
    model.role = msg.role;
    model.definitions = msg.definitions || {};  // sent once per socket, never in a view
    whoEl.textContent = msg.seat ? `You play ${msg.seat}` : "You watch";
    welcomed = true;
    showStops();
    stopsSelect.disabled = msg.role !== "player";
    viewAsked = false;
    markBusy();
    takeView(msg.seq, msg.view, msg.prompts, msg.now);
    if (!model.ruleset) ensureSummary();  // the server was down at first
  });
  client.on("event", onEvent);
  client.on("presence", () => { drawBoard(); drawResign(); drawPrompts(true); });
  let kept = null;
  try { kept = localStorage.getItem(stopsKey); } catch (e) { /* storage off */ }
  if (kept && STOPS_WORDS[kept]) { client.stops = kept; stopsSelect.value = kept; }  // sent after the welcome
  client.on("stops", mode => {  // set here, on another device of the seat, or its turn came
    stopsSelect.value = mode;
    try { localStorage.setItem(stopsKey, mode); } catch (e) { /* storage off */ }
    drawPrompts(true);
  });
  client.on("view", msg => {
    viewAsked = false;
    markBusy();
    takeView(msg.seq, msg.view, msg.prompts, msg.now);
    if (viewAgain && lastSeq > viewSeq) { viewAgain = false; askView(); }
    viewAgain = false;
  });
  client.on("error", e => {
    if (e && e.code === "bad_message" && viewAsked) { viewAsked = false; markBusy(); return; }  // a server without views
    if (e && e.id == null) notice(ERROR_WORDS[e.code] || e.message || "Error");
  });
  client.on("ended", result => showResult(result));
  const connected = client.connect();
  connected.catch(() => {});  // handled below, once the summary is in (a refusal may come first)
  if (await summary === "gone") { client.close("no such match"); return; }
  await connected;
}

start().catch(err => {
  if (document.body.dataset.refused) return;  // said already
  // Refused for good (a wrong token, no such match): say so as a person would.
  notice(ERROR_WORDS[err && err.code] || String((err && err.message) || err));
  setStatus("closed");
});
