// Keyboard play: the hand is one tab stop (arrows move inside it, Enter plays or picks a
// card), and single-key shortcuts for the rest; "?" shows them all.

import { t, newDialog, dialogHead } from "./i18n.js";

const $ = (id) => document.getElementById(id);

/** The shortcuts: key, what it does (a string key), and the action. */
function shortcuts(table) {
  const click = (selector) => () => { const el = document.querySelector(selector); if (el && !el.disabled) { el.click(); return true; } return false; };
  const focus = (selector) => () => { const el = document.querySelector(selector); if (el) { el.focus(); return true; } return false; };
  return [
    ["k", "keys.hand", () => focusHand()],
    ["c", "keys.controls", focus("#controls button:not([disabled])")],
    ["p", "keys.pass", click('#controls [data-testid="action-pass"]')],
    ["b", "keys.bid", click('#controls [data-testid="action-bid"]')],
    ["+", "keys.higher", click('#controls [data-testid="bid-up"]')],
    ["-", "keys.lower", click('#controls [data-testid="bid-down"]')],
    ["d", "keys.discard", click('#controls [data-testid="confirm-discard"]')],
    ["h", "keys.hint", click("#hint-button")],
    ["l", "keys.last_trick", click("#last-trick-button")],
    ["s", "keys.sheet", click("#sheet-button")],
    ["g", "keys.log", click("#log-button")],
    ["n", "keys.next", () => click('[data-testid="result-next-deal"]')() || click('[data-testid="next-deal"]')()],
    ["?", "keys.help", () => showHelp(table)],
  ];
}

/** Go to the hand: its first playable card (on my turn), else its first card. */
export function focusHand() {
  const cards = [...$("hand").querySelectorAll(".card")];
  const card = cards.find((c) => c.classList.contains("legal") && $("hand").classList.contains("active")) || cards[0];
  card?.focus();
  return Boolean(card);
}

/** Only one card of the hand is in the tab order: the focused one, else a playable one. */
function rove() {
  const hand = $("hand");
  const cards = [...hand.querySelectorAll(".card")];
  if (!cards.length) return;
  const current = cards.find((c) => c === document.activeElement) || cards.find((c) => c.classList.contains("legal")) || cards[0];
  for (const card of cards) card.tabIndex = card === current ? 0 : -1;
}

function showHelp(table) {
  let el = $("keys-dialog");
  if (!el) el = newDialog("keys", "keys");
  const rows = shortcuts(table).map(([key, what]) => `<tr><th><kbd>${key}</kbd></th><td>${t(what)}</td></tr>`).join("");
  el.innerHTML = dialogHead("keys", t("keys.title")) +
    `<p>${t("keys.intro")}</p><table class="keys-table"><tbody>` +
    `<tr><th><kbd>←</kbd> <kbd>→</kbd></th><td>${t("keys.arrows")}</td></tr><tr><th><kbd>Enter</kbd></th><td>${t("keys.enter")}</td></tr>` +
    rows + `</tbody></table>`;
  if (!el.open) el.showModal();
  return true;
}

export function bindKeyboard(table) {
  const hand = $("hand");
  new MutationObserver(rove).observe(hand, { childList: true });
  hand.addEventListener("focusin", rove);
  hand.addEventListener("keydown", (e) => {
    if (e.key === "ArrowUp" || e.key === "ArrowDown") {  // up/down move too (a phone keyboard, a remote)
      hand.dispatchEvent(new KeyboardEvent("keydown", { key: e.key === "ArrowUp" ? "ArrowRight" : "ArrowLeft", bubbles: false }));
      e.preventDefault();
    }
  });
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    const target = e.target;
    if (target.closest?.("input, select, textarea, [contenteditable]")) return;
    const open = document.querySelector("dialog[open]");
    if (open && !(e.key === "n" && open.id === "result-dialog")) return;
    if (document.body.dataset.page !== "table" && e.key !== "?") return;
    const entry = shortcuts(table).find(([key]) => key === e.key);
    if (entry && entry[2]() !== false) e.preventDefault();
  });
}
