// The leaderboard of one ruleset (/leaderboard/{ruleset}): players by rating, a page at a
// time. Names are shown with textContent only (el() never parses HTML).
import { request } from "./battlehall.js";
import { BASE, banner, el, errorText, playerName } from "./page.js";

const PAGE = 50;
const main = document.getElementById("main");
const note = banner(document.getElementById("banner"));
const rows = document.querySelector("#board tbody");
const more = document.getElementById("more");
const ruleset = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop() || "");
let cursor = null;

document.getElementById("title").textContent = `Leaderboard: ${ruleset}`;
document.title = `${ruleset} leaderboard · Battlehall`;

async function load() {
  const query = new URLSearchParams({ limit: String(PAGE) });
  if (cursor) query.set("cursor", cursor);
  try {
    // fetch's Accept is */*: the same path answers JSON here, the page to a browser's navigation.
    const page = await request(BASE, `/leaderboard/${encodeURIComponent(ruleset)}?${query}`);
    for (const player of page.players) {
      rows.append(el("tr", { dataset: { profile: player.profile } },
        el("td", {}, String(player.rank)),
        el("td", {}, el("a", { href: `/player/${encodeURIComponent(player.profile)}`, class: "name" },
                        playerName(player.name ?? player.profile, player.tag))),
        el("td", { class: "rating", title: `conservative rating ${Number(player.rating).toFixed(2)}` },
           String(player.display ?? ""),
           player.provisional ? el("abbr", { title: "provisional: few rated matches yet" }, "?") : ""),
        el("td", {}, String(player.matches ?? 0))));
    }
    cursor = page.next;
    more.hidden = !cursor;
    document.getElementById("empty").hidden = rows.children.length > 0;
    main.dataset.status = "ready";
  } catch (err) {
    note.show("error", errorText(err));
    main.dataset.status = "error";
  }
}

more.addEventListener("click", load);
load();
