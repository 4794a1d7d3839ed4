// Bidding help: while it is my turn in the auction, what my hand is worth — the melds per
// trump, the points already certain, a safe bid range and how far the hard bot would go.
// Computed by the server from my own view (GET /api/games/{id}/advice); no rules here.

import { t, number } from "./i18n.js";
import { namedSuit } from "./cards.js";
import { tokenOf } from "./seats.js";

const $ = (id) => document.getElementById(id);
let asked = null;  // the auction state the shown help belongs to
let last = null;  // the last call's arguments: the help is redrawn in a new language or deck

function box() {
  let el = $("bid-help");
  if (!el) {
    // Open on wide screens; on a phone one line that opens when tapped (the table must fit).
    el = Object.assign(document.createElement("details"), { id: "bid-help", className: "bid-help", open: !matchMedia("(max-width: 640px), (max-height: 500px)").matches });
    el.setAttribute("data-testid", "bid-help");
    $("controls").after(el);
  }
  return el;
}

/** A new state message: ask for help at my turn in the auction; hide it otherwise. */
export async function updateAdvice(msg, gameId, deck) {
  last = [msg, gameId, deck];
  const view = msg.view;
  const el = box();
  const mine = view.phase === "auction" && view.to_move === view.seat && view.seat != null;
  if (!mine) { el.hidden = true; asked = null; return; }
  const key = `${gameId}:${msg.game.deal_number}`;
  el.hidden = false;
  if (asked === key) return;  // the hand does not change during the auction
  asked = key;
  el.innerHTML = `<summary>${t("advice_title")}</summary><div><p class="hint-text">${t("advice_loading")}</p></div>`;
  let help = null;
  try {
    const response = await fetch(`/api/games/${encodeURIComponent(gameId)}/advice`, {
      headers: { Authorization: `Bearer ${tokenOf(gameId) ?? ""}` },
    });
    if (response.ok) help = (await response.json()).bidding;
  } catch { /* offline: no help */ }
  if (asked !== key) return;
  if (!help) { el.hidden = true; return; }
  const melds = ["S", "H", "D", "C"].map((s) => `<span class="meld-option">${namedSuit(s, deck)} <b>${number(help.melds[s])}</b></span>`).join("");
  const lines = [
    `<p><span class="what">${t("advice_melds")}</span> ${melds}</p>`,
    `<p data-testid="advice-certain">${t("advice_certain", { points: number(help.certain) })}</p>`,
  ];
  if (help.safe) lines.push(`<p data-testid="advice-safe">${t("advice_safe", { low: number(help.safe[0]), high: number(help.safe[1]), estimate: number(help.estimate) })}</p>`);
  lines.push(`<p data-testid="advice-limit">${help.limit != null ? t("advice_limit", { limit: number(help.limit) }) : t("advice_pass")}</p>`);
  el.innerHTML = `<summary>${t("advice_title")}</summary><div>${lines.join("")}</div>`;
}

/** The language or the deck changed: the help is asked again and drawn in the new words. */
export function refreshAdvice(deck) {
  if (!last) return;
  asked = null;
  updateAdvice(last[0], last[1], deck ?? last[2]);
}
