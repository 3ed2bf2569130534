// Play a bot from the lobby: one request (POST /bot-matches) makes a timed match in which
// the server's bots play every other seat, and the page goes straight to the player's
// seat. The seat is bound to this browser's guest profile (its secret proves it), so the
// match is among the profile's recent matches; it is never rated.
import { request } from "./battlehall.js";
import { BASE, el, errorText, playLink } from "./page.js";
import { ensureProfile, storedProfile } from "./profile.js";

/** The bots' levels, strongest first (the first is the default). */
export const LEVELS = [
  { level: "greedy", text: "Strong", title: "The bot plays to win" },
  { level: "random", text: "Easy", title: "The bot plays at random" },
];

let starting = false; // one bot match at a time, however often the button is pressed

/** A seat name from a display name: the letters a seat name allows, else "player". */
export function seatName(name) {
  const cleaned = String(name || "").replace(/[^A-Za-z0-9_.-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 32);
  return cleaned || "player";
}

/** What a refusal of POST /bot-matches means to the player. */
function refusal(err) {
  // The server's message says how long to wait ("try again in 12 s"): the generic words do not.
  if (err.code === "rate_limited") return `Too many matches started from here: ${err.message}.`;
  if (err.code === "bad_request" || err.code === "bad_setup") return `${err.message}${err.path ? ` (${err.path})` : ""}.`;
  return errorText(err);
}

/** Makes the bot match and opens its player page; a refusal is shown in the lobby's banner. */
export async function playBot(note, ruleset, seats, level, buttons = []) {
  if (starting) return;
  starting = true;
  note.clear();
  const main = document.getElementById("main");
  main.dataset.bot = "starting";
  for (const b of buttons) b.disabled = true;
  try {
    // Without a profile (none could be made) the player still plays, under a plain name.
    const me = storedProfile() || await ensureProfile().catch(() => null);
    const body = { ruleset, seats, level, name: seatName(me && me.name) };
    if (me) body.profile = me.profile;
    const made = await request(BASE, "/bot-matches", { method: "POST", body, apiKey: me ? me.secret : undefined });
    main.dataset.bot = "made";
    location.assign(playLink(made.match, made.token));
  } catch (err) {
    main.dataset.bot = "error";
    note.show("error", `No match against a bot now: ${refusal(err)}`);
    for (const b of buttons) b.disabled = false;
    starting = false;
  }
}

// Back to the lobby from the player page (the browser's page cache): the buttons work again.
addEventListener("pageshow", (event) => {
  if (!event.persisted) return;
  starting = false;
  for (const b of document.querySelectorAll("[data-bot]")) b.disabled = false;
});

/** The level choice and the Play a bot button of one ruleset; `seatsOf()` is the seat count chosen. */
export function botChoice(ruleset, seatsOf, note) {
  const select = el("select", { id: `bot-level-${ruleset}`, "aria-label": `How the bot plays ${ruleset}` },
                    LEVELS.map((l) => el("option", { value: l.level, title: l.title }, l.text)));
  const button = el("button", { type: "button", dataset: { bot: ruleset } }, "Play a bot");
  button.addEventListener("click", () => playBot(note, ruleset, seatsOf(), select.value, [button]));
  return el("div", { class: "bot-choice" }, select, button);
}
