// Small pure helpers that read the view and the game message; no DOM here.

/** One option's value from a rule text such as "standard(target=1000,surrender_credit=30)". */
export function ruleOption(rules, name, fallback) {
  const match = /\((.*)\)/.exec(rules || "");
  for (const part of (match ? match[1] : "").split(",")) {
    const [key, value] = part.split("=").map((s) => s && s.trim());
    if (key === name && value !== undefined) return value;
  }
  return fallback;
}

/** What each opponent gets when the soloist surrenders (before their melds). */
export function surrenderCredit(rules, bid) {
  const credit = ruleOption(rules, "surrender_credit", "50");
  return credit === "half" ? Math.floor(bid / 2) : Number(credit);
}

export const durchValue = (rules) => Number(ruleOption(rules, "durch", "1000"));

/** The seat that made each call of the auction (the server says who; the page holds no rules). */
export function auctionCalls(view) {
  return view.auction.map((call, i) => ({ seat: view.callers[i], call }));
}

/** Each seat's latest call, or undefined. */
export function lastCalls(view) {
  const last = {};
  for (const { seat, call } of auctionCalls(view)) last[seat] = call;
  return last;
}

/** Every card played this deal, in order, with who played it and its trick. */
export function allPlays(view) {
  const n = view.players;
  const plays = [];
  const tricks = [...view.tricks, view.trick];
  tricks.forEach((trick, index) => {
    trick.cards.forEach((card, position) => plays.push({
      card, seat: (trick.leader + position) % n, position, trick: index,
      complete: index < view.tricks.length && position === trick.cards.length - 1, winner: trick.winner,
    }));
  });
  return plays;
}

/** Cards in the Tapp, as the server tells. */
export function tappSize(view) {
  return view.tapp ? view.tapp.length : view.tapp_size;
}

/** Forehand, middlehand, rearhand. */
export function role(view, seat) {
  const n = view.players;
  const forehand = (view.dealer + 1) % n;
  return ["forehand", "middlehand", "rearhand"][(seat - forehand + n) % n];
}

export const meldTotal = (melds) => (melds || []).reduce((sum, m) => sum + m.points, 0);

export const isSuit = (game) => ["S", "H", "D", "C"].includes(game);
