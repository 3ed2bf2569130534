// battlehall.js against a real server: node --test --experimental-websocket tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { BattlehallClient, BattlehallError, explain, firstAnswer, jsonCodec, request, wsUrl } from "../../battlehall/web/static/battlehall.js";
import { BASE, SLOW_BASE, create, next } from "./helpers.mjs";

function client(created, seat, extra = {}) {
  const token = seat === null ? created.spectator_token : created.tokens[seat];
  return new BattlehallClient({ url: BASE, match: created.match, token, ...extra });
}

test("wsUrl builds the socket address from an http base", () => {
  assert.equal(wsUrl("http://127.0.0.1:8000", "m_1"), "ws://127.0.0.1:8000/ws/m_1");
  assert.equal(wsUrl("https://example.org/x?y#z", "m_2"), "wss://example.org/ws/m_2");
});

test("a whole duel between two clients, with a spectator: prompts, acts, acks, the end", async (t) => {
  const created = await create({ seed: 5, options: { hp: 6 } });
  let batches = 0; // alice asks for batches; her codec counts the frames that hold one
  const counting = { ...jsonCodec, decode: (data) => { const m = jsonCodec.decode(data); if (m.t === "batch") batches += 1; return m; } };
  const seats = { alice: client(created, "alice", { batch: true, codec: counting }), bob: client(created, "bob") };
  const watcher = client(created, null);
  t.after(() => { for (const c of [...Object.values(seats), watcher]) c.close(); });
  const welcome = await seats.alice.connect();
  assert.equal(welcome.role, "player");
  assert.equal(seats.alice.seat, "alice");
  assert.deepEqual(seats.alice.definitions, {}); // duel defines nothing once; spellfire its inline cards
  await seats.bob.connect();
  const watched = await watcher.connect();
  assert.equal(watched.role, "spectator");
  const seenByWatcher = [];
  watcher.on("event", (e) => seenByWatcher.push(e));
  watcher.on("prompt", () => assert.fail("a spectator never gets a prompt of its own"));
  const ended = Promise.all([next(seats.alice, "ended"), next(seats.bob, "ended"), next(watcher, "ended")]);
  // Each seat strikes whenever a prompt of its own is open, until the match ends.
  const answers = [];
  for (const c of Object.values(seats)) {
    const play = (p) => answers.push(c.act(p.id, "strike"));
    c.on("prompt", play);
    for (const p of c.prompts.values()) play(p);
  }
  const [result] = await ended;
  assert.equal(result.winners.length, 1);
  const acks = await Promise.all(answers); // every answer acknowledged, the last one after match_ended
  assert.ok(acks.length >= 3, `${acks.length} acks`); // 1-3 damage a strike: the winner struck twice at least, the other between
  assert.ok(acks.every((a) => a.t === "ack" && typeof a.seq === "number"));
  // Every event once, in order, for the spectator, none with a prompt's options.
  const seqs = seenByWatcher.map((e) => e.seq);
  assert.deepEqual(seqs, seqs.map((_, i) => seqs[0] + i));
  assert.ok(seenByWatcher.every((e) => e.kind !== "prompt" || !("options" in e.data)));
  assert.equal(seats.alice.prompts.size, 0);
  assert.ok(batches > 0, "alice asked for batches and got some");
});

test("a dropped socket reconnects by itself, resumes without gaps or repeats, and an act sent meanwhile is applied once", async (t) => {
  const created = await create({ seed: 6, options: { hp: 50 } });
  const alice = client(created, "alice", { minBackoffMs: 20 });
  const bob = client(created, "bob", { minBackoffMs: 20 });
  t.after(() => { alice.close(); bob.close(); });
  await alice.connect();
  await bob.connect();
  const mover = alice.prompts.size ? alice : bob;
  const other = mover === alice ? bob : alice;
  const prompt = [...mover.prompts.values()][0];
  const events = [];
  other.on("event", (e) => events.push(e.seq));
  const statuses = [];
  mover.on("status", (s) => statuses.push(s));
  // Drop the mover's socket, and answer while it is down: the act waits, goes out after
  // the welcome, and is acknowledged once.
  mover._ws.close();
  const acked = mover.act(prompt.id, "guard");
  const ack = await acked;
  assert.equal(mover.status, "open");
  assert.equal(statuses[0], "reconnecting");
  assert.ok(statuses.includes("open"));
  // Now the other seat drops: it resumes from its last seq and misses nothing.
  other._ws.close();
  await next(other, "status", (s) => s === "open");
  while (other.seq < ack.seq) await next(other, "event");
  assert.deepEqual(events, events.map((_, i) => events[0] + i));
  assert.equal(events.at(-1), ack.seq);
  // The same act id sent again is the same ack (the server applied it once).
  const again = await new Promise((resolve) => {
    const off = mover.on("ack", (a) => { if (a.id === ack.id) { off(); resolve(a); } });
    mover._send({ t: "act", id: ack.id, prompt: prompt.id, option: "guard" });
  });
  assert.equal(again.seq, ack.seq);
  const summary = await request(BASE, `/matches/${created.match}`);
  assert.equal(summary.seq, ack.seq);
});

test("requestView answers with the current view, and calls in flight share one request", async (t) => {
  const created = await create({ seed: 7 });
  const alice = client(created, "alice");
  t.after(() => alice.close());
  await alice.connect();
  let sent = 0;
  const send = alice._send.bind(alice);
  alice._send = (m) => { if (m.t === "view") sent += 1; return send(m); };
  const views = await Promise.all([alice.requestView(), alice.requestView(), alice.requestView()]);
  assert.ok(sent <= 2, `${sent} view requests for three calls`);
  for (const v of views) {
    assert.equal(v.t, "view");
    assert.equal(v.seq, alice.seq);
    assert.ok(Array.isArray(v.prompts));
  }
  assert.deepEqual(alice.view, views[2].view);
  alice.close();
  const closed = await alice.requestView(); // closed: the last view, at once
  assert.equal(closed.seq, views[2].seq);
});

test("refused for good: a bad token and a missing match reject connect with their codes", async () => {
  const created = await create({ seed: 8 });
  const bad = new BattlehallClient({ url: BASE, match: created.match, token: "not-a-token" });
  await assert.rejects(bad.connect(), (e) => e instanceof BattlehallError && e.code === "unauthorized");
  assert.equal(bad.status, "closed");
  const missing = new BattlehallClient({ url: BASE, match: "m_0000000000000000", token: "x" });
  await assert.rejects(missing.connect(), (e) => e.code === "not_found");
  assert.match(explain("unauthorized"), /not valid/);
});

test("an illegal answer is refused for good and not retried", async (t) => {
  const created = await create({ seed: 9 });
  const alice = client(created, "alice");
  const bob = client(created, "bob");
  t.after(() => { alice.close(); bob.close(); });
  await Promise.all([alice.connect(), bob.connect()]);
  const mover = alice.prompts.size ? alice : bob;
  const prompt = [...mover.prompts.values()][0];
  await assert.rejects(mover.act(prompt.id, "dance"), (e) => e.code === "illegal_option");
  assert.equal(mover.pendingActs.length, 0);
  const { option, args } = firstAnswer(prompt);
  assert.equal((await mover.act(prompt.id, option, args)).t, "ack");
});

test("request() gives HTTP errors their code, message and path", async () => {
  await assert.rejects(request(BASE, "/matches", { method: "POST", body: { ruleset: "duel", seats: ["a"] } }),
                       (e) => e.status === 400 && e.code === "bad_setup" && e.path === "seats");
  await assert.rejects(request(BASE, "/matches/m_0000000000000000"), (e) => e.status === 404 && e.code === "not_found");
  await assert.rejects(request("http://127.0.0.1:1", "/rulesets"), (e) => e.code === "network");
});

test("rate_limited: the act is sent again later with the same id and applied once", async (t) => {
  const created = await create({ seed: 10 }, SLOW_BASE);
  const mk = (seat) => new BattlehallClient({ url: SLOW_BASE, match: created.match, token: created.tokens[seat], keepAliveMs: 0 });
  const alice = mk("alice");
  const bob = mk("bob");
  t.after(() => { alice.close(); bob.close(); });
  await Promise.all([alice.connect(), bob.connect()]);
  const mover = alice.prompts.size ? alice : bob;
  const prompt = [...mover.prompts.values()][0];
  const refusals = [];
  mover.on("error", (e) => refusals.push(e.code));
  for (let i = 0; i < 6; i++) mover._send({ t: "ping" }); // spend the burst
  const ack = await mover.act(prompt.id, "guard");
  assert.equal(ack.t, "ack");
  assert.ok(refusals.includes("rate_limited"), `refusals: ${refusals}`);
  assert.ok(mover.resent >= 1);
});

test("resign() is acknowledged after its events, ends a duel for the other, and a second one is refused", async (t) => {
  const created = await create({ seed: 7 });
  const alice = client(created, "alice");
  const bob = client(created, "bob");
  t.after(() => { alice.close(); bob.close(); });
  await alice.connect();
  await bob.connect();
  const won = next(alice, "ended");
  const resigned = next(alice, "event", (e) => e.kind === "seat_resigned");
  const ack = await bob.resign();
  assert.equal(ack.t, "ack");
  assert.deepEqual((await resigned).data, { seat: "bob" });
  assert.deepEqual((await won).winners, ["alice"]);
  assert.equal(bob.result.reason, "resigned"); // match_ended came before the ack
  await assert.rejects(bob.resign(), (err) => err instanceof BattlehallError && err.code === "match_over");
  assert.equal(bob.pendingActs.length, 0);
});
