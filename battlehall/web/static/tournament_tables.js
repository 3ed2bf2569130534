// The standings and the rounds of a tournament, as tables: shared by its page and its
// overlay. The reader's own row is marked (`mine`, a profile id).
import { el } from "./page.js";
import { STAGES, TIEBREAKS, nameOf, record, tiebreakText } from "./tournament_words.js";

/** The standings table; `top` rows at most (all by default). */
export function drawStandings(root, t, players, mine = null, top = Infinity) {
  const rows = (t.standings || []).slice(0, top);
  const played = (s) => [...(s.match || []), ...(s.game || [])].some((n) => n > 0);
  if (!rows.length || !(t.standings || []).some(played)) {
    root.replaceChildren(el("p", { class: "muted", id: "standings-empty" }, "The standings start with the first result."));
    return;
  }
  const tiebreaks = (t.spec && t.spec.tiebreaks) || Object.keys(rows[0].tiebreaks || {});
  const head = el("tr", {}, el("th", { scope: "col", class: "num" }, "#"), el("th", { scope: "col" }, "Player"),
    el("th", { scope: "col", class: "num" }, "Points"), el("th", { scope: "col", class: "num record" }, el("abbr", { title: "matches won–lost–drawn" }, "W–L–D")),
    el("th", { scope: "col", class: "num tiebreak" }, "Games"),
    tiebreaks.map((name) => el("th", { scope: "col", class: "num tiebreak" }, TIEBREAKS[name] || name)));
  const body = rows.map((s) => el("tr", {
    class: [s.player === mine ? "mine" : "", s.dropped ? "dropped" : ""].filter(Boolean).join(" ") || null,
    dataset: { player: s.player, rank: s.rank, points: s.points },
  },
    el("td", { class: "num" }, String(s.rank)), el("td", {}, nameOf(players, s.player)),
    el("td", { class: "num" }, String(s.points)), el("td", { class: "num record" }, record(s.match)),
    el("td", { class: "num tiebreak" }, record(s.game)),
    tiebreaks.map((name) => el("td", { class: "num tiebreak" }, tiebreakText(name, (s.tiebreaks || {})[name])))));
  root.replaceChildren(el("table", { class: "standings" }, el("caption", { class: "visually-hidden" }, "Standings"),
                          el("thead", {}, head), el("tbody", {}, body)));
}

/** A table's result in words: "Bo won", "Bo won 2–1", "draw", "Bo first, Cy second…" for a
 * pod; while it plays, which game is being played. */
function tableResult(table, players) {
  const games = table.games || [];
  const played = (g) => g.places && g.places.length > 0;
  if (!table.done) {
    if (table.playing) return `game ${table.playing.game} playing`;
    return games.length ? `${games.filter(played).length} played, the next in play` : "in play";
  }
  const result = table.result;
  const places = result ? placesOf(result.places) : [];
  if (!places.length) return "decided";
  if (places.length === 1) return "draw";
  const first = places[0];
  const tied = first.length > 1;
  if ((table.players || []).length > 2) {
    return places.flatMap((ids, i) => [i ? ", " : "", ...ids.flatMap((p, j) => [j ? " and " : "", ...nameOf(players, p)]), ` ${ORDINALS[i] || `#${i + 1}`}`]);
  }
  if (tied) return "draw";
  const games_ = result.games && result.games[first[0]];
  const score = games.length > 1 && games_ ? ` ${games_[0]}–${games_[1]}${games_[2] ? `–${games_[2]}` : ""}` : "";
  return [...nameOf(players, first[0]), ` won${score}`];
}

/** A table's places best first, ties together: from {player: place} or [[p], [q, r]]. */
export function placesOf(places) {
  if (Array.isArray(places)) return places;
  const by = new Map();
  for (const [p, place] of Object.entries(places || {})) by.set(place, [...(by.get(place) || []), p]);
  return [...by.keys()].sort((a, b) => a - b).map((place) => by.get(place).sort());
}

const ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth"];

function pairingRow(table, players, mine, watch) {
  const ids = table.players || [];
  const live = table.done ? null : table.playing; // the game in play, with its match (public events)
  const vs = [];
  const between = ids.length > 2 ? ", " : " vs "; // a pod is a list, a pair a match
  ids.forEach((p, i) => { if (i) vs.push(between); vs.push(...nameOf(players, p)); });
  return el("tr", { class: ids.includes(mine) ? "mine" : null, dataset: { table: table.table, done: table.done ? "yes" : "no" } },
    el("td", { class: "num" }, String(table.table)), el("td", {}, vs),
    el("td", { class: "result" }, tableResult(table, players)),
    el("td", {}, live && live.match ? el("a", { href: watch(live.match) }, "Watch", el("span", { class: "visually-hidden" }, ` table ${table.table}`)) : ""));
}

// The stage of a round, when it is not the event's only one: " · Top-8 cut", " · Losers' bracket".
function stageLabel(spec, stage) {
  if (!stage || stage === "swiss" || stage === "round_robin") return "";
  if (stage === "elimination" && spec.cut) return ` · Top-${spec.cut} cut`;
  if (stage === "elimination" && spec.format === "double_elimination") return " · Winners' bracket";
  return ` · ${STAGES[stage] || stage}`;
}

/** Every round, newest first: its pairings and results; the current round open. */
export function drawRounds(root, t, players, mine, watch) {
  const rounds = [...(t.rounds || [])].reverse();
  if (!rounds.length) {
    root.replaceChildren(el("p", { class: "muted" }, "No round has been paired yet."));
    return;
  }
  const open = new Set([...root.querySelectorAll("details[open]")].map((d) => d.dataset.round));
  root.replaceChildren(...rounds.map((round, i) => {
    const byes = round.byes || [];
    const details = el("details", { class: "round", dataset: { round: round.round },
                                    open: i === 0 || open.has(String(round.round)) },
      el("summary", {}, `Round ${round.round}`, stageLabel(t.spec || {}, round.stage),
         el("span", { class: `pill ${round.over ? "finished" : "live"}` }, round.over ? "over" : "playing")),
      // Focusable: a phone scrolls a wide table sideways, by keyboard too.
      el("div", { class: "table-wrap", tabindex: "0", role: "region", "aria-label": `Round ${round.round} pairings table` },
         el("table", { class: "pairings" },
        el("caption", { class: "visually-hidden" }, `Round ${round.round} pairings`),
        el("thead", {}, el("tr", {}, el("th", { scope: "col", class: "num" }, "Table"), el("th", { scope: "col" }, "Players"),
                           el("th", { scope: "col" }, "Result"), el("th", { scope: "col" }, el("span", { class: "visually-hidden" }, "Watch")))),
        el("tbody", {}, (round.tables || []).map((table) => pairingRow(table, players, mine, watch))))),
      byes.length ? el("p", { class: "byes small" }, "Bye (a win): ", byes.flatMap((p, j) => [j ? ", " : "", ...nameOf(players, p)])) : null);
    return details;
  }));
}
