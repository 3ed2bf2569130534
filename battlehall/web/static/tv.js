// The TV page, /tv and /tv/{ruleset}: always the featured live public match (GET
// /tv/featured: the most watched), followed to its end, then the next one, in the same
// page: the ended match stays up with its result for the hold (?hold=, 5 s by default)
// and until the next one's welcome, which replaces it in one go. Between matches, when
// none is live, it says so and keeps asking.
import { request } from "./battlehall.js";
import { BASE, banner, errorText, loadDrawing, matchName } from "./page.js";
import { applyParams, readParams } from "./overlay.js";
import { Spectating, streamElements } from "./spectate.js";

const ASK_EVERY_MS = 2000;
const HOLD_MS = 5000;
const GIVE_UP_MS = 15_000; // a match unreachable this long (its node down, full): show another

const params = readParams(location.search);
applyParams(params);
const dom = streamElements();
const note = banner(document.getElementById("banner"));
const parts = location.pathname.split("/").filter(Boolean);
const ruleset = parts.length > 1 ? decodeURIComponent(parts[1]) : null;
// /tv?tournament=t_...: the event's channel, its top table in play, round after round.
const tournament = new URLSearchParams(location.search).get("tournament");
const featuredPath = tournament ? `/tv/featured?tournament=${encodeURIComponent(tournament)}`
  : `/tv/featured${ruleset ? `?ruleset=${encodeURIComponent(ruleset)}` : ""}`;
const holdMs = params.holdMs ?? HOLD_MS;

let current = null; // the Spectating on screen
let switches = 0;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The featured match, not `except` (the one that just ended); waits until there is one. */
async function nextFeatured(except) {
  for (;;) {
    try {
      const found = await request(BASE, featuredPath);
      if (found.match && found.match !== except) return found;
      if (!current || current.ended) { // the last one's result stays up, with a word on what comes
        dom.main.dataset.status = "waiting";
        note.show("info", tournament ? "No table of this tournament is playing right now: the top table of the next round shows here when it starts."
          : `No live public ${ruleset ? `${ruleset} ` : ""}match right now: the next one shows here when it starts.`);
      }
    } catch (err) {
      if (err.code === "bad_request" || err.code === "not_found") { // no such ruleset or event: asking again will not help
        note.show("error", errorText(err));
        dom.main.dataset.status = "closed";
        return null;
      }
      if (!current || current.ended) note.show("warn", errorText(err));
    }
    await sleep(ASK_EVERY_MS);
  }
}

/** Show `found` from its welcome on; when it ends (or cannot be watched), go on to the next. */
async function follow(found) {
  let summary;
  try {
    summary = await request(BASE, `/matches/${encodeURIComponent(found.match)}`);
  } catch { // gone since it was featured, or storage away: another, after a pause
    setTimeout(() => show(found.match), ASK_EVERY_MS / 2);
    return;
  }
  const drawing = await loadDrawing(summary.ruleset);
  const name = await matchName(summary.ruleset, summary.seats, summary.bots);
  const title = `TV · ${await matchName(summary.ruleset, summary.seats)} · Battlehall`;
  let done = false;
  const moveOn = (wait) => {
    if (done) return;
    done = true;
    setTimeout(() => show(found.match), wait);
  };
  const next = new Spectating({
    matchId: found.match, summary, name, drawing, dom, note, overlay: params.overlay,
    onTakeover: () => {
      if (current) current.stop();
      current = next;
      switches += 1;
      dom.main.dataset.switches = String(switches);
      document.title = title;
      note.clear();
    },
    giveUpMs: GIVE_UP_MS,
    onEnded: () => moveOn(holdMs),
    onRefused: () => { next.stop(); moveOn(ASK_EVERY_MS / 2); }, // gone, full, or no longer public: another
    onLost: () => { // cut off mid-match: the featured one again, which may well be the same
      if (done) return;
      done = true;
      next.stop();
      current = null;
      setTimeout(() => show(null), 0);
    },
  });
  try {
    await next.start();
  } catch { /* onRefused moved on */ }
}

async function show(except) {
  const found = await nextFeatured(except);
  if (found) await follow(found);
}

show(null);
