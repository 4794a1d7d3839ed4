// Small pure helpers that read the view and the game message; no DOM here. No rules either:
// what a contract is worth, the surrender cost and why a card is refused come from the server.

/** Where each seat sits, seen from ``me`` at the bottom, for 3, 4 and 6 seats (counter-clockwise:
 *  the next seat is on my right). */
const SIDES = {
  3: ["bottom", "right", "left"],
  4: ["bottom", "right", "top", "left"],
  6: ["bottom", "right", "tr", "top", "tl", "left"],
};
export function side(players, me, seat) {
  const sides = SIDES[players] || SIDES[3];
  return sides[(seat - me + players) % players];
}

/** The partners of a seat (teams from the game message), not the seat itself. */
export const isPartner = (game, me, seat) => seat !== me && game.teams != null && game.teams[seat] === game.teams[me];

/** The columns of the score: one per team (named by its members) with teams, else one per seat. */
export function scoreColumns(game) {
  if (game.teams == null) return game.players.map((name, seat) => ({ name, seat, seats: [seat] }));
  return [0, 1].map((team) => {
    const seats = game.teams.map((t, seat) => (t === team ? seat : null)).filter((s) => s != null);
    return { name: seats.map((s) => game.players[s]).join(" + "), seat: seats[0], seats };
  });
}

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
  const plays = [];
  const tricks = [...view.tricks, view.trick];
  tricks.forEach((trick, index) => {
    trick.cards.forEach((card, position) => plays.push({
      card, seat: trick.seats[position], position, trick: index,
      complete: index < view.tricks.length && position === trick.cards.length - 1, winner: trick.winner,
    }));
  });
  return plays;
}

/** Cards in the Tapp, as the server tells. */
export function tappSize(view) {
  return view.tapp ? view.tapp.length : view.tapp_size;
}

/** Forehand, middlehand, rearhand (the seats between forehand and rearhand are all middlehand);
 *  "sitting_out" for the seat that sits out this deal. */
export function role(view, seat) {
  if (seat === view.sitting_out) return "sitting_out";
  const index = view.order.indexOf(seat);  // the playing seats from forehand, as the server says
  return index === 0 ? "forehand" : index === view.order.length - 1 ? "rearhand" : "middlehand";
}

export const meldTotal = (melds) => (melds || []).reduce((sum, m) => sum + m.points, 0);

export const isSuit = (game) => ["S", "H", "D", "C"].includes(game);

// ------------------------------------------------------------------ the channel's model

/** The table's model after one message of the channel (pure: ``model`` stays as it was).
 *  A ``state`` (the snapshot, on connect and on sync) is the model itself; an ``update``
 *  merges the fields its step changed (top level, then those of ``view`` and ``game``) and
 *  lengthens the view's lists by its ``append`` (the tricks won);
 *  ``presence`` and ``rematch`` set their game fields. Python's twin: binokel.update.apply_update. */
export function applyUpdate(model, message) {
  switch (message.type) {
    case "state": return message;
    case "update": {
      const { view = {}, game = {}, ...top } = message.model || {};
      const seen = { ...model.view, ...view };
      for (const [name, items] of Object.entries(message.append?.view || {})) seen[name] = [...(seen[name] || []), ...items];
      return { ...model, ...top, version: message.version, view: seen, game: { ...model.game, ...game } };
    }
    case "presence":
      return { ...model, game: { ...model.game, seats: message.seats, waiting: message.waiting, ready: message.ready } };
    case "rematch": return { ...model, game: { ...model.game, rematch: message.id } };
    default: return model;
  }
}

/** Does an update follow the model? (Else a step was missed: the page asks for a snapshot.) */
export const follows = (model, update) => model != null && update.since === model.version;
