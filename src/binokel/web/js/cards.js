// Card faces drawn as SVG, for the French-suited and the German-suited (Württemberg) deck.
// Cards are canonical text: rank letter (A T K Q J 9 7) + suit letter (S H D C).

import { cardText, suitName } from "./i18n.js";

export const SUITS = ["S", "H", "D", "C"];
export const RANKS = ["A", "T", "K", "Q", "J", "9", "7"];

export const rankOf = (card) => card[0];
export const suitOf = (card) => card[1];
/** The points of ``cards`` by the values the server sends with a view (``rank_points``): the page holds none of its own. */
export const points = (cards, rankPoints) => cards.reduce((sum, c) => sum + rankPoints[rankOf(c)], 0);

// Suit symbols, each drawn in a 100 x 100 box.
const FRENCH = {
  S: { color: "#1b1b1f", body: "#2b3a67",
       svg: (c) => `<path fill="${c}" d="M50 4C60 26 95 40 95 63C95 78 83 87 70 87C62 87 56 83 53 78C54 87 58 93 66 97H34C42 93 46 87 47 78C44 83 38 87 30 87C17 87 5 78 5 63C5 40 40 26 50 4Z"/>` },
  H: { color: "#c8102e", body: "#a4161a",
       svg: (c) => `<path fill="${c}" d="M50 92C20 68 4 50 4 30C4 15 16 5 29 5C39 5 46 11 50 20C54 11 61 5 71 5C84 5 96 15 96 30C96 50 80 68 50 92Z"/>` },
  D: { color: "#c8102e", body: "#c05621",
       svg: (c) => `<path fill="${c}" d="M50 2L88 50L50 98L12 50Z"/>` },
  C: { color: "#1b1b1f", body: "#276749",
       svg: (c) => `<g fill="${c}"><circle cx="50" cy="27" r="20"/><circle cx="27" cy="58" r="20"/><circle cx="73" cy="58" r="20"/><path d="M45 50H55C55 75 60 89 69 97H31C40 89 45 75 45 50Z"/></g>` },
};

const GERMAN = {
  // Laub (leaves)
  S: { color: "#2f7d32", body: "#2f7d32",
       svg: () => `<path fill="#3f9a3f" stroke="#1b4d1d" stroke-width="4" d="M50 4C82 22 94 52 78 78C70 90 60 94 50 94C40 94 30 90 22 78C6 52 18 22 50 4Z"/><path fill="none" stroke="#1b4d1d" stroke-width="4" d="M50 14V99M50 40L30 28M50 40L70 28M50 60L26 48M50 60L74 48M50 78L32 70M50 78L68 70"/>` },
  // Herz (hearts)
  H: { color: "#c8102e", body: "#b91c1c",
       svg: () => `<path fill="#d62828" stroke="#7a0c0c" stroke-width="4" d="M50 92C20 68 5 50 5 31C5 16 17 6 30 6C40 6 46 12 50 21C54 12 60 6 70 6C83 6 95 16 95 31C95 50 80 68 50 92Z"/><path fill="#ffffff" opacity=".35" d="M20 30C20 22 26 16 33 16C28 20 25 26 25 34Z"/>` },
  // Schellen (bells)
  D: { color: "#b7791f", body: "#c2410c",
       svg: () => `<circle cx="50" cy="12" r="7" fill="none" stroke="#7a4b00" stroke-width="4"/><circle cx="50" cy="55" r="38" fill="#f2c12e" stroke="#7a4b00" stroke-width="4"/><path d="M13 47H87" stroke="#c8102e" stroke-width="9"/><circle cx="50" cy="74" r="7" fill="#4a2c00"/><path d="M50 76V92" stroke="#4a2c00" stroke-width="5"/>` },
  // Eichel (acorns)
  C: { color: "#7a4a16", body: "#7a4a16",
       svg: () => `<path d="M50 26C50 14 56 8 64 4" fill="none" stroke="#3e2308" stroke-width="6"/><ellipse cx="50" cy="64" rx="25" ry="32" fill="#d9a441" stroke="#6b4410" stroke-width="4"/><path d="M20 50C20 24 80 24 80 50C80 57 20 57 20 50Z" fill="#8a5a1c" stroke="#3e2308" stroke-width="4"/><path d="M30 36L70 48M30 48L70 36" stroke="#3e2308" stroke-width="2.5"/>` },
};

const DECKS = { french: FRENCH, german: GERMAN };
const suitStyle = (suit, deck) => (DECKS[deck] || FRENCH)[suit];

/** A suit symbol placed at (x, y) with the given size (top-left corner). */
function pip(suit, deck, x, y, size, flip = false) {
  const style = suitStyle(suit, deck);
  const scale = size / 100;
  const rotate = flip ? ` rotate(180 50 50)` : "";
  return `<g transform="translate(${x} ${y}) scale(${scale})${rotate}">${style.svg(style.color)}</g>`;
}

/** A small inline SVG of one suit, for buttons, melds and the score sheet. */
export function suitIcon(suit, deck) {
  return `<svg class="suit-icon" viewBox="0 0 100 100" aria-hidden="true">${suitStyle(suit, deck).svg(suitStyle(suit, deck).color)}</svg>`;
}

// Where the pips of the number cards go, in a 100 x 150 card.
const PIPS = {
  T: [[32, 36], [68, 36], [50, 50], [32, 64], [68, 64], [32, 92], [68, 92], [50, 106], [32, 120], [68, 120]],
  9: [[32, 36], [68, 36], [32, 64], [68, 64], [50, 78], [32, 92], [68, 92], [32, 120], [68, 120]],
  7: [[32, 40], [68, 40], [50, 58], [32, 78], [68, 78], [32, 114], [68, 114]],
};

function figure(rank, suit, deck) {
  const style = suitStyle(suit, deck);
  const body = style.body;
  const german = deck === "german";
  const head = `<circle cx="50" cy="62" r="11" fill="#f6d7b8" stroke="#5b3a1e" stroke-width="1.5"/>`;
  const torso = `<path d="M26 122C26 94 35 80 50 78C65 80 74 94 74 122Z" fill="${body}" stroke="#222" stroke-width="1.5"/>` +
    `<path d="M50 80V122" stroke="#f3e3a3" stroke-width="3"/><path d="M30 104H70" stroke="#f3e3a3" stroke-width="3"/>`;
  let hat = "";
  if (rank === "K") {
    hat = `<path d="M37 54V39L44 46L50 35L56 46L63 39V54Z" fill="#f2c12e" stroke="#7a4b00" stroke-width="1.5"/>`;
  } else if (rank === "Q" && !german) {
    hat = `<path d="M39 62C37 44 63 44 61 62C59 52 41 52 39 62Z" fill="#6b3e1e"/><path d="M41 51L45 44L50 49L55 44L59 51Z" fill="#f2c12e" stroke="#7a4b00" stroke-width="1"/>`;
  } else {
    hat = `<path d="M36 56C36 42 64 42 64 56Z" fill="${body}" stroke="#222" stroke-width="1.5"/><path d="M60 46C68 36 74 34 80 34" stroke="#c8102e" stroke-width="3" fill="none"/>`;
  }
  // The Ober holds his suit sign high, the Unter low (as on Württemberg cards).
  let sign;
  if (german && rank === "J") sign = pip(suit, deck, 58, 96, 20);
  else if (german && rank === "Q") sign = pip(suit, deck, 62, 30, 20);
  else sign = pip(suit, deck, 64, 30, 16);
  return `<rect x="19" y="26" width="62" height="98" rx="5" fill="#fbf6e9" stroke="${style.color}" stroke-width="2"/>` +
    torso + head + hat + sign;
}

const cache = new Map();

/** The SVG markup of a card face. */
export function cardSvg(card, deck = "french") {
  const key = `${deck}:${card}:${cardText(card, deck).index}`;
  if (cache.has(key)) return cache.get(key);
  const rank = rankOf(card), suit = suitOf(card);
  const style = suitStyle(suit, deck);
  const label = cardText(card, deck).index;
  const ink = deck === "german" ? "#222" : style.color;
  const corner = (flip) => {
    const g = `<text x="13" y="25" text-anchor="middle" font-size="${label.length > 1 ? 19 : 23}" font-weight="700" fill="${ink}" font-family="system-ui, sans-serif">${label}</text>${pip(suit, deck, 4, 29, 18)}`;
    return flip ? `<g transform="rotate(180 50 75)">${g}</g>` : g;
  };
  let centre;
  if (rank === "A") centre = pip(suit, deck, 22, 47, 56);
  else if (PIPS[rank]) centre = PIPS[rank].map(([x, y]) => pip(suit, deck, x - 10, y - 10, 20, y > 80)).join("");
  else centre = figure(rank, suit, deck);
  const svg = `<svg viewBox="0 0 100 150" xmlns="http://www.w3.org/2000/svg" aria-hidden="true" focusable="false">` +
    `<rect x="1" y="1" width="98" height="148" rx="8" fill="#fffdf7" stroke="#9a9a9a" stroke-width="1.5"/>` +
    corner(false) + centre + corner(true) + `</svg>`;
  cache.set(key, svg);
  return svg;
}

/** A card element: a button in the hand, a plain figure elsewhere. A button is named by
 *  its text, the card's name in a visually hidden span (``.card-name``; a reason may be
 *  added to it): an aria-label would hide the corner index a speech user reads off it. */
export function cardElement(card, deck, { button = false, small = false } = {}) {
  const el = document.createElement(button ? "button" : "div");
  el.className = "card" + (small ? " small" : "");
  if (button) el.type = "button";
  el.dataset.card = card;
  const { name } = cardText(card, deck);
  el.innerHTML = cardSvg(card, deck);
  if (button) {
    el.append(Object.assign(document.createElement("span"), { className: "card-name visually-hidden", textContent: name }));
  } else {
    el.setAttribute("title", name);
    el.setAttribute("role", "img");
    el.setAttribute("aria-label", name);
  }
  return el;
}

/** A suit's symbol followed by its name for screen readers only (where no name is written
 *  beside it: melds, the soloist's badge, the log). */
export function namedSuit(suit, deck) {
  return `${suitIcon(suit, deck)}<span class="visually-hidden"> ${suitName(suit, deck)}</span>`;
}

/** A face-down card. */
export function cardBack({ small = false } = {}) {
  const el = document.createElement("div");
  el.className = "card back" + (small ? " small" : "");
  el.setAttribute("aria-hidden", "true");
  return el;
}

/** Hand order: suits alternate in colour, trump first; within a suit by rank. */
export function sortHand(cards, trump) {
  let order = ["S", "H", "C", "D"];
  if (trump && order.includes(trump)) {
    const i = order.indexOf(trump);
    order = order.slice(i).concat(order.slice(0, i));
  }
  return [...cards].sort((a, b) =>
    order.indexOf(suitOf(a)) - order.indexOf(suitOf(b)) || RANKS.indexOf(rankOf(a)) - RANKS.indexOf(rankOf(b)));
}


/** A card written compactly in running text: its index and suit symbol (read out as its
 *  name: "nine of hearts", not "9"). */
export function cardChip(card, deck) {
  const { index, name } = cardText(card, deck);
  return `<span class="cc suit-${suitOf(card)} deck-${deck}" title="${name}"><span aria-hidden="true">${index}${suitIcon(suitOf(card), deck)}</span>` +
    `<span class="visually-hidden">${name}</span></span>`;
}
