// The tutorial's coach: a ring around the real control and a short bubble beside it (never
// over it or the trick) that says what to do next, and waits until the table shows it done.
// It reads the table (never the rules: what is legal and whose turn it is come from the
// server). Loaded by tutorial.js only while a tutorial is under way.

import { t, tSeat } from "./i18n.js";
import { say } from "./announce.js";
import { progress, save, finishTutorial, leaveTutorial } from "./tutorial.js";

const ORDER = ["deal", "auction", "tapp", "discard", "game", "surrender", "play", "over"];
const $ = (id) => document.getElementById(id);

/** Has the deal moved past ``phase``? */
const past = (view, phase) => ORDER.indexOf(view.phase) > ORDER.indexOf(phase);
const mine = (view) => view.to_move === view.seat;
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
  // The standard rules put the Tapp into the soloist's hand: the discard step says so. The
  // seeded deal makes the player the soloist (the test walks it); were it not so, the
  // soloist's steps would give way to the card play.
  { name: "discard", target: () => ($("controls").querySelector("[data-testid=confirm-discard]:not([disabled])") ? "#controls" : "#hand"),
    touch: true, waits: true, branch: (v) => !other(v), done: (v) => past(v, "discard") },
  { name: "trump", target: "#controls", waits: true, branch: (v) => !other(v), done: (v) => past(v, "game") },
  { name: "surrender", target: "#controls", waits: true, branch: (v) => !other(v), done: (v) => past(v, "surrender") },
  { name: "melds", target: () => (document.querySelector(".seat.opponent .melds") ? ".seat.opponent .melds" : "#seat-0"), read: true, skip: (v) => past(v, "play") || v.tricks.length > 0 || (past(v, "surrender") && !v.melds) },
  { name: "play", target: "#hand", touch: true, waits: true, done: (v) => played(v) || past(v, "play") },
  { name: "trick", target: "#trick", read: true, ready: (v) => v.tricks.length > 0, skip: (v) => v.tricks.length > 2 || past(v, "play") },
  { name: "rest", target: "#hint-button", done: (v) => past(v, "play") },
  { name: "result", target: "#result-dialog", read: true, last: true },
];

let table = null;
let shownKey = "";  // the words last shown (said once to screen readers)
let target = null;

/** A finger or a mouse: the words of the last press, else what the screen says it has. */
let lastPointer = null;
const touch = () => (lastPointer ?? (matchMedia("(pointer: coarse)").matches ? "touch" : "mouse")) === "touch";
addEventListener("pointerdown", (e) => {
  if (!e.pointerType || e.pointerType === lastPointer) return;
  lastPointer = e.pointerType;
  if ($("coach")) requestAnimationFrame(() => update(table));
}, true);

// The table's parts move when something appears beside them (the bidding help, a toast):
// the bubble finds its place again.
const moved = new ResizeObserver(() => requestAnimationFrame(place));
for (const id of ["felt", "controls", "hand", "status"]) moved.observe($(id));
moved.observe(document.querySelector(".me"));

// ------------------------------------------------------------------ the coach

function bubble() {
  let el = $("coach");
  if (!el) {
    shownKey = "";  // a new bubble says its words again
    el = document.createElement("section");
    el.id = "coach";
    el.className = "coach";
    el.setAttribute("data-testid", "coach");
    el.setAttribute("aria-labelledby", "coach-title");
    el.addEventListener("click", (e) => {
      const go = e.target.closest("[data-coach]")?.dataset.coach;
      if (go === "leave") leaveTutorial();
      else if (go === "next") next();
      else if (go === "done") finishTutorial();
    });
    el.addEventListener("keydown", (e) => { if (e.key === "Escape") { e.stopPropagation(); leaveTutorial(); } });
  }
  return el;
}

/** The read step is read: on to the next. */
function next() {
  const step = progress().step ?? 0;
  save({ step: step + 1 });
  update(table, true);
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

/** Draw the coach for ``theTable`` as it is now (tutorial.js calls this on every change of
 *  the table while the tutorial is under way at it). */
export function update(theTable, focus = false) {
  table = theTable;
  const view = table?.view;
  if (!view || $("table-view").hidden) return;
  if (table.msg.game.deal_number > 1) { finishTutorial(); return; }  // the deal is behind us
  const { index, step, list } = currentStep(view);
  if (index !== progress().step) save({ step: index });
  const ready = step.ready ? step.ready(view) : true;
  let key = `tutorial.${step.name}`;
  const params = { n: table.discardsNeeded() + (view.discard?.length ?? 0) };  // the cards to lay away in all (sent one by one)
  if (!ready) key += "_wait";
  else if (step.waits && !mine(view)) key = "tutorial.wait";
  else if (step.touch) key += touch() ? ".touch" : ".pointer";
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
    for (const old of document.querySelectorAll(".coach-target")) old.classList.remove("coach-target");
    target = el;
  }
  target.classList.add("coach-target");
}

/** What the bubble should leave free, with how much covering it costs: the control pointed
 *  at, the controls, the trick and (while cards are chosen) the hand it must never cover;
 *  the rest of the table it had better not (the status, the seats, the Tapp, the bar, the
 *  bidding help, the log), so that it settles on the empty felt near its control. */
function keepFree() {
  const view = table.view;
  const choosing = mine(view) && ["discard", "play"].includes(view.phase);
  const never = [target, $("controls"), choosing ? $("hand") : null];
  if (view.phase === "play" || $("trick").childElementCount) never.push($("trick"));
  const rather = [$("status"), $("tapp"), $("hand"), $("bid-help"), $("trump-marker"), $("meld-reveal"), $("tutorial-offer"),
    $("log-panel"), document.querySelector(".game-bar"), ...document.querySelectorAll(".seat")];
  const rects = (els, weight) => els.filter((el) => el && !el.hidden && el.getClientRects().length)
    .map((el) => ({ rect: el.getBoundingClientRect(), weight })).filter(({ rect }) => rect.width && rect.height);
  return [...rects(never, 100), ...rects(rather, 0.05)];
}

const overlap = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));

/** Put the bubble where it covers the least of what must stay free, nearest to its control. */
function place() {
  const el = $("coach");
  if (!el || !target || el.classList.contains("in-dialog")) return;
  const w = el.offsetWidth, h = el.offsetHeight, vw = document.documentElement.clientWidth, vh = innerHeight;
  const free = keepFree();
  const goal = target.getBoundingClientRect();
  const centre = { x: goal.left + goal.width / 2, y: goal.top + goal.height / 2 };
  const xs = [centre.x - w / 2, goal.left - w - 12, goal.right + 12];
  for (let x = 8; x < vw - w; x += 48) xs.push(x);
  const fits = (x) => Math.round(Math.max(8, Math.min(vw - w - 8, x)));
  let best = null;
  for (const x of new Set(xs.map(fits))) {
    for (let y = 4; y <= Math.max(4, vh - h - 4); y += 4) {
      const spot = { left: x, top: y, right: x + w, bottom: y + h };
      const covered = free.reduce((sum, { rect, weight }) => sum + overlap(spot, rect) * weight, 0);
      const cost = covered + Math.abs(y + h / 2 - centre.y) + Math.abs(x + w / 2 - centre.x) / 4;
      if (!best || cost < best.cost) best = { cost, x, y };
    }
  }
  el.style.left = `${best.x}px`;
  el.style.top = `${best.y}px`;
}

