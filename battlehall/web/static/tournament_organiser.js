// The organiser's controls on an event's page: Start (an event started by hand) and Cancel,
// with the organiser key this browser kept at the creation (or the session's API key); the
// key itself, to organise from another browser; and a field to give it in that browser.
import { el, errorText } from "./page.js";
import { forgetOrganiser, organiserKey, organiserProof, rememberOrganiser } from "./tournament_entry.js";

const REFUSED = {
  not_enough_players: "At least two players must be registered (and checked in) to start.",
  already_started: "It has started already.",
  already_finished: "It has ended already.",
  unauthorized: "That is not this tournament's organiser key.",
};

/** Draws the controls into `box` for the event `t` (redrawn only when what they offer changes). */
export function drawOrganiser(box, api, t, note) {
  const id = t.tournament;
  const proof = organiserProof(id);
  const phase = t.phase || t.status;
  const open = phase === "registering" || phase === "running";
  const key = `${phase}:${proof ? "yes" : "no"}`;
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.hidden = !open;
  if (!open) { box.replaceChildren(); return; }
  const act = async (action) => {
    note.clear();
    try {
      await (action === "start" ? api.start(id, proof) : api.cancel(id, proof));
    } catch (err) {
      note.show("error", REFUSED[err.code] || errorText(err));
      if (err.status === 401 && organiserKey(id) === proof) { // a key given wrong: ask again
        forgetOrganiser(id);
        delete box.dataset.key;
        drawOrganiser(box, api, t, note);
      }
    }
  };
  if (!proof) {
    box.replaceChildren(giveKey(box, api, t, note));
    return;
  }
  const kept = organiserKey(id);
  box.replaceChildren(
    el("span", { class: "muted small" }, "You organise this tournament."),
    phase === "registering" ? el("button", { type: "button", class: "primary", id: "start", onclick: () => act("start") }, "Start the tournament") : null,
    el("button", { type: "button", class: "danger", id: "cancel", onclick: () => {
      if (confirm("Cancel the tournament? No more rounds are paired.")) act("cancel");
    } }, "Cancel it"),
    kept ? el("details", { class: "organiser-key" }, el("summary", {}, "Organiser key"),
              el("p", { class: "muted small" }, "It starts and cancels the tournament: keep it to yourself. Give it on this page in another browser to organise from there."),
              el("input", { type: "text", readonly: true, value: kept, class: "mono", "aria-label": "Organiser key", id: "organiser-key" })) : null);
}

// In a browser that did not create the event: "I organise it", with the key to prove it.
function giveKey(box, api, t, note) {
  const input = el("input", { type: "password", id: "give-key", autocomplete: "off" });
  const form = el("form", { class: "row" },
    el("label", {}, el("span", {}, "Organiser key"), input),
    el("button", { type: "submit" }, "Organise from here"));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (!input.value.trim()) return;
    rememberOrganiser(t.tournament, input.value.trim());
    delete box.dataset.key;
    drawOrganiser(box, api, t, note);
  });
  return el("details", { class: "organiser-key" }, el("summary", {}, "You organise this tournament?"), form);
}
