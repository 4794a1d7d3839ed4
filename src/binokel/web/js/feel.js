// Table feel: the cards fly in when a deal is dealt, and a small celebration for a made
// Durch (or Bettel) of mine or my team, and for a won game. Both follow the animation
// setting (off: nothing moves).

import { animationsOff } from "./settings.js";
import { iWon } from "./sheet.js";

const $ = (id) => document.getElementById(id);
let dealt = null;      // the deal whose cards were last dealt in
let celebrated = null; // the result last celebrated

/** A new state: deal the cards in (once per deal) and celebrate a fine result. */
export function feel(msg, gameId) {
  const key = `${gameId}:${msg.game.deal_number}`;
  if (msg.view.phase === "auction" && dealt !== key && !msg.view.auction.length) {
    dealt = key;
    dealIn();
  } else if (dealt === null) dealt = key;  // a reload in the middle: no dealing again
  const view = msg.view, game = msg.game;
  if (view.phase !== "over" || celebrated === `${key}:${game.over}`) return;
  const mine = view.soloist === view.seat || (game.teams && view.soloist != null && game.teams[view.soloist] === game.teams[view.seat]);
  const durch = mine && ["durch_made", "bettel_made"].includes(view.outcome);
  if (durch || (game.over && iWon(game, view.seat))) {
    celebrated = `${key}:${game.over}`;
    celebrate();
  }
}

function dealIn() {
  if (animationsOff()) return;
  const hand = $("hand");
  const apply = () => {
    [...hand.querySelectorAll(".card")].forEach((card, i) => card.style.setProperty("--i", i));
    hand.classList.add("dealing");
    setTimeout(() => hand.classList.remove("dealing"), 1400);
  };
  if (hand.children.length) apply();
  else new MutationObserver((_, observer) => { observer.disconnect(); apply(); }).observe(hand, { childList: true });
}

function celebrate() {
  if (animationsOff()) return;
  const box = Object.assign(document.createElement("div"), { className: "celebration" });
  box.setAttribute("data-testid", "celebration");
  box.setAttribute("aria-hidden", "true");
  const colors = ["#f5b82e", "#c8102e", "#1f7a4a", "#2b6cb0", "#fffdf7"];
  for (let i = 0; i < 40; i++) {
    const bit = document.createElement("i");
    bit.style.left = `${(i * 37) % 100}%`;
    bit.style.background = colors[i % colors.length];
    bit.style.animationDelay = `${(i % 10) * 60}ms`;
    box.append(bit);
  }
  document.body.append(box);
  setTimeout(() => box.remove(), 3000);
}
