// After a deal: every number explained (appended to the result dialog), and the deal
// review — step through the tricks with all hands open and see where the hard bot would
// have played differently, with its estimated cost. Also for uploaded record files.
// The server computes it all from finished deals only (GET /api/games/{id}/review).

import { t, escape, number, cardText, suitName, newDialog, dialogHead } from "./i18n.js";
import { cardElement, cardChip, sortHand } from "./cards.js";
import { tokenOf } from "./seats.js";
import * as model from "./model.js";

const $ = (id) => document.getElementById(id);
const signed = (n) => (n > 0 ? "+" : n < 0 ? "−" : "") + number(Math.abs(n));
const chips = (cards, deck) => cards.map((c) => cardChip(c, deck)).join("");

const cache = new Map();  // "id:deal:seat" -> the review (a failure too: asked once, never in a loop)

/** The review of a table's finished deal ``deal``: of ``seat``'s decisions, or (``seat``
 *  null: a spectator) of the public record from the soloist's seat, as the server chooses. */
function fetchReview(gameId, deal, seat) {
  const key = `${gameId}:${deal}:${seat ?? ""}`;
  if (!cache.has(key)) {
    const promise = (async () => {
      const query = new URLSearchParams({ deal: String(deal) });
      if (seat != null) query.set("seat", String(seat));
      const token = tokenOf(gameId);
      const response = await fetch(`/api/games/${encodeURIComponent(gameId)}/review?${query}`,
        token ? { headers: { Authorization: `Bearer ${token}` } } : {});
      const body = await response.json();
      if (!response.ok) throw new Error(body.code ? t(`error.${body.code}`, body.params) : response.statusText);
      return body;
    })();
    promise.catch(() => {});  // kept: the button shows the failure, nothing asks again by itself
    cache.set(key, promise);
  }
  return cache.get(key);
}

// ------------------------------------------------------------------ explaining the numbers

/** The lines that say how each score of a finished deal came about. */
export function explainHtml(explain, names, deck, columns) {
  const seatLine = (s) => {
    const parts = [];
    if (s.melds) parts.push(s.counts ? t("explain_melds", { points: number(s.melds) }) : `<span class="void">${t("explain_melds_void", { points: number(s.melds) })}</span>`);
    parts.push(t("explain_cards", { n: s.tricks, points: number(s.trick_points) }));
    if (s.last_trick) parts.push(t("explain_last", { points: number(s.last_trick) }));
    if (s.discard) parts.push(t("explain_discard", { points: number(s.discard) }));
    return `<li><b>${escape(names[s.seat])}</b>: ${parts.join(" · ")}</li>`;
  };
  const unitLine = (u) => {
    const name = columns.find((c) => c.seats.includes(u.seats[0]))?.name ?? names[u.seats[0]];
    const have = explain.units.find((x) => x.seats.includes(explain.soloist))?.points ?? 0;
    const how = {
      sum: t("explain_sum", { points: signed(u.raw) }),
      doubled: t("explain_doubled", { bid: number(explain.bid), have: number(have), points: signed(u.raw) }),
      surrender: u.seats.includes(explain.soloist) ? t("explain_surrender_solo", { points: signed(u.raw) })
        : t("explain_surrender_def", { credit: number(u.credit), points: signed(u.raw) }),
      credit: t("explain_credit", { credit: number(u.credit), points: signed(u.raw) }),
      contract: t("explain_contract", { points: signed(u.raw) }),
      redeal: t("explain_sum", { points: signed(0) }),
    }[u.rule];
    const rounded = u.raw !== u.score ? ` ${t("explain_rounded", { points: signed(u.score) })}` : "";
    return `<li class="unit" data-testid="explain-unit"><b>${escape(name)}</b>${u.seats.length > 1 ? ` (${t("explain_team")})` : ""}: ${how}${rounded}</li>`;
  };
  const reveal = [];
  if (explain.tapp?.length) reveal.push(`<li data-testid="explain-tapp">${t("explain_tapp")} ${chips(explain.tapp, deck)}</li>`);
  if (explain.discard?.length) reveal.push(`<li data-testid="explain-discarded">${t("explain_discarded", { points: number(explain.discard_points) })} ${chips(explain.discard, deck)}</li>`);
  return `<details class="explain" data-testid="explain" open><summary>${t("explain_title")}</summary>` +
    `<ul>${explain.seats.filter((s) => explain.units.some((u) => u.seats.includes(s.seat))).map(seatLine).join("")}</ul>` +
    `<ul>${explain.units.map(unitLine).join("")}</ul>` + (reveal.length ? `<ul>${reveal.join("")}</ul>` : "") + `</details>`;
}

/** Watch the result dialog: when a finished deal is shown, add its explanation and one
 *  review button (the dialog is redrawn on a language change: then both are added again,
 *  from the review already fetched). */
export function watchResults(getTable) {
  const result = $("result");
  new MutationObserver(async () => {
    if (result.querySelector(".explain-slot")) return;
    const table = getTable();
    const msg = table.msg;
    if (!msg || msg.view.phase !== "over" || msg.view.soloist == null) return;
    // Added before anything awaits: every later mutation of the dialog finds the slot.
    const slot = Object.assign(document.createElement("div"), { className: "explain-slot" });
    const row = result.querySelector(".row");
    result.insertBefore(slot, row);
    const deal = msg.game.deal_number - 1;
    const gameId = table.gameId;
    const seat = table.mySeat;  // null: a spectator, who reviews the public record
    const load = () => fetchReview(gameId, deal, seat);
    const button = Object.assign(document.createElement("button"), { type: "button", className: "secondary" });
    button.textContent = t("review_button");
    button.setAttribute("data-testid", "review-button");
    button.addEventListener("click", () => openReview(load, table.deck));
    (row ?? result).append(button);
    try {
      const review = await load();
      slot.innerHTML = explainHtml(review.explain, msg.game.players, table.deck, model.scoreColumns(msg.game));
    } catch { slot.hidden = true; }  // hidden, not removed: a removal would start all this again
  }).observe(result, { childList: true });
}

// ------------------------------------------------------------------ the review dialog

function dialog() {
  let el = $("review-dialog");
  if (!el) {
    el = newDialog("review", "wide review");
    el.innerHTML = dialogHead("review", t("review_title")) + `<div id="review-body" data-testid="review-body"></div>`;
  }
  return el;
}

/** Open the review of one deal; ``load`` gives the server's review. */
export async function openReview(load, deck) {
  const el = dialog();
  const body = el.querySelector("#review-body");
  body.innerHTML = `<p class="hint-text">${t("review_loading")}</p>`;
  if (!el.open) el.showModal();
  let review;
  try { review = await load(); } catch (e) { body.innerHTML = `<p class="error">${escape(e.message)}</p>`; return; }
  let at = 0;  // the trick shown
  const names = review.players ?? review.names ?? [];
  const last = Math.max(0, review.tricks.length - 1);
  const go = (to) => {
    at = Math.max(0, Math.min(last, to));
    body.innerHTML = reviewHtml(review, at, deck, names);
    // Keyboard users keep their place: the control they used, or the trick's mark.
    const again = el.querySelector(`[data-testid="${CSS.escape(document.activeElement?.dataset?.testid ?? "")}"]:not([disabled])`);
    (again ?? body.querySelector(".review-dots .here"))?.focus({ preventScroll: true });
  };
  const draw = () => { body.innerHTML = reviewHtml(review, at, deck, names); };
  body.onclick = (e) => {
    const target = e.target.closest("[data-step], [data-goto]");
    if (!target) return;
    if (target.dataset.goto != null) go(Number(target.dataset.goto));
    else go(at + Number(target.dataset.step));
  };
  el.onkeydown = (e) => {
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: last }[e.key];
    if (to == null || e.target.closest?.("input, select, textarea, summary")) return;
    go(to);
    e.preventDefault();
  };
  draw();
}

function reviewHtml(review, at, deck, names) {
  const name = (seat) => escape(names[seat] ?? String(seat + 1));
  const other = review.spectator ? { name: name(review.seat) } : null;  // a spectator reviews the soloist's play
  const say = (key, params) => (other ? t(`${key}_other`, { ...params, ...other }) : t(key, params));
  const plays = review.decisions.filter((d) => d.phase === "play");
  const differ = plays.filter((d) => d.cost != null && d.best !== d.played);
  const cost = differ.reduce((sum, d) => sum + d.cost, 0);
  const summary = `<p class="review-summary" data-testid="review-summary">${say("review_summary", { n: number(differ.length), total: number(plays.length), cost: number(Math.round(cost)) })}</p>` +
    (differ.length ? `<details class="review-about" data-testid="review-cost-about"><summary>${t("review_cost_what")}</summary><p>${t("review_cost_about")}</p></details>` : "");
  const calls = decisionsHtml(review, deck, say);
  if (!review.tricks.length) return summary + calls + `<p>${t("review_no_tricks")}</p>`;
  // The hands at the start of trick ``at``: the hands at the first trick minus the cards played since.
  const hands = review.play_hands.map((h) => [...h]);
  review.tricks.slice(0, at).forEach((trick) => trick.cards.forEach((card, i) => {
    const seat = trick.seats[i];
    const k = hands[seat].indexOf(card);
    if (k >= 0) hands[seat].splice(k, 1);
  }));
  const trick = review.tricks[at];
  const trump = model.isSuit(review.explain.game) ? review.explain.game : null;
  const seats = hands.map((hand, seat) => `<div class="review-seat${seat === review.seat ? " own" : ""}"><span class="name">${name(seat)}</span>` +
    `<span class="review-hand">${sortHand(hand, trump).map((c) => cardChip(c, deck)).join("")}</span></div>`).join("");
  const cards = trick.cards.map((card, i) => {
    const seat = trick.seats[i];
    return `<li><figure class="${seat === trick.winner ? "winner" : ""}">${cardElement(card, deck).outerHTML}<figcaption>${name(seat)}${seat === trick.winner ? ` <span aria-hidden="true">★</span><span class="visually-hidden">${t("trick_winner")}</span>` : ""}</figcaption></figure></li>`;
  }).join("");
  const mine = plays.find((d) => d.trick === at);
  let note = "";
  if (mine) {
    const card = escape(cardText(mine.played, deck).name);
    note = mine.best === mine.played || mine.cost == null
      ? `<p class="review-note agree" data-testid="review-note">${say("review_agree", { card })}</p>`
      : `<p class="review-note differ" data-testid="review-note">${say("review_differ", { card, best: escape(cardText(mine.best, deck).name), cost: number(mine.cost) })}</p>`;
  }
  // The timeline: one mark per trick, a button that shows it (red: a card the bot would not have played).
  const bad = new Set(plays.filter((d) => d.cost > 0 && d.best !== d.played).map((d) => d.trick));
  const marks = review.tricks.map((_, i) => {
    const label = t("review_trick", { n: i + 1, total: review.tricks.length }) + (bad.has(i) ? ` — ${t("review_trick_differs")}` : "");
    return `<button type="button" class="dot${bad.has(i) ? " bad" : ""}${i === at ? " here" : ""}" data-goto="${i}" data-testid="review-dot-${i}" aria-label="${escape(label)}" title="${escape(label)}"${i === at ? ` aria-current="step"` : ""}></button>`;
  }).join("");
  return summary + calls + `<div class="review-nav"><button type="button" class="secondary" data-step="-1" data-testid="review-prev" ${at === 0 ? "disabled" : ""}>${t("review_prev")}</button>` +
    `<span data-testid="review-position" aria-live="polite">${t("review_trick", { n: at + 1, total: review.tricks.length })}</span>` +
    `<button type="button" class="secondary" data-step="1" data-testid="review-next" ${at === review.tricks.length - 1 ? "disabled" : ""}>${t("review_next")}</button></div>` +
    `<div class="review-dots" role="group" aria-label="${escape(t("review_timeline"))}">${marks}</div><div class="review-hands">${seats}</div>` +
    `<ul class="last-trick-cards" aria-label="${escape(t("review_trick", { n: at + 1, total: review.tricks.length }))}">${cards}</ul>` + note;
}

/** What an action was, in words ("Bid 170", "Pass", "hearts as trump", "Ace of spades"). */
function actionWords(action, deck) {
  if (action === "pass") return t("pass");
  if (/^\d+$/.test(action)) return t("bid_n", { bid: number(Number(action)) });
  if (["S", "H", "D", "C"].includes(action)) return t("trump_suit", { suit: suitName(action, deck) });
  if (action === "take") return t("take_tapp");
  if (action === "surrender") return t("surrender");
  if (action === "play") return t("play_on");
  if (/^[ATKQJ97][SHDC]$/.test(action)) return cardText(action, deck).name;
  return t(`game.${action}`);
}

/** The decisions before the play (bidding, the Tapp, laying away, trump, surrender), each
 *  with the strong computer's choice from the same view. */
function decisionsHtml(review, deck, say) {
  const before = review.decisions.filter((d) => d.phase !== "play");
  if (!before.length) return "";
  const lines = before.map((d) => {
    const params = { phase: t(`review_phase.${d.phase}`), played: escape(actionWords(d.played, deck)), best: escape(actionWords(d.best, deck)) };
    const agree = d.best === d.played;
    return `<li class="${agree ? "agree" : "differ"}" data-testid="review-decision">${say(agree ? "review_call_agree" : "review_call_differ", params)}</li>`;
  }).join("");
  return `<details class="review-decisions" data-testid="review-decisions"><summary>${t("review_before_play")}</summary><ul>${lines}</ul></details>`;
}

// ------------------------------------------------------------------ an uploaded record

/** The start page's "review a saved game": a binokel-game/1 file, reviewed for seat 0. */
export function bindUpload() {
  const input = $("review-upload");
  if (!input) return;
  input.addEventListener("change", async () => {
    const file = input.files?.[0];
    if (!file) return;
    const deck = document.body.dataset.deck || "french";
    openReview(async () => {
      const record = JSON.parse(await file.text());
      const response = await fetch("/api/review", { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ record, seat: 0 }) });
      const body = await response.json();
      if (!response.ok) throw new Error(body.error || response.statusText);
      return body;
    }, deck);
    input.value = "";
  });
}
