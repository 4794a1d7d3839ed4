// How big the cards are and where they lie: the hand and the trick are sized from the
// screen (phone first, then wider), and a hand that would leave less than 36 px of each
// card visible is laid out in two rows, so that every card keeps a tap target of at least
// 36 x 48 px. Pure geometry in handLayout (tested in node); fitTable applies it.

import { settings, onSettings } from "./settings.js";

const MIN_STRIP = 36;  // px of each card that stays visible (the tap target's width)
const SIZE = { small: 0.86, normal: 1, large: 1.16 };

/** Is this a phone held either way (the table's compact layout)? */
export const phoneSized = (width = innerWidth, height = innerHeight) => width <= 640 || height <= 500;

/** Where the cards of a hand go: card width ``cw``, the rows, and each card's x and y.
 *  ``width``: the room for the hand; ``height``: the screen's height; ``count``: cards.
 *  For example 15 cards on a 360 x 640 phone (344 px of room) lie in two rows of 8 and 7,
 *  on a 1366 x 768 screen in one row. */
export function handLayout({ width, height, count, size = 1, phone = phoneSized(width + 16, height) }) {
  const n = Math.max(count, 1);
  // One row: a card at most a fifth of the screen's height, at least 40 % of each card visible.
  const share = phone && height > 500 ? 0.2 : 0.19;
  const tall = Math.min(height * share / 1.5 * size, 170);
  const oneRow = Math.min(tall, width / (1 + 0.4 * (n - 1)), width - MIN_STRIP * (n - 1));
  let rows = 1, cw = oneRow;
  if (n > 1 && oneRow < Math.min(tall, 56) - 1) {  // a row would starve the cards: two rows
    // Two rows that overlap: together at most a quarter of the screen's height.
    rows = 2;
    const per = Math.ceil(n / 2);
    const twoTall = Math.min(height * 0.25 / (1.5 * 1.55) * size, 150);
    cw = Math.min(twoTall, width / (1 + 0.4 * (per - 1)), width - MIN_STRIP * (per - 1));
  }
  cw = Math.max(32, Math.floor(cw));
  const h = Math.round(cw * 1.5);
  const rowStep = rows > 1 ? Math.max(52, Math.round(h * 0.55)) : 0;
  const spots = [];
  const perRow = Math.ceil(n / rows);
  for (let row = 0; row < rows; row++) {
    const inRow = Math.min(perRow, count - row * perRow);
    if (inRow <= 0) break;
    // Spread over the width, but no wider apart than 62 % of a card (a hand, not a row of cards) or 42 px.
    const step = inRow > 1 ? Math.min((width - cw) / (inRow - 1), Math.max(cw * 0.62, MIN_STRIP + 6), cw + 4) : 0;
    const used = cw + step * (inRow - 1);
    const x0 = Math.max(0, (width - used) / 2);
    for (let i = 0; i < inRow; i++) spots.push({ x: Math.round(x0 + i * step), y: row * rowStep });
  }
  return { cw, height: h + rowStep * (rows - 1), rows, spots };
}

/** The trick's card width from the screen: larger on larger screens. */
export function trickWidth(width, height) {
  if (height <= 500) return Math.max(36, Math.min(64, Math.round(height * 0.13)));
  return Math.max(44, Math.min(150, Math.round(Math.min(width / 5.5, height * (phoneSized(width, height) ? 0.09 : 0.12)))));
}

/** Lay out the hand and size the trick for this screen; called after every render and resize. */
export function fitTable() {
  const hand = document.getElementById("hand");
  if (!hand || !hand.isConnected || hand.offsetParent === null) return;
  const cards = [...hand.querySelectorAll(".card")];
  const size = SIZE[settings().cardSize] ?? 1;
  if (!cards.length) {  // a spectator (or a deal not dealt yet): the hand takes no room
    hand.style.height = "0px";
    fitTrick(size);
    return;
  }
  const style = getComputedStyle(hand);
  // The room beside the hand; never wider than the screen (a wide hand must not widen the page).
  const room = Math.min(hand.parentElement.clientWidth, window.visualViewport?.width ?? innerWidth);
  const width = room - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
  placeHand(hand, cards, handLayout({ width, height: innerHeight, count: cards.length, size }), width);
  fitTrick(size);
  // Still taller than the screen (the trump buttons, the bidding help): smaller cards in the hand.
  const over = document.scrollingElement.scrollHeight - innerHeight;
  if (over > 0) placeHand(hand, cards, handLayout({ width, height: Math.max(200, innerHeight - over * 4.5), count: cards.length, size }), width);
}

function placeHand(hand, cards, layout, width) {
  const root = document.documentElement;
  hand.style.setProperty("--cw", `${layout.cw}px`);
  root.style.setProperty("--cw", `${layout.cw}px`);
  hand.classList.add("laid-out");
  hand.dataset.rows = layout.rows;
  const lift = Math.round(layout.cw * 0.26);  // room above the cards for a raised one
  hand.style.height = `${layout.height + lift}px`;
  hand.style.width = `${width}px`;
  cards.forEach((card, i) => {
    const spot = layout.spots[i];
    card.style.left = `${spot.x}px`;
    card.style.top = `${spot.y + lift}px`;
    card.style.zIndex = String(i + 1);
  });
}

/** The trick as large as the room the screen leaves it: the page never needs to scroll for it. */
function fitTrick(size) {
  const root = document.documentElement;
  const felt = document.getElementById("felt"), trick = document.getElementById("trick");
  const page = document.scrollingElement;
  let cwt = Math.round(trickWidth(innerWidth, innerHeight) * Math.min(size, 1.05));
  root.style.setProperty("--cw-trick", `${cwt}px`);
  if (!felt || !trick || trick.offsetParent === null) return;
  const over = page.scrollHeight - innerHeight;  // what sticks out below the screen
  if (over > 0) {
    const ratio = trick.offsetHeight / cwt;  // the trick's height in card widths (3, 4 or 6 seats)
    cwt = Math.max(34, Math.floor(cwt - over / ratio) - 1);
    root.style.setProperty("--cw-trick", `${cwt}px`);
  }
}

let queued = false;
/** fitTable at the next frame (many renders in a row lay out once). */
export function refit() {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => { queued = false; fitTable(); });
}

addEventListener("resize", refit);
onSettings(refit);

/** A panel over the table (the chat; the log as a drawer) is like a dialog for the keyboard:
 *  opened, the focus goes to ``into``; closed, back to what opened it (``fallback`` when that
 *  is gone: a closed menu's item), if the focus was inside (else it stays where it went). */
export function panelFocus(panel, open, into, fallback) {
  if (open) {
    panel.opener = document.activeElement;
    into.focus({ preventScroll: true });
  } else if (panel.contains(document.activeElement)) {
    (panel.opener?.offsetParent ? panel.opener : fallback).focus();
  }
}
