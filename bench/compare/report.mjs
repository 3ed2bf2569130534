#!/usr/bin/env node
// Side-by-side table of loadgen JSON lines (one file, as written by run.sh):
//   node report.mjs results.jsonl [--markdown]
// For every --matches value it prints Colyseus and Battlehall next to each
// other and the ratio Battlehall / Colyseus (for answers/s higher is better;
// for latency and CPU per answer lower is better). Battlehall runs with `batch`
// messages (loadgen --batch) get their own column, "Battlehall batch".
import fs from "node:fs";

const file = process.argv[2];
const md = process.argv.includes("--markdown");
if (!file) { console.error("usage: node report.mjs results.jsonl [--markdown]"); process.exit(2); }
const rows = fs.readFileSync(file, "utf8").split("\n").filter((l) => l.trim().startsWith("{")).map((l) => JSON.parse(l));

// With several runs of a (N, server) pair (run.sh --repeat), the table shows the
// run in which other processes took the least CPU, and the spread of CPU per
// answer over all of them.
const all = new Map();
for (const r of rows) {
  const k = `${r.matches}|${r.target === "battlehall" && r.batch ? "battlehall batch" : r.target}`;
  if (!all.has(k)) all.set(k, []);
  all.get(k).push(r);
}
const noise = (r) => (typeof r.others_cpu_util === "number" ? r.others_cpu_util : Infinity);
const byN = new Map();
for (const [k, runs] of all) {
  const [n, target] = k.split("|");
  const best = [...runs].sort((x, y) => noise(x) - noise(y))[0];
  const us = runs.map((r) => r.server_cpu_us_per_answer_with_redis).filter((x) => typeof x === "number").sort((x, y) => x - y);
  best._runs = runs.length;
  best._spread = us.length ? `${us[0]}..${us[us.length - 1]}` : "-";
  best._median = us.length ? us[Math.floor((us.length - 1) / 2)] : null;
  if (!byN.has(Number(n))) byN.set(Number(n), {});
  byN.get(Number(n))[target] = best;
}
const metrics = [
  ["all N matches connected after (s)", (r) => r.ramp_s],
  ["answers/s", (r) => r.answers_per_s],
  ["matches ended/s", (r) => r.matches_per_s],
  ["answer->ack p50 ms", (r) => r.ack_ms.p50],
  ["answer->ack p99 ms", (r) => r.ack_ms.p99],
  ["answer->spectator p50 ms", (r) => r.spectator_ms.p50],
  ["answer->spectator p99 ms", (r) => r.spectator_ms.p99],
  ["server CPU us/answer (no Redis)", (r) => r.server_cpu_us_per_answer],
  ["server CPU us/answer (+ Redis)", (r) => r.server_cpu_us_per_answer_with_redis],
  ["answers per server-core-second", (r) => r.answers_per_core_s],
  ["server CPU kernel share (no Redis)", (r) => r.server_kernel_share],
  ["server CPU used (cores)", (r) => r.server_cpu_util],
  ["loadgen CPU used (cores)", (r) => r.loadgen_cpu_util],
  ["other processes' CPU (cores, noise)", (r) => r.others_cpu_util],
  ["runs; CPU us/answer (+Redis) min..max", (r) => `${r._runs}; ${r._spread}`],
  ["CPU us/answer (+Redis) median of runs", (r) => r._median],
  ["errors / failed matches", (r) => `${r.errors} / ${r.match_failures}`],
  ["rule mismatches / seq gaps", (r) => `${r.rule_mismatches} / ${r.seq_gaps}`],
];
const fmt = (v) => (v === null || v === undefined ? "-" : String(v));
const ratio = (b, c) => (typeof b === "number" && typeof c === "number" && c !== 0 ? (b / c).toFixed(2) : "");

for (const [n, t] of [...byN.entries()].sort((a, b) => a[0] - b[0])) {
  const c = t.colyseus;
  const ours = [["Battlehall", t.battlehall], ["Battlehall batch", t["battlehall batch"]]].filter(([, r]) => r);
  const head = [`N=${n} concurrent matches`, "Colyseus 0.18", ...ours.flatMap(([name]) => [name, `${name}/Colyseus`])];
  const labels = ["(variant)", c?.label || "", ...ours.flatMap(([, r]) => [r.label || "", ""])];
  const lines = [labels, ...metrics.map(([name, f]) => {
    const cv = c ? f(c) : null;
    return [name, fmt(cv), ...ours.flatMap(([, r]) => [fmt(f(r)), ratio(f(r), cv)])];
  })];
  if (md) {
    console.log(`| ${head.join(" | ")} |`);
    console.log(`|${head.map(() => "---").join("|")}|`);
    for (const l of lines) console.log(`| ${l.join(" | ")} |`);
    console.log("");
  } else {
    const w = [40, 24, 24, 20, 24, 20];
    const pr = (cells) => console.log(cells.map((x, k) => String(x).padEnd(w[k])).join(" "));
    pr(head);
    for (const l of lines) pr(l);
    const notes = [...(c?.protocol_notes || []).map((x) => `colyseus: ${x}`),
      ...ours.flatMap(([name, r]) => (r.protocol_notes || []).map((x) => `${name}: ${x}`))];
    for (const x of notes) console.log(`  note: ${x}`);
    console.log("");
  }
}
