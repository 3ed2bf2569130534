// What a viewer cares about without reading the log: whose decision it is and their
// clock (from the public prompt events: seat, kind, deadline, bank), the ruleset's
// headline of the moment (a battle's running totals), and moments called out as they
// happen (a razed realm, a Knight sent back, a Demigod defeated, the end). A ruleset's
// drawing module may export headline(model) -> string | null and moment(event, model)
// -> {kind, text} | null; the spectator page and the TV use both.
import { el, duration, resultText } from "./page.js";

const MOMENT_MS = 6000; // how long one called-out moment stays up

/** The prompts open now, as the public events say: seat, kind and clock. */
export class Decisions {
  constructor() {
    this.open = new Map(); // prompt id -> {seat, kind, deadline, bank_ms, bank, window}
  }

  /** Follow one event (every one, from the match's start). */
  apply(event) {
    const d = event.data || {};
    if (event.kind === "prompt") this.open.set(d.id, d);
    else if (event.kind === "prompt_closed") this.open.delete(d.id);
    else if (event.kind === "match_ended") this.open.clear();
  }

  /** The seat's clock now, in words: "0:23", "bank 1:05" past the deadline, "" when untimed. */
  static clock(prompt, now) {
    if (typeof prompt.deadline !== "number") return "";
    const left = prompt.deadline - now;
    if (left >= 0) return duration(left);
    if (prompt.bank === false || !prompt.bank_ms) return "0 s";
    return `bank ${duration(Math.max(0, prompt.bank_ms + left))}`;
  }

  /** One element per open prompt: who decides, what, and their clock. */
  render(node, now) {
    const items = [...this.open.values()].map((p) => el("span", {
      class: `decision${typeof p.deadline === "number" && p.deadline < now ? " in-bank" : ""}`,
      dataset: { seat: p.seat, kind: p.kind },
    }, el("strong", {}, p.seat), ` ${String(p.kind || "decide").replace(/_/g, " ")}${p.window ? " (reaction)" : ""}`,
       el("span", { class: "clock" }, Decisions.clock(p, now))));
    node.replaceChildren(...items);
    node.dataset.deciding = [...new Set([...this.open.values()].map((p) => p.seat))].join(",");
  }
}

/** The moment an event makes, or null: the ruleset's own, and the end of the match. */
export function momentOf(drawing, event, model) {
  if (event.kind === "match_ended") return { kind: "match_ended", text: resultText(event.data) };
  try {
    return (drawing.moment && drawing.moment(event, model)) || null;
  } catch (err) {
    console.error("moment failed", err);
    return null;
  }
}

/** The ruleset's headline for the view now (e.g. a battle's totals), or "". */
export function headlineOf(drawing, model) {
  try {
    return (drawing.headline && model.view && drawing.headline(model)) || "";
  } catch (err) {
    console.error("headline failed", err);
    return "";
  }
}

/** The call-out box: one moment at a time, each for MOMENT_MS, in the order they came. */
export class MomentBox {
  constructor(node) {
    this.node = node;
    this.queue = [];
    this.timer = null;
    this.shown = 0;
  }

  show(moment) {
    this.queue.push(moment);
    if (!this.timer) this.next();
  }

  next() {
    const moment = this.queue.shift();
    if (!moment) {
      this.timer = null;
      this.node.hidden = true;
      return;
    }
    this.shown += 1;
    this.node.dataset.kind = moment.kind;
    this.node.dataset.count = String(this.shown);
    this.node.textContent = moment.text;
    this.node.hidden = false;
    this.timer = setTimeout(() => this.next(), MOMENT_MS);
  }

  clear() {
    clearTimeout(this.timer);
    this.timer = null;
    this.queue = [];
    this.node.hidden = true;
  }
}
