// The lobby's guest profile: made on the first visit (POST /profiles) and kept in this
// browser's localStorage with its secret; "you are <name>", a rename field, and a link to
// the player page. Quick play and bot matches bind their seats to it.
import { request } from "./battlehall.js";
import { BASE, el, errorText, playerName } from "./page.js";

const KEY = "battlehall.profile";

/** The stored profile ({profile, name, tag, secret}) or null. */
export function storedProfile() {
  try {
    const found = JSON.parse(localStorage.getItem(KEY) || "null");
    return found && typeof found.profile === "string" && typeof found.secret === "string" ? found : null;
  } catch {
    return null;
  }
}

function guestName() {
  return `guest-${Math.floor(1000 + Math.random() * 9000)}`;
}

/** This browser's profile: the stored one if the server still knows it, else a new guest. */
export async function ensureProfile() {
  const stored = storedProfile();
  if (stored) {
    try {
      const profile = await request(BASE, `/profiles/${encodeURIComponent(stored.profile)}`);
      const current = { ...stored, name: profile.name, tag: profile.tag };
      localStorage.setItem(KEY, JSON.stringify(current));
      return current;
    } catch (err) {
      if (err.status !== 404) throw err;  // gone from this server: make a new one
    }
  }
  const made = await request(BASE, "/profiles", { method: "POST", body: { name: guestName() } });
  const profile = { profile: made.profile, name: made.name, tag: made.tag, secret: made.secret };
  localStorage.setItem(KEY, JSON.stringify(profile));
  return profile;
}

async function rename(profile, name) {
  const renamed = await request(BASE, `/profiles/${encodeURIComponent(profile.profile)}`,
                                { method: "PATCH", body: { name }, apiKey: profile.secret });
  const current = { ...profile, name: renamed.name, tag: renamed.tag };
  localStorage.setItem(KEY, JSON.stringify(current));
  return current;
}

function show(root, profile) {
  const message = el("p", { class: "small", role: "status", id: "me-message" });
  const input = el("input", { type: "text", id: "me-name", name: "me-name", maxlength: "24", value: profile.name,
                              autocomplete: "nickname" });
  const form = el("form", { class: "row", id: "me-rename" },
    el("label", {}, el("span", {}, "Your name"), input),
    el("button", { type: "submit" }, "Rename"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const current = await rename(profile, input.value.trim());
      show(root, current);
      document.getElementById("me-message").textContent = "Renamed.";
    } catch (err) {
      message.textContent = errorText(err);
    }
  });
  root.replaceChildren(
    el("p", {}, "You are ", el("a", { id: "me-link", href: `/player/${encodeURIComponent(profile.profile)}` },
                                  el("strong", { id: "me-shown" }, playerName(profile.name, profile.tag)))),
    form, message);
  root.dataset.profile = profile.profile;
}

const root = document.getElementById("me");
if (root) {
  ensureProfile().then((profile) => show(root, profile),
                       (err) => { root.textContent = `No player profile: ${errorText(err)}`; });
}
