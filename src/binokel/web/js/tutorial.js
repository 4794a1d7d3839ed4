// The tutorial: one scripted deal at a real table. The server makes the table the normal
// way (a fixed seed, two computer players); the coach (coach.js, loaded only while a
// tutorial is under way) points at the real controls and waits for each step. It can be
// left at any time and is resumed where it was (localStorage). Offered once at a first game.

import { t, language } from "./i18n.js";
import { remember, seatOf } from "./friends.js";
import { say } from "./announce.js";
import { toast } from "./table.js";

const KEY = "binokel.tutorial";  // {state: "on" | "left" | "done" | "skipped", id, step}
/** The deal of the tutorial: the player opens the auction with a hand that makes the
 *  contract, and both computer players pass (easy bots, standard rules). */
const SEED = 116;
const $ = (id) => document.getElementById(id);

let table = null;
let coach = null;  // coach.js, once loaded

// ------------------------------------------------------------------ progress

export function progress() {
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(KEY) || "null"); } catch { saved = localStorage.getItem(KEY); }
  if (typeof saved === "string") return { state: saved };  // "done" or "skipped", as once kept
  return saved && typeof saved === "object" ? saved : {};
}

export function save(changes) {
  localStorage.setItem(KEY, JSON.stringify({ ...progress(), ...changes }));
  labelButtons();
}

/** Is the tutorial under way at the table shown now? */
const coaching = () => { const p = progress(); return p.state === "on" && table?.gameId != null && p.id === table.gameId; };

/** Show the coach for the table as it is now, or take it away. */
async function refresh(focus = false) {
  const shown = () => coaching() && !$("table-view").hidden;
  if (!shown()) { removeCoach(); return; }
  coach ||= await import("./coach.js");
  if (shown()) coach.update(table, focus);
}

/** Take the coach off the page: its bubble and its ring. */
function removeCoach() {
  $("coach")?.remove();
  for (const el of document.querySelectorAll(".coach-target")) el.classList.remove("coach-target");
}

// ------------------------------------------------------------------ starting and leaving

/** Start the tutorial, or resume it at its table where it was left. */
export async function startTutorial() {
  const saved = progress();
  if (saved.id && ["on", "left"].includes(saved.state) && await stillPlayable(saved.id)) {
    save({ state: "on" });
    go(saved.id);
    return;
  }
  const name = localStorage.getItem("binokel.name") || t("you");
  const body = { rules: "standard", seats: ["me", "easy", "easy"], seed: SEED, name, language: language(),
    deck: document.body.dataset.deck || "french" };
  try {
    const response = await fetch("/api/games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    if (!response.ok) throw new Error(String(response.status));
    const made = await response.json();
    remember(made.id, { token: made.token, seat: made.seat, host: true });
    localStorage.setItem(KEY, JSON.stringify({ state: "on", id: made.id, step: 0 }));
    labelButtons();
    go(made.id);
  } catch {
    toast(t("tutorial_failed"), 4000);
  }
}

/** Is the tutorial's table still there, in its first deal? */
async function stillPlayable(id) {
  const token = seatOf(id)?.token;
  if (!token) return false;
  try {
    const response = await fetch("/api/my-games", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ tokens: [token] }) });
    const games = (await response.json()).games || [];
    const game = games.find((g) => g.id === id);
    return Boolean(game && !game.over && game.deals <= 1);
  } catch {
    return false;
  }
}

function go(id) {
  const hash = `#/game/${encodeURIComponent(id)}`;
  if (location.hash !== hash) location.hash = hash;
  else refresh();
}

/** Leave the coach (the table stays, a game like any other); resumed from "Tutorial". */
export function leaveTutorial() {
  save({ state: "left" });
  removeCoach();
  say(t("tutorial_left"));
}

export function finishTutorial() {
  save({ state: "done" });
  removeCoach();
  hideOffer();
}

/** The tutorial buttons say "Resume" while a tutorial waits to be resumed. */
function labelButtons() {
  const state = progress().state;
  for (const button of document.querySelectorAll("[data-open-tutorial]")) {
    button.dataset.tutorialLabel ||= button.dataset.i18n;
    const key = state === "left" || state === "on" ? "tutorial_resume" : button.dataset.tutorialLabel;
    button.dataset.i18n = key;
    button.textContent = t(key);
  }
}

// ------------------------------------------------------------------ the offer and the buttons

function hideOffer() { const offer = $("tutorial-offer"); if (offer) offer.hidden = true; }

/** At a table: offer the tutorial once (a line above the cards, never over them). */
export function offerTutorial() {
  if (progress().state) return;  // answered, or under way (spectators never see it: table.css)
  let offer = $("tutorial-offer");
  if (!offer) {
    offer = Object.assign(document.createElement("div"), { id: "tutorial-offer", className: "tutorial-offer" });
    offer.setAttribute("data-testid", "tutorial-offer");
    $("controls").before(offer);
  }
  offer.hidden = false;
  offer.innerHTML = `<span>${t("tutorial_offer")}</span><button type="button" class="primary small" data-testid="tutorial-start">${t("tutorial_start")}</button>` +
    `<button type="button" class="ghost small" data-testid="tutorial-no">${t("tutorial_no")}</button>`;
  offer.querySelector("[data-testid=tutorial-start]").addEventListener("click", () => { hideOffer(); startTutorial(); });
  offer.querySelector("[data-testid=tutorial-no]").addEventListener("click", () => { save({ state: "skipped" }); hideOffer(); });
}

/** Watch the table: every change of what it shows may move the coach on. */
export function bindTutorial(theTable) {
  table = theTable;
  for (const button of document.querySelectorAll("[data-open-tutorial]")) button.addEventListener("click", () => startTutorial());
  labelButtons();
  let queued = false;
  const later = () => {
    if (queued) return;
    queued = true;
    requestAnimationFrame(() => { queued = false; refresh(); });
  };
  const watch = new MutationObserver(later);
  watch.observe($("table-view"), { attributes: true, attributeFilter: ["data-version", "data-phase", "data-turn", "hidden"] });
  for (const id of ["hand", "controls", "trick"]) watch.observe($(id), { childList: true });
  watch.observe($("result-dialog"), { attributes: true, attributeFilter: ["open"] });
  addEventListener("resize", later);
  addEventListener("hashchange", later);
}
