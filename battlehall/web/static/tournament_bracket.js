// The bracket of an elimination stage, drawn as a bracket: one column per round, each
// match a box between the two it comes from, joined by lines (tournament.css draws them).
// A column of N matches sits beside one of N/2; when a stage's rounds do not halve (a
// losers' bracket), its columns are stacked boxes without lines.
import { el } from "./page.js";
import { nameOf, plainName } from "./tournament_words.js";

/** Rounds of one stage, as the answer's `bracket` lists them, grouped by stage in order. */
export function stagesOf(bracket) {
  const stages = [];
  for (const round of bracket || []) {
    const stage = round.stage || "elimination";
    let found = stages.find((s) => s.stage === stage);
    if (!found) stages.push(found = { stage, rounds: [] });
    found.rounds.push(round);
  }
  return stages;
}

/** A bracket round's matches (`matches`, or `tables` as the rounds of the event name them). */
function matchesOf(round) {
  return round.matches || round.tables || [];
}

function roundTitle(round, index, count) {
  if (round.title) return round.title;
  const left = count - index;
  if (left === 1) return "Final";
  if (left === 2) return "Semi-finals";
  if (left === 3) return "Quarter-finals";
  return `Round ${round.round ?? index + 1}`;
}

function slot(players, match, id, i, mine) {
  const winner = match.winner ?? null;
  const decided = winner !== null && winner !== undefined;
  const score = (match.score || match.wins || [])[i];
  const classes = ["slot", decided && id === winner ? "won" : "", decided && id !== winner && id !== null ? "lost" : "",
                   id !== null && id !== undefined && id === mine ? "mine" : ""].filter(Boolean).join(" ");
  return el("li", { class: classes, dataset: { player: id ?? "" } },
    el("span", { class: "slot-name" }, id === undefined ? el("span", { class: "muted" }, "to be decided") : nameOf(players, id)),
    score !== undefined && score !== null ? el("span", { class: "slot-score" }, String(score)) : null,
    decided && id === winner ? el("span", { class: "visually-hidden" }, " (won)") : null);
}

function matchBox(players, match, mine) {
  const ids = match.players || [];
  const slots = [ids[0], ids[1]].map((id, i) => slot(players, match, i < ids.length ? id : undefined, i, mine));
  const label = ids.length
    ? `${plainName(players, ids[0])} against ${ids.length > 1 ? plainName(players, ids[1]) : "to be decided"}` +
      (match.winner ? `, ${plainName(players, match.winner)} won` : "")
    : "to be decided";
  return el("ol", { class: "bracket-match", "aria-label": label,
                    dataset: { table: match.table ?? "", winner: match.winner ?? "" } }, slots);
}

/** Draw `stages` (stagesOf) into `root`; `mine` is the reader's profile id (highlighted). */
export function drawBracket(root, bracket, players, mine = null) {
  const stages = stagesOf(bracket);
  root.replaceChildren(...stages.map((stage) => drawStage(stage, players, mine, stages.length > 1)));
  root.dataset.rounds = String(stages.reduce((n, s) => n + s.rounds.length, 0));
}

function halves(rounds) {
  return rounds.every((r, i) => i === 0 || matchesOf(r).length * 2 === matchesOf(rounds[i - 1]).length);
}

function drawStage(stage, players, mine, titled) {
  const rounds = stage.rounds;
  const lined = halves(rounds);
  const first = Math.max(1, ...rounds.map((r) => matchesOf(r).length));
  const heading = titled ? "h4" : "h3";
  const grid = el("div", { class: `bracket${lined ? " lined" : ""}`,
                           style: `--bracket-rounds: ${rounds.length}; --bracket-rows: ${first * 2}` });
  rounds.forEach((round, r) => {
    grid.append(el(heading, { class: "bracket-round-title", style: `grid-column: ${r + 1}; grid-row: 1` },
                   roundTitle(round, r, rounds.length)));
    matchesOf(round).forEach((match, i) => {
      // Round r's match i spans the rows of the two matches it follows: 2^(r+1) rows each.
      const span = lined ? 2 ** (r + 1) : 2;
      grid.append(el("div", {
        class: `bracket-cell ${i % 2 ? "lower" : "upper"}${r ? " fed" : ""}${r === rounds.length - 1 ? " last" : ""}`,
        style: `grid-column: ${r + 1}; grid-row: ${i * span + 2} / span ${span}`,
        dataset: { round: round.round ?? r + 1 },
      }, matchBox(players, match, mine)));
    });
  });
  // A wide bracket scrolls sideways in its own box (the page does not), reachable by keyboard.
  const box = el("div", { class: "bracket-scroll", tabindex: "0", role: "region",
                          "aria-label": `${titled ? stageTitle(stage.stage) : "The bracket"}, round by round` }, grid);
  return titled ? el("div", { class: "bracket-stage" }, el("h3", {}, stageTitle(stage.stage)), box) : box;
}

function stageTitle(stage) {
  return { elimination: "Elimination", winners: "Winners' bracket", losers: "Losers' bracket", final: "Grand final" }[stage] || stage;
}
