// Quick play in the lobby: a "Play now" button per ruleset (with a seat count, which Play a
// bot beside it uses too), a waiting screen (time waited, Cancel), and straight to the
// player page once paired. The seat is bound to this browser's guest profile (its secret
// proves it), so the match is rated when every player has one.
import { request } from "./battlehall.js";
import { BASE, duration, el, errorText, playLink } from "./page.js";
import { ensureProfile, storedProfile } from "./profile.js";
import { botChoice, seatName } from "./bot_play.js";

const POLL_MS = 20000; // each long poll waits at most this long (it is the ticket's heartbeat too)

let current = null; // { ticket, stop: AbortController, timer, joinedAt }

function waitingScreen(ruleset, seats) {
  const panel = document.getElementById("queue-wait");
  panel.replaceChildren(
    el("h2", { id: "queue-wait-title" }, `Looking for a ${seats}-player ${ruleset} match`),
    el("p", { role: "status", "aria-live": "polite" }, "Waited ", el("strong", { id: "queue-waited" }, "0 s"), "."),
    el("p", { class: "muted small" }, "You will go to the match as soon as enough players are here."),
    el("div", { class: "row" }, el("button", { type: "button", id: "queue-cancel", onclick: cancel }, "Cancel")),
  );
  panel.hidden = false;
  document.getElementById("queue-choices").hidden = true;
  document.getElementById("queue-cancel").focus();
}

function closeScreen() {
  document.getElementById("queue-wait").hidden = true;
  document.getElementById("queue-choices").hidden = false;
  if (current) clearInterval(current.timer);
  current = null;
}

function failed(note, text) {
  closeScreen();
  note.show("error", text);
}

async function play(note, ruleset, seats) {
  if (current) return;
  note.clear();
  let ticket;
  try {
    // Without a profile (none could be made) the player still plays, unrated.
    const me = storedProfile() || await ensureProfile().catch(() => null);
    // The seat is named after the player, so that opponents see who they play.
    const body = me ? { ruleset, seats, profile: me.profile, name: seatName(me.name) } : { ruleset, seats };
    ticket = await request(BASE, "/queue", { method: "POST", body, apiKey: me ? me.secret : undefined });
  } catch (err) {
    note.show("error", `Quick play is not available now: ${errorText(err)}`);
    return;
  }
  const joinedAt = Date.now();
  current = { ticket: ticket.ticket, stop: new AbortController(), joinedAt,
              timer: setInterval(() => { document.getElementById("queue-waited").textContent = duration(Date.now() - joinedAt); }, 1000) };
  document.getElementById("main").dataset.queue = "waiting";
  waitingScreen(ruleset, seats);
  const mine = current;
  while (current === mine) {
    let status;
    try {
      // The ticket is a secret: in the Authorization header, never in the address, which proxies log.
      status = await request(BASE, `/queue?wait_ms=${POLL_MS}`, { signal: mine.stop.signal, apiKey: mine.ticket });
    } catch (err) {
      if (current !== mine) return; // cancelled
      if (err.code === "network") { await new Promise((r) => setTimeout(r, 1000)); continue; } // another node will answer
      failed(note, `Quick play stopped: ${errorText(err)}`);
      return;
    }
    if (current !== mine) return;
    if (status.state === "matched") {
      document.getElementById("main").dataset.queue = "matched";
      clearInterval(mine.timer);
      current = null;
      location.assign(playLink(status.match, status.token));
      return;
    }
    if (status.state === "failed") { failed(note, `No match could be made: ${status.error ? status.error.message : "try again"}`); return; }
    if (status.state === "expired" || status.state === "left") { failed(note, "You left the queue."); return; }
  }
}

async function cancel() {
  const mine = current;
  if (!mine) return;
  mine.stop.abort();
  closeScreen();
  document.getElementById("main").dataset.queue = "idle";
  try {
    const status = await request(BASE, "/queue", { method: "DELETE", apiKey: mine.ticket });
    if (status.state === "matched") location.assign(playLink(status.match, status.token)); // too late to leave
  } catch { /* the ticket expires by itself */ }
}

/** The Play now choices, one row per ruleset, in `box`; each row has Play a bot too (bot_play.js),
 * with the same seat count. */
export function quickPlay(box, rulesets, note) {
  const rows = rulesets.filter((r) => !r.error).map((r) => {
    const counts = Array.from({ length: r.seats.max - r.seats.min + 1 }, (_, i) => r.seats.min + i);
    const select = el("select", { id: `queue-seats-${r.name}`, "aria-label": `Players in a ${r.title || r.name} match` },
                      counts.map((n) => el("option", { value: n }, `${n} players`)));
    return el("li", { class: "quick-item", dataset: { ruleset: r.name } },
              el("strong", { class: "queue-name" }, r.title || r.name), select,
              el("button", { type: "button", class: "primary", dataset: { play: r.name },
                             onclick: () => play(note, r.name, Number(select.value)) }, "Play now"),
              botChoice(r.name, () => Number(select.value), note));
  });
  box.replaceChildren(el("ul", { class: "quick-list", id: "queue-choices" }, rows),
                      el("div", { id: "queue-wait", hidden: true, "aria-labelledby": "queue-wait-title" }));
  // Leaving the page leaves the queue (else the ticket expires after its heartbeat stops).
  addEventListener("pagehide", () => {
    if (current) fetch(`${BASE}/queue`, { method: "DELETE", keepalive: true, headers: { authorization: `Bearer ${current.ticket}` } });
  });
}
