// A tournament in words, for its pages and its overlay: the format, the phase, a player's
// name, a table's result. Reads the JSON of GET /tournaments/{id} (docs/tournaments.md).
import { el, playerName } from "./page.js";

export const FORMATS = {
  swiss: "Swiss",
  round_robin: "Round robin",
  single_elimination: "Single elimination",
  double_elimination: "Double elimination",
};

export const STAGES = { swiss: "Swiss", round_robin: "Round robin", elimination: "Elimination",
                        winners: "Winners' bracket", losers: "Losers' bracket", final: "Grand final" };

export const PHASES = { registering: "Registration open", running: "Being played", finished: "Finished", cancelled: "Cancelled" };

export function phaseOf(t) {
  return t.phase || t.status || "registering";
}

/** "Swiss, 5 rounds, then a top-8 cut · best of 3 · duel · pods of 4". */
export function formatText(spec, rulesetTitle = spec.ruleset) {
  const parts = [FORMATS[spec.format || "swiss"] || spec.format];
  if ((spec.format || "swiss") === "swiss") {
    if (spec.rounds) parts[0] += `, ${spec.rounds} rounds`;
    if (spec.cut) parts[0] += `, then a top-${spec.cut} cut`;
  }
  parts.push(`best of ${spec.best_of || 1}`);
  if (rulesetTitle) parts.push(rulesetTitle);
  if (spec.table_size && spec.table_size > 2) parts.push(`tables of ${spec.table_size}`);
  if (spec.rated) parts.push("rated");
  return parts.join(" · ");
}

/** When it starts, in the reader's own time zone. */
export function startText(spec, phase) {
  if (phase === "finished" || phase === "cancelled") return "";
  if (!spec.start_at) return phase === "running" ? "" : "Starts when the organiser starts it.";
  const at = new Date(spec.start_at);
  const text = at.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  const checkIn = spec.check_in_ms ? ` Check in during the ${Math.round(spec.check_in_ms / 60000)} minutes before.` : "";
  return `${phase === "running" ? "Started" : "Starts"} ${text}.${checkIn}`;
}

/** The players of an event by profile id: {name, tag, rating, checked_in, dropped}. */
export function playersById(t) {
  const out = new Map();
  for (const p of t.players || []) out.set(p.player ?? p.profile, p);
  return out;
}

/** A player's name as an element list (name and tag); a profile id when unknown; "bye" for none. */
export function nameOf(players, id) {
  if (id === null || id === undefined) return [el("span", { class: "muted" }, "bye")];
  const p = players.get(id);
  return playerName(p ? p.name || id : id, p ? p.tag : null);
}

/** The same in plain text (for titles and labels). */
export function plainName(players, id) {
  if (id === null || id === undefined) return "bye";
  const p = players.get(id);
  return p ? `${p.name || id}${p.tag ? `#${p.tag}` : ""}` : String(id);
}

/** "W-L-D" of a standing's record ([w, l, d] or {win, loss, draw} or {w, l, d}). */
export function record(value) {
  if (!value) return "";
  if (Array.isArray(value)) return value.join("–");
  const w = value.win ?? value.wins ?? value.w ?? 0;
  const l = value.loss ?? value.losses ?? value.l ?? 0;
  const d = value.draw ?? value.draws ?? value.d ?? 0;
  return `${w}–${l}–${d}`;
}

export const TIEBREAKS = { omw: "Opp. match-win %", gw: "Game-win %", ogw: "Opp. game-win %",
                           buchholz: "Buchholz", sonneborn_berger: "Sonneborn-Berger", random: "Random" };

/** A tie-break's value as shown: percentages for the win rates, two decimals otherwise. */
export function tiebreakText(name, value) {
  if (value === null || value === undefined) return "";
  if (["omw", "gw", "ogw"].includes(name)) return `${(Number(value) * 100).toFixed(1)}%`; // a fraction of 1
  return Number.isInteger(value) ? String(value) : Number(value).toFixed(2);
}
