// A player's page (/player/{id}): name, rating per ruleset with its history, recent
// matches with links to their replays, and the tournaments entered. Every name is set with textContent (el()).
import { request } from "./battlehall.js";
import { BASE, banner, el, errorText, playerName } from "./page.js";

const main = document.getElementById("main");
const note = banner(document.getElementById("banner"));
const id = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
const HISTORY_SHOWN = 10;

function signed(value) {
  return `${value >= 0 ? "+" : "−"}${Math.abs(Math.round(value))}`;
}

// The number players read (the server's `display`, never negative), "1500?" while provisional.
function shown(rating) {
  const display = String(rating.display ?? "");
  if (!rating.provisional) return el("span", { class: "rating" }, display);
  return el("span", { class: "rating provisional" },
    display, el("abbr", { title: "provisional: few rated matches yet" }, "?"));
}

function ratingsSection(profile) {
  const rulesets = Object.keys(profile.ratings);
  if (!rulesets.length) return [el("p", { class: "muted" }, "No rated match yet.")];
  return rulesets.map((ruleset) => {
    const rating = profile.ratings[ruleset];
    const history = (profile.history[ruleset] || []).slice(0, HISTORY_SHOWN);
    return el("div", { class: "ruleset-rating", dataset: { ruleset } },
      el("h3", {}, el("a", { href: `/leaderboard/${encodeURIComponent(ruleset)}` }, ruleset), " ",
         shown(rating),
         el("span", { class: "muted small" }, ` (${rating.provisional ? "provisional, " : ""}`
                                              + `conservative ${Number(rating.rating).toFixed(2)}, `
                                              + `mu ${rating.mu.toFixed(2)}, sigma ${rating.sigma.toFixed(2)}, `
                                              + `${rating.matches} rated matches)`)),
      el("ol", { class: "log history" }, history.map((h) =>
        el("li", {}, `${new Date(h.at).toLocaleString()}: place ${h.place}, ${h.display_before} → `,
           el("strong", {}, String(h.display)), ` (${signed(h.display - h.display_before)}) `,
           el("a", { href: `/replay/${encodeURIComponent(h.match)}` }, "replay")))));
  });
}

function recentSection(profile) {
  if (!profile.recent_matches.length) return el("p", { class: "muted" }, "No match yet.");
  return el("table", {},
    el("thead", {}, el("tr", {}, ["When", "Ruleset", "Place", "Players", "Rating", ""].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, profile.recent_matches.map((m) => el("tr", { dataset: { match: m.match } },
      el("td", {}, new Date(m.ended_at).toLocaleString()),
      el("td", {}, m.ruleset),
      el("td", {}, m.reason === "aborted" || m.reason === "abandoned" ? m.reason
                   : `${m.won ? "won" : `${m.place} of ${m.places}`}`),
      el("td", { class: "players" }, m.players.flatMap((p, i) => [i ? ", " : "",
        el("a", { href: `/player/${encodeURIComponent(p.profile)}` }, playerName(p.name ?? p.profile, p.tag))])),
      el("td", { class: "change" }, m.rated
        ? `${m.display_before} → ${m.display_after} (${signed(m.display_after - m.display_before)})` : "unrated"),
      el("td", {}, el("a", { href: m.replay }, "replay"))))));
}

// The events the player entered (GET /profiles/{id}/tournaments), the latest first.
function eventsSection(found) {
  if (!found.tournaments.length) return el("p", { class: "muted" }, "No tournament yet.");
  return el("table", {},
    el("thead", {}, el("tr", {}, ["Tournament", "Ruleset", "Status", "Standing"].map((h) => el("th", { scope: "col" }, h)))),
    el("tbody", {}, found.tournaments.map((t) => el("tr", { dataset: { tournament: t.tournament } },
      el("td", {}, el("a", { href: `/tournaments/${encodeURIComponent(t.tournament)}` }, t.name)),
      el("td", {}, t.ruleset),
      el("td", {}, t.status),
      el("td", {}, t.standing ? `${t.standing.rank} of ${t.players_count}, ${t.standing.points} points` +
                   (t.standing.dropped ? " (dropped)" : "") : "registered")))));
}

async function load() {
  try {
    const profile = await request(BASE, `/profiles/${encodeURIComponent(id)}`);
    document.getElementById("name").replaceChildren(...playerName(profile.name, profile.tag));
    document.title = `${profile.name}#${profile.tag} · Battlehall`;
    document.getElementById("kind").textContent =
      profile.kind === "guest" ? "Guest player" : "Player vouched for by this server's operator";
    document.getElementById("ratings").replaceChildren(...ratingsSection(profile));
    document.getElementById("recent").replaceChildren(recentSection(profile));
    const events = await request(BASE, `/profiles/${encodeURIComponent(id)}/tournaments`);
    document.getElementById("events").replaceChildren(eventsSection(events));
    main.dataset.status = "ready";
  } catch (err) {
    note.show("error", errorText(err));
    main.dataset.status = "error";
  }
}

load();
