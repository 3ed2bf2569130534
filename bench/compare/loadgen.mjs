#!/usr/bin/env node
// One load generator, two adapters (colyseus, battlehall), so the client-side
// cost is the same program for both servers.
//
// Scenario: --matches N concurrent `duel` matches, each with 2 players and 2
// spectators. Spectators connect first, then the players; players answer every
// prompt as soon as it arrives (strike or guard, from a PRNG seeded by the match
// seed and the seat); when a match ends its four clients leave and a new match
// starts in the same slot. After --warmup seconds the measured window of
// --seconds starts (not before every slot has its first match connected).
//
// Reported for the window: answers/s (acks received), answer->ack latency
// p50/p99, answer->spectator latency p50/p99 (act sent -> a spectator receives
// the event that act produced; both spectators are sampled), and server CPU per
// answer from /proc/<pid>/stat (utime+stime) of --pid and all its descendants,
// before/after the window; processes whose name starts with "redis" are
// counted apart, so Battlehall is reported with and without its Redis.
//
// Every spectator stream is also replayed against a reference implementation of
// the duel rules (same LCG), so both servers are checked to play the same game.
//
// Usage:
//   node loadgen.mjs --target colyseus   --url http://127.0.0.1:2567 --matches 100 --seconds 20 --warmup 5 --pid <server pid>
//   node loadgen.mjs --target battlehall --url http://127.0.0.1:8765 --matches 100 --seconds 20 --warmup 5 --pid <server pid>
// Options: --seed S (base seed, default 1), --json-out FILE, --label TEXT,
//          --samples-out FILE (one CSV line per measured ack: ms since the window
//          opened when the act was sent, answer->ack ms, the act's index in its match),
//          --batch (battlehall: ask for `batch` messages, one frame per server turn),
//          --match-timeout SECONDS (default 60), --ramp-limit SECONDS (default 60:
//          the window opens after the warm-up and once all N matches are connected,
//          or this long after the warm-up), --quiet
//
// Any other ruleset (Battlehall only): --ruleset NAME --seats N [--spectators K]
// [--clock JSON]. Each seat answers every prompt of its own at once with a random
// legal option and arguments (as the engine's random_answer: an option, then, for a
// combo option, a combo in proportion to its answers, then a value of each argument);
// spectators (default 0) only take the stream; no reference rules are checked. An act
// refused with `unknown_prompt` after another seat's answer closed its window
// (prompt_closed, reason "cancelled") is counted as `overtaken`, not as an error.
// A match keeps its slot until it ends, or until --match-timeout.
// Prints a readable table, then one JSON line (the last line of stdout).

import fs from "node:fs";
import { performance } from "node:perf_hooks";

// ---------------------------------------------------------------- arguments
function parseArgs(argv) {
  const out = {};
  for (let i = 2; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith("--")) throw new Error(`unexpected argument ${a}`);
    const key = a.slice(2);
    if (key === "quiet" || key === "batch") { out[key] = true; continue; }
    if (i + 1 >= argv.length) throw new Error(`--${key} needs a value`);
    out[key] = argv[++i];
  }
  return out;
}
const args = parseArgs(process.argv);
const TARGET = args.target;
if (TARGET !== "colyseus" && TARGET !== "battlehall") {
  console.error("--target colyseus|battlehall is required");
  process.exit(2);
}
const URL_BASE = (args.url || (TARGET === "colyseus" ? "http://127.0.0.1:2567" : "http://127.0.0.1:8765")).replace(/\/$/, "");
const MATCHES = Number(args.matches || 100);
const SECONDS = Number(args.seconds || 20);
const SAMPLES_OUT = args["samples-out"] || null;
const WARMUP = Number(args.warmup || 5);
const BASE_SEED = Number(args.seed || 1);
const MATCH_TIMEOUT_MS = Number(args["match-timeout"] || 60) * 1000;
const RAMP_LIMIT_S = Number(args["ramp-limit"] || 60);
const SERVER_PID = args.pid ? Number(args.pid) : null;
const LABEL = args.label || "";
const QUIET = !!args.quiet;
const RULESET = args.ruleset || "duel";
const DUEL = RULESET === "duel";
const SEAT_COUNT = Number(args.seats || 2);
const SPECTATORS = Number(args.spectators ?? (DUEL ? 2 : 0));
const CLOCK = args.clock ? JSON.parse(args.clock) : null;
if (!DUEL && TARGET !== "battlehall") {
  console.error("only --target battlehall plays rulesets other than duel");
  process.exit(2);
}
if (DUEL && (SEAT_COUNT !== 2 || SPECTATORS !== 2)) {
  console.error("duel is played by 2 seats with 2 spectators here (the reference check follows both)");
  process.exit(2);
}
const u = new URL(URL_BASE);
if (!["127.0.0.1", "localhost", "[::1]", "::1"].includes(u.hostname)) {
  // This harness only ever loads a server on this machine.
  console.error(`refusing non-loopback target ${u.hostname}`);
  process.exit(2);
}

// ------------------------------------------------------------------ helpers
// mulberry32: the players' choices (strike/guard), reproducible per match+seat.
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Reference duel rules, fed the public stream, to check a server plays the same game.
class DuelRef {
  constructor(seed, seats, hp = 20) {
    this.rng = ((seed % 2 ** 32) + 2 ** 32) % 2 ** 32;
    this.seats = seats;
    this.hp = { [seats[0]]: hp, [seats[1]]: hp };
    this.guarding = { [seats[0]]: false, [seats[1]]: false };
    this.turn = 0;
    this.over = false;
  }
  // returns null if consistent, else a description
  check(kind, data) {
    if (kind === "guard") {
      const seat = this.seats[this.turn];
      if (data.seat !== seat) return `guard by ${data.seat}, expected ${seat}`;
      this.guarding[seat] = true;
      this.turn = 1 - this.turn;
      return null;
    }
    if (kind === "strike") {
      const seat = this.seats[this.turn], other = this.seats[1 - this.turn];
      this.rng = (Math.imul(this.rng, 1664525) + 1013904223) >>> 0;
      const roll = 1 + (this.rng % 3);
      const damage = this.guarding[other] ? Math.max(0, roll - 1) : roll;
      this.guarding[other] = false;
      this.hp[other] -= damage;
      this.turn = 1 - this.turn;
      if (data.seat !== seat || data.target !== other || data.roll !== roll || data.damage !== damage || data.hp !== this.hp[other]) {
        return `strike ${JSON.stringify(data)}, expected ${JSON.stringify({ seat, target: other, roll, damage, hp: this.hp[other] })}`;
      }
      if (this.hp[other] <= 0) this.over = seat;
      return null;
    }
    if (kind === "match_ended") {
      if (!this.over) return `match_ended before a knockout`;
      if (data && data.winner !== undefined && data.winner !== this.over) return `winner ${data.winner}, expected ${this.over}`;
      return null;
    }
    return null;
  }
}

function pct(sorted, p) {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[i] * 1000) / 1000;
}
function mean(xs) {
  if (xs.length === 0) return null;
  let sum = 0;
  for (const x of xs) sum += x;
  return Math.round((sum / xs.length) * 1000) / 1000;
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise.finally(() => clearTimeout(timer)),
    new Promise((_, rej) => { timer = setTimeout(() => rej(new Error(`timeout: ${what}`)), ms); }),
  ]);
}

// -------------------------------------------------------- /proc accounting
let CLK_TCK = 100;
try {
  const { execFileSync } = await import("node:child_process");
  CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
} catch { /* keep 100 */ }

function readStat(pid) {
  try {
    const s = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    const l = s.indexOf("("), r = s.lastIndexOf(")");
    const comm = s.slice(l + 1, r);
    const f = s.slice(r + 2).split(" "); // f[0] is field 3 (state)
    return { pid, comm, ppid: Number(f[1]), utime: Number(f[11]), stime: Number(f[12]), ticks: Number(f[11]) + Number(f[12]) };
  } catch { return null; }
}
// busy ticks of the whole machine (all CPUs), to see how much CPU other
// processes took during the window: the noise indicator of a shared machine
function machineBusyTicks() {
  try {
    const f = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    // user nice system idle iowait irq softirq steal ...
    return f[0] + f[1] + f[2] + f[5] + f[6] + (f[7] || 0);
  } catch { return null; }
}
// pid and every descendant: pid -> {comm, ticks}
function processTree(root) {
  const all = new Map();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const st = readStat(Number(name));
    if (st) all.set(st.pid, st);
  }
  const tree = new Map();
  const rootSt = all.get(root);
  if (!rootSt) return tree;
  tree.set(root, rootSt);
  let grew = true;
  while (grew) {
    grew = false;
    for (const st of all.values()) {
      if (!tree.has(st.pid) && tree.has(st.ppid)) { tree.set(st.pid, st); grew = true; }
    }
  }
  return tree;
}
function cpuDelta(before, after) {
  const procs = [];
  let server = 0, redis = 0, serverSys = 0;
  for (const [pid, a] of after) {
    const b = before.get(pid);
    const d = (a.ticks - (b ? b.ticks : 0)) / CLK_TCK;
    const sys = (a.stime - (b ? b.stime : 0)) / CLK_TCK;
    procs.push({ pid, comm: a.comm, cpu_s: Math.round(d * 100) / 100, sys_s: Math.round(sys * 100) / 100, new: !b });
    if (/^redis/.test(a.comm)) redis += d; else { server += d; serverSys += sys; }
  }
  // processes that ended inside the window: their CPU is not counted (listed here)
  const gone = [...before.keys()].filter((p) => !after.has(p));
  return { server, redis, serverSys, procs, gone };
}

// ------------------------------------------------------------------ metrics
const M = {
  measuring: false,
  answers: 0,        // acks received in the window
  actsSent: 0,       // acts sent in the window
  errors: 0,
  errorCodes: {},
  matchesEnded: 0,
  matchesStarted: 0,
  matchFailures: 0,
  failureReasons: {},
  ackLat: [],
  specLat: [],
  ruleMismatches: 0,
  ruleMismatchSamples: [],
  seqGaps: 0,
  overtaken: 0,      // acts refused because another seat's answer closed their window first
  inFlight: 0,       // acts sent and not yet acked or refused, now
  inFlightSamples: [], // inFlight every 10 ms of the measured window (Little's law: mean = rate x mean wait)
  protocolNotes: new Set(),
  totalAnswers: 0,
  samples: [],       // --samples-out lines
  windowStart: 0,
};
function noteFailure(why) {
  M.matchFailures += 1;
  const k = String(why).slice(0, 120);
  M.failureReasons[k] = (M.failureReasons[k] || 0) + 1;
}
function noteError(code) {
  M.errors += 1;
  M.errorCodes[code] = (M.errorCodes[code] || 0) + 1;
}

// One match's shared bookkeeping between its players and spectators.
class MatchTrack {
  constructor(seed, clients = 4) {
    this.seed = seed;
    this.clients = clients; // players and spectators: the match is done when all saw its end
    this.acts = [];       // k-th act: {sentAt, measured}
    this.specSeen = [0, 0];
    this.ref = [null, null];
    this.ended = 0;       // clients that saw match_ended
    this.done = null;     // resolve()
  }
  actSent(measured) {
    const rec = { sentAt: performance.now(), measured, k: this.acts.length };
    this.acts.push(rec);
    M.inFlight += 1;
    if (measured) M.actsSent += 1;
    return rec;
  }
  acked(rec) {
    M.inFlight -= 1;
    M.totalAnswers += 1;
    if (rec.measured && M.measuring) {
      M.answers += 1;
      M.ackLat.push(performance.now() - rec.sentAt);
      if (SAMPLES_OUT) M.samples.push(`${(rec.sentAt - M.windowStart).toFixed(1)},${(performance.now() - rec.sentAt).toFixed(2)},${rec.k}`);
    }
  }
  // spectator `si` received an action event (strike/guard)
  specAction(si, kind, data) {
    const k = this.specSeen[si]++;
    const rec = this.acts[k];
    if (rec && rec.measured && M.measuring) M.specLat.push(performance.now() - rec.sentAt);
    const why = this.ref[si] && this.ref[si].check(kind, data);
    if (why) {
      M.ruleMismatches += 1;
      if (M.ruleMismatchSamples.length < 5) M.ruleMismatchSamples.push(`seed ${this.seed}: ${why}`);
    }
  }
  specEnded(si, data) {
    const why = this.ref[si] && this.ref[si].check("match_ended", data);
    if (why) {
      M.ruleMismatches += 1;
      if (M.ruleMismatchSamples.length < 5) M.ruleMismatchSamples.push(`seed ${this.seed}: ${why}`);
    }
  }
  clientEnded() {
    this.ended += 1;
    if (this.ended === this.clients && this.done) this.done();
  }
}

const SEATS = ["a", "b"];
function chooser(seed, seatIndex) {
  const r = prng(Math.imul(seed, 2654435761) ^ (seatIndex + 1) * 0x9e3779b9);
  return (options) => options[Math.floor(r() * options.length)];
}

// ------------------------------------------------------ battlehall adapter
let WebSocket, msgpack;
async function loadBattlehall() {
  WebSocket = (await import("ws")).default;
  msgpack = await import("@msgpack/msgpack");
}

// With --batch, the hello asks for `batch` messages (docs/protocol.md, Batches): all
// the server has for a socket in one turn comes as one frame. `onMessages(fn)` calls fn
// with each message in order, batches unpacked, the welcome excepted.
const BH_BATCH = !!args.batch;

function bhConnect(url, token) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ["battlehall.v1.msgpack"], { perMessageDeflate: false });
    ws.binaryType = "nodebuffer";
    const send = (obj) => ws.send(msgpack.encode(obj));
    const decodeMsg = (data, isBinary) => (isBinary ? msgpack.decode(data) : JSON.parse(data.toString()));
    let handler = null;
    const early = []; // messages after the welcome, before onMessages
    let welcomed = false;
    const onMessages = (fn) => { handler = fn; for (const m of early.splice(0)) fn(m); };
    const take = (msg) => {
      if (welcomed) { if (handler) handler(msg); else early.push(msg); return; }
      welcomed = true;
      ws.removeAllListeners("error");
      ws.removeAllListeners("close");
      if (msg.t !== "welcome") { reject(new Error(`expected welcome, got ${JSON.stringify(msg).slice(0, 200)}`)); ws.terminate(); return; }
      for (const f of ["match", "role", "seq", "view", "prompts", "now"]) {
        if (!(f in msg)) M.protocolNotes.add(`welcome lacks field ${f}`);
      }
      resolve({ ws, send, onMessages, welcome: msg });
    };
    ws.once("open", () => {
      if (ws.protocol !== "battlehall.v1.msgpack") M.protocolNotes.add(`server picked subprotocol ${JSON.stringify(ws.protocol)} for an offer of battlehall.v1.msgpack`);
      send(BH_BATCH ? { t: "hello", token, batch: true } : { t: "hello", token });
    });
    ws.once("error", reject);
    ws.once("close", (code) => reject(new Error(`closed ${code} before welcome`)));
    ws.on("message", (data, isBinary) => {
      if (!isBinary) M.protocolNotes.add("server sent a text frame on battlehall.v1.msgpack");
      let msg;
      try { msg = decodeMsg(data, isBinary); } catch (e) { if (!welcomed) reject(e); else M.protocolNotes.add(`undecodable frame: ${e}`); return; }
      if (msg.t === "batch") {
        if (!BH_BATCH) M.protocolNotes.add("a batch message without asking for it");
        for (const m of msg.messages) take(m);
      } else take(msg);
    });
  });
}

async function bhMatch(slot, seed, track) {
  const res = await fetch(`${URL_BASE}/matches`, {
    method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ ruleset: "duel", seats: SEATS, seed, seed_public: true }),  // the engine runs on this seed: the reference duel can follow it
  });
  if (res.status !== 201) {
    const body = await res.text();
    throw new Error(`POST /matches -> ${res.status} ${body.slice(0, 200)}`);
  }
  const created = await res.json();
  for (const f of ["match", "tokens", "spectator_token", "ws"]) {
    if (!(f in created)) M.protocolNotes.add(`POST /matches response lacks ${f}`);
  }
  const wsPath = created.ws || `/ws/${created.match}`;
  const wsUrl = URL_BASE.replace(/^http/, "ws") + wsPath;
  const conns = [];
  // a normal close handshake, like the Colyseus clients' consented leave (ws
  // falls back to dropping the TCP connection if the server does not answer)
  const closeAll = () => { for (const c of conns) { try { c.ws.close(1000); } catch { /* gone */ } } };
  try {
    // spectators first, so they see every action event
    for (let si = 0; si < 2; si++) {
      const c = await bhConnect(wsUrl, created.spectator_token);
      conns.push(c);
      if (c.welcome.role !== "spectator") M.protocolNotes.add(`spectator welcome role ${JSON.stringify(c.welcome.role)}`);
      track.ref[si] = new DuelRef(seed, SEATS);
      let lastSeq = c.welcome.seq;
      c.onMessages((msg) => {
        if (msg.t !== "event") return;
        if (typeof lastSeq === "number" && msg.seq !== lastSeq + 1) M.seqGaps += 1;
        lastSeq = msg.seq;
        if (msg.kind === "strike" || msg.kind === "guard") track.specAction(si, msg.kind, msg.data);
        else if (msg.kind === "prompt" && msg.data && msg.data.options) M.protocolNotes.add("spectator received a prompt with options");
        else if (msg.kind === "match_ended") { track.specEnded(si, msg.data); track.clientEnded(); }
      });
    }
    for (let pi = 0; pi < 2; pi++) {
      const seat = SEATS[pi];
      const c = await bhConnect(wsUrl, created.tokens[seat]);
      conns.push(c);
      if (c.welcome.role !== "player" || c.welcome.seat !== seat) M.protocolNotes.add(`player welcome role/seat ${c.welcome.role}/${c.welcome.seat}`);
      const choose = chooser(seed, pi);
      const answered = new Set();
      const pending = new Map();
      let n = 0;
      let lastSeq = c.welcome.seq;
      const answer = (p) => {
        if (!p || p.seat !== seat || !Array.isArray(p.options) || answered.has(p.id)) return;
        answered.add(p.id);
        const id = `${seat}-${++n}`;
        const option = choose(p.options).id;
        pending.set(id, track.actSent(M.measuring));
        c.send({ t: "act", id, prompt: p.id, option, args: {} });
      };
      c.onMessages((msg) => {
        if (msg.t === "event") {
          if (typeof lastSeq === "number" && msg.seq !== lastSeq + 1) M.seqGaps += 1;
          lastSeq = msg.seq;
          if (msg.kind === "prompt") {
            if (msg.data && msg.data.seat !== seat && msg.data.options) M.protocolNotes.add("a player received another seat's prompt options");
            answer(msg.data);
          } else if (msg.kind === "match_ended") track.clientEnded();
        } else if (msg.t === "ack") {
          const rec = pending.get(msg.id);
          if (rec) { pending.delete(msg.id); track.acked(rec); } else M.protocolNotes.add("ack for an unknown act id");
          if (typeof msg.seq !== "number") M.protocolNotes.add("ack without a numeric seq");
        } else if (msg.t === "error") {
          if (pending.delete(msg.id)) M.inFlight -= 1;
          noteError(msg.code);
        }
      });
      for (const p of c.welcome.prompts || []) answer(p);
    }
    markConnected(slot);
    await withTimeout(new Promise((r) => { track.done = r; if (track.ended === track.clients) r(); }), MATCH_TIMEOUT_MS, `match ${created.match} (seed ${seed})`);
  } finally {
    closeAll();
  }
}

// A random legal answer to a prompt: battlehall.engine.ruleset.random_answer, in JS.
function randomAnswer(r, prompt) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const option = pick(prompt.options);
  let lists = option.args || {};
  if (option.combos) {
    const sizes = option.combos.map((combo) => Object.values(combo).reduce((n, values) => n * values.length, 1));
    let x = r() * sizes.reduce((a, b) => a + b, 0);
    let i = 0;
    while (i < sizes.length - 1 && x >= sizes[i]) { x -= sizes[i]; i += 1; }
    lists = option.combos[i];
  }
  const args = {};
  for (const name of Object.keys(lists).sort()) args[name] = pick(lists[name]);
  return { option: option.id, args };
}

// Any ruleset: the seats answer at random, spectators take the stream.
async function bhGenericMatch(slot, seed, track) {
  const seats = Array.from({ length: SEAT_COUNT }, (_, i) => `p${i + 1}`);
  const body = { ruleset: RULESET, seats, seed, seed_public: true };
  if (CLOCK) body.clock = CLOCK;
  const res = await fetch(`${URL_BASE}/matches`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`POST /matches -> ${res.status} ${(await res.text()).slice(0, 200)}`);
  const created = await res.json();
  const wsUrl = URL_BASE.replace(/^http/, "ws") + (created.ws || `/ws/${created.match}`);
  const conns = [];
  const closeAll = () => { for (const c of conns) { try { c.ws.close(1000); } catch { /* gone */ } } };
  try {
    for (let si = 0; si < SPECTATORS; si++) {
      const c = await bhConnect(wsUrl, created.spectator_token);
      conns.push(c);
      let lastSeq = c.welcome.seq;
      c.onMessages((msg) => {
        if (msg.t !== "event") return;
        if (typeof lastSeq === "number" && msg.seq !== lastSeq + 1) M.seqGaps += 1;
        lastSeq = msg.seq;
        if (msg.kind === "match_ended") track.clientEnded();
      });
    }
    for (let pi = 0; pi < seats.length; pi++) {
      const seat = seats[pi];
      const c = await bhConnect(wsUrl, created.tokens[seat]);
      conns.push(c);
      const r = prng(Math.imul(seed, 2654435761) ^ (pi + 1) * 0x9e3779b9);
      const answered = new Map(); // prompt id -> act id
      const overtaken = new Set(); // acts whose window another seat's answer closed first
      const pending = new Map();
      let n = 0;
      let lastSeq = c.welcome.seq;
      const answer = (p) => {
        if (!p || p.seat !== seat || !Array.isArray(p.options) || answered.has(p.id)) return;
        const id = `${seat}-${++n}`;
        answered.set(p.id, id);
        const { option, args } = randomAnswer(r, p);
        pending.set(id, track.actSent(M.measuring));
        c.send({ t: "act", id, prompt: p.id, option, args });
      };
      c.onMessages((msg) => {
        if (msg.t === "event") {
          if (typeof lastSeq === "number" && msg.seq !== lastSeq + 1) M.seqGaps += 1;
          lastSeq = msg.seq;
          if (msg.kind === "prompt") answer(msg.data);
          else if (msg.kind === "prompt_closed" && msg.data.reason === "cancelled" && answered.has(msg.data.id)) {
            overtaken.add(answered.get(msg.data.id));
          } else if (msg.kind === "match_ended") track.clientEnded();
        } else if (msg.t === "ack") {
          const rec = pending.get(msg.id);
          if (rec) { pending.delete(msg.id); track.acked(rec); } else M.protocolNotes.add("ack for an unknown act id");
        } else if (msg.t === "error") {
          if (pending.delete(msg.id)) M.inFlight -= 1;
          if (msg.code === "unknown_prompt" && overtaken.has(msg.id)) M.overtaken += 1;
          else noteError(msg.code);
        }
      });
      for (const p of c.welcome.prompts || []) answer(p);
    }
    markConnected(slot);
    await withTimeout(new Promise((r) => { track.done = r; if (track.ended === track.clients) r(); }), MATCH_TIMEOUT_MS, `match ${created.match} (seed ${seed})`);
  } finally {
    closeAll();
  }
}

// -------------------------------------------------------- colyseus adapter
let ColyClient;
async function loadColyseus() {
  const sdk = await import("@colyseus/sdk");
  // One Client per connection, with a hook to register the message handlers
  // on the Room object before it connects (so no early message is missed).
  ColyClient = class extends sdk.Client {
    createRoom(name, rootSchema) {
      const room = super.createRoom(name, rootSchema);
      if (this.onRoom) this.onRoom(room);
      return room;
    }
  };
}

// The SDK's matchmaking HTTP calls go through this fetch, which only records
// the low-level cause of a failure (the SDK reports just "fetch failed").
const fetchCauses = {};
async function colyFetch(url, init) {
  try {
    return await fetch(url, init);
  } catch (e) {
    const c = (e && e.cause && (e.cause.code || e.cause.message)) || (e && e.message) || String(e);
    fetchCauses[c] = (fetchCauses[c] || 0) + 1;
    throw e;
  }
}

async function colyJoin(roomIdOrNull, options, setup) {
  const client = new ColyClient(URL_BASE, { fetchFn: colyFetch });
  client.onRoom = setup;
  return roomIdOrNull === null ? client.create("duel", options) : client.joinById(roomIdOrNull, options);
}

async function colyMatch(slot, seed, track) {
  const rooms = [];
  const leaveAll = async () => {
    await Promise.all(rooms.map((r) => withTimeout(r.leave(true), 5000, "leave").catch(() => { try { r.connection.close(); } catch { /* gone */ } })));
  };
  try {
    let roomId = null;
    for (let si = 0; si < 2; si++) {
      track.ref[si] = new DuelRef(seed, SEATS);
      const room = await colyJoin(roomId, si === 0 ? { spectator: true, seed, seats: SEATS } : { spectator: true }, (room) => {
        room.onMessage("event", (ev) => {
          for (const e of (ev.events || [ev])) {
            if (e.kind === "strike" || e.kind === "guard") track.specAction(si, e.kind, e.data);
            else if (e.kind === "match_ended") { track.specEnded(si, e.data); track.clientEnded(); }
          }
        });
        room.onMessage("prompt", () => M.protocolNotes.add("colyseus: spectator received a prompt"));
      });
      rooms.push(room);
      roomId = room.roomId;
    }
    await Promise.all([0, 1].map(async (pi) => {
      const seat = SEATS[pi];
      const choose = chooser(seed, pi);
      const pending = new Map();
      let n = 0;
      const room = await colyJoin(roomId, { seat }, (room) => {
        room.onMessage("prompt", (p) => {
          if (p.seat !== seat) return;
          const id = `${seat}-${++n}`;
          const option = choose(p.options).id;
          pending.set(id, track.actSent(M.measuring));
          room.send("act", { id, prompt: p.id, option, args: {} });
        });
        room.onMessage("ack", (a) => {
          const rec = pending.get(a.id);
          if (rec) { pending.delete(a.id); track.acked(rec); }
        });
        room.onMessage("act_error", (e) => { if (pending.delete(e.id)) M.inFlight -= 1; noteError(e.code); });
        room.onMessage("event", (ev) => {
          for (const e of (ev.events || [ev])) if (e.kind === "match_ended") track.clientEnded();
        });
      });
      rooms.push(room);
    }));
    markConnected(slot);
    await withTimeout(new Promise((r) => { track.done = r; if (track.ended === 4) r(); }), MATCH_TIMEOUT_MS, `room ${roomId} (seed ${seed})`);
  } finally {
    await leaveAll();
  }
}

// --------------------------------------------------------------------- main
let stopping = false;
// slots whose first match has all 4 clients connected: the window opens only
// once every slot is playing (bounded by --ramp-limit seconds)
const connectedSlots = new Set();
let allConnected = null;
let allConnectedAt = null;
function markConnected(slot) {
  if (connectedSlots.has(slot)) return;
  connectedSlots.add(slot);
  if (connectedSlots.size === MATCHES) { allConnectedAt = performance.now(); if (allConnected) allConnected(); }
}
async function slotLoop(slot) {
  let game = 0, fails = 0;
  while (!stopping) {
    // distinct, reproducible seeds: the same slot plays the same games on both servers
    const seed = (BASE_SEED + slot * 1000003 + game * 7919) % 2147483647;
    game += 1;
    const track = new MatchTrack(seed, DUEL ? 4 : SEAT_COUNT + SPECTATORS);
    M.matchesStarted += 1;
    try {
      await (TARGET === "colyseus" ? colyMatch(slot, seed, track) : DUEL ? bhMatch(slot, seed, track) : bhGenericMatch(slot, seed, track));
      if (M.measuring) M.matchesEnded += 1;
      fails = 0;
    } catch (e) {
      if (stopping) break;
      const cause = e && e.cause && (e.cause.code || e.cause.message);
      noteFailure(`${e && e.name && e.name !== "Error" ? e.name + ": " : ""}${e && e.message ? e.message : e}${cause ? ` (${cause})` : ""}`);
      // back off (with jitter) so a struggling server is not hit by a retry storm
      fails += 1;
      await sleep(Math.min(3000, 200 * 2 ** (fails - 1)) * (0.5 + Math.random()));
    }
  }
}

async function main() {
  if (TARGET === "battlehall") await loadBattlehall(); else await loadColyseus();
  const hardStop = setTimeout(() => { console.error("loadgen: hard time limit reached"); process.exit(3); },
    (WARMUP + RAMP_LIMIT_S + SECONDS + 90) * 1000);
  hardStop.unref();

  const loops = [];
  // ramp the slots in over the first half of the warm-up
  const rampMs = Math.max(0, (WARMUP * 1000) / 2);
  for (let i = 0; i < MATCHES; i++) {
    loops.push(sleep((rampMs * i) / MATCHES).then(() => (stopping ? null : slotLoop(i))));
  }
  const tStart = performance.now();
  await sleep(WARMUP * 1000);
  // not before every slot plays: at N=1000 connecting 4000 clients can outlast the warm-up
  if (connectedSlots.size < MATCHES) {
    await Promise.race([new Promise((r) => { allConnected = r; }), sleep(RAMP_LIMIT_S * 1000)]);
    await sleep(Math.min(WARMUP, 5) * 1000); // let the last ones settle into play
  }
  const rampS = allConnectedAt ? Math.round((allConnectedAt - tStart) / 100) / 10 : null;

  const before = SERVER_PID ? processTree(SERVER_PID) : null;
  const busy0 = machineBusyTicks();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  M.measuring = true;
  M.windowStart = performance.now();
  const sampler = setInterval(() => M.inFlightSamples.push(M.inFlight), 10);
  await sleep(SECONDS * 1000);
  clearInterval(sampler);
  M.measuring = false;
  const wall = (performance.now() - t0) / 1000;
  const after = SERVER_PID ? processTree(SERVER_PID) : null;
  const cpu1 = process.cpuUsage(cpu0);
  const busy1 = machineBusyTicks();
  stopping = true;

  const cpu = before ? cpuDelta(before, after) : null;
  const ack = M.ackLat.sort((a, b) => a - b);
  const spec = M.specLat.sort((a, b) => a - b);
  const per = (x) => (M.answers > 0 ? Math.round((x * 1e6) / M.answers * 10) / 10 : null);
  const result = {
    target: TARGET, label: LABEL, ruleset: RULESET, seats: SEAT_COUNT, spectators: SPECTATORS, clock: CLOCK, batch: TARGET === "battlehall" ? BH_BATCH : undefined, url: URL_BASE, matches: MATCHES, seconds: Math.round(wall * 100) / 100, warmup: WARMUP,
    // the measured window by the wall clock (epoch s): to cut the server's metrics by
    window_epoch_s: [(performance.timeOrigin + t0) / 1000, (performance.timeOrigin + t0) / 1000 + wall],
    // seconds from the start until all N matches had their 4 clients connected
    // (null: not all within the warm-up + --ramp-limit; the window opened anyway)
    ramp_s: rampS, slots_playing: connectedSlots.size,
    answers: M.answers, answers_per_s: Math.round(M.answers / wall),
    matches_ended: M.matchesEnded, matches_per_s: Math.round((M.matchesEnded / wall) * 10) / 10,
    ack_ms: { p50: pct(ack, 50), p90: pct(ack, 90), p99: pct(ack, 99), mean: mean(ack), n: ack.length },
    // acts awaiting their ack or refusal, averaged over the window: under a closed loop
    // that saturates the server, mean ack latency = this / answers per second
    in_flight_mean: mean(M.inFlightSamples),
    spectator_ms: { p50: pct(spec, 50), p99: pct(spec, 99), n: spec.length },
    server_cpu_s: cpu ? Math.round(cpu.server * 100) / 100 : null,
    redis_cpu_s: cpu ? Math.round(cpu.redis * 100) / 100 : null,
    server_cpu_us_per_answer: cpu ? per(cpu.server) : null,
    server_cpu_us_per_answer_with_redis: cpu ? per(cpu.server + cpu.redis) : null,
    server_kernel_share: cpu && cpu.server > 0 ? Math.round((cpu.serverSys / cpu.server) * 100) / 100 : null,
    // what one core would do at this CPU cost: the throughput figure that does
    // not depend on whether the loadgen or the server saturated first
    answers_per_core_s: cpu && cpu.server + cpu.redis > 0 ? Math.round(M.answers / (cpu.server + cpu.redis)) : null,
    server_cpu_util: cpu ? Math.round(((cpu.server + cpu.redis) / wall) * 100) / 100 : null,
    server_processes: cpu ? cpu.procs : null,
    server_processes_gone: cpu ? cpu.gone : null,
    loadgen_cpu_util: Math.round(((cpu1.user + cpu1.system) / 1e6 / wall) * 100) / 100,
    // CPU used by everything else on the machine during the window (cores)
    others_cpu_util: busy0 !== null && busy1 !== null && cpu
      ? Math.round((((busy1 - busy0) / CLK_TCK - cpu.server - cpu.redis - (cpu1.user + cpu1.system) / 1e6) / wall) * 100) / 100 : null,
    errors: M.errors, error_codes: M.errorCodes, overtaken: M.overtaken,
    match_failures: M.matchFailures, failure_reasons: M.failureReasons,
    http_failure_causes: TARGET === "colyseus" ? fetchCauses : undefined,
    rule_mismatches: M.ruleMismatches, rule_mismatch_samples: M.ruleMismatchSamples,
    seq_gaps: M.seqGaps,
    protocol_notes: [...M.protocolNotes],
    node: process.version, clk_tck: CLK_TCK,
  };

  if (!QUIET) {
    const row = (k, v) => console.log(`  ${k.padEnd(34)} ${v}`);
    console.log(`${TARGET} ${LABEL} — ${RULESET}, ${SEAT_COUNT} seats, ${MATCHES} matches, ${result.seconds}s measured after ${WARMUP}s warm-up`);
    row("all matches connected after (s)", result.ramp_s === null ? `not all (${result.slots_playing}/${MATCHES})` : result.ramp_s);
    row("answers/s", result.answers_per_s);
    row("matches ended/s", result.matches_per_s);
    row("answer->ack p50 / p99 (ms)", `${result.ack_ms.p50} / ${result.ack_ms.p99}`);
    row("answer->spectator p50 / p99 (ms)", `${result.spectator_ms.p50} / ${result.spectator_ms.p99}`);
    if (cpu) {
      row("server CPU per answer (us)", result.server_cpu_us_per_answer);
      if (TARGET === "battlehall") row("  ... with Redis (us)", result.server_cpu_us_per_answer_with_redis);
      row("server CPU kernel share", result.server_kernel_share);
      row("answers per server-core-second", result.answers_per_core_s);
      row("server CPU utilisation (cores)", result.server_cpu_util);
    }
    row("loadgen CPU utilisation (cores)", result.loadgen_cpu_util);
    if (result.others_cpu_util !== null) row("other processes' CPU (cores)", result.others_cpu_util);
    row("errors / failed matches", `${result.errors} / ${result.match_failures}`);
    row("rule mismatches / seq gaps", `${result.rule_mismatches} / ${result.seq_gaps}`);
    if (result.protocol_notes.length) row("protocol notes", result.protocol_notes.join("; "));
    if (Object.keys(M.failureReasons).length) row("failure reasons", JSON.stringify(M.failureReasons));
    if (TARGET === "colyseus" && Object.keys(fetchCauses).length) row("matchmaking HTTP failure causes", JSON.stringify(fetchCauses));
  }
  const line = JSON.stringify(result);
  if (args["json-out"]) fs.appendFileSync(args["json-out"], line + "\n");
  if (SAMPLES_OUT) fs.writeFileSync(SAMPLES_OUT, "sent_ms,ack_ms,k\n" + M.samples.join("\n") + "\n");
  console.log(line);

  // let the slots close their connections, bounded
  await Promise.race([Promise.allSettled(loops), sleep(5000)]);
  process.exit(0);
}

main().catch((e) => { console.error(e); process.exit(1); });
