// The judges on an event's page: "Judges' rulings", every judge action of the event in
// words (its `judged` entries, docs/tournaments.md, Judges), and, for a judge who opened
// the page with their token (/tournaments/{id}#judge=<token>), the form that replaces a
// player from the next round.
import { el, errorText, fragment } from "./page.js";
import { plainName } from "./tournament_words.js";

const judgeToken = fragment().get("judge");
// What the last replacement asked got: kept across the form's redrawings (the page's banner is the event's).
const said = el("p", { id: "replace-said", class: "small", role: "status" });

/** One judged entry in words: who did what, where, and why. */
export function judgedText(j, players) {
  const by = j.judge === "operator" ? "The operator" : `Judge ${j.judge}`;
  const at = j.table ? ` at table ${j.table} (round ${j.round}, game ${j.game})` : "";
  const who = (id) => plainName(players, id);
  const done = {
    pause: () => `paused the clocks${at}`,
    resume: () => `resumed the clocks${at}`,
    add_time: () => `added ${Math.round((j.ms || 0) / 1000)} s to ${j.seat}'s bank${at}`,
    rewind: () => `took the game${at} back to before a decision: it goes on as a new match`,
    game_loss: () => `gave ${who(j.player)} a game loss${at}`,
    game_win: () => `gave ${who(j.player)} a game win${at}`,
    void: () => `voided the game${at}: it is played again`,
    replace: () => `replaced ${j.player_name || who(j.player)} by ${j.name || j.replacement} from the next round`,
  }[j.action];
  return `${by} ${done ? done() : j.action}${j.reason ? `: “${j.reason}”` : ""}.`;
}

/** The "Judges' rulings" section: hidden while there are none (and no judge is here). */
export function drawJudged(panel, box, t, players) {
  const judged = t.judged || [];
  panel.hidden = !judged.length && !judgeToken;
  const waiting = (t.replacing || []).map((r) => el("li", { class: "muted" },
    `${plainName(players, r.player)} is to be replaced by ${r.name} once this round ends.`));
  box.replaceChildren(judged.length || waiting.length
    ? el("ol", { class: "judged-list" }, ...judged.map((j) => el("li", { dataset: { action: j.action } },
      judgedText(j, players))), ...waiting)
    : el("p", { class: "muted" }, "No judge has acted in this tournament."));
}

/** The replacement form, for a judge of the event (their token in the page's fragment). */
export function drawReplace(box, api, t, redraw) {
  const running = ["registering", "running"].includes(t.status);
  box.hidden = !judgeToken || !running;
  if (box.hidden || box.dataset.version === String(t.version)) return;
  box.dataset.version = String(t.version);
  const player = el("select", { id: "replace-player" }, ...(t.players || []).filter((p) => !p.dropped)
    .map((p) => el("option", { value: p.player }, p.name || p.player)));
  const replacement = el("input", { id: "replace-by", type: "text", required: "", maxlength: "128", placeholder: "p_…" });
  const name = el("input", { id: "replace-name", type: "text", maxlength: "64" });
  const reason = el("input", { id: "replace-reason", type: "text", required: "", maxlength: "500" });
  const form = el("form", { class: "stack", "aria-labelledby": "replace-title" },
    el("h3", { id: "replace-title" }, "Replace a player from the next round"),
    el("label", { for: "replace-player" }, "Player "), player,
    el("label", { for: "replace-by" }, "Replacement (profile id) "), replacement,
    el("label", { for: "replace-name" }, "Name (if not the profile's) "), name,
    el("label", { for: "replace-reason" }, "Reason "), reason,
    el("button", { type: "submit" }, "Replace"));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      const shown = await api.replace(t.tournament, { player: player.value, replacement: replacement.value.trim(),
        reason: reason.value.trim(), ...(name.value.trim() ? { name: name.value.trim() } : {}) }, judgeToken);
      await redraw(shown);
      said.textContent = "The replacement is entered: it takes effect from the next round.";
    } catch (err) { said.textContent = errorText(err); }
  });
  box.replaceChildren(form, said);
}
