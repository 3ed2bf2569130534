// The `duel` game as a Colyseus 0.18 room, for the Battlehall comparison bench.
//
// Same rules as battlehall/engine/duel.py: two seats, 20 HP, the first seat acts
// first, turns alternate; strike rolls 1 + rng % 3 after advancing
// rng = (rng * 1664525 + 1013904223) mod 2**32 (1 less, not below 0, against a
// guarding opponent, and the strike ends that guard); guard lasts until struck;
// a seat at 0 HP or less loses and the striker wins.
//
// Per answer the room does what Battlehall does per `act`: check the turn (open
// prompt id, seat, option), apply it, broadcast ONE `event` message to every
// client in the room (players and spectators), ack the sender, and send the
// next prompt (with its options) to the seat to act. The broadcast carries the
// same information Battlehall spreads over several events (the action's result,
// the closing of the answered prompt, the public notice of the next prompt or the
// match result), batched into one message, which is the idiomatic Colyseus way.
//
// State: a @colyseus/schema state is kept (hp, guarding, to_act, winner) and is
// sent in full on join (the counterpart of Battlehall's `welcome.view`). Patches
// are NOT broadcast on a timer by default (patchRate = null): the per-answer
// event already carries every change, and a 50 ms patch loop per room would
// only add cost to the Colyseus side. Set DUEL_PATCH_RATE=<ms> to turn it on.
//
// DUEL_SPLIT_EVENTS=1 sends each event as its own broadcast instead (3 per
// answer: prompt_closed, strike/guard, prompt), i.e. the same number of frames
// per answer as Battlehall's stream (3 events x 4 clients + 1 ack + the prompt
// riding in the seat's own copy): a sensitivity check of what batching is worth.
//
// Nothing is persisted: Colyseus keeps the match in memory only.
//
// Run: node server.mjs --port 2567 [--host 127.0.0.1]
// (from a folder whose node_modules has the deps of bench/compare/package.json)

import { Room, Server, LocalPresence, LocalDriver } from "@colyseus/core";
import { WebSocketTransport } from "@colyseus/ws-transport";
import { schema, t } from "@colyseus/schema";

const START_HP = 20;

export const SeatState = schema({
  hp: t.int16(),
  guarding: t.boolean(),
}, "SeatState");

export const DuelState = schema({
  seats: t.array("string"),
  players: t.map(SeatState),
  to_act: t.string(),
  winner: t.string(),
  seq: t.uint32(),
}, "DuelState");

function arg(name, dflt) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : dflt;
}

const PATCH_RATE = process.env.DUEL_PATCH_RATE ? Number(process.env.DUEL_PATCH_RATE) : null;
const SPLIT_EVENTS = process.env.DUEL_SPLIT_EVENTS === "1";
const OPTIONS = [{ id: "strike", text: "Strike" }, { id: "guard", text: "Guard" }];
const PROMPT_MS = 30000;

export class DuelRoom extends Room {
  maxClients = 4;            // 2 players + 2 spectators
  patchRate = PATCH_RATE;

  onCreate(options = {}) {
    const seats = Array.isArray(options.seats) && options.seats.length === 2 ? options.seats.map(String) : ["a", "b"];
    const hp = Number.isInteger(options.hp) ? options.hp : START_HP;
    const seed = Number.isInteger(options.seed) ? options.seed : 1;
    this.seatNames = seats;
    this.rng = ((seed % 2 ** 32) + 2 ** 32) % 2 ** 32;
    this.turn = 0;
    this.hp = { [seats[0]]: hp, [seats[1]]: hp };
    this.guarding = { [seats[0]]: false, [seats[1]]: false };
    this.seatClient = { [seats[0]]: null, [seats[1]]: null };
    this.spectators = 0;
    this.seq = 0;
    this.promptNo = 0;
    this.prompt = null;      // the open prompt {id, seat, kind, options, default, deadline}
    this.started = false;
    this.over = false;
    this.result = null;
    this.acked = new Map();  // per seat: act id -> ack (an act id resent is not applied twice)

    const state = new DuelState();
    for (const s of seats) {
      const p = new SeatState();
      p.hp = hp;
      p.guarding = false;
      state.players.set(s, p);
      state.seats.push(s);
    }
    state.to_act = seats[0];
    state.winner = "";
    state.seq = 0;
    this.state = state;

    this.onMessage("act", (client, msg) => this.onAct(client, msg));
  }

  onJoin(client, options = {}) {
    if (options.spectator) {
      if (this.spectators >= 2) throw new Error("spectator seats full");
      this.spectators += 1;
      client.userData = { role: "spectator", seat: null };
      return;
    }
    // A player asks for a seat by name, or gets the first free one.
    let seat = options.seat != null ? String(options.seat) : this.seatNames.find((s) => this.seatClient[s] === null);
    if (seat === undefined || !(seat in this.seatClient) || this.seatClient[seat] !== null) {
      throw new Error("no free seat");
    }
    this.seatClient[seat] = client;
    client.userData = { role: "player", seat };
    this.acked.set(seat, new Map());
    if (!this.started && this.seatNames.every((s) => this.seatClient[s] !== null)) {
      this.started = true;
      this.openPrompt();
      // match_started + the public notice of the first prompt, to everyone.
      this.broadcastEvent([
        { kind: "match_started", data: { seats: this.seatNames, hp: this.hp[this.seatNames[0]] } },
        this.publicPromptEvent(),
      ]);
      this.sendPrompt();
    } else if (this.started && this.prompt && this.prompt.seat === seat) {
      this.sendPrompt();   // a seat that (re)joins gets its open prompt
    }
  }

  onLeave(client) {
    const ud = client.userData || {};
    if (ud.role === "spectator") this.spectators -= 1;
    else if (ud.seat && this.seatClient[ud.seat] === client) this.seatClient[ud.seat] = null;
  }

  openPrompt() {
    this.promptNo += 1;
    const seat = this.seatNames[this.turn];
    this.prompt = { id: `p${this.promptNo}`, seat, kind: "move", text: "Strike or guard",
                    options: OPTIONS, default: "strike", deadline: Date.now() + PROMPT_MS };
    this.state.to_act = seat;
  }

  publicPromptEvent() {
    const p = this.prompt;
    return { kind: "prompt", data: { id: p.id, seat: p.seat, kind: p.kind, deadline: p.deadline } };
  }

  sendPrompt() {
    const c = this.seatClient[this.prompt.seat];
    if (c) c.send("prompt", this.prompt);
  }

  // One message to every client; `seq` numbers the batch's last event, like
  // Battlehall's stream numbers every event.
  broadcastEvent(events) {
    const at = Date.now();
    if (SPLIT_EVENTS) {
      for (const e of events) { this.seq += 1; this.broadcast("event", { seq: this.seq, at, kind: e.kind, data: e.data }); }
    } else {
      this.seq += events.length;
      this.broadcast("event", { seq: this.seq, at, events });
    }
    this.state.seq = this.seq;
    return this.seq;
  }

  reject(client, id, code) {
    client.send("act_error", { id, code });
  }

  onAct(client, msg) {
    const ud = client.userData || {};
    const id = msg && msg.id;
    if (!msg || typeof msg !== "object" || typeof id !== "string") return this.reject(client, id ?? null, "bad_message");
    if (ud.role !== "player") return this.reject(client, id, "spectator");
    const seen = this.acked.get(ud.seat);
    if (seen.has(id)) return client.send("ack", { id, seq: seen.get(id) });
    if (this.over) return this.reject(client, id, "match_over");
    const p = this.prompt;
    if (!p || msg.prompt !== p.id) return this.reject(client, id, "unknown_prompt");
    if (p.seat !== ud.seat) return this.reject(client, id, "not_your_prompt");
    const option = msg.option;
    if (option !== "strike" && option !== "guard") return this.reject(client, id, "illegal_option");

    const seat = p.seat;
    const other = this.seatNames[1 - this.turn];
    const events = [];
    if (option === "guard") {
      this.guarding[seat] = true;
      this.state.players.get(seat).guarding = true;
      events.push({ kind: "guard", data: { seat } });
    } else {
      // rng * 1664525 can pass 2**53: Math.imul keeps the exact low 32 bits.
      this.rng = (Math.imul(this.rng, 1664525) + 1013904223) >>> 0;
      const roll = 1 + (this.rng % 3);
      const damage = this.guarding[other] ? Math.max(0, roll - 1) : roll;
      this.guarding[other] = false;
      this.hp[other] -= damage;
      const ps = this.state.players.get(other);
      ps.guarding = false;
      ps.hp = this.hp[other];
      events.push({ kind: "strike", data: { seat, target: other, roll, damage, hp: this.hp[other] } });
    }
    events.push({ kind: "prompt_closed", data: { id: p.id, reason: "answered" } });
    if (option === "strike" && this.hp[other] <= 0) {
      this.over = true;
      this.prompt = null;
      this.result = { winner: seat, reason: "knockout" };
      this.state.winner = seat;
      events.push({ kind: "match_ended", data: this.result });
      const seq = this.broadcastEvent(events);
      seen.set(id, seq);
      client.send("ack", { id, seq });
      return;
    }
    this.turn = 1 - this.turn;
    this.openPrompt();
    events.push(this.publicPromptEvent());
    const seq = this.broadcastEvent(events);
    seen.set(id, seq);
    client.send("ack", { id, seq });
    this.sendPrompt();
  }
}

async function main() {
  const port = Number(arg("port", "2567"));
  const host = arg("host", "127.0.0.1");
  const server = new Server({
    transport: new WebSocketTransport(),
    presence: new LocalPresence(),
    driver: new LocalDriver(),
    greet: false,
  });
  server.define("duel", DuelRoom);
  await server.listen(port, host);
  console.log(JSON.stringify({ listening: `http://${host}:${port}`, pid: process.pid, patchRate: PATCH_RATE, splitEvents: SPLIT_EVENTS }));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((e) => { console.error(e); process.exit(1); });
}
