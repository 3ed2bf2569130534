// One tournament's page (/tournaments/{id}): what it is and when, your entry and your
// match, the standings, the bracket of an elimination stage, every round's pairings and
// results, the players; all of it kept current by long-polling GET /tournaments/{id}
// (?wait_since=<version>), so nothing needs a reload. Names are text only (el()).
import { TournamentApi } from "./battlehall.js";
import { BASE, banner, copyRow, el, errorText, playerName, rulesetTitle, watchLink } from "./page.js";
import { ensureProfile } from "./profile.js";
import { drawBracket } from "./tournament_bracket.js";
import { Entry } from "./tournament_entry.js";
import { drawOrganiser } from "./tournament_organiser.js";
import { drawRounds, drawStandings } from "./tournament_tables.js";
import { PHASES, formatText, nameOf, phaseOf, plainName, playersById, startText } from "./tournament_words.js";

const WAIT_MS = 20000;
const api = new TournamentApi(BASE);
const main = document.getElementById("main");
const note = banner(document.getElementById("banner"));
const id = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
let entry = null;
let profile = null;
let shown = null;

function drawHead(t, title) {
  const spec = t.spec || {};
  const phase = phaseOf(t);
  document.getElementById("name").textContent = t.name || id;
  document.title = `${t.name || id} · Tournaments · Battlehall`;
  const pill = document.getElementById("phase");
  pill.textContent = phase === "running" && t.round ? `${PHASES.running}: round ${t.round}` : PHASES[phase] || phase;
  pill.className = `pill ${phase === "running" ? "live" : phase === "finished" ? "finished" : ""}`;
  const count = (t.players || []).filter((p) => !p.dropped).length;
  document.getElementById("summary").replaceChildren(formatText(spec, title),
    ` · ${count} players${phase === "registering" && spec.max_players < 1024 ? ` (at most ${spec.max_players})` : ""}`,
    ...(t.organiser ? [" · organised by ", ...playerName(t.organiser.name, t.organiser.tag)] : []));
  document.getElementById("when").textContent = startText(spec, phase);
}

function drawChampion(t, players) {
  const champion = t.status === "finished" && (t.standings || [])[0];
  const box = document.getElementById("champion");
  box.replaceChildren(...(champion ? ["Champion: ", el("strong", {}, nameOf(players, champion.player))] : []));
  box.hidden = !champion;
}

function drawPlayers(t) {
  const items = (t.players || []).map((p) => el("li", {
    class: [p.checked_in ? "checked-in" : "", p.dropped ? "dropped" : ""].filter(Boolean).join(" ") || null,
    dataset: { player: p.player },
    title: [p.checked_in ? "checked in" : "", p.dropped ? "dropped" : ""].filter(Boolean).join(", ") || null,
  }, playerName(p.name, p.tag), p.checked_in ? el("span", { class: "visually-hidden" }, " (checked in)") : null));
  document.getElementById("players").replaceChildren(items.length
    ? el("ul", { class: "player-list", "aria-label": "Registered players" }, items)
    : el("p", { class: "muted" }, "Nobody has registered yet."));
}

function drawOverlayLink() {
  const url = `${BASE}/overlay/tournament/${encodeURIComponent(id)}?bg=transparent&size=1920x1080`;
  const tv = `${BASE}/tv?tournament=${encodeURIComponent(id)}`;  // the top table, round after round
  document.getElementById("overlay-link").replaceChildren(copyRow("Overlay link", url), copyRow("TV channel (top table)", tv));
}

// The current round's top table, being played: what a stream follows.
function drawTopTable(t, players) {
  const box = document.getElementById("top-table");
  const round = (t.rounds || [])[(t.rounds || []).length - 1];
  const table = round && (round.tables || []).find((x) => !x.done);
  const game = table && table.playing;
  box.hidden = !(game && game.match && phaseOf(t) === "running");
  if (box.hidden) return;
  const names = (table.players || []).map((p) => plainName(players, p)).join(table.players.length > 2 ? ", " : " vs ");
  box.replaceChildren(el("a", { href: watchLink(game.match), id: "watch-top" }, `Watch the top table live: ${names}`),
                      ` (round ${round.round}, table ${table.table}).`);
}

async function draw(t) {
  shown = t;
  const players = playersById(t);
  const mine = profile ? profile.profile : null;
  drawHead(t, await rulesetTitle((t.spec || {}).ruleset));
  drawOrganiser(document.getElementById("organiser"), api, t, note);
  drawStandings(document.getElementById("standings"), t, players, mine);
  drawChampion(t, players);
  const bracket = t.bracket || [];
  const panel = document.getElementById("bracket-panel");
  panel.hidden = !bracket.length;
  // Once there is a bracket, it is what people look for first: above the standings.
  if (bracket.length && panel.nextElementSibling !== document.getElementById("standings-panel")) {
    document.getElementById("standings-panel").before(panel);
  }
  if (bracket.length) drawBracket(document.getElementById("bracket"), t, players, mine);
  drawRounds(document.getElementById("rounds"), t, players, mine, watchLink);
  drawPlayers(t);
  drawTopTable(t, players);
  if (entry) entry.update(t);
  main.dataset.version = String(t.version);
  main.dataset.status = phaseOf(t);
}

// The games in play at the current round's tables: they are made after the round's entry,
// without one of their own, so the version does not say when they appear.
function inPlay(t) {
  const round = (t.rounds || [])[(t.rounds || []).length - 1];
  return round ? (round.tables || []).map((x) => (x.playing ? x.playing.match : "")).join() : "";
}

// A public event's round whose tables are not all in play yet: their games are being made.
function awaitingGames(t) {
  const round = (t.rounds || [])[(t.rounds || []).length - 1];
  return phaseOf(t) === "running" && !!round && (round.tables || []).some((x) => "playing" in x && !x.done && !x.playing);
}

// The event, then every change of it as soon as it is entered; while a round's games are
// being made, asked again every 1.5 s until every table is in play.
async function follow() {
  let failures = 0;
  let quick = 0; // quick asks in a row: at most 20 (30 s), then the long poll again
  for (;;) {
    try {
      const waiting = shown && awaitingGames(shown);
      const soon = waiting && quick < 20;
      quick = waiting ? quick + 1 : 0;
      if (soon) await new Promise((r) => setTimeout(r, 1500));
      const t = await api.get(id, shown && !soon ? { waitSince: shown.version, waitMs: WAIT_MS } : {});
      failures = 0;
      note.clear();
      if (!shown || t.version !== shown.version || inPlay(t) !== inPlay(shown)) {
        const newRound = shown && t.round !== shown.round;
        if (newRound) quick = 0;
        await draw(t);
        document.getElementById("live").textContent = newRound ? `Round ${t.round} is paired.` : "Updated just now.";
        if (entry && (newRound || !entry.polling)) entry.poll();
      }
      if (["finished", "cancelled"].includes(t.status)) return;
    } catch (err) {
      if (err.status === 404) {
        note.show("error", "There is no such tournament: it never existed, or ended too long ago.");
        main.dataset.status = "missing";
        return;
      }
      failures += 1;
      note.show("warn", `The tournament cannot be read just now (${errorText(err)}); trying again.`);
      await new Promise((r) => setTimeout(r, Math.min(10000, 1000 * 2 ** failures)));
    }
  }
}

async function start() {
  drawOverlayLink();
  const following = follow();
  try {
    profile = await ensureProfile();
    entry = new Entry(id, profile, { box: document.getElementById("entry"), message: document.getElementById("entry-message"),
                                     ready: document.getElementById("ready") });
    document.getElementById("profile-box").replaceChildren(el("p", {}, "You are ",
      el("a", { href: `/player/${encodeURIComponent(profile.profile)}`, id: "me-shown" }, playerName(profile.name, profile.tag)),
      el("span", { class: "muted small" }, " (this browser's player profile; rename it in the lobby)")));
    document.getElementById("profile-box").dataset.profile = profile.profile;
    if (shown) { entry.update(shown); await draw(shown); }
    entry.poll();
  } catch (err) {
    document.getElementById("profile-box").textContent = `No player profile: ${errorText(err)}`;
  }
  await following;
}

start();
