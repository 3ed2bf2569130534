#!/usr/bin/env node
// Checks, on one or two `duel` matches, that a running Battlehall server speaks
// docs/protocol.md the way bench/compare/loadgen.mjs expects. Prints one
// line per check (ok / DIFF) and a JSON summary; exits 0 even when it finds
// differences (it is a report, not a gate), 2 if the server cannot be reached.
//
//   node probe_battlehall.mjs --url http://127.0.0.1:8765
import WebSocket from "ws";
import { encode, decode } from "@msgpack/msgpack";

const i = process.argv.indexOf("--url");
const BASE = (i > 0 ? process.argv[i + 1] : "http://127.0.0.1:8765").replace(/\/$/, "");
const WSBASE = BASE.replace(/^http/, "ws");
const host = new URL(BASE).hostname;
if (!["127.0.0.1", "localhost", "::1", "[::1]"].includes(host)) { console.error("loopback only"); process.exit(2); }
const hard = setTimeout(() => { console.error("probe: time limit"); process.exit(3); }, 60000);
hard.unref();

const results = [];
function check(name, ok, detail = "") {
  results.push({ name, ok: !!ok, detail });
  console.log(`${ok ? "ok  " : "DIFF"}  ${name}${detail ? "  -- " + detail : ""}`);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const short = (x) => JSON.stringify(x)?.slice(0, 300);

// A client that records everything it receives.
function open(path, protocols) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(WSBASE + path, protocols, { perMessageDeflate: false });
    const c = { ws, msgs: [], frames: [], waiters: [], closed: null };
    ws.on("message", (data, isBinary) => {
      c.frames.push(isBinary ? "binary" : "text");
      let m;
      try { m = isBinary ? decode(data) : JSON.parse(data.toString()); } catch (e) { m = { t: "<undecodable>", e: String(e) }; }
      c.msgs.push(m);
      for (const w of [...c.waiters]) if (w.pred(m)) { c.waiters.splice(c.waiters.indexOf(w), 1); w.resolve(m); }
    });
    ws.on("close", (code) => { c.closed = code; for (const w of c.waiters) w.resolve(null); c.waiters = []; });
    ws.on("open", () => resolve(c));
    ws.on("error", reject);
    c.send = (obj) => ws.send(ws.protocol === "battlehall.v1.msgpack" ? encode(obj) : JSON.stringify(obj));
    c.wait = (pred, ms = 3000) => {
      const found = c.msgs.find((m) => pred(m) && !m.__taken);
      if (found) { found.__taken = true; return Promise.resolve(found); }
      return new Promise((res) => {
        const w = { pred, resolve: (m) => { clearTimeout(timer); if (m) m.__taken = true; res(m); } };
        const timer = setTimeout(() => { c.waiters.splice(c.waiters.indexOf(w), 1); res(null); }, ms);
        c.waiters.push(w);
      });
    };
  });
}
async function hello(path, token, protocols = ["battlehall.v1.msgpack"], extra = {}) {
  const c = await open(path, protocols);
  c.send({ t: "hello", token, ...extra });
  c.welcome = await c.wait((m) => m.t === "welcome" || m.t === "error");
  return c;
}
async function create(seed) {
  const r = await fetch(`${BASE}/matches`, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ ruleset: "duel", seats: ["a", "b"], seed, seed_public: true }) });  // the LCG checks need the seed itself
  return { status: r.status, body: await r.json().catch(() => null) };
}

// Plays a whole match with choices from `choices` (cycled), returns the spectator's events.
async function playMatch(seed, choices) {
  const { body } = await create(seed);
  const spec = await hello(body.ws, body.spectator_token);
  const pa = await hello(body.ws, body.tokens.a);
  const pb = await hello(body.ws, body.tokens.b);
  const players = { a: pa, b: pb };
  let n = 0, acts = 0;
  const openPrompt = () => {
    for (const [seat, c] of Object.entries(players)) {
      const p = [...(c.welcome.prompts || []), ...c.msgs.filter((m) => m.t === "event" && m.kind === "prompt").map((m) => m.data)]
        .filter((p) => p && p.seat === seat && p.options && !c.answered?.has(p.id));
      if (p.length) return [seat, c, p[p.length - 1]];
    }
    return null;
  };
  for (let k = 0; k < 400; k++) {
    const ended = spec.msgs.some((m) => m.t === "event" && m.kind === "match_ended");
    if (ended) break;
    const op = openPrompt();
    if (!op) { await sleep(5); continue; }
    const [seat, c, p] = op;
    (c.answered ||= new Set()).add(p.id);
    const id = `${seat}-${++n}`;
    c.send({ t: "act", id, prompt: p.id, option: choices[acts++ % choices.length], args: {} });
    await c.wait((m) => (m.t === "ack" || m.t === "error") && m.id === id);
  }
  await spec.wait((m) => m.t === "event" && m.kind === "match_ended", 3000);
  for (const c of [spec, pa, pb]) c.ws.close();
  return { body, events: spec.msgs.filter((m) => m.t === "event"), spec, pa, pb };
}

async function main() {
  // --- HTTP
  let health;
  try { health = await fetch(`${BASE}/healthz`); } catch (e) { console.error(`cannot reach ${BASE}: ${e.message}`); process.exit(2); }
  check("GET /healthz is 200", health.status === 200, `status ${health.status}`);
  const ready = await fetch(`${BASE}/readyz`).catch(() => null);
  check("GET /readyz is 200", ready && ready.status === 200, `status ${ready && ready.status}`);
  const rs = await fetch(`${BASE}/rulesets`).then(async (r) => ({ s: r.status, b: await r.json().catch(() => null) })).catch(() => null);
  check("GET /rulesets lists duel", rs && rs.s === 200 && JSON.stringify(rs.b).includes("duel"), short(rs && rs.b));

  const made = await create(7);
  check("POST /matches -> 201", made.status === 201, `status ${made.status} ${short(made.body)}`);
  const b = made.body || {};
  for (const f of ["match", "ruleset", "tokens", "spectator_token", "ws"]) check(`create response has ${f}`, f in b, short(b));
  check("create response ws is /ws/<match>", b.ws === `/ws/${b.match}`, `ws=${b.ws} match=${b.match}`);
  check("tokens has one per seat", b.tokens && b.tokens.a && b.tokens.b, short(b.tokens));
  const bad = await fetch(`${BASE}/matches`, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ ruleset: "no_such_ruleset", seats: ["a", "b"] }) });
  const badBody = await bad.json().catch(() => null);
  check("POST /matches with unknown ruleset -> 400 {error:{code,message}}", bad.status === 400 && badBody?.error?.code && badBody?.error?.message, `status ${bad.status} ${short(badBody)}`);
  const one = await fetch(`${BASE}/matches/${b.match}`).then(async (r) => ({ s: r.status, b: await r.json().catch(() => null) }));
  check("GET /matches/{id} is 200", one.s === 200, short(one.b));

  // --- sessions
  const spec = await hello(b.ws, b.spectator_token);
  check("msgpack subprotocol is picked when offered", spec.ws.protocol === "battlehall.v1.msgpack", `picked ${JSON.stringify(spec.ws.protocol)}`);
  check("msgpack frames are binary", spec.frames.every((f) => f === "binary"), spec.frames.join(","));
  const w = spec.welcome || {};
  check("spectator gets welcome", w.t === "welcome", short(w));
  for (const f of ["match", "role", "seat", "seq", "view", "prompts", "now"]) check(`welcome has ${f}`, f in w, short(w));
  check("spectator welcome role/seat", w.role === "spectator" && w.seat === null, `${w.role}/${w.seat}`);
  check("spectator welcome prompts carry no options", (w.prompts || []).every((p) => !p.options), short(w.prompts));

  const json = await hello(b.ws, b.spectator_token, []);
  check("no subprotocol offered -> JSON text frames", json.welcome?.t === "welcome" && json.frames.every((f) => f === "text"), `${json.frames.join(",")} protocol=${JSON.stringify(json.ws.protocol)}`);
  json.ws.close();

  const badTok = await hello(b.ws, "not-a-token");
  await sleep(200);
  check("bad token -> error unauthorized + close 4001", badTok.welcome?.t === "error" && badTok.welcome?.code === "unauthorized" && badTok.closed === 4001,
    `${short(badTok.welcome)} close=${badTok.closed}`);

  const pa = await hello(b.ws, b.tokens.a);
  const pb = await hello(b.ws, b.tokens.b);
  check("player welcome role/seat", pa.welcome?.role === "player" && pa.welcome?.seat === "a", `${pa.welcome?.role}/${pa.welcome?.seat}`);
  const pA = (pa.welcome?.prompts || [])[0];
  check("seat a's welcome has its open prompt with options strike/guard", pA && pA.seat === "a" && JSON.stringify((pA.options || []).map((o) => o.id)) === '["strike","guard"]', short(pa.welcome?.prompts));
  if (pA) for (const f of ["id", "seat", "kind", "options", "default", "deadline"]) check(`prompt has ${f}`, f in pA, short(pA));
  check("seat b's welcome shows a's prompt without options", (pb.welcome?.prompts || []).every((p) => !p.options), short(pb.welcome?.prompts));

  // resume: a new spectator asking for everything after seq 0 gets the whole stream
  const rsm = await hello(b.ws, b.spectator_token, ["battlehall.v1.msgpack"], { resume: 0 });
  await sleep(300);
  const replayed = rsm.msgs.filter((m) => m.t === "event");
  check("resume:0 replays events from seq 1 in order", replayed.length > 0 && replayed.every((e, k) => e.seq === k + 1),
    replayed.map((e) => `${e.seq}:${e.kind}`).join(" "));
  check("first event is match_started", replayed[0]?.kind === "match_started", short(replayed[0]));
  check("events carry integer seq and at", replayed.every((e) => Number.isInteger(e.seq) && Number.isInteger(e.at)), short(replayed[0]));
  rsm.ws.close();

  // acts: errors first
  spec.send({ t: "act", id: "s-1", prompt: pA?.id, option: "strike", args: {} });
  const e1 = await spec.wait((m) => m.t === "error" || m.t === "ack");
  check("spectator act -> error spectator", e1?.t === "error" && e1.code === "spectator" && e1.id === "s-1", short(e1));
  pb.send({ t: "act", id: "b-x", prompt: pA?.id, option: "strike", args: {} });
  const e2 = await pb.wait((m) => m.t === "error" || m.t === "ack");
  check("other seat answering -> error not_your_prompt", e2?.t === "error" && e2.code === "not_your_prompt" && e2.id === "b-x", short(e2));
  pa.send({ t: "act", id: "a-x", prompt: "p-nope", option: "strike", args: {} });
  const e3 = await pa.wait((m) => m.t === "error" || m.t === "ack");
  check("unknown prompt -> error unknown_prompt", e3?.t === "error" && e3.code === "unknown_prompt", short(e3));
  pa.send({ t: "act", id: "a-y", prompt: pA?.id, option: "dance", args: {} });
  const e4 = await pa.wait((m) => m.t === "error" || m.t === "ack");
  check("illegal option -> error illegal_option", e4?.t === "error" && e4.code === "illegal_option", short(e4));
  pa.send({ t: "hello-nope" });
  const e5 = await pa.wait((m) => m.t === "error");
  check("unknown message type -> error bad_message", e5?.code === "bad_message", short(e5));
  pa.send({ t: "ping" });
  const pong = await pa.wait((m) => m.t === "pong");
  check("ping -> pong with now", pong && Number.isInteger(pong.now), short(pong));

  // the first real answer: a strike, then the same id again
  const before = spec.msgs.length;
  pa.send({ t: "act", id: "a-1", prompt: pA?.id, option: "strike", args: {} });
  const ack = await pa.wait((m) => (m.t === "ack" || m.t === "error") && m.id === "a-1");
  check("act -> ack {id, seq}", ack?.t === "ack" && Number.isInteger(ack.seq), short(ack));
  await sleep(200);
  const after = spec.msgs.slice(before).filter((m) => m.t === "event");
  check("spectator sees strike, prompt_closed(answered), prompt for b",
    after.some((e) => e.kind === "strike") && after.some((e) => e.kind === "prompt_closed" && e.data?.reason === "answered") && after.some((e) => e.kind === "prompt" && e.data?.seat === "b" && !e.data?.options),
    after.map((e) => `${e.seq}:${e.kind}`).join(" "));
  if (ack?.seq) check("ack seq is the seq of the act's last event (before the next prompt) or after", after.length > 0,
    `ack.seq=${ack.seq}, events ${after.map((e) => `${e.seq}:${e.kind}`).join(" ")}`);
  const strike = after.find((e) => e.kind === "strike");
  // seed 7: rng = 7*1664525+1013904223 mod 2^32
  const rng = (7 * 1664525 + 1013904223) % 2 ** 32, roll = 1 + (rng % 3);
  check("strike follows the LCG (seed 7)", strike && strike.data?.roll === roll && strike.data?.damage === roll && strike.data?.hp === 20 - roll, `${short(strike?.data)} expected roll ${roll}`);
  const pbPrompt = pb.msgs.find((m) => m.t === "event" && m.kind === "prompt" && m.data?.seat === "b");
  check("seat b receives its prompt with options", pbPrompt?.data?.options?.length === 2, short(pbPrompt));
  const paSeesB = pa.msgs.find((m) => m.t === "event" && m.kind === "prompt" && m.data?.seat === "b");
  check("seat a sees b's prompt without options", paSeesB && !paSeesB.data?.options, short(paSeesB));
  const nEventsBefore = spec.msgs.filter((m) => m.t === "event").length;
  pa.send({ t: "act", id: "a-1", prompt: pA?.id, option: "strike", args: {} });
  const ack2 = await pa.wait((m) => (m.t === "ack" || m.t === "error") && m.id === "a-1");
  await sleep(200);
  check("resending an act id -> same ack, not applied twice",
    ack2?.t === "ack" && ack2.seq === ack?.seq && spec.msgs.filter((m) => m.t === "event").length === nEventsBefore, `${short(ack2)} vs ${short(ack)}`);
  const seqs = spec.msgs.filter((m) => m.t === "event").map((m) => m.seq);
  check("spectator stream seq grows by one", seqs.every((s, k) => k === 0 || s === seqs[k - 1] + 1), seqs.join(","));
  for (const c of [spec, pa, pb]) c.ws.close();

  // --- whole matches: rules, determinism, end of match
  const choices = ["strike", "guard", "strike", "strike", "guard"];
  const m1 = await playMatch(11, choices);
  const m2 = await playMatch(11, choices);
  const kinds = m1.events.map((e) => e.kind);
  check("match ends with match_ended as the last event", kinds[kinds.length - 1] === "match_ended", kinds.slice(-4).join(","));
  const strip = (evs) => JSON.stringify(evs.map((e) => ({ seq: e.seq, kind: e.kind, data: e.data && { ...e.data, deadline: undefined } })));
  check("same seed and answers -> same events (ignoring at/deadline)", strip(m1.events) === strip(m2.events), `${m1.events.length} vs ${m2.events.length} events`);
  // replay the rules
  let r = 11, hp = { a: 20, b: 20 }, guard = { a: false, b: false }, turn = 0, mism = [];
  for (const e of m1.events) {
    const seat = ["a", "b"][turn], other = ["a", "b"][1 - turn];
    if (e.kind === "guard") { guard[seat] = true; turn = 1 - turn; }
    else if (e.kind === "strike") {
      r = (Math.imul(r, 1664525) + 1013904223) >>> 0;
      const roll = 1 + (r % 3), dmg = guard[other] ? Math.max(0, roll - 1) : roll;
      guard[other] = false; hp[other] -= dmg; turn = 1 - turn;
      if (e.data.roll !== roll || e.data.damage !== dmg || e.data.hp !== hp[other] || e.data.seat !== seat) mism.push(`${e.seq}: ${short(e.data)}`);
    }
  }
  check("every strike follows the duel rules", mism.length === 0, mism.slice(0, 3).join(" | "));
  const end = m1.events[m1.events.length - 1];
  check("match_ended data has winner and reason", end?.data?.winner && end?.data?.reason, short(end?.data));
  const late = await hello(m1.body.ws, m1.body.tokens.a);
  late.send({ t: "act", id: "late-1", prompt: "p1", option: "strike", args: {} });
  const e6 = await late.wait((m) => m.t === "error" || m.t === "ack");
  check("act after the end -> error match_over (or unknown_prompt)", e6?.t === "error" && ["match_over", "unknown_prompt"].includes(e6.code), short(e6));
  late.ws.close();
  // A private match (the default): its replay needs one of its tokens.
  const getReplay = (headers) => fetch(`${BASE}/matches/${m1.body.match}/replay`, { headers })
    .then(async (r) => ({ s: r.status, b: await r.json().catch(() => null) })).catch(() => null);
  const anonymous = await getReplay({});
  check("GET /matches/{id}/replay of a private match without a token is 401", anonymous?.s === 401, `status ${anonymous?.s}`);
  const replay = await getReplay({ Authorization: `Bearer ${m1.body.tokens.a}` });
  check("GET /matches/{id}/replay with a seat token is 200 for a finished match", replay?.s === 200, `status ${replay?.s} ${short(replay?.b)?.slice(0, 150)}`);

  const diffs = results.filter((x) => !x.ok);
  console.log(JSON.stringify({ probe: "battlehall", url: BASE, checks: results.length, diffs: diffs.length, diff_list: diffs }));
  process.exit(0);
}
main().catch((e) => { console.error(e); process.exit(1); });
