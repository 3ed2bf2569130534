// The operator page: behind the server's API key (kept in this tab's session storage).
// The matches this server runs, live and recently finished, with their seats' sockets,
// spectators and clocks, and abort; /metrics as a few labelled numbers and bars.
import { BattlehallError, request } from "./battlehall.js";
import { BASE, banner, castLink, duration, el, errorText, replayLink, resultText } from "./page.js";

const KEY = "battlehall.apiKey";
// A read behind the key (the list the console shows first): 200 with the key, 401 with
// another, 403 on a server that has none. (An abort of a match that does not exist was a
// 404 in the console at every login, and a write where a read does.)
const PROBE = "/operator/matches";
const main = document.getElementById("main");
const note = banner(document.getElementById("banner"));
let key = sessionStorage.getItem(KEY) || "";
let timer = null;
let previous = null; // the last metrics read, for rates
let clockOffset = 0;
const confirming = new Set();

async function check(candidate) {
  try {
    await request(BASE, PROBE, { apiKey: candidate });
  } catch (err) {
    if (err.status === 401) throw new Error("That is not this server's API key.");
    if (err.status === 403) throw new Error("This server was started without an API key (--api-key or BATTLEHALL_API_KEY), so its operator actions are off.");
    throw new Error(errorText(err));
  }
  return true;
}

async function unlock(candidate) {
  try {
    await check(candidate);
  } catch (err) {
    note.show("error", err.message);
    main.dataset.status = "locked";
    return;
  }
  key = candidate;
  sessionStorage.setItem(KEY, key);
  note.clear();
  document.getElementById("login").hidden = true;
  document.getElementById("console").hidden = false;
  main.dataset.status = "open";
  refresh();
  clearInterval(timer);
  timer = setInterval(() => { if (!document.hidden) refresh(); }, 2000);
}

function lock() {
  sessionStorage.removeItem(KEY);
  key = "";
  clearInterval(timer);
  document.getElementById("console").hidden = true;
  document.getElementById("login").hidden = false;
  main.dataset.status = "locked";
}

// -- metrics ----------------------------------------------------------------------------

/** Prometheus text to {name: [{labels, value}]}. */
function parseMetrics(text) {
  const out = {};
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const m = line.match(/^([a-zA-Z_:][\w:]*)(\{([^}]*)\})?\s+(\S+)/);
    if (!m) continue;
    const labels = {};
    for (const pair of (m[3] || "").matchAll(/(\w+)="([^"]*)"/g)) labels[pair[1]] = pair[2];
    (out[m[1]] ||= []).push({ labels, value: Number(m[4]) });
  }
  return out;
}

const one = (metrics, name) => (metrics[name] && metrics[name][0] ? metrics[name][0].value : 0);

/** A quantile of a histogram from its cumulative buckets: the bound of the first bucket that reaches it. */
function quantile(metrics, name, q) {
  const buckets = (metrics[`${name}_bucket`] || []).map((b) => ({ le: b.labels.le === "+Inf" ? Infinity : Number(b.labels.le), n: b.value }));
  const total = buckets.length ? buckets[buckets.length - 1].n : 0;
  if (!total) return null;
  const found = buckets.find((b) => b.n >= q * total);
  return found ? found.le : null;
}

function ms(seconds) {
  if (seconds === null) return "–";
  if (seconds === Infinity) return "over 10 s";
  return seconds < 0.001 ? `≤ ${(seconds * 1000).toFixed(1)} ms` : `≤ ${Math.round(seconds * 1000)} ms`;
}

function meter(label, value, fraction, help) {
  return el("div", { class: "meter", title: help || "" },
            el("div", { class: "value" }, value), el("div", { class: "label" }, label),
            fraction === undefined ? null : el("div", { class: "bar", role: "img", "aria-label": `${Math.round(fraction * 100)}%` },
                                               el("span", { style: `width: ${Math.round(Math.min(1, Math.max(0, fraction)) * 100)}%` })));
}

function showMetrics(text) {
  const m = parseMetrics(text);
  const now = Date.now();
  const answers = one(m, "battlehall_answers_total");
  const rate = previous ? (answers - previous.answers) / ((now - previous.at) / 1000) : null;
  previous = { answers, at: now };
  const lag = one(m, "battlehall_event_loop_lag_last_seconds");
  const errors = (m.battlehall_errors_total || []).sort((a, b) => b.value - a.value);
  const maxError = Math.max(1, ...errors.map((e) => e.value));
  const box = document.getElementById("metrics");
  box.replaceChildren(
    meter("matches in memory", one(m, "battlehall_matches_in_memory")),
    meter("sockets open", one(m, "battlehall_connections")),
    meter("answers per second", rate === null ? "…" : rate.toFixed(1)),
    meter("answers in all", answers),
    meter("answer to ack, median", ms(quantile(m, "battlehall_ack_seconds", 0.5))),
    meter("answer to ack, 99th percentile", ms(quantile(m, "battlehall_ack_seconds", 0.99))),
    meter("Redis write, 99th percentile", ms(quantile(m, "battlehall_redis_write_seconds", 0.99))),
    meter("event loop lag now", `${Math.round(lag * 1000)} ms`, lag / 0.25, "How late the server ran a timer; the bar is full at 250 ms"),
    meter("prompts that timed out", one(m, "battlehall_prompt_timeouts_total")),
    meter("matches created", one(m, "battlehall_matches_created_total")),
    el("div", { class: "meter", "aria-label": "errors sent to clients, by code" },
       el("div", { class: "label" }, "errors sent to clients"),
       errors.length ? errors.map((e) => el("div", { class: "small" }, `${e.labels.code}: ${e.value}`,
                                              el("div", { class: "bar" }, el("span", { style: `width: ${Math.round((e.value / maxError) * 100)}%` }))))
                     : el("div", { class: "value" }, "none")),
  );
}

// -- matches ----------------------------------------------------------------------------

async function abort(match) {
  if (!confirming.has(match)) {
    confirming.add(match);
    setTimeout(() => { confirming.delete(match); refresh(); }, 5000);
    refresh();
    return;
  }
  confirming.delete(match);
  try {
    await request(BASE, `/matches/${encodeURIComponent(match)}/abort`, { method: "POST", apiKey: key });
    note.show("info", `Match ${match} aborted.`);
  } catch (err) {
    note.show("error", `Match ${match} was not aborted: ${errorText(err)}`);
  }
  refresh();
}

function clockCell(m) {
  if (!m.in_memory) return el("span", { class: "muted" }, "not loaded here");
  if (!m.prompts.length) return el("span", { class: "muted" }, m.status === "live" ? "no prompt open" : "–");
  const serverNow = Date.now() + clockOffset;
  return el("ul", { class: "small" }, m.prompts.map((p) => {
    const left = p.deadline ? p.deadline - serverNow : null;
    const text = left === null ? "untimed" : left >= 0 ? `${duration(left)} left` : `on the bank, ${duration(Math.max(0, p.bank_ms + left))} left`;
    return el("li", {}, `${p.seat}: ${p.kind} (${p.id}), ${text}`);
  }));
}

function seatsCell(m) {
  return el("ul", { class: "small" }, m.seats.map((seat) => {
    const n = m.sockets ? m.sockets[seat] : null;
    const bank = m.banks_ms ? `, bank ${duration(m.banks_ms[seat])}` : "";
    return el("li", { dataset: { seat } }, `${seat}: `, n === null ? "?" : n ? `${n} socket${n > 1 ? "s" : ""}` : el("span", { class: "muted" }, "no socket"), bank);
  }));
}

function showMatches(matches) {
  const box = document.getElementById("matches");
  if (!matches.length) {
    box.replaceChildren(el("p", { class: "muted" }, "No match is live or kept in memory on this server."));
    return;
  }
  box.replaceChildren(el("table", {},
    el("thead", {}, el("tr", {}, ["Match", "Status", "Seats and sockets", "Watching", "Open prompts and clocks", ""].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, matches.map((m) => el("tr", { dataset: { match: m.match, status: m.status } },
      el("td", {}, el("code", {}, m.match), el("div", { class: "small muted" }, `${m.ruleset} · event #${m.seq}`)),
      el("td", {}, el("span", { class: `pill ${m.status}` }, m.status), m.result ? el("div", { class: "small" }, resultText(m.result)) : null),
      el("td", {}, seatsCell(m)),
      el("td", {}, String(m.spectators), m.spectator_settings && m.spectator_settings.delay_ms ? el("div", { class: "small muted" }, `delay ${duration(m.spectator_settings.delay_ms)}`) : null,
         m.caster_token ? el("div", { class: "small" }, el("a", { href: castLink(m.match, m.caster_token), dataset: { cast: m.match } }, "Caster link"),
                                                        ` (delay ${duration(m.caster_settings.delay_ms)})`) : null),
      el("td", {}, clockCell(m)),
      el("td", {}, m.status === "live"
        ? el("button", { type: "button", class: "danger", dataset: { action: "abort" }, onclick: () => abort(m.match) },
             confirming.has(m.match) ? "Confirm abort" : "Abort")
        : el("a", { href: replayLink(m.match) }, "Replay")))))));
}

// /metrics is behind the key too; it answers text, not JSON, so not through `request`.
async function metricsText() {
  const response = await fetch(`${BASE}/metrics`, { headers: { authorization: `Bearer ${key}` } });
  if (!response.ok) {
    const e = await response.json().then((d) => d.error || {}, () => ({}));
    throw new BattlehallError(e.code || `http_${response.status}`, e.message || `HTTP ${response.status}`,
                              { status: response.status });
  }
  return response.text();
}

async function refresh() {
  if (!key) return;
  try {
    const [listed, metrics] = await Promise.all([
      request(BASE, "/operator/matches", { apiKey: key }),
      metricsText(),
    ]);
    clockOffset = listed.now - Date.now();
    showMatches(listed.matches);
    showMetrics(metrics);
    main.dataset.refreshed = String(Date.now());
  } catch (err) {
    if (err.status === 401) {
      lock();
      note.show("error", "The API key is no longer accepted.");
    } else {
      note.show("warn", `Cannot read the server's state: ${errorText(err)}`);
    }
  }
}

// Any match still retained (finished ones leave the list a minute after their end).
document.getElementById("find").addEventListener("submit", async (e) => {
  e.preventDefault();
  const id = document.getElementById("find-id").value.trim();
  const box = document.getElementById("found");
  try {
    const m = await request(BASE, `/matches/${encodeURIComponent(id)}`);
    box.replaceChildren(el("p", { dataset: { found: m.match, status: m.status } },
      el("code", {}, m.match), ` · ${m.ruleset} · ${m.seats.join(", ")} · `, el("span", { class: `pill ${m.status}` }, m.status),
      m.result ? ` · ${resultText(m.result)}` : "", " · ",
      m.status === "finished" ? el("a", { href: replayLink(m.match) }, "Replay")
                              : el("button", { type: "button", class: "danger", onclick: () => abort(m.match) }, "Abort")));
  } catch (err) {
    box.replaceChildren(el("p", { class: "banner warn" }, errorText(err)));
  }
});

document.getElementById("key-form").addEventListener("submit", (e) => {
  e.preventDefault();
  unlock(document.getElementById("key").value.trim());
});
document.getElementById("lock").addEventListener("click", lock);
if (key) unlock(key);
else document.getElementById("key").focus();
