// The spectator page: one match on the whole window for streaming (spectate.js), with the
// display parameters of overlay.js for broadcasting software.
import { request } from "./battlehall.js";
import { BASE, banner, errorText, fragment, loadDrawing, matchIdFromPath, matchName } from "./page.js";
import { applyParams, readParams } from "./overlay.js";
import { Spectating, streamElements } from "./spectate.js";

const params = readParams(location.search);
applyParams(params);
const dom = streamElements();
const note = banner(document.getElementById("banner"));
const matchId = matchIdFromPath();

function unavailable(err) {
  note.show("error", errorText(err));
  dom.main.dataset.status = "closed";
  dom.status.textContent = "not available";
}

async function start() {
  if (!matchId) {
    note.show("error", "This address names no match.");
    return;
  }
  let summary;
  try {
    summary = await request(BASE, `/matches/${encodeURIComponent(matchId)}`);
  } catch (err) {
    unavailable(err);
    return;
  }
  const name = await matchName(summary.ruleset, summary.seats, summary.bots);
  document.title = `${await matchName(summary.ruleset, summary.seats)} · Battlehall`; // "Spellfire: ana vs bot-1 · Battlehall", never the match id
  const drawing = await loadDrawing(summary.ruleset);
  const watching = new Spectating({
    matchId, token: fragment().get("token"), summary, name, drawing, dom, note, overlay: params.overlay,
    onRefused: (err) => { if (dom.main.dataset.status !== "refused" && err.code !== "seat_link") unavailable(err); },
  });
  try {
    await watching.start();
  } catch { /* onRefused said why */ }
}

start();
