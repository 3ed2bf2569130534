// Shared by the library's tests: the server under test (started by tests/browser/test_js_client.py).
import { request } from "../../battlehall/web/static/battlehall.js";

export const BASE = process.env.BATTLEHALL_URL;
export const SLOW_BASE = process.env.BATTLEHALL_SLOW_URL; // a server with a rate limit of 2 messages/s
export const REDIRECTING_BASE = process.env.BATTLEHALL_REDIRECTING_URL; // answers every hello with not_here
if (!BASE) throw new Error("run through tests/browser/test_js_client.py, which sets BATTLEHALL_URL");

export function create(body, base = BASE) {
  return request(base, "/matches", { method: "POST", body: { ruleset: "duel", seats: ["alice", "bob"], ...body } });
}

/** Resolves with the first `name` event of `client` for which `test` holds. */
export function next(client, name, test = () => true, ms = 5000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => { off(); reject(new Error(`no ${name} within ${ms} ms`)); }, ms);
    const off = client.on(name, (...args) => {
      if (test(...args)) { clearTimeout(timer); off(); resolve(args[0]); }
    });
  });
}
