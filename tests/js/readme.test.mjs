// The README's example, as written there, plays a whole match (both seats run it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { BattlehallClient, firstAnswer } from "../../battlehall/web/static/battlehall.js";
import { BASE, create } from "./helpers.mjs";

async function readmeExample(MATCH, TOKEN, log) {
  const console = { log: (...args) => log.push(args) };
  let done;
  const ended = new Promise((resolve) => { done = resolve; });
  // -- from README.md --
  const client = new BattlehallClient({ url: BASE, match: MATCH, token: TOKEN });
  client.on("status", (status) => console.log(status));          // connecting, open, reconnecting, closed
  client.on("event", (e) => console.log(e.seq, e.kind, e.data));
  client.on("prompt", async (p) => {                              // a choice for this seat
    const { option, args } = firstAnswer(p, p.default);           // the default, with legal arguments
    const ack = await client.act(p.id, option, args);             // resent by itself until acknowledged
    console.log("answered", ack.seq, (await client.requestView()).view);
  });
  client.on("ended", (result) => { console.log(result.winners); client.close(); done(result); });
  await client.connect();                                          // resolves with the welcome
  // -- end --
  return ended;
}

test("the README's example plays a match to its end", async () => {
  const created = await create({ seed: 12, options: { hp: 5 } });
  const logs = { alice: [], bob: [] };
  const results = await Promise.all(Object.entries(created.tokens).map(([seat, token]) => readmeExample(created.match, token, logs[seat])));
  assert.deepEqual(results[0], results[1]);
  assert.equal(results[0].winners.length, 1);
  for (const log of Object.values(logs)) {
    assert.ok(log.some((line) => line[0] === "answered"));
    assert.deepEqual(log[0], ["connecting"]);
  }
});
