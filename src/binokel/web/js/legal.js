// Why a card cannot be played now. The legal set always comes from the server; this
// only explains it, from what the view shows (the led suit, the winning card, trump).

import { t, cardText, suitName } from "./i18n.js";
import { RANKS, rankOf, suitOf } from "./cards.js";

const beats = (card, best) => RANKS.indexOf(rankOf(card)) < RANKS.indexOf(rankOf(best));

/** A sentence for an illegal card, or "" if the view gives no reason to refuse it. */
export function whyIllegal(view, card, deck, names) {
  if (view.phase !== "play") return "";
  if (view.to_move !== view.seat) return t("why.wait", { name: names[view.to_move] ?? "" });
  if (view.legal_actions.includes(card)) return "";
  const trick = view.trick;
  if (!trick.cards.length) return t("why.not_now");
  const led = suitOf(trick.cards[0]);
  const trump = ["S", "H", "D", "C"].includes(view.game) ? view.game : null;
  const best = trick.cards[trick.seats.indexOf(trick.winner)];
  const hand = view.hand;
  const name = (c) => cardText(c, deck).name;
  if (hand.some((c) => suitOf(c) === led)) {
    if (suitOf(card) !== led) return t("why.follow", { suit: suitName(led, deck) });
    // Following suit: beat the winning card of the led suit (or, by some rules, the highest led card).
    const target = suitOf(best) === led ? best
      : trick.cards.filter((c) => suitOf(c) === led).sort((a, b) => RANKS.indexOf(rankOf(a)) - RANKS.indexOf(rankOf(b)))[0];
    return t("why.beat", { card: name(target) });
  }
  if (trump && hand.some((c) => suitOf(c) === trump)) {
    if (suitOf(card) !== trump) return t("why.trump", { suit: suitName(trump, deck) });
    if (suitOf(best) === trump && !beats(card, best)) return t("why.overtrump", { card: name(best) });
  }
  return t("why.not_now");
}
