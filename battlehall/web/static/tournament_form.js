// The organiser's form on /tournaments, in words: the ruleset, the format and what each
// means, best of, rounds and cut, table size, size cap, start (manual or at a time),
// check-in, late entry; under "More" the clock, no-shows, round clock, points,
// tie-breaks and the judges' bound on added time. readForm() makes the body of POST /tournaments (docs/tournaments.md);
// fieldFor() finds the control a 400's `path` names.
import { el } from "./page.js";
import { drawOptions, readOptions } from "./tournament_options.js";
import { FORMATS, TIEBREAKS } from "./tournament_words.js";

const FORMAT_HELP = {
  swiss: "Every round pairs players with equal points who have not met; nobody is knocked out. Add a cut for a final bracket.",
  single_elimination: "A bracket seeded by rating: lose a table and you are out. The top seeds get byes when the field is not a power of two.",
  double_elimination: "A winners' and a losers' bracket: you are out after losing two tables; the two brackets' winners meet in the final.",
  round_robin: "Everyone plays everyone once.",
};

function field(label, input, hint) {
  return el("label", {}, el("span", {}, label), input, hint ? el("small", { class: "muted" }, hint) : null);
}

function check(id, label, checked, hint) {
  return el("div", {}, el("label", { class: "inline" }, el("input", { type: "checkbox", id, name: id, checked }), el("span", {}, label)),
            hint ? el("p", { class: "muted small choice-help" }, hint) : null);
}

function number(id, attrs = {}) {
  return el("input", { type: "number", id, name: id, step: 1, ...attrs });
}

function select(id, choices, value) {
  return el("select", { id, name: id }, choices.map(([v, text]) => el("option", { value: v, selected: String(v) === String(value) }, text)));
}

/** Fill `form` with the organiser's controls for `rulesets` (GET /rulesets). */
export function createForm(form, rulesets, apiKey) {
  const tiebreakChoices = [["", "none"], ...Object.entries(TIEBREAKS)];
  form.replaceChildren(
    el("div", { class: "grid" },
      field("Name", el("input", { type: "text", id: "t-name", name: "t-name", required: true, maxlength: 80, autocomplete: "off",
                                  placeholder: "Friday Swiss" })),
      field("Ruleset", select("t-ruleset", rulesets.map((r) => [r.name, `${r.title || r.name} (${r.seats.min === r.seats.max ? r.seats.min : `${r.seats.min}–${r.seats.max}`} seats)`]),
                              rulesets[0] && rulesets[0].name))),
    el("fieldset", { id: "t-options" }, el("legend", {}, "The games' options"), el("div", { class: "grid" })),
    el("fieldset", {}, el("legend", {}, "Format"),
      el("div", { class: "grid" },
        field("Format", select("t-format", Object.entries(FORMATS), "swiss")),
        field("Best of", select("t-best-of", [[1, "1 game a table"], [3, "best of 3 games"], [5, "best of 5 games"]], 1),
              "The seats' order rotates between games.")),
      el("p", { id: "t-format-help", class: "muted small" }),
      el("div", { class: "grid", id: "t-swiss" },
        field("Swiss rounds", number("t-rounds", { min: 1, max: 20, placeholder: "from the field" }),
              "Empty: enough rounds for the field (log2 of the players, rounded up)."),
        field("Cut after the Swiss", select("t-cut", [[0, "no cut"], [2, "top 2"], [4, "top 4"], [8, "top 8"], [16, "top 16"], [32, "top 32"]], 0),
              "The top of the standings then play a single elimination, seeded 1 against N."),
        field("Seats at a table", select("t-table-size", [[2, "2: head to head"]], 2), "More than two makes pods, tables formed by standing, points by place."))),
    el("fieldset", {}, el("legend", {}, "Players and start"),
      el("div", { class: "grid" },
        field("At most this many players", number("t-max-players", { min: 2, max: 1024, placeholder: "the server's cap" })),
        field("Starts", select("t-start-mode", [["manual", "when I press Start"], ["at", "at a set time"]], "manual")),
        field("Start time (your local time)", el("input", { type: "datetime-local", id: "t-start-at", name: "t-start-at", disabled: true })),
        field("Check-in, minutes before the start", number("t-check-in", { min: 0, max: 1440, value: 0 }),
              "0: no check-in. With one, a player who has not checked in by the start is not paired."),
        field("Late entry until round", number("t-late-entry", { min: 0, max: 20, value: 0 }),
              "0: registration closes at the start; 1: players may still join during round 1, to play from round 2; and so on.")),
      check("t-public", "Public: listed here, and its games watchable and on TV", true),
      check("t-rated", "Rated: the games move the players' ratings (needs the server's API key)", false),
      check("t-bots", "A bot plays for a player who is away, until they are back", false,
            "Otherwise a player not at their table when the no-show time has passed loses that game.")),
    el("details", {},
      el("summary", {}, "Clock, no-shows, round clock, points, tie-breaks, judges"),
      el("fieldset", {}, el("legend", {}, "Every game's clock"),
        el("div", { class: "grid" },
          field("Seconds per decision", number("t-prompt-s", { min: 1, step: "any", placeholder: "quick play's" })),
          field("Time bank per seat, seconds", number("t-bank-s", { min: 0, step: "any", placeholder: "quick play's" })))),
      el("fieldset", {}, el("legend", {}, "Rounds"),
        el("div", { class: "grid" },
          field("No-show after, seconds", number("t-no-show-s", { min: 0, value: 120 }), "How long a player has to come to their table."),
          field("Round clock, minutes", number("t-round-min", { min: 0, step: "any", value: 0 }), "0: a round lasts until its last game ends."),
          field("A game still playing when the round clock ends", select("t-unfinished", [["draw", "is a draw"], ["tiebreak", "goes to the ruleset's tie-break"]], "draw")))),
      el("fieldset", {}, el("legend", {}, "Match points"),
        el("div", { class: "grid" },
          field("Win", number("t-points-win", { value: 3, min: 0 })),
          field("Draw", number("t-points-draw", { value: 1, min: 0 })),
          field("Loss", number("t-points-loss", { value: 0, min: 0 })))),
      el("fieldset", {}, el("legend", {}, "Tie-breaks, in order"),
        el("div", { class: "grid" },
          field("First", select("t-tiebreak-0", tiebreakChoices, "omw")),
          field("Second", select("t-tiebreak-1", tiebreakChoices, "gw")),
          field("Third", select("t-tiebreak-2", tiebreakChoices, "ogw")))),
      el("fieldset", {}, el("legend", {}, "Judges"),
        el("div", { class: "grid" },
          field("Time judges may add to a seat, minutes", number("t-max-added-min", { min: 0, max: 60, step: "any", value: 10 }),
                "In all, over one game: a judge's added minutes past it are refused.")))),
    el("details", { id: "key-box" },
      el("summary", {}, "Server key"),
      field("API key (only if this server requires one)",
            el("input", { type: "password", id: "api-key", name: "api-key", autocomplete: "off", value: apiKey }))),
    el("div", { class: "row" }, el("button", { type: "submit", class: "primary", id: "create-button" }, "Create the tournament")),
  );
  const redraw = () => shape(form, rulesets);
  for (const id of ["t-ruleset", "t-format", "t-start-mode"]) form[id].addEventListener("change", redraw);
  redraw();
}

// What applies to the choices made: the Swiss fields, the table sizes the ruleset seats,
// the start time, the format's sentence.
function shape(form, rulesets) {
  const r = rulesets.find((x) => x.name === form["t-ruleset"].value) || { seats: { min: 2, max: 2 } };
  const format = form["t-format"].value;
  const options = document.getElementById("t-options");
  if (options.dataset.ruleset !== r.name) drawOptions(options, r);
  document.getElementById("t-format-help").textContent = FORMAT_HELP[format];
  document.getElementById("t-swiss").hidden = format !== "swiss";
  const sizes = [];
  for (let n = Math.max(2, r.seats.min); n <= r.seats.max; n++) sizes.push([n, n === 2 ? "2: head to head" : `${n}: pods of ${n}`]);
  const size = form["t-table-size"];
  const old = size.value;
  size.replaceChildren(...sizes.map(([v, text]) => el("option", { value: v }, text)));
  if (sizes.some(([v]) => String(v) === old)) size.value = old;
  const at = form["t-start-mode"].value === "at";
  form["t-start-at"].disabled = !at;
  form["t-start-at"].closest("label").hidden = !at;
  if (at && !form["t-start-at"].value) form["t-start-at"].value = localInput(Date.now() + 3600_000);
}

function localInput(ms) {
  const d = new Date(ms);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function value(form, id) {
  const raw = form[id].value.trim();
  return raw === "" ? null : Number(raw);
}

/** The body of POST /tournaments from the form; only what differs from the defaults is sent. */
export function readForm(form, rulesets = []) {
  const format = form["t-format"].value;
  const body = { name: form["t-name"].value.trim(), ruleset: form["t-ruleset"].value, format,
                 best_of: Number(form["t-best-of"].value), public: form["t-public"].checked };
  if (format === "swiss") {
    if (value(form, "t-rounds") !== null) body.rounds = value(form, "t-rounds");
    if (Number(form["t-cut"].value)) body.cut = Number(form["t-cut"].value);
    if (Number(form["t-table-size"].value) !== 2) body.table_size = Number(form["t-table-size"].value);
  }
  if (value(form, "t-max-players") !== null) body.max_players = value(form, "t-max-players");
  if (form["t-start-mode"].value === "at") {
    const at = new Date(form["t-start-at"].value).getTime();
    if (!Number.isFinite(at)) throw Object.assign(new Error("Give the start time, or choose to start it yourself."), { path: "start_at" });
    body.start_at = at;
  }
  const checkIn = value(form, "t-check-in");
  if (checkIn) body.check_in_ms = Math.round(checkIn * 60_000);
  if (value(form, "t-late-entry")) body.late_entry_rounds = value(form, "t-late-entry");
  if (form["t-rated"].checked) body.rated = true;
  if (form["t-bots"].checked) body.bots_take_over = true;
  const prompt = value(form, "t-prompt-s");
  const bank = value(form, "t-bank-s");
  if (prompt !== null || bank !== null) {
    body.clock = {};
    if (prompt !== null) body.clock.prompt_ms = Math.round(prompt * 1000);
    if (bank !== null) body.clock.bank_ms = Math.round(bank * 1000);
  }
  const noShow = value(form, "t-no-show-s");
  if (noShow !== null && noShow !== 120) body.no_show_ms = Math.round(noShow * 1000);
  const round = value(form, "t-round-min");
  if (round) body.round_ms = Math.round(round * 60_000);
  if (form["t-unfinished"].value !== "draw") body.unfinished = form["t-unfinished"].value;
  const points = { win: value(form, "t-points-win") ?? 3, draw: value(form, "t-points-draw") ?? 1, loss: value(form, "t-points-loss") ?? 0 };
  if (points.win !== 3 || points.draw !== 1 || points.loss !== 0) body.points = points;
  const tiebreaks = [0, 1, 2].map((i) => form[`t-tiebreak-${i}`].value).filter(Boolean);
  if (tiebreaks.join() !== "omw,gw,ogw") body.tiebreaks = tiebreaks;
  const maxAdded = value(form, "t-max-added-min");
  if (maxAdded !== null && maxAdded !== 10) body.judging = { max_added_s: Math.round(maxAdded * 60) };
  const options = readOptions(document.getElementById("t-options"), rulesets.find((x) => x.name === body.ruleset));
  if (Object.keys(options).length) body.options = options;
  return body;
}

const FIELDS = { name: "t-name", ruleset: "t-ruleset", format: "t-format", best_of: "t-best-of", rounds: "t-rounds", cut: "t-cut",
                 table_size: "t-table-size", max_players: "t-max-players", start_at: "t-start-at", check_in_ms: "t-check-in",
                 late_entry_rounds: "t-late-entry", public: "t-public", rated: "t-rated", bots_take_over: "t-bots",
                 "clock.prompt_ms": "t-prompt-s", "clock.bank_ms": "t-bank-s", clock: "t-prompt-s", no_show_ms: "t-no-show-s",
                 round_ms: "t-round-min", unfinished: "t-unfinished", "points.win": "t-points-win", "points.draw": "t-points-draw",
                 "points.loss": "t-points-loss", points: "t-points-win", tiebreaks: "t-tiebreak-0",
                 "judging.max_added_s": "t-max-added-min", judging: "t-max-added-min" };

/** The control a 400's `path` names (`tiebreaks[1]`, `points.win`, `start_at`), or null. */
export function fieldFor(form, path) {
  if (!path) return null;
  const option = path.match(/^options\.([^.[]+)/);
  if (option) return form.querySelector(`#t-opt-${CSS.escape(option[1])}`);
  const m = path.match(/^tiebreaks\[(\d)\]$/);
  if (m) return form.querySelector(`#t-tiebreak-${m[1]}`);
  const id = FIELDS[path] || FIELDS[path.split(".")[0]];
  return id ? form.querySelector(`#${id}`) : null;
}
