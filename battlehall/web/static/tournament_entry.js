// The reader's own part of an event page: their entry (register, check in, drop) with the
// profile the lobby keeps in this browser, and "Your match is ready" with their seat's link,
// from GET /tournaments/{id}/my, long-polled. The organiser's token is kept here too.
import { TournamentApi } from "./battlehall.js";
import { BASE, el, errorText } from "./page.js";

const ORGANISER = "battlehall.organiser."; // + tournament id: the token its creation answered
const WAIT_MS = 20000;
const api = new TournamentApi(BASE);
const ACTIONS = { register: "register", check_in: "checkIn", drop: "drop" };

/** Keep the organiser token of a tournament this browser created. */
export function rememberOrganiser(id, token) {
  if (token) localStorage.setItem(ORGANISER + id, token);
}

/** The organiser token this browser keeps for the tournament, or null. */
export function organiserKey(id) {
  return localStorage.getItem(ORGANISER + id);
}

/** Forget a kept token the server refused. */
export function forgetOrganiser(id) {
  localStorage.removeItem(ORGANISER + id);
}

/** The organiser's proof here: the kept token, else the API key the lobby kept this session. */
export function organiserProof(id) {
  return localStorage.getItem(ORGANISER + id) || sessionStorage.getItem("battlehall.apiKey") || null;
}

const STATUS_WORDS = {
  already_registered: "You are registered already.",
  registration_closed: "Registration is closed.",
  tournament_full: "The tournament is full.",
  not_registered: "You are not registered.",
  check_in_closed: "Check-in is not open now.",
  already_dropped: "You have dropped already.",
  not_running: "The tournament has ended.",
};

/** The entry box: buttons for what the reader may do now, and the match-ready call. */
export class Entry {
  constructor(id, profile, { box, message, ready }) {
    this.id = id;
    this.profile = profile;
    this.box = box;
    this.message = message;
    this.ready = ready;
    this.mine = null;      // the last answer of /my
    this.event = null;     // the last event shown
    this.polling = false;
  }

  async act(action) {
    if (action === "drop" && !confirm("Drop out of the tournament? You will not be paired again.")) return;
    this.message.textContent = "";
    try {
      this.mine = await api[ACTIONS[action]](this.id, this.profile.profile, this.profile.secret);
      this.draw();
      this.box.querySelector("#entry-state").focus(); // the button pressed is gone: say what changed
      this.poll();
    } catch (err) {
      this.message.textContent = STATUS_WORDS[err.code] || errorText(err);
    }
  }

  /** Show the event as it now is (from the page's long-poll). */
  update(event) {
    this.event = event;
    this.draw();
  }

  /** Ask for the reader's entry, then keep asking (long-poll) while they are in the event. */
  async poll() {
    if (this.polling) return;
    this.polling = true;
    try {
      let version = null;
      for (;;) {
        try {
          this.mine = await api.my(this.id, this.profile.profile, this.profile.secret,
                                   version === null ? {} : { waitSince: version, waitMs: WAIT_MS });
        } catch (err) {
          if (err.status === 401 || err.status === 404) { this.mine = null; this.draw(); return; }
          await new Promise((r) => setTimeout(r, 3000));
          continue;
        }
        this.draw();
        version = this.mine.version;
        if (!this.mine.registered || ["finished", "cancelled"].includes(this.mine.status)) return;
      }
    } finally {
      this.polling = false;
    }
  }

  draw() {
    const mine = this.mine || {};
    const status = (this.event && this.event.status) || mine.status || "registering";
    const checkIn = this.event && this.event.spec && this.event.spec.check_in_ms;
    const buttons = [];
    const button = (id, text, action, primary) => el("button", { type: "button", id, class: primary ? "primary" : null,
                                                                 onclick: () => this.act(action) }, text);
    let state;
    if (!mine.registered) {
      state = status === "finished" || status === "cancelled" ? "You did not play in this tournament." : "You are not registered.";
      if (status === "registering" || status === "running") buttons.push(button("register", "Register", "register", true));
    } else if (mine.dropped) {
      state = "You have dropped: you are not paired again.";
    } else {
      state = !checkIn ? "You are registered." : mine.checked_in ? "You are registered and checked in."
        : "You are registered: check in before the start, or you will not be paired.";
      if (checkIn && !mine.checked_in && status === "registering") buttons.push(button("check-in", "Check in", "check_in", true));
      if (status === "registering" || status === "running") buttons.push(button("drop", "Drop out", "drop", false));
    }
    this.box.dataset.registered = mine.registered ? "yes" : "no";
    // Nothing to do nor to say in an event that has ended without you.
    this.box.closest("section").hidden = !mine.registered && (status === "finished" || status === "cancelled");
    // The sentence stays one element (it keeps the focus act() gave it); the buttons change.
    let said = this.box.querySelector("#entry-state");
    if (!said) said = el("p", { id: "entry-state", tabindex: "-1" });
    if (said.textContent !== state) said.textContent = state;
    for (const node of [...this.box.children]) if (node !== said) node.remove(); // moving it would blur it
    if (!said.isConnected) this.box.prepend(said);
    this.box.append(...buttons);
    this.drawReady(mine, status);
  }

  drawReady(mine, status) {
    const table = mine.table;
    const ready = this.ready;
    if (mine.registered && !mine.dropped && status === "running" && table && !table.done) {
      const link = table.play || `/play/${encodeURIComponent(table.match)}#token=${encodeURIComponent(table.token)}`;
      const game = table.game > 1 ? `, game ${table.game}` : "";
      ready.className = "match-ready";
      ready.dataset.match = table.match;
      ready.replaceChildren(
        el("p", {}, el("strong", {}, "Your match is ready: "), `round ${table.round}, table ${table.table}${game}.`),
        el("a", { id: "play-link", class: "button primary", href: link }, "Go to your seat"));
      ready.hidden = false;
      if (this.shownMatch !== table.match) {
        this.shownMatch = table.match;
        document.title = `Your match is ready · ${this.event ? this.event.name : "Tournament"} · Battlehall`;
      }
    } else if (mine.registered && !mine.dropped && status === "running" && (mine.bye || (table && table.done))) {
      ready.className = "match-ready waiting";
      delete ready.dataset.match;
      ready.replaceChildren(el("p", {}, el("strong", {}, mine.bye ? "You have a bye this round" : "Your table is decided"),
                               " — the next round is paired when the others finish."));
      ready.hidden = false;
    } else {
      ready.hidden = true;
      delete ready.dataset.match;
    }
  }
}
