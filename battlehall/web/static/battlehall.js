// Battlehall client library: one ES module, no dependencies, for browsers and Node 20+.
//
// It speaks the wire protocol of docs/protocol.md: hello and resume, the prompts open for
// this seat, answers with ids that are sent again (same id) until acknowledged, events,
// reconnection with backoff, `not_here` redirects, and back-off on `rate_limited` and
// `unavailable`. Types: battlehall.d.ts beside this file.

/** @typedef {{t: string, [field: string]: any}} Message */
/** @typedef {{id: string, seat: string, kind: string, text?: string, options?: Array<{id: string, text: string, args?: Object<string, any[]>, combos?: Object<string, any[]>[]}>, default?: string, window?: string, deadline?: number, bank_ms?: number, time_ms?: number, bank?: boolean}} Prompt */
/** @typedef {{seq: number, at: number, kind: string, data: any}} MatchEvent */
/** @typedef {{t: "view", seq: number, view: any, prompts: Prompt[], now: number, delay_ms?: number}} ViewMessage */
/** @typedef {{subprotocol: string, binary: boolean, encode(message: Message): (string|Uint8Array), decode(data: (string|ArrayBuffer|Uint8Array)): Message}} Codec */
/** @typedef {"connecting"|"open"|"reconnecting"|"closed"} Status */

export const JSON_SUBPROTOCOL = "battlehall.v1.json";

/** JSON in text frames (`battlehall.v1.json`). @type {Codec} */
export const jsonCodec = {
  subprotocol: JSON_SUBPROTOCOL,
  binary: false,
  encode: (message) => JSON.stringify(message),
  decode: (data) => JSON.parse(typeof data === "string" ? data : new TextDecoder().decode(data)),
};

// Close codes after which trying again cannot help (docs/protocol.md, Close codes).
const FINAL_CLOSES = { 4001: "unauthorized", 4004: "not_found", 1009: "too_large" };
// Error codes of an act that mean "not applied, send the same act again later".
const RETRY_LATER = new Set(["rate_limited", "unavailable"]);
// Another node runs the match (several nodes on one Redis): follow its `redirect`.
const CLOSE_NOT_HERE = 4009;
const MAX_REDIRECTS = 5;

// What each error code means to a person (pages show these; `message` from the server is
// for developers).
const EXPLAINED = {
  unavailable: "The server cannot reach its storage right now. Nothing was lost; it will retry by itself.",
  not_found: "There is no such match: it never existed, was deleted, or ended too long ago.",
  unauthorized: "This link's key is not valid for this match. Ask for a new link.",
  forbidden: "This needs the server's operator key, and the server was started without one.",
  full: "This match already has as many spectators as it allows. Try again later.",
  rate_limited: "Too many actions at once; slowing down and trying again.",
  match_over: "The match is over.",
  match_live: "The match is still being played.",
  unknown_prompt: "That choice is no longer open.",
  not_your_prompt: "That choice belongs to another player.",
  illegal_option: "That is not one of the choices offered.",
  bad_args: "That combination of choices is not allowed.",
  spectator: "Spectators watch; they cannot play.",
  bad_setup: "The match settings are not valid.",
  bad_request: "The request was not understood.",
  too_many_connections: "Too many connections from this address. Close some tabs and retry.",
  internal: "The server hit a bug. The match is unchanged.",
  network: "The server cannot be reached. Retrying…",
  closed: "The connection is closed.",
};

/** A sentence a person understands for an error code (`fallback`, or a generic one, if unknown). */
export function explain(code, fallback) {
  return EXPLAINED[code] || fallback || `Something went wrong (${code}).`;
}

/** An error refused by the server (a wire `error`, an HTTP error body) or by the client itself. */
export class BattlehallError extends Error {
  constructor(code, message, extra = {}) {
    super(message || explain(code));
    this.name = "BattlehallError";
    /** @type {string} */ this.code = code;
    Object.assign(this, extra);
  }
}

/** The socket URL of a match: from an http(s) or ws(s) server address and a match id. */
export function wsUrl(base, matchId) {
  const url = new URL(base);
  url.protocol = url.protocol === "https:" || url.protocol === "wss:" ? "wss:" : "ws:";
  url.pathname = `/ws/${encodeURIComponent(matchId)}`;
  url.search = "";
  url.hash = "";
  return url.toString();
}

/**
 * An HTTP call to the server's API: the decoded JSON body, or a BattlehallError with the
 * body's `code`, `message` and `path` (and `status`); `network` when nothing answered.
 * @param {string} base server address, e.g. "http://127.0.0.1:8000" or "" for this page's
 * @param {string} path e.g. "/matches"
 * @param {{method?: string, body?: any, apiKey?: string, signal?: AbortSignal}} [options]
 */
export async function request(base, path, { method = "GET", body, apiKey, signal } = {}) {
  const headers = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (apiKey) headers.authorization = `Bearer ${apiKey}`;
  let response;
  try {
    response = await fetch(base + path, { method, headers, signal, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    if (err && err.name === "AbortError") throw err;
    throw new BattlehallError("network", explain("network"), { status: 0, cause: err });
  }
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!response.ok) {
    const e = (data && data.error) || {};
    throw new BattlehallError(e.code || `http_${response.status}`, e.message || `HTTP ${response.status}`,
                              { status: response.status, path: e.path });
  }
  return data;
}

let clients = 0;

/** The modes of a seat's stops (docs/protocol.md, Stops). */
export const STOP_MODES = ["ask", "pass_unless_playable", "pass_until_my_turn"];

/**
 * A reconnecting client for one viewer of one match (a seat's player, or a spectator).
 *
 * Events (`on(name, fn)`): "welcome", "event", "view", "prompt", "prompt_closed", "ack",
 * "error", "status", "ended", "stops" (the seat's stops mode, as the server tells it),
 * "presence" (a seat's player left or is back: `{seat, connected, away_at}`; `gone` is kept
 * current), "message" (every message, raw).
 */
export class BattlehallClient {
  /**
   * @param {{url: string, match?: string, token?: string|null, codec?: "json"|Codec,
   *          resume?: boolean|number, batch?: boolean, reconnect?: boolean,
   *          role?: "player"|"spectator"|"caster"|"judge",
   *          minBackoffMs?: number, maxBackoffMs?: number, ackTimeoutMs?: number,
   *          helloTimeoutMs?: number, keepAliveMs?: number, giveUpMs?: number,
   *          WebSocket?: any}} options
   */
  constructor(options) {
    const o = options || {};
    if (!o.url) throw new TypeError("BattlehallClient needs a url (ws://host/ws/<match> or an http base with match)");
    /** @type {string} */
    this.url = o.match ? wsUrl(o.url, o.match) : o.url;
    /** The address started from (a load balancer, a node): where to go back when a
     * redirect's node cannot be reached. @type {string} */
    this.homeUrl = this.url;
    this.token = o.token == null ? null : o.token;
    /** @type {Codec} */
    this.codec = !o.codec || o.codec === "json" ? jsonCodec : o.codec;
    this.resume = o.resume === undefined ? true : o.resume;
    this.batch = !!o.batch;
    /** The role the token must give (sent in `hello`): another is refused (`wrong_role`). */
    this.expectedRole = o.role || null;
    this.reconnect = o.reconnect !== false;
    this.minBackoffMs = o.minBackoffMs ?? 50;
    this.maxBackoffMs = o.maxBackoffMs ?? 5000;
    this.ackTimeoutMs = o.ackTimeoutMs ?? 10000;
    this.helloTimeoutMs = o.helloTimeoutMs ?? 10000;
    this.keepAliveMs = o.keepAliveMs ?? 15000;
    this.giveUpMs = o.giveUpMs ?? Infinity;
    this.WebSocket = o.WebSocket || globalThis.WebSocket;
    if (!this.WebSocket) throw new TypeError("no WebSocket here: pass one as options.WebSocket (Node 20: --experimental-websocket)");

    /** The last event seq handled (null before the first welcome). @type {number|null} */
    this.seq = typeof o.resume === "number" ? o.resume : null;
    /** @type {string|null} */ this.seat = null;
    /** @type {"player"|"spectator"|"caster"|"judge"|null} */ this.role = null;
    /** @type {string|null} */ this.match = null;
    /** Open prompts of this seat, by id. @type {Map<string, Prompt>} */ this.prompts = new Map();
    /** The latest view (welcome's or a `view` answer's). */ this.view = null;
    /** The latest view's seq. @type {number|null} */ this.viewSeq = null;
    /** What the match defines once and no view repeats (a setup's inline cards): the welcome's. */
    this.definitions = {};
    /** Seats whose player has no socket on the match, each with when it is marked away
     * (the server's clock; null when never): the welcome's `gone`, kept by `presence`. */
    this.gone = {};
    /** The result once the match has ended. */ this.result = null;
    /** Spectator stream delay, when there is one. @type {number|null} */ this.delayMs = null;
    /** @type {Status} */ this.status = "closed";
    /** Server clock minus this clock, ms. */ this.clockOffsetMs = 0;
    this.reconnects = 0;
    this.resent = 0;

    this._handlers = new Map();
    this._ws = null;
    this._closedByUser = false;
    this._welcomed = false;
    this._everWelcomed = false;
    this._backoff = this.minBackoffMs;
    this._downSince = null;
    this._timers = new Set();
    this._pending = new Map(); // act id -> {message, resolve, reject, refusals, timer}
    this._actIds = 0;
    this._prefix = `w${++clients}-${Math.random().toString(36).slice(2, 8)}`;
    this._liveFrom = 0;
    this._viewWaiters = [];
    this._viewNext = [];
    this._viewInFlight = false;
    this._viewRefusals = 0;
    this._connectPromise = null;
    this._closing = null; // close() asked while acts were pending: the reason, until they settle
    this._closingTimer = null;
    this._lastHeard = 0;
    this._redirects = 0; // `not_here` redirects followed since the last welcome
    this._endedEmitted = false;
    /** This seat's stops: which window prompts the server passes for it. @type {StopsMode} */
    this.stops = "ask";
  }

  /** Call `fn` on each `name` event; returns a function that removes it. */
  on(name, fn) {
    if (!this._handlers.has(name)) this._handlers.set(name, new Set());
    this._handlers.get(name).add(fn);
    return () => this.off(name, fn);
  }

  off(name, fn) {
    const set = this._handlers.get(name);
    if (set) set.delete(fn);
  }

  _emit(name, ...args) {
    const set = this._handlers.get(name);
    if (!set) return;
    for (const fn of [...set]) {
      try { fn(...args); } catch (err) { console.error(`battlehall: a "${name}" handler failed`, err); }
    }
  }

  /** The server's clock now, in epoch ms (for countdowns to a prompt's `deadline`). */
  serverNow() {
    return Date.now() + this.clockOffsetMs;
  }

  /**
   * Connect, and keep connected until close(). Resolves with the first welcome; rejects
   * with a BattlehallError when refused for good (unauthorized, not_found) or after giveUpMs.
   * @returns {Promise<Message>}
   */
  connect() {
    if (this._connectPromise) return this._connectPromise;
    this._closedByUser = false;
    this._connectPromise = new Promise((resolve, reject) => {
      this._connectResolve = resolve;
      this._connectReject = reject;
    });
    this._open();
    return this._connectPromise;
  }

  /** Stop: close the socket, reconnect no more. Acts already sent get their answer first
   * (for up to 2 s: the last answer of a match is acknowledged after its match_ended);
   * any still unanswered then are rejected. */
  close(reason = "closed") {
    if (this._pending.size && this._welcomed && this._ws && !this._closing) {
      this._closing = reason;
      this._closingTimer = setTimeout(() => this._closeNow(reason), 2000);
      return;
    }
    this._closeNow(reason);
  }

  _closeNow(reason) {
    clearTimeout(this._closingTimer);
    this._closing = null;
    this._closedByUser = true;
    this._clearTimers();
    this._stopKeepAlive();
    if (this._ws) {
      try { this._ws.close(1000); } catch { /* already closing */ }
      this._ws = null;
    }
    for (const [id, p] of this._pending) {
      clearTimeout(p.timer);
      p.reject(new BattlehallError("closed", explain("closed"), { id }));
    }
    this._pending.clear();
    this._settleViews();
    this._setStatus("closed", { reason });
    if (this._connectReject) this._connectReject(new BattlehallError("closed", explain("closed")));
    this._connectResolve = this._connectReject = null;
  }

  // Closed with view requests unanswered: they get the last view this client had.
  _settleViews() {
    const waiting = [...this._viewWaiters, ...this._viewNext];
    this._viewWaiters = [];
    this._viewNext = [];
    this._viewInFlight = false;
    const last = { t: "view", seq: this.viewSeq, view: this.view, prompts: [...this.prompts.values()], now: this.serverNow() };
    for (const resolve of waiting) resolve(last);
  }

  _settled() {
    if (this._closing && !this._pending.size) this._closeNow(this._closing);
  }

  /**
   * Answer a prompt. The act gets a fresh id and is sent again, with that id, after a
   * reconnect, a `rate_limited` or `unavailable`, or no answer in ackTimeoutMs: the
   * server applies it once. Resolves with the `ack`; rejects with a BattlehallError when
   * refused for good (`illegal_option`, `unknown_prompt`, `match_over`, ...).
   * @returns {Promise<{t: "ack", id: string, seq: number, clock?: {used_ms: number, lag_ms: number, bank_ms: number}}>}
   */
  act(promptId, optionId, args) {
    const message = { t: "act", id: `${this._prefix}-${++this._actIds}`, prompt: promptId, option: optionId };
    if (args && Object.keys(args).length) message.args = args;
    return this._request(message);
  }

  /**
   * Resign this seat (`{"t": "resign"}`): the match ends for it as a loss; in a match of
   * more seats the others play on. Sent again like an act until answered, applied once.
   * Resolves with the `ack`; rejects with a BattlehallError (`bad_seat`: resigned already,
   * `match_over`, `spectator`).
   * @returns {Promise<{t: "ack", id: string, seq: number}>}
   */
  resign() {
    return this._request({ t: "resign", id: `${this._prefix}-${++this._actIds}` });
  }

  /**
   * Claim the win (`{"t": "claim_win"}`) in a match created with `"when_away": "claim"`,
   * while another seat is marked away: every seat away resigns. Resolves with the `ack`;
   * rejects with a BattlehallError (`no_claim`: nobody is away or the match does not
   * allow it, `bad_seat`, `match_over`, `spectator`).
   * @returns {Promise<{t: "ack", id: string, seq: number}>}
   */
  claimWin() {
    return this._request({ t: "claim_win", id: `${this._prefix}-${++this._actIds}` });
  }

  _request(message) {
    const id = message.id;
    return new Promise((resolve, reject) => {
      const pending = { message, resolve, reject, refusals: 0, timer: null };
      this._pending.set(id, pending);
      if (this._welcomed) this._sendAct(pending);
    });
  }

  /**
   * Which window prompts this seat is asked; the server passes the others for it
   * (docs/protocol.md, Stops): "ask", "pass_unless_playable" or "pass_until_my_turn".
   * Sent now if connected, and again after every welcome (a restarted server forgets it).
   * `stops` holds the mode, as the server last told it ("stops" event).
   */
  setStops(mode) {
    if (!STOP_MODES.includes(mode)) throw new TypeError(`stops mode must be one of ${STOP_MODES.join(", ")}`);
    this.stops = mode;
    if (this._welcomed) this._send({ t: "stops", mode });
  }

  /** Whether the server passes this open prompt for the seat, by its stops. */
  passedForMe(prompt) {
    if (!prompt || prompt.window === undefined || this.stops === "ask") return false;
    if (this.stops === "pass_unless_playable") return (prompt.options || []).every((o) => o.id === prompt.default);
    return true;
  }

  /** Acts sent and not yet answered. */
  get pendingActs() {
    return [...this._pending.values()].map((p) => p.message);
  }

  /**
   * Ask for a fresh view (`{"t": "view"}`). At most one request is in flight: calls made
   * meanwhile share the next answer. Resolves with the `view` message (or, if the client
   * is closed first, with the last view it had).
   * @returns {Promise<ViewMessage>}
   */
  requestView() {
    return new Promise((resolve) => {
      if (this._closedByUser && this._connectPromise) { // closed: nothing fresher will come
        resolve({ t: "view", seq: this.viewSeq, view: this.view, prompts: [...this.prompts.values()], now: this.serverNow() });
        return;
      }
      if (this._viewInFlight) {
        this._viewNext.push(resolve);
        return;
      }
      this._viewWaiters.push(resolve);
      this._sendView();
    });
  }

  // -- internals -------------------------------------------------------------------------

  _setStatus(status, detail = {}) {
    if (this.status === status && status !== "reconnecting") return;
    this.status = status;
    this._emit("status", status, detail);
  }

  _later(fn, ms) {
    const timer = setTimeout(() => { this._timers.delete(timer); fn(); }, ms);
    this._timers.add(timer);
    return timer;
  }

  _clearTimers() {
    for (const timer of this._timers) clearTimeout(timer);
    this._timers.clear();
  }

  _open() {
    if (this._closedByUser) return;
    this._welcomed = false;
    this._setStatus(this._everWelcomed || this.reconnects || this._redirects ? "reconnecting" : "connecting", { url: this.url });
    let ws;
    try {
      ws = new this.WebSocket(this.url, [this.codec.subprotocol]);
    } catch (err) {
      this._lost(null, `cannot open ${this.url}: ${err && err.message}`);
      return;
    }
    this._ws = ws;
    ws.binaryType = "arraybuffer";
    const helloTimer = this._later(() => {
      if (this._ws === ws && !this._welcomed) {
        try { ws.close(); } catch { /* closing */ }
        this._lost(ws, "no welcome in time");
      }
    }, this.helloTimeoutMs);
    ws.onopen = () => {
      if (this._ws !== ws) return;
      const hello = { t: "hello", token: this.token };
      if (this.seq !== null && this.resume !== false) hello.resume = this.seq;
      if (this.batch) hello.batch = true;
      if (this.expectedRole) hello.role = this.expectedRole;
      this._send(hello);
    };
    ws.onmessage = (e) => {
      if (this._ws !== ws) return;
      let message;
      try {
        message = this.codec.decode(e.data);
      } catch (err) {
        console.error("battlehall: undecodable message", err);
        return;
      }
      this._lastHeard = Date.now();
      for (const m of message.t === "batch" ? message.messages : [message]) this._handle(m);
    };
    ws.onclose = (e) => {
      clearTimeout(helloTimer);
      this._timers.delete(helloTimer);
      if (this._ws !== ws) return;
      this._closed(ws, e.code, e.reason);
    };
    ws.onerror = () => { /* onclose follows */ };
  }

  _send(message) {
    const ws = this._ws;
    if (!ws || ws.readyState !== 1) return false;
    ws.send(this.codec.encode(message));
    return true;
  }

  _closed(ws, code, reason) {
    this._ws = null;
    this._stopKeepAlive();
    if (this._closing) this._closeNow(this._closing);
    if (this._closedByUser) return;
    const final = FINAL_CLOSES[code];
    if (final) {
      this._fail(new BattlehallError(final, explain(final), { closeCode: code }));
      return;
    }
    if (code === CLOSE_NOT_HERE) this.url = this.homeUrl; // moved, and we were not told where
    if (this.result !== null && (code === 1001 || code === 1000)) {
      // A finished match let go from memory: nothing more will happen.
      this._closedByUser = true;
      this._setStatus("closed", { reason: "ended", code });
      return;
    }
    this._lost(ws, code ? `connection closed (code ${code}${reason ? ": " + reason : ""})` : "connection lost", code);
  }

  _fail(error) {
    this._closedByUser = true;
    this._clearTimers();
    this._stopKeepAlive();
    for (const [, p] of this._pending) {
      clearTimeout(p.timer);
      p.reject(error);
    }
    this._pending.clear();
    this._settleViews();
    this._emit("error", error);
    this._setStatus("closed", { reason: error.message, code: error.code });
    if (this._connectReject) this._connectReject(error);
    this._connectResolve = this._connectReject = null;
  }

  _lost(ws, reason, code) {
    if (this._ws === ws) this._ws = null;
    if (this._closedByUser) return;
    if (!this.reconnect) {
      this._fail(new BattlehallError("network", reason, { closeCode: code }));
      return;
    }
    const now = Date.now();
    if (this._welcomed || this._downSince === null) {
      this._downSince = now;
      if (this._welcomed) this._backoff = this.minBackoffMs;
    }
    this._welcomed = false;
    this.url = this.homeUrl; // a redirect's node may be gone: the home address sends us on again
    for (const p of this._pending.values()) clearTimeout(p.timer);
    if (now - this._downSince >= this.giveUpMs) {
      this._fail(new BattlehallError("network", `cannot reach ${this.url}: ${reason}; gave up`));
      return;
    }
    const delay = Math.round(this._backoff * (0.5 + Math.random()));
    this._backoff = Math.min(this.maxBackoffMs, this._backoff * 2);
    this.reconnects += 1;
    this._setStatus("reconnecting", { reason, retryInMs: delay, code });
    this._later(() => this._open(), delay);
  }

  _handle(m) {
    this._emit("message", m);
    switch (m.t) {
      case "welcome": return this._onWelcome(m);
      case "event": return this._onEvent(m);
      case "view": return this._onView(m);
      case "ack": return this._onAck(m);
      case "error": return this._onError(m);
      case "stops":
        this.stops = m.mode;
        this._emit("stops", m.mode);
        return undefined;
      case "pong":
        if (typeof m.now === "number") this.clockOffsetMs = m.now - Date.now();
        return undefined;
      case "presence":
        if (m.connected) delete this.gone[m.seat];
        else this.gone[m.seat] = m.away_at ?? null;
        this._emit("presence", m);
        return undefined;
      default: return undefined; // unknown types are ignored (docs/protocol.md)
    }
  }

  _onWelcome(m) {
    this._welcomed = this._everWelcomed = true;
    this._redirects = 0;
    this._downSince = null;
    this._backoff = this.minBackoffMs;
    this.match = m.match;
    this.seat = m.seat;
    this.role = m.role;
    this.delayMs = m.delay_ms ?? null;
    if (typeof m.now === "number") this.clockOffsetMs = m.now - Date.now();
    this._liveFrom = m.seq;
    if (this.seq === null || this.resume === false) this.seq = m.seq;
    this.view = m.view;
    this.viewSeq = m.seq;
    this.definitions = m.definitions || {};
    this.gone = { ...(m.gone || {}) };
    const known = this.prompts;
    this.prompts = new Map((m.prompts || []).map((p) => [p.id, p]));
    this._setStatus("open", { url: this.url });
    this._startKeepAlive();
    this._emit("welcome", m);
    for (const p of this.prompts.values()) if (!known.has(p.id)) this._emit("prompt", p); // open when we came
    // A view request lost with the old socket: the welcome is as fresh as its answer.
    if (this._viewInFlight) this._onView({ t: "view", seq: m.seq, view: m.view, prompts: m.prompts, now: m.now, delay_ms: m.delay_ms });
    if (this.role === "player" && this.stops !== "ask") this._send({ t: "stops", mode: this.stops });
    for (const p of this._pending.values()) this._sendAct(p); // same ids: applied once
    const result = m.view && m.view.result;
    if (result && this.seq >= m.seq) this._ended(result);
    if (this._connectResolve) this._connectResolve(m);
    this._connectResolve = this._connectReject = null;
  }

  _onEvent(m) {
    if (this.seq !== null && m.seq <= this.seq) return; // seen before a reconnect
    this.seq = m.seq;
    const data = m.data || {};
    if (m.kind === "prompt") {
      // A prompt from a resumed history was in the welcome if it is still open.
      if (data.seat === this.seat && this.seat !== null && data.options && m.seq > this._liveFrom) {
        this.prompts.set(data.id, data);
        this._emit("event", m);
        this._emit("prompt", data);
        return;
      }
    } else if (m.kind === "prompt_closed") {
      const was = this.prompts.delete(data.id);
      this._emit("event", m);
      if (was || data.seat === this.seat) this._emit("prompt_closed", data);
      return;
    } else if (m.kind === "match_ended") {
      this.result = data;
      this._emit("event", m);
      this._ended(data);
      return;
    }
    this._emit("event", m);
  }

  _ended(result) {
    this.result = result;
    if (this._endedEmitted) return;
    this._endedEmitted = true;
    this._emit("ended", result);
  }

  _onView(m) {
    if (typeof m.now === "number") this.clockOffsetMs = m.now - Date.now();
    if (this.viewSeq === null || m.seq >= this.viewSeq) {
      this.view = m.view;
      this.viewSeq = m.seq;
      if (this.role === "player" && m.seq >= (this.seq ?? 0)) this.prompts = new Map((m.prompts || []).map((p) => [p.id, p]));
    }
    this._viewRefusals = 0;
    const waiters = this._viewWaiters;
    this._viewWaiters = [];
    this._viewInFlight = false;
    this._emit("view", m);
    for (const resolve of waiters) resolve(m);
    if (this._viewNext.length) {
      this._viewWaiters = this._viewNext;
      this._viewNext = [];
      this._sendView();
    }
  }

  _sendView() {
    this._viewInFlight = true;
    if (this._welcomed) this._send({ t: "view" });
    // Not connected: the next welcome answers it (_onWelcome).
  }

  _sendAct(p) {
    clearTimeout(p.timer);
    if (p.sentOnce) this.resent += 1;
    p.sentOnce = true;
    this._send(p.message);
    p.timer = this._later(() => this._welcomed && this._pending.has(p.message.id) && this._sendAct(p), this.ackTimeoutMs);
  }

  _onAck(m) {
    const p = this._pending.get(m.id);
    if (p) {
      clearTimeout(p.timer);
      this._pending.delete(m.id);
      p.resolve(m);
    }
    this._emit("ack", m);
    this._settled();
  }

  _onError(m) {
    const error = new BattlehallError(m.code, m.message, { id: m.id, redirect: m.redirect, server: m });
    if (m.code === "not_here") {
      // Not applied, if it answers an act: that act stays pending and is sent again, same
      // id, after the welcome on the node that runs the match.
      const p = m.id !== undefined && m.id !== null ? this._pending.get(m.id) : null;
      if (p) clearTimeout(p.timer);
      if (m.redirect) this._redirect(m.redirect);
      else this.url = this.homeUrl; // the close (4009) follows: reconnect home after a pause
      return undefined;
    }
    if (m.id !== undefined && m.id !== null) {
      const p = this._pending.get(m.id);
      if (p && RETRY_LATER.has(m.code)) {
        // Not applied: the same act again, with the same id, after a growing pause.
        clearTimeout(p.timer);
        const delay = Math.min(this.maxBackoffMs, 100 * 2 ** p.refusals) * (0.5 + Math.random());
        p.refusals += 1;
        p.timer = this._later(() => this._welcomed && this._pending.has(m.id) && this._sendAct(p), delay);
        this._emit("error", error);
        return undefined;
      }
      if (p) {
        clearTimeout(p.timer);
        this._pending.delete(m.id);
        p.reject(error);
      }
      this._emit("error", error);
      this._settled();
      return undefined;
    }
    if (this._viewInFlight && RETRY_LATER.has(m.code) && this._welcomed) {
      const delay = Math.min(this.maxBackoffMs, 100 * 2 ** this._viewRefusals++) * (0.5 + Math.random());
      this._later(() => this._viewInFlight && this._welcomed && this._send({ t: "view" }), delay);
    }
    if (!this._welcomed && (m.code === "unauthorized" || m.code === "wrong_role" || m.code === "not_found")) {
      this._fail(error); // the close (4001/4004) follows: nothing to retry
      return undefined;
    }
    this._emit("error", error);
    return undefined;
  }

  _redirect(url) {
    // Several nodes: this match is run elsewhere. Go there at once and resume, unless
    // redirects keep coming without a welcome: then pause, as after a failed connection.
    const ws = this._ws;
    this._ws = null;
    if (ws) { try { ws.close(1000); } catch { /* closing */ } }
    this._stopKeepAlive();
    this._redirects += 1;
    if (this._redirects > MAX_REDIRECTS) {
      this._redirects = 0;
      this._lost(null, `redirected ${MAX_REDIRECTS} times without a welcome (last to ${url})`);
      return;
    }
    this._welcomed = false;
    this.url = url;
    this._setStatus("reconnecting", { reason: `the match is run at ${url}`, retryInMs: 0 });
    this._later(() => this._open(), 0);
  }

  _startKeepAlive() {
    this._stopKeepAlive();
    if (!this.keepAliveMs) return;
    this._lastHeard = Date.now();
    this._keepAlive = setInterval(() => {
      const ws = this._ws;
      if (!ws) return;
      if (Date.now() - this._lastHeard > 2 * this.keepAliveMs + 1000) {
        // Nothing heard through two pings: the network is gone without a close.
        this._stopKeepAlive();
        try { ws.close(); } catch { /* closing */ }
        this._lost(ws, "no answer from the server");
        return;
      }
      this._send({ t: "ping" });
    }, this.keepAliveMs);
  }

  _stopKeepAlive() {
    if (this._keepAlive) clearInterval(this._keepAlive);
    this._keepAlive = null;
  }
}

/** An answer to `prompt` from its options alone: `option` (or the first), its first combo,
 * first listed value of each argument. Always legal (docs/protocol.md, Arguments). */
export function firstAnswer(prompt, optionId) {
  const option = prompt.options.find((o) => o.id === (optionId ?? prompt.options[0].id));
  if (!option) throw new BattlehallError("illegal_option", `${optionId} is not an option of ${prompt.id}`);
  const source = option.combos && option.combos.length ? option.combos[0] : option.args || {};
  const args = {};
  for (const [name, values] of Object.entries(source)) args[name] = values[0];
  return { option: option.id, args };
}

/**
 * The events' HTTP API (docs/tournaments.md). Each method answers the decoded JSON, or
 * throws BattlehallError with the refusal's code (`already_registered`, ...), status and path.
 * A player's calls carry `proof`: the guest profile's secret or a player token.
 */
export class TournamentApi {
  /** @param {string} [base] the server's address ("" for this page's); @param {string} [apiKey] */
  constructor(base = "", apiKey = undefined) {
    this.base = base;
    this.apiKey = apiKey;
  }

  _path(id, action = "") {
    return `/tournaments/${encodeURIComponent(id)}${action ? `/${action}` : ""}`;
  }

  /** A new event: `{tournament, organiser_token, seed_commitment, status, version, url}`. */
  create(body, proof = undefined) {
    return request(this.base, "/tournaments", { method: "POST", body, apiKey: proof || this.apiKey });
  }

  /** A page of public events: `{tournaments, next}`; `status` upcoming, running or finished. */
  list({ status, limit, cursor } = {}) {
    const q = new URLSearchParams();
    if (status) q.set("status", status);
    if (limit) q.set("limit", String(limit));
    if (cursor) q.set("cursor", cursor);
    const query = q.toString();
    return request(this.base, `/tournaments${query ? `?${query}` : ""}`);
  }

  /** The event; with `waitSince`, answered once its version is past it (a long poll, up to `waitMs`). */
  get(id, { waitSince, waitMs, signal } = {}) {
    return request(this.base, this._path(id) + waitQuery(waitSince, waitMs), { signal });
  }

  /** The event's log, with its seed once it has ended (what `battlehall verify` checks). */
  log(id) {
    return request(this.base, this._path(id, "log"));
  }

  register(id, profile, proof) {
    return request(this.base, this._path(id, "register"), { method: "POST", body: { profile }, apiKey: proof });
  }

  checkIn(id, profile, proof) {
    return request(this.base, this._path(id, "check_in"), { method: "POST", body: { profile }, apiKey: proof });
  }

  drop(id, profile, proof) {
    return request(this.base, this._path(id, "drop"), { method: "POST", body: { profile }, apiKey: proof });
  }

  /** Your entry: registered, checked in, dropped, and your table with its match and your seat's
   * token (`table.play` is the seat's link). With `waitSince`: once it changes (your match is ready). */
  my(id, profile, proof, { waitSince, waitMs, signal } = {}) {
    const q = new URLSearchParams({ profile });
    const wait = waitQuery(waitSince, waitMs);
    return request(this.base, `${this._path(id, "my")}?${q}${wait ? `&${wait.slice(1)}` : ""}`, { apiKey: proof, signal });
  }

  /** The organiser's: `organiserToken` (or the API key). */
  start(id, organiserToken = undefined) {
    return request(this.base, this._path(id, "start"), { method: "POST", apiKey: organiserToken || this.apiKey });
  }

  cancel(id, organiserToken = undefined) {
    return request(this.base, this._path(id, "cancel"), { method: "POST", apiKey: organiserToken || this.apiKey });
  }
}

function waitQuery(waitSince, waitMs) {
  if (waitSince === undefined || waitSince === null) return "";
  const q = new URLSearchParams({ wait_since: String(waitSince) });
  if (waitMs !== undefined) q.set("wait_ms", String(waitMs));
  return `?${q}`;
}
