// The tutorial: one scripted deal at a real table. The server makes the table the normal
// way (a fixed seed, two computer players), and a coach — a highlight on the real control
// and a short bubble beside it, never over it or the trick — says what to do next and
// waits until the player has done it. It reads the table (never the rules: what is legal
// and whose turn it is come from the server), can be left at any time and is resumed
// where it was (localStorage), in the words of a finger or of a mouse.

import { t, tSeat, language } from "./i18n.js";
import { remember, seatOf } from "./friends.js";
import { say } from "./announce.js";
import { toast } from "./table.js";

const KEY = "binokel.tutorial";  // {state: "on" | "left" | "done" | "skipped", id, step}
/** The deal of the tutorial: the player opens the auction with a hand that makes the
 *  contract, and both computer players pass (easy bots, standard rules). */
const SEED = 116;
const ORDER = ["deal", "auction", "tapp", "discard", "game", "surrender", "play", "over"];
const $ = (id) => document.getElementById(id);

/** Has the deal moved past ``phase``? */
const past = (view, phase) => ORDER.indexOf(view.phase) > ORDER.indexOf(phase);
const mine = (view) => view.to_move === view.seat;
const soloist = (view) => view.soloist != null && view.soloist === view.seat;
const other = (view) => view.soloist != null && view.soloist !== view.seat;
/** Have I played a card this deal? */
const played = (view) => [...view.tricks, view.trick].some((trick) => trick.seats.slice(0, trick.cards.length).includes(view.seat));

/** The steps: where to point (a selector, or a function of the view), when the step is done
 *  (``done``; a step with ``read`` waits for "Next" instead), when it does not apply here
 *  (``skip``), and its words (the key; ``.touch``/``.pointer`` where a finger and a mouse differ;
 *  ``waits``: "wait for your turn" while it is not; ``ready``: the ``_wait`` words until then). */
const STEPS = [
  { name: "welcome", target: "#hand", read: true, skip: (v) => past(v, "auction") },
  { name: "bid", target: "#controls", touch: true, waits: true, done: (v) => past(v, "auction") },
  { name: "watch", target: "#tapp", branch: other, done: (v) => past(v, "surrender") },
  // The standard rules put the Tapp into the soloist's hand: the discard step says so.
  { name: "discard", target: () => ($("controls").querySelector("[data-testid=confirm-discard]:not([disabled])") ? "#controls" : "#hand"),
    touch: true, waits: true, branch: (v) => !other(v), done: (v) => past(v, "discard") },
  { name: "trump", target: "#controls", waits: true, branch: (v) => !other(v), done: (v) => past(v, "game") },
  { name: "surrender", target: "#controls", waits: true, branch: (v) => !other(v), done: (v) => past(v, "surrender") },
  { name: "melds", target: "#seat-0", read: true, skip: (v) => past(v, "play") || v.tricks.length > 0 || (past(v, "surrender") && !v.melds) },
  { name: "play", target: "#hand", touch: true, waits: true, done: (v) => played(v) || past(v, "play") },
  { name: "trick", target: "#trick", read: true, ready: (v) => v.tricks.length > 0, skip: (v) => v.tricks.length > 2 || past(v, "play") },
  { name: "rest", target: "#hint-button", done: (v) => past(v, "play") },
  { name: "result", target: "#result-dialog", read: true, last: true },
];

let table = null;
let shownKey = "";  // the words last shown (said once to screen readers)
let target = null;

// ------------------------------------------------------------------ progress

function progress() {
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(KEY) || "null"); } catch { saved = localStorage.getItem(KEY); }
  if (typeof saved === "string") return { state: saved };  // "done" or "skipped", as once kept
  return saved && typeof saved === "object" ? saved : {};
}

function save(changes) {
  localStorage.setItem(KEY, JSON.stringify({ ...progress(), ...changes }));
  labelButtons();
}

/** Is the coach at this table now? */
const coaching = () => { const p = progress(); return p.state === "on" && table?.gameId != null && p.id === table.gameId; };

/** A finger or a mouse: the words of the last press, else what the screen says it has. */
let lastPointer = null;
const touch = () => (lastPointer ?? (matchMedia("(pointer: coarse)").matches ? "touch" : "mouse")) === "touch";

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
  else update();
}

/** Leave the coach (the table stays, a game like any other); resumed from "Tutorial". */
function leave() {
  save({ state: "left" });
  hide();
  say(t("tutorial_left"));
}

function finish() {
  save({ state: "done" });
  hide();
  hideOffer();
}

/** The tutorial buttons say "Resume" while a tutorial waits to be resumed. */
function labelButtons() {
  const state = progress().state;
  for (const button of document.querySelectorAll("[data-open-tutorial]")) {
    const key = state === "left" || state === "on" ? "tutorial_resume" : button.dataset.tutorialLabel || button.dataset.i18n;
    button.dataset.tutorialLabel ||= button.dataset.i18n;
    button.dataset.i18n = key;
    button.textContent = t(key);
  }
}

// ------------------------------------------------------------------ the coach

function bubble() {
  let el = $("coach");
  if (!el) {
    el = document.createElement("section");
    el.id = "coach";
    el.className = "coach";
    el.setAttribute("data-testid", "coach");
    el.setAttribute("aria-labelledby", "coach-title");
    el.addEventListener("click", (e) => {
      const go = e.target.closest("[data-coach]")?.dataset.coach;
      if (go === "leave") leave();
      else if (go === "next") next();
      else if (go === "done") finish();
    });
    el.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.stopPropagation(); leave(); } });
  }
  return el;
}

function hide() {
  $("coach")?.remove();
  target?.classList.remove("coach-target");
  target = null;
  shownKey = "";
}

/** The read step is read: on to the next. */
function next() {
  const step = progress().step ?? 0;
  save({ step: step + 1 });
  update(true);
}

/** The step to show for ``view``: from the saved one, past the steps done or not applying here. */
function currentStep(view) {
  let index = Math.min(progress().step ?? 0, STEPS.length - 1);
  const applies = (s) => !s.branch || s.branch(view);
  while (index < STEPS.length - 1) {
    const step = STEPS[index];
    if (!applies(step) || step.skip?.(view) || step.done?.(view)) index++;
    else break;
  }
  return { index, step: STEPS[index], list: STEPS.filter(applies) };
}

/** Redraw the coach for the table as it is now (called on every change of the table). */
export function update(focus = false) {
  if (!coaching() || !table?.view || $("table-view").hidden) { hide(); return; }
  const view = table.view;
  if (table.msg.game.deal_number > 1) { finish(); return; }  // the deal is behind us
  const { index, step, list } = currentStep(view);
  if (index !== progress().step) save({ step: index });
  const ready = step.ready ? step.ready(view) : true;
  let key = `tutorial.${step.name}`;
  let params = { n: table.discardsNeeded() };
  if (!ready) key += "_wait";
  else if (step.waits && !mine(view)) key = "tutorial.wait";
  else if (step.touch) key += touch() ? ".touch" : ".pointer";
  if (step.name === "watch") params = { name: table.names[view.soloist] ?? "" };
  let text = t(key, params);
  if (step.name === "trick" && ready) {
    const trick = view.tricks[0];
    text = tSeat("tutorial.trick", trick.winner, view.seat, { name: table.names[trick.winner] ?? "", points: trick.points });  // the server counts them
  }
  const el = bubble();
  const home = step.name === "result" && $("result-dialog").open ? $("result-dialog") : $("main");
  if (el.parentElement !== home) home.prepend(el);
  el.classList.toggle("in-dialog", home !== $("main"));
  const button = step.last ? `<button type="button" class="primary" data-coach="done" data-testid="coach-done">${t("tutorial_done")}</button>`
    : step.read && ready ? `<button type="button" class="primary" data-coach="next" data-testid="coach-next">${t("tutorial_next")}</button>` : "";
  const number = list.indexOf(step) + 1;
  el.dataset.step = step.name;
  const html = `<div class="coach-head"><h2 id="coach-title">${t("tutorial_title")} <span class="coach-count" data-testid="coach-count">${t("tutorial_step", { n: number, total: list.length })}</span></h2>` +
    `${button}<button type="button" class="close" data-coach="leave" data-testid="coach-leave" aria-label="${t("tutorial_leave")}" title="${t("tutorial_leave")}">×</button></div>` +
    `<p data-testid="coach-text">${text.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`)}</p>`;
  if (html !== el.shownHtml) {  // redrawn only when it changed: a keyboard keeps its place
    const focused = el.contains(document.activeElement) ? document.activeElement.dataset.coach : null;
    el.innerHTML = html;
    el.shownHtml = html;
    if (focused) el.querySelector(`[data-coach="${focused}"]`)?.focus({ preventScroll: true });
  }
  point(step);
  if (`${step.name}:${text}` !== shownKey) {
    shownKey = `${step.name}:${text}`;
    say(text);  // politely, once per step and wording
    if (button && (focus || step.read)) el.querySelector("[data-coach=next], [data-coach=done]")?.focus({ preventScroll: true });
  }
  place();
}

/** Highlight the step's control (the status line while it is not on the screen). */
function point(step) {
  const selector = typeof step.target === "function" ? step.target() : step.target;
  let el = document.querySelector(selector);
  if (!el || el.hidden || !el.getClientRects().length) el = $("status");
  if (el !== target) {
    target?.classList.remove("coach-target");
    target = el;
  }
  target.classList.add("coach-target");
}

/** Rectangles the bubble must leave free: the control pointed at, the trick, the controls,
 *  the status line, the Tapp, my own line and, while cards are to be chosen, the hand. */
function keepFree() {
  const view = table.view;
  const els = [target, $("controls"), $("status"), $("tapp"), document.querySelector(".seat.mine")];
  if (view.phase === "play" || $("trick").childElementCount) els.push($("trick"));
  if (mine(view) && ["discard", "play"].includes(view.phase)) els.push($("hand"));
  return els.filter((el) => el && !el.hidden && el.getClientRects().length).map((el) => el.getBoundingClientRect())
    .filter((r) => r.width && r.height);
}

const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));

/** Put the bubble where it covers the least of what must stay free, nearest to its control. */
export function place() {
  const el = $("coach");
  if (!el || !target || el.classList.contains("in-dialog")) return;
  const w = el.offsetWidth, h = el.offsetHeight, vw = document.documentElement.clientWidth, vh = innerHeight;
  const free = keepFree();
  const goal = target.getBoundingClientRect();
  const centre = goal.left + goal.width / 2;
  const xs = [...new Set([centre - w / 2, 8, vw - w - 8].map((x) => Math.round(Math.max(8, Math.min(vw - w - 8, x)))))];
  let best = null;
  for (let y = 4; y <= Math.max(4, vh - h - 4); y += 4) {
    for (const x of xs) {
      const spot = { left: x, top: y, right: x + w, bottom: y + h };
      const covered = free.reduce((sum, r) => sum + overlap(spot, r), 0);
      const cost = covered * 100 + Math.abs(y + h / 2 - (goal.top + goal.height / 2)) + Math.abs(x + w / 2 - centre) / 4;
      if (!best || cost < best.cost) best = { cost, x, y };
    }
  }
  if (!best) return;
  el.style.left = `${best.x}px`;
  el.style.top = `${best.y}px`;
}

// ------------------------------------------------------------------ the offer and the buttons

function hideOffer() { const offer = $("tutorial-offer"); if (offer) offer.hidden = true; }

/** At a table: offer the tutorial once (a line above the cards, never over them). */
export function offerTutorial() {
  const state = progress().state;
  if (state) return;  // answered, or under way (spectators never see it: table.css)
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
    requestAnimationFrame(() => { queued = false; update(); });
  };
  const watch = new MutationObserver(later);
  watch.observe($("table-view"), { attributes: true, attributeFilter: ["data-version", "data-phase", "data-turn", "hidden"] });
  for (const id of ["hand", "controls", "trick"]) watch.observe($(id), { childList: true });
  watch.observe($("result-dialog"), { attributes: true, attributeFilter: ["open"] });
  addEventListener("resize", later);
  addEventListener("pointerdown", (e) => { if (e.pointerType && e.pointerType !== lastPointer) { lastPointer = e.pointerType; if (coaching()) later(); } }, true);
  addEventListener("hashchange", later);
}
