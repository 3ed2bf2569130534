// `not_here` (several nodes): the client follows the redirect at once, resumes there, and
// stops following a loop of redirects.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BattlehallClient, wsUrl } from "../../battlehall/web/static/battlehall.js";
import { BASE, REDIRECTING_BASE, create, next } from "./helpers.mjs";

test("not_here with a redirect: connect there at once and play", async (t) => {
  const created = await create({ seed: 13 });
  const clients = Object.entries(created.tokens).map(([, token]) =>
    new BattlehallClient({ url: REDIRECTING_BASE, match: created.match, token }));
  t.after(() => clients.forEach((c) => c.close()));
  const statuses = [];
  clients[0].on("status", (s, d) => statuses.push([s, d.reason]));
  const welcomes = await Promise.all(clients.map((c) => c.connect()));
  assert.equal(welcomes[0].match, created.match);
  assert.equal(clients[0].url, wsUrl(BASE, created.match));
  assert.equal(clients[0].homeUrl, wsUrl(REDIRECTING_BASE, created.match));
  assert.ok(statuses.some(([s, reason]) => s === "reconnecting" && /run at/.test(reason)), JSON.stringify(statuses));
  const mover = clients.find((c) => c.prompts.size);
  const prompt = [...mover.prompts.values()][0];
  assert.equal((await mover.act(prompt.id, "guard")).t, "ack");
});

test("redirects without a welcome stop after five, then the usual pause", async (t) => {
  const client = new BattlehallClient({ url: REDIRECTING_BASE, match: "m_loop", token: "x", minBackoffMs: 2000 });
  t.after(() => client.close());
  const paused = next(client, "status", (s, d) => s === "reconnecting" && /redirected 5 times/.test(d.reason));
  client.connect().catch(() => {});
  const detail = await paused;
  assert.equal(detail, "reconnecting");
  assert.equal(client.url, client.homeUrl);
});
