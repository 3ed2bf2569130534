// duel: two fighters, their hit points and guards; Strike and Guard are the fighter's own buttons.

import {el, useCss, choice, who, describeCommon} from "./common.js";

useCss(new URL("./duel.css", import.meta.url).href);

export function render(root, model, controls) {
  const view = model.view || {};
  const hp = view.hp || {};
  const start = Math.max(1, ...Object.values(hp), (view.options || {}).hp || 0);
  const seats = model.seats && model.seats.length ? model.seats : Object.keys(hp);
  const toAct = [].concat(view.to_act || []);
  const fighters = seats.map(seat => {
    const mine = seat === model.seat;
    const moves = (model.prompts || []).filter(p => p.seat === seat).flatMap(p =>
      (p.options || []).map(o => choice(controls, p.id, o.id, {}, o.text || o.id,
        {class: "choice duel-move" + (o.id === p.default ? " is-default" : "")})));
    const left = Math.max(0, hp[seat] ?? 0);
    return el("div.duel-fighter", {class: "duel-fighter" + (mine ? " mine" : "") + (toAct.includes(seat) ? " acting" : ""),
                                   dataset: {seat}},
      el("h3", {}, mine && model.role !== "replay" ? `${seat} (you)` : seat),
      el("div.duel-hp", {role: "meter", "aria-valuemin": 0, "aria-valuemax": start, "aria-valuenow": left,
                         "aria-label": `${seat} hit points`},
        el("div.duel-hp-fill", {style: {width: `${(100 * left) / start}%`}}), el("span", {}, `${hp[seat] ?? "?"} HP`)),
      el("p.duel-state", {}, (view.guarding || {})[seat] ? "guarding" : "open",
        toAct.includes(seat) ? " · to act" : "",
        mine && view.my_move ? ` · you chose ${view.my_move}` : ""),
      moves.length ? el("div.duel-moves", {}, moves) : null);
  });
  root.replaceChildren(el("div.duel", {}, fighters));
}

export function describe(event, model) {
  const d = event.data || {};
  switch (event.kind) {
    case "match_started": return `The duel begins: ${(d.seats || []).join(" against ")}, ${d.hp} HP each.`;
    case "strike": return `${who(d.seat, model)} struck ${who(d.target, model)}: rolled ${d.roll}, ${d.damage} damage (${d.hp} HP left).`;
    case "guard": return `${who(d.seat, model)} raised a guard.`;
    case "revealed": return "Both chose: " + Object.entries(d.moves || {}).map(([s, m]) => `${who(s, model)} ${m}`).join(", ") + ".";
    case "prompt": return null;
    default: return describeCommon(event, model);
  }
}
