// The bracket and standings overlay of a tournament (/overlay/tournament/{id}), for a
// browser source: always in overlay mode (nothing to click, no scrollbars), see-through
// unless ?bg= says otherwise, and every other overlay parameter of the spectator page
// (size, scale, type) as overlay.js reads them. Its own: panels= of title, bracket,
// standings; top= the standings' rows (8). Kept current by long-polling the event.
import { TournamentApi } from "./battlehall.js";
import { BASE, banner, errorText, rulesetTitle } from "./page.js";
import { applyParams, readParams } from "./overlay.js";
import { drawBracket } from "./tournament_bracket.js";
import { drawStandings } from "./tournament_tables.js";
import { PHASES, nameOf, phaseOf, playersById } from "./tournament_words.js";

export const PANELS = ["title", "bracket", "standings"];
const WAIT_MS = 20000;
const main = document.getElementById("main");
const note = banner(document.getElementById("banner"));
const id = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");

/** overlay.js's parameters, with this page's own panels and top, and overlay mode always on. */
export function overlayParams(search) {
  const q = new URLSearchParams(search);
  const panels = q.get("panels");
  const top = q.get("top");
  q.delete("panels");
  q.delete("top");
  const params = readParams(q.toString());
  params.overlay = true;
  if (params.bg === null && !params.ignored.includes("bg")) params.bg = "transparent";
  if (panels !== null) {
    // `board` (the spectator page's name for the drawing) is the bracket here.
    const names = panels.split(",").map((p) => p.trim()).filter(Boolean).map((p) => (p === "board" ? "bracket" : p));
    if (names.length && names.every((p) => PANELS.includes(p))) params.panels = new Set(names); else params.ignored.push("panels");
  }
  params.top = 8;
  if (top !== null) {
    const n = Number(top);
    if (Number.isInteger(n) && n >= 1 && n <= 64) params.top = n; else params.ignored.push("top");
  }
  return params;
}

const params = overlayParams(location.search);
applyParams(params);

/** Zoom the bracket to fill its box: smaller when it must (never scrolled), larger (up to
 * twice) when a small bracket would leave the canvas empty. */
export function fill(root) {
  const parts = [...root.children];
  if (root.hidden || !parts.length || !root.clientHeight) return;
  for (const part of parts) part.style.removeProperty("zoom");
  const grids = [...root.querySelectorAll(".bracket")];
  const width = Math.max(1, ...grids.map((g) => g.getBoundingClientRect().width));
  const height = Math.max(1, parts.reduce((sum, part) => sum + part.getBoundingClientRect().height, 0));
  const zoom = Math.floor(Math.max(0.3, Math.min(2, root.clientWidth / width, root.clientHeight / height) * 0.98) * 100) / 100;
  for (const part of parts) part.style.zoom = String(zoom);
  root.dataset.fit = String(zoom);
}

async function draw(t) {
  const players = playersById(t);
  const phase = phaseOf(t);
  document.getElementById("title").textContent = t.name || id;
  document.title = `${t.name || id} · ${await rulesetTitle((t.spec || {}).ruleset)} · Battlehall`;
  document.getElementById("round").textContent = phase === "running" && t.round ? `Round ${t.round}` : PHASES[phase] || phase;
  const champion = phase === "finished" && (t.standings || [])[0];
  document.getElementById("champion").replaceChildren(...(champion ? ["Champion: ", ...nameOf(players, champion.player)] : []));
  const bracket = document.getElementById("bracket");
  if ((t.bracket || []).length) drawBracket(bracket, t, players);
  else bracket.replaceChildren();
  drawStandings(document.getElementById("standings"), t, players, null, params.top);
  fill(bracket);
  main.dataset.version = String(t.version);
  main.dataset.status = phase;
}

async function follow() {
  let version = null;
  for (;;) {
    try {
      const t = await new TournamentApi(BASE).get(id, version === null ? {} : { waitSince: version, waitMs: WAIT_MS });
      note.clear();
      if (t.version !== version) await draw(t);
      version = t.version;
      if (["finished", "cancelled"].includes(t.status)) return;
    } catch (err) {
      note.show("warn", `The tournament cannot be read just now: ${errorText(err)}`);
      if (err.status === 404) return;
      await new Promise((r) => setTimeout(r, 3000));
    }
  }
}

window.addEventListener("resize", () => fill(document.getElementById("bracket")));
follow();
