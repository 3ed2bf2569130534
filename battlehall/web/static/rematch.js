// The rematch box of the player page, shown once the match has ended: offer a rematch,
// see who else has, and go to the new match's page when every seat has accepted
// (POST/GET /matches/{id}/rematch, docs/protocol.md "Rematch").

import {el} from "/static/rulesets/common.js";

const POLL_MS = 1500;

export function rematchBox(matchId, token, seat) {
  const url = `/matches/${encodeURIComponent(matchId)}/rematch`;
  const headers = {Authorization: `Bearer ${token}`};
  const text = el("span.rematch-text", {}, "");
  const button = el("button.rematch-offer", {type: "button", onclick: () => ask("POST")}, "Offer a rematch");
  const node = el("div.rematch", {}, button, " ", text);
  let started = false, gone = false;

  function show(state) {
    if (state.allowed === false) {  // the operator made this match with the server's key: no rematch here
      gone = true;
      node.hidden = true;
      return;
    }
    if (state.rematch) {  // made: this seat's page of the new match
      gone = true;
      text.textContent = "Starting the rematch…";
      button.hidden = true;
      location.assign(`/play/${encodeURIComponent(state.rematch.match)}#token=${encodeURIComponent(state.rematch.token)}`);
      return;
    }
    const others = state.offers.filter(s => s !== seat);
    if (state.offers.includes(seat)) {
      button.hidden = true;
      text.textContent = `Rematch offered: waiting for ${state.waiting_for.join(", ")}…`;
    } else if (others.length) {
      button.hidden = false;
      button.textContent = "Accept";
      text.textContent = `${others.join(", ")} ${others.length > 1 ? "offer" : "offers"} a rematch`;
    } else {
      button.hidden = false;
      button.textContent = "Offer a rematch";
      text.textContent = "";
    }
  }

  async function ask(method) {
    if (gone) return;
    if (method === "POST") button.disabled = true;
    try {
      const answer = await fetch(url, {method, headers});
      const body = await answer.json();
      if (answer.ok) show(body);
      else if (answer.status === 401 || answer.status === 404) { gone = true; node.hidden = true; }
      else if (method === "POST") text.textContent = body.error ? body.error.message : "The offer failed: try again.";
    } catch (e) {
      if (method === "POST") text.textContent = "The server did not answer: try again.";
    } finally {
      button.disabled = false;
    }
  }

  // Polled from the end of the match on: the others' offers and the new match appear by themselves.
  function start() {
    if (started) return;
    started = true;
    ask("GET");
    const timer = setInterval(() => gone ? clearInterval(timer) : ask("GET"), POLL_MS);
  }
  return {node, start};
}
