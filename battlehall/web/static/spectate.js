// One match on the spectator layout (watch.html, tv.html): a spectator's socket, the public
// view drawn, the log in words, who decides and their clock, the moments called out, the
// audience counted. The public view only: a seat's link is refused (its view holds that
// seat's hand). It leaves the page as it is until its own welcome comes, then takes it
// over in one go, so the TV's next match replaces the last one with no blank between.
import { BattlehallClient, request } from "./battlehall.js";
import { BASE, describeEvent, draw, duration, el, errorText, fitToBox, matchName, replayLink, resultText, statusText,
         tickClocks } from "./page.js";
import { Decisions, MomentBox, headlineOf, momentOf } from "./moments.js";

const MAX_LOG = 400;
const COUNT_EVERY_MS = 2000;
const TICK_MS = 250;

/** The page's elements, by id. */
export function streamElements(doc = document) {
  const get = (id) => doc.getElementById(id);
  return { main: get("main"), board: get("board"), log: get("log"), title: get("title"), status: get("status"),
           delay: get("delay"), spectators: get("spectators"), result: get("result"), decisions: get("decisions"),
           headline: get("headline"), moment: get("moment") };
}

export class Spectating {
  /**
   * @param {{matchId: string, token?: string|null, summary: object, drawing: object, dom: object, note: object,
   *          overlay?: boolean, giveUpMs?: number, onTakeover?: () => void, onEnded?: (result) => void,
   *          onRefused?: (err) => void, onLost?: () => void}} o
   * giveUpMs: how long to keep trying to (re)connect before the match is lost (onRefused before
   * the welcome, onLost after it); and a `full` match is then refused at once instead of
   * retried. By default it keeps trying, as a viewer who wants this match would.
   */
  constructor(o) {
    Object.assign(this, { token: null, overlay: false, giveUpMs: Infinity, onTakeover: () => {}, onEnded: () => {},
                          onRefused: () => {}, onLost: () => {} }, o);
    this.client = null;
    this.attached = false;
    this.stopped = false;
    this.ended = false;
    this.handled = 0;
    this.liveFrom = Infinity;
    this.decisions = new Decisions();
    this.presence = {}; // seat -> {connected, awayAt}: the seats whose player has left, from `gone` and `presence`
    this.timers = [];
    this.shownSeq = 0;
    this.redraw = null;
  }

  /** What the drawing reads (the frame's contract): the public view, no seat of its own, who
   * decides now (the public part of each open prompt, by seat) and who has left. */
  model(view) {
    const deciding = {};
    for (const p of this.decisions.open.values()) {
      (deciding[p.seat] ||= []).push({ id: p.id, seat: p.seat, kind: p.kind, window: !!p.window, deadline: p.deadline ?? null });
    }
    return { ruleset: this.summary.ruleset, view, definitions: (this.client && this.client.definitions) || {}, seat: null,
             role: "spectator", prompts: [], seats: this.summary.seats,
             bots: this.summary.bots || {}, whenAway: this.summary.when_away || "nothing",
             deciding, presence: { ...this.presence } };
  }

  /** `gone` of a welcome (seat -> away_at, or null): those seats' players have no socket. */
  setGone(gone) {
    this.presence = {};
    for (const [seat, awayAt] of Object.entries(gone || {})) this.presence[seat] = { connected: false, awayAt: awayAt ?? null };
  }

  /** A `presence` message: a seat's player left (with when the seat is marked away) or came back. */
  onPresence(m) {
    if (!m || typeof m.seat !== "string") return;
    const before = JSON.stringify(this.presence[m.seat] || null);
    if (m.connected) delete this.presence[m.seat];
    else this.presence[m.seat] = { connected: false, awayAt: m.away_at ?? null };
    if (before !== JSON.stringify(this.presence[m.seat] || null)) this.drawAgain();
  }

  /** Draw the last view again (who decides or who is here changed), once per frame at most. */
  drawAgain() {
    if (this.redraw || !this.attached || !this.client || !this.client.view) return;
    this.redraw = requestAnimationFrame(() => {
      this.redraw = null;
      if (this.attached && this.client.view) this.render(this.client.view, this.shownSeq);
    });
  }

  /** Connect; resolves with the welcome (the page is this match's from then on). */
  async start() {
    const { dom, note } = this;
    this.name ||= await matchName(this.summary.ruleset, this.summary.seats, this.summary.bots);
    const client = this.client = new BattlehallClient({ url: BASE, match: this.matchId, token: this.token, resume: 0,
                                                        giveUpMs: this.giveUpMs });
    client.on("status", (status, detail) => {
      if (!this.attached) return;
      if (status === "closed" && !this.ended && !this.stopped) this.onLost();
      dom.main.dataset.status = status;
      if (client.result) return; // the pill says "ended" from now on
      dom.status.textContent = status === "open" ? "live" : status;
      dom.status.className = `pill ${status === "open" ? "live" : "warn"}`;
      if (status === "open") note.clear();
      else if (status === "reconnecting" || (status === "closed" && detail.code)) {
        note.show(status === "closed" ? "error" : "warn", statusText(status, detail));
      }
    });
    client.on("welcome", (w) => {
      if (w.role !== "spectator") {
        // A seat's link: its view shows that seat's hand, which a stream must never show.
        client.close("a seat's link");
        this.takeOver();
        dom.board.replaceChildren();
        note.show("error", w.role === "caster" ? "This is the caster link, not a spectator's: open it as /cast/… to cast the match."
          : "This is a player's link, not a spectator's: open it as /play/… to play, or use the spectator link to watch.");
        dom.main.dataset.status = "refused";
        this.onRefused({ code: "seat_link" });
        return;
      }
      if (!this.attached) this.takeOver();
      dom.main.dataset.status = "open";
      dom.status.textContent = "live";
      dom.status.className = "pill live";
      this.liveFrom = w.seq;
      this.setGone(w.gone ?? client.gone);
      this.render(w.view, w.seq);
      dom.delay.hidden = !w.delay_ms;
      dom.delay.textContent = w.delay_ms ? `Stream delay ${duration(w.delay_ms)}` : "";
    });
    client.on("event", (e) => {
      if (!this.attached) return;
      this.decisions.apply(e);
      this.addLog(e);
      if (e.seq > this.liveFrom) client.requestView();
      else if (e.kind === "prompt" || e.kind === "prompt_closed") this.drawAgain(); // who decides, from the history
    });
    client.on("view", (v) => { if (this.attached) this.render(v.view, v.seq); });
    // Who has left (servers that send no `presence` leave everyone here): the client's own
    // event, and the raw message for a client library that does not name it.
    client.on("presence", (m) => { if (this.attached) this.onPresence(m); });
    client.on("message", (m) => { if (this.attached && m && m.t === "presence") this.onPresence(m); });
    client.on("ended", (result) => {
      if (!this.attached) return;
      this.showResult(result);
      this.countSpectators();
      this.onEnded(result);
    });
    client.on("error", (err) => {
      if (!this.attached && err.code === "full" && this.giveUpMs !== Infinity && !this.stopped) {
        this.stop();
        this.onRefused(err);
      } else if (this.attached && err.id === undefined) {
        note.show("error", errorText(err));
      }
    });
    try {
      return await client.connect();
    } catch (err) {
      if (!this.stopped) this.onRefused(err);
      throw err;
    }
  }

  /** Make the page this match's: the last match's log, result and moments go. */
  takeOver() {
    const { dom } = this;
    this.onTakeover();
    this.attached = true;
    this.moments = new MomentBox(dom.moment);
    dom.log.replaceChildren();
    dom.result.textContent = "";
    delete dom.result.dataset.result;
    const link = document.getElementById("replay-link");
    if (link) link.remove();
    delete dom.main.dataset.ended;
    dom.main.dataset.match = this.matchId;
    dom.main.dataset.ruleset = this.summary.ruleset;
    dom.main.dataset.events = "0";
    dom.main.dataset.moments = "0";
    dom.title.textContent = this.name; // "Spellfire: ana vs bot-1 (bot)": the ruleset's title, never the match id
    dom.title.title = this.name; // whole, where a phone cuts it short
    dom.spectators.textContent = String(this.summary.spectators ?? 0);
    this.timers.push(setInterval(() => this.tick(), TICK_MS));
    this.timers.push(setInterval(() => {
      if (!document.hidden && this.client.status !== "closed") this.countSpectators();
    }, COUNT_EVERY_MS));
    this.countSpectators();
  }

  render(view, seq) {
    const model = this.model(view);
    const board = this.dom.board;
    draw(this.drawing, board, model, null);
    if (this.overlay) for (const node of board.querySelectorAll("[tabindex]")) node.setAttribute("tabindex", "-1");
    this.shownSeq = seq;
    this.dom.main.dataset.seq = String(seq);
    this.dom.headline.textContent = headlineOf(this.drawing, model);
    this.tick();
    this.fit();
  }

  /** The whole table in its box: drawn smaller when it must (a stream cannot scroll). */
  fit() {
    fitToBox(this.dom.board, this.overlay ? 0.4 : 0.6);
    if (!this.resizing && typeof ResizeObserver === "function") {
      let last = "";
      this.resizing = new ResizeObserver(() => {
        const size = `${this.dom.board.clientWidth}x${this.dom.board.clientHeight}`;
        if (size !== last) { last = size; fitToBox(this.dom.board, this.overlay ? 0.4 : 0.6); }
      });
      this.resizing.observe(this.dom.board);
    }
  }

  /** The clocks, four times a second: the strip of decisions and the table's seats. */
  tick() {
    const now = this.client.serverNow();
    this.decisions.render(this.dom.decisions, now);
    tickClocks(this.dom.board, now);
  }

  addLog(event) {
    const { dom } = this;
    this.handled += 1;
    dom.main.dataset.events = String(this.handled); // events handled: each once, none missed (the log may skip some)
    const model = this.model(this.client.view);
    const live = event.seq > this.liveFrom;
    const moment = live ? momentOf(this.drawing, event, model) : null;
    const text = describeEvent(this.drawing, event, model);
    if (text !== null && text !== undefined) {
      const atBottom = this.overlay || dom.log.scrollHeight - dom.log.scrollTop - dom.log.clientHeight < 40;
      const li = el("li", { dataset: { seq: event.seq } }, text); // a sentence: no event numbers
      if (moment) { li.classList.add("moment"); li.dataset.moment = moment.kind; }
      dom.log.append(li);
      while (dom.log.children.length > MAX_LOG) dom.log.firstElementChild.remove();
      if (atBottom) dom.log.scrollTop = dom.log.scrollHeight;
    }
    if (moment) {
      this.moments.show(moment);
      dom.main.dataset.moments = String(Number(dom.main.dataset.moments || 0) + 1);
    }
  }

  showResult(result) {
    const { dom } = this;
    this.ended = true;
    dom.status.textContent = "ended";
    dom.status.className = "pill finished";
    dom.main.dataset.ended = this.matchId;
    dom.result.textContent = resultText(result);
    dom.result.dataset.result = JSON.stringify(result);
    if (!this.overlay && !document.getElementById("replay-link")) {
      dom.result.after(el("a", { id: "replay-link", href: replayLink(this.matchId, this.token), class: "button" }, "Replay"));
    }
  }

  async countSpectators() {
    try {
      const now = await request(BASE, `/matches/${encodeURIComponent(this.matchId)}`);
      if (this.attached && !this.stopped) this.dom.spectators.textContent = String(now.spectators);
    } catch { /* shown by the connection status */ }
  }

  /** Let go of the page and the socket (the TV's next match takes over). */
  stop() {
    this.stopped = true;
    this.attached = false;
    for (const timer of this.timers) clearInterval(timer);
    if (this.resizing) this.resizing.disconnect();
    this.resizing = null;
    if (this.redraw) cancelAnimationFrame(this.redraw);
    this.redraw = null;
    if (this.moments) this.moments.clear();
    if (this.client) this.client.close("next match");
  }
}
