// Marks on the table that must always be seen: the trump suit (and who plays it), the
// "why not" tooltip of a card kept on screen, and an answer to a click out of turn.

import { t, escape, suitName, number } from "./i18n.js";
import { suitIcon } from "./cards.js";
import * as model from "./model.js";
import { gameLabel } from "./sheet.js";

const $ = (id) => document.getElementById(id);

/** The trump (or the game without trump) and the soloist, above the trick. */
export function renderMarks(table) {
  const view = table.view;
  let el = $("trump-marker");
  if (!el) {
    el = Object.assign(document.createElement("div"), { id: "trump-marker", className: "trump-marker" });
    el.setAttribute("data-testid", "trump-marker");
    $("centre").prepend(el);  // the centre's first line: between the opponents, never over them
  }
  const show = view.game != null && view.soloist != null && ["surrender", "play", "over"].includes(view.phase);
  el.hidden = !show;
  if (!show) return;
  const game = model.isSuit(view.game)
    ? `<span class="what">${t("trump")}</span> ${suitIcon(view.game, table.deck)} <b>${escape(suitName(view.game, table.deck))}</b>`
    : `<b>${gameLabel(view.game, table.deck)}</b>`;
  el.innerHTML = `${game}<span class="who">★ ${escape(table.names[view.soloist])} · ${number(view.bid)}</span>`;
}

/** Why a card cannot be played now, when no rule of the trick is the reason (not my turn,
 *  or not the time for cards at all). */
export function notNowText(view, names) {
  if (view.phase === "play" && view.to_move !== view.seat) return t("not_now.wait", { name: names[view.to_move] ?? "" });
  if (view.phase === "discard" && view.to_move === view.seat) return "";
  const key = `not_now.${view.phase}`;
  const text = t(key);
  return text === key ? t("not_now.other") : text;
}

// ------------------------------------------------------------------ the "why not" tooltip

const tip = Object.assign(document.createElement("div"), { id: "why-tip", className: "why-tip", hidden: true });
tip.setAttribute("data-testid", "why-tip");
tip.setAttribute("role", "tooltip");
document.body.append(tip);

let tipCard = null;

function showTip(card) {
  const why = card?.dataset.why;
  tipCard = why ? card : null;
  if (!why) { tip.hidden = true; return; }
  if (card.title) card.removeAttribute("title");  // no second, native tooltip
  tip.textContent = why;
  tip.hidden = false;
  const margin = 6;
  const width = Math.min(tip.offsetWidth, window.innerWidth - 2 * margin);
  const box = card.getBoundingClientRect();
  const left = Math.max(margin, Math.min(window.innerWidth - width - margin, box.left + box.width / 2 - width / 2));
  const top = Math.max(margin, box.top - tip.offsetHeight - 8);
  tip.style.left = `${left}px`;
  tip.style.top = `${top}px`;
}

const hand = $("hand");
hand.addEventListener("pointerover", (e) => { if (e.pointerType !== "touch") showTip(e.target.closest(".card")); });
hand.addEventListener("pointerleave", () => { tip.hidden = true; });
// Keyboard focus only: a tapped card's reason is said once, by the message (not also by a tip).
hand.addEventListener("focusin", (e) => { if (e.target.matches?.(":focus-visible")) showTip(e.target.closest(".card")); });
hand.addEventListener("focusout", () => { tip.hidden = true; });
new MutationObserver(() => { tip.hidden = true; }).observe(hand, { childList: true });
window.addEventListener("scroll", () => { if (!tip.hidden && tipCard?.isConnected) showTip(tipCard); }, { passive: true });
