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

function roundTitle(stage, double, index, count, matches) {
  const last = index === count - 1 && matches === 1; // a bracket shown so far ends at its final only once it has one
  if (stage === "final") return "Grand final";
  if (stage === "losers") return last ? "Losers' final" : `Losers' round ${index + 1}`;
  if (double) return last ? "Winners' final" : `Winners' round ${index + 1}`;
  return ["Final", "Semi-finals", "Quarter-finals"][count - 1 - index] || `Round ${index + 1}`;
}

// A slot's player: an id, or null (a bye in the first round; later, not decided yet).
function slot(players, match, id, score, first, mine) {
  const winner = match.winner ?? null;
  const decided = winner !== null;
  const known = id !== null && id !== undefined;
  const classes = ["slot", decided && known && id === winner ? "won" : "", decided && known && id !== winner ? "lost" : "",
                   known && id === mine ? "mine" : ""].filter(Boolean).join(" ");
  return el("li", { class: classes, dataset: { player: id ?? "" } },
    el("span", { class: "slot-name" }, known ? nameOf(players, id) : el("span", { class: "muted" }, first ? "bye" : "to be decided")),
    score !== undefined ? el("span", { class: "slot-score", title: "games won" }, String(score)) : null,
    decided && known && id === winner ? el("span", { class: "visually-hidden" }, " (won)") : null);
}

// The games each player of a bracket match has won, from its table in the event's rounds
// (shown for best-of tables only: a single game's winner is marked already).
function scores(t, round, match) {
  if (!t || !(t.spec && t.spec.best_of > 1) || round.round === null || match.table === null) return {};
  const rnd = (t.rounds || []).find((r) => r.round === round.round);
  const table = rnd && (rnd.tables || []).find((x) => x.table === match.table);
  const games = table && table.result && table.result.games;
  if (games) return Object.fromEntries(Object.entries(games).map(([p, g]) => [p, g[0]]));
  const won = {};
  for (const g of (table && table.games) || []) if (g.places && g.places.length > 1) won[g.places[0][0]] = (won[g.places[0][0]] || 0) + 1;
  return won;
}

function matchBox(t, players, round, match, mine) {
  const ids = match.players || [null, null];
  const first = (round.depth ?? 1) === 1;
  const won = scores(t, round, match);
  const score = (id) => (id !== null && Object.keys(won).length ? won[id] || 0 : undefined);
  const name = (id) => (id !== null && id !== undefined ? plainName(players, id) : first ? "a bye" : "to be decided");
  const label = `${name(ids[0])} against ${name(ids[1])}${match.winner ? `, ${plainName(players, match.winner)} won` : ""}`;
  return el("ol", { class: "bracket-match", "aria-label": label,
                    dataset: { table: match.table ?? "", winner: match.winner ?? "" } },
            [ids[0], ids[1]].map((id) => slot(players, match, id ?? null, score(id ?? null), first, mine)));
}

/** Draw the event `t`'s bracket into `root`; `mine` is the reader's profile id (highlighted). */
export function drawBracket(root, t, players, mine = null) {
  const stages = stagesOf(t.bracket);
  const double = stages.some((s) => s.stage === "losers" || s.stage === "final");
  // Redrawn at every change: a reader scrolled sideways (a phone) stays where they were.
  const scrolled = [...root.querySelectorAll(".bracket-scroll")].map((box) => box.scrollLeft);
  root.replaceChildren(...stages.map((stage) => drawStage(t, stage, players, mine, double)));
  root.querySelectorAll(".bracket-scroll").forEach((box, i) => { box.scrollLeft = scrolled[i] || 0; });
  root.dataset.rounds = String(stages.reduce((n, s) => n + s.rounds.length, 0));
}

function halves(rounds) {
  return rounds.every((r, i) => i === 0 || matchesOf(r).length * 2 === matchesOf(rounds[i - 1]).length);
}

function drawStage(t, stage, players, mine, double) {
  const titled = double;
  const rounds = stage.rounds;
  const lined = halves(rounds);
  const first = Math.max(1, ...rounds.map((r) => matchesOf(r).length));
  const heading = titled ? "h4" : "h3";
  const grid = el("div", { class: `bracket${lined ? " lined" : ""}`,
                           style: `--bracket-rounds: ${rounds.length}; --bracket-rows: ${first * 2}` });
  rounds.forEach((round, r) => {
    grid.append(el(heading, { class: "bracket-round-title", style: `grid-column: ${r + 1}; grid-row: 1` },
                   roundTitle(stage.stage, double, r, rounds.length, matchesOf(round).length)));
    matchesOf(round).forEach((match, i) => {
      // Round r's match i spans the rows of the two matches it follows: 2^(r+1) rows each.
      const span = lined ? 2 ** (r + 1) : 2;
      grid.append(el("div", {
        class: `bracket-cell ${i % 2 ? "lower" : "upper"}${r ? " fed" : ""}${r === rounds.length - 1 ? " last" : ""}`,
        style: `grid-column: ${r + 1}; grid-row: ${i * span + 2} / span ${span}`,
        dataset: { round: round.depth ?? r + 1 },
      }, matchBox(t, players, round, match, mine)));
    });
  });
  // A wide bracket scrolls sideways in its own box (the page does not), reachable by keyboard.
  const box = el("div", { class: "bracket-scroll", tabindex: "0", role: "region",
                          "aria-label": `${titled ? stageTitle(stage.stage) : "The bracket"}, round by round` }, grid);
  return titled ? el("div", { class: "bracket-stage" }, el("h3", {}, stageTitle(stage.stage)), box) : box;
}

function stageTitle(stage) {
  return { elimination: "Winners' bracket", losers: "Losers' bracket", final: "Grand final" }[stage] || stage;
}
