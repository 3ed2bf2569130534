// duel: two fighters face to face, their hit points and guards; Strike and Guard are the
// fighter's own buttons, under your fighter at the bottom of the table.

import {el, useCss, choice, who, describeCommon, seatSummary, table, term, Arrivals} from "./common.js";

useCss(new URL("./duel.css", import.meta.url).href);

const HP = "Hit points: at 0 the fighter falls and loses";
const hits = new Arrivals();  // a fighter whose HP dropped since the last drawing flashes
let lastHp = {};

export const howTo = {
  goal: "Bring the other fighter's hit points (HP) to 0 before they bring yours there. Each fighter starts with 20 HP.",
  turn: [
    "The fighter to act chooses Strike or Guard; then it is the other's turn.",
    "A strike rolls 1 to 3 damage. Against a guarding fighter it does 1 less (never below 0), and ends their guard.",
    "A guard lasts until the fighter is next struck.",
    "With the Simultaneous option both fighters choose at once each round, neither seeing the other's choice; guards come first, then the strikes. Both falling in the same round is a draw.",
  ],
  prompts: [["Your move", "Strike (roll 1-3 damage at your opponent) or Guard (take 1 less from the next strike)."]],
  glossary: [["HP", "Hit points. A fighter at 0 HP or less has lost."], ["Guarding", "Takes 1 less damage from the next strike, which ends the guard."]],
};

export function promptName(kind) {
  return {move: "a move", turn: "a move"}[kind] || "";
}

export function render(root, model, controls) {
  const view = model.view || {};
  const hp = view.hp || {};
  const start = Math.max(1, ...Object.values(hp), (view.options || {}).hp || 0);
  const seats = model.seats && model.seats.length ? model.seats : Object.keys(hp);
  const toAct = [].concat(view.to_act || []);
  const deciding = {...(model.deciding || {})};
  for (const seat of toAct) if (!deciding[seat] && !view.result) deciding[seat] = [{seat, kind: "move"}];
  const shown = {...model, deciding};
  hits.next();
  const fighter = seat => {
    const mine = seat === model.seat && model.role !== "replay";
    const moves = (model.prompts || []).filter(p => p.seat === seat).flatMap(p =>
      (p.options || []).map(o => choice(controls, p.id, o.id, {}, o.text || o.id,
        {class: "choice duel-move" + (o.id === p.default ? " is-default" : "")})));
    const left = Math.max(0, hp[seat] ?? 0);
    const hurt = lastHp[seat] !== undefined && (hp[seat] ?? 0) < lastHp[seat];
    const meter = el("div", {class: "duel-hp" + (hurt ? " flash" : ""), role: "meter", "aria-valuemin": 0, "aria-valuemax": start,
                             "aria-valuenow": left, "aria-label": `${seat} hit points`},
      el("div.duel-hp-fill", {style: {width: `${(100 * left) / start}%`}}), el("span", {}, `${hp[seat] ?? "?"} `, term("HP", HP)));
    const state = el("p.duel-state", {}, (view.guarding || {})[seat] ? "guarding" : "open",
      mine && view.my_move ? ` · you chose ${view.my_move}` : "");
    return seatSummary(seat, shown, {cls: "duel-fighter" + (mine ? " mine" : "") + (toAct.includes(seat) ? " acting" : ""),
      body: [meter, state, moves.length ? el("div.duel-moves", {}, moves) : null]});
  };
  lastHp = {...hp};
  const others = seats.filter(s => s !== model.seat || model.role === "replay");
  const mine = seats.includes(model.seat) && model.role !== "replay" ? fighter(model.seat) : null;
  // A player faces the opponent across the table; a spectator or a replay sees both in the middle.
  root.replaceChildren(el("div.duel", {}, mine
    ? table({opponents: others.map(fighter), middle: el("div.duel-vs", {"aria-hidden": "true"}, "vs"), mine, cls: "duel-table"})
    : table({middle: el("div.duel-arena", {}, others.map(fighter)), cls: "duel-table"})));
}

export function describe(event, model) {
  const d = event.data || {};
  switch (event.kind) {
    case "match_started": return `The duel begins: ${(d.seats || []).join(" against ")}, ${d.hp} HP each.`;
    case "strike": return `${who(d.seat, model)} struck ${who(d.target, model)}: a roll of ${d.roll}, ${d.damage} damage (${d.hp} HP left).`;
    case "guard": return `${who(d.seat, model)} raised a guard.`;
    case "revealed": return "Both chose: " + Object.entries(d.moves || {}).map(([s, m]) => `${who(s, model)} ${m}`).join(", ") + ".";
    case "prompt": return null;
    default: return describeCommon(event, model);
  }
}
