// The score sheet (like the paper pad), the deal result and the game log, as HTML text.

import { t, escape, tSeat, number, suitName, meldName } from "./i18n.js";
import { suitIcon, namedSuit, cardChip } from "./cards.js";
import * as model from "./model.js";

const signed = (n) => (n > 0 ? "+" : n < 0 ? "−" : "") + number(Math.abs(n));
const meldPoints = (m) => (Array.isArray(m) ? model.meldTotal(m) : Number(m) || 0);

/** A named game: a trump suit with its symbol, or Durch, open Durch, Bettel ... */
export function gameLabel(game, deck) {
  if (!game) return "–";
  if (model.isSuit(game)) return `${suitIcon(game, deck)} ${escape(suitName(game, deck))}`;
  return escape(t(`game.${game}`));
}

/** The paper pad: one row per deal, running totals under each player's (or team's) score. */
export function renderSheet(game, deck) {
  const history = game.history || [];
  const players = game.players;
  const columns = model.scoreColumns(game);
  // The deal in one column (soloist, bid and game, outcome): a phone has room for the players' columns.
  const head = `<tr><th>#</th><th>${t("soloist")}</th>` +
    columns.map((c) => `<th class="player">${escape(c.name)}</th>`).join("") + `</tr>`;
  const running = columns.map(() => 0);
  const rows = history.map((deal, i) => {
    const cells = columns.map((column, k) => {
      const score = deal.scores[column.seat];
      running[k] += score;
      const melds = column.seats.reduce((sum, seat) => sum + meldPoints(deal.melds?.[seat]), 0);
      const cards = column.seats.reduce((sum, seat) => sum + (deal.card_points?.[seat] ?? 0), 0);
      return `<td class="player${column.seats.includes(deal.soloist) ? " soloist" : ""}"><span class="deal-score ${score < 0 ? "minus" : ""}">${signed(score)}</span>` +
        `<span class="detail">${t("sheet_detail", { melds: number(melds), cards: number(cards) })}</span>` +
        `<span class="running">${number(running[k])}</span></td>`;
    }).join("");
    return `<tr data-testid="sheet-row"><td>${i + 1}</td><td class="deal"><span class="who">${escape(players[deal.soloist] ?? "–")}</span>` +
      (deal.bid == null ? "" : ` <span class="contract">${number(deal.bid)} ${gameLabel(deal.game, deck)}</span>`) +
      ` <small>${t("outcome." + deal.outcome)}</small></td>${cells}</tr>`;
  }).join("");
  const won = (column) => game.winner != null && (game.teams ? game.teams[column.seat] === game.winner : column.seat === game.winner);
  const foot = `<tr><th colspan="2">${t("totals")}</th>` +
    columns.map((c) => `<th class="player${won(c) ? " winner" : ""}" data-testid="sheet-total">${number(game.totals[c.seat])}${won(c) ? " ★" : ""}</th>`).join("") + `</tr>`;
  const empty = history.length ? "" : `<tr><td colspan="${2 + columns.length}" class="empty">${t("sheet_empty")}</td></tr>`;
  const durch = game.durch_games ? `<p class="hint-text" data-testid="durch-games">${t("durch_games")}: ` +
    columns.map((c) => `${escape(c.name)} ${signed(game.durch_games[c.seat])}`).join(" · ") + `</p>` : "";
  return `<table class="sheet"><thead>${head}</thead><tbody>${rows}${empty}</tbody><tfoot>${foot}</tfoot></table>` + durch +
    `<p class="hint-text">${t("target_n", { n: number(game.target) })} · ${escape(game.rules)}</p>`;
}

/** The name of the winner of a game: a seat, or a team's members. */
export function winnerName(game) {
  if (game.winner == null) return "";
  const column = model.scoreColumns(game).find((c) => (game.teams ? game.teams[c.seat] === game.winner : c.seat === game.winner));
  return column ? column.name : "";
}

/** Did seat ``me`` (or its team) win the game? */
export const iWon = (game, me) => game.winner != null && (game.teams ? game.teams[me] === game.winner : game.winner === me);

/** The per-seat results of the deal just finished: from the game history, else the view. */
function dealFacts(msg) {
  const { view, game } = msg;
  const entry = game.history?.[game.deal_number - 1];
  if (entry && entry.soloist === view.soloist && entry.bid === view.bid) {
    return { scores: entry.scores, cards: entry.card_points, melds: entry.melds.map(meldPoints) };
  }
  return { scores: view.scores || [], cards: view.card_points, melds: (view.melds || []).map(model.meldTotal) };
}

/** The announcement of a finished deal (and of the game's end). */
export function dealResult(msg, deck) {
  const { view, game } = msg;
  const names = game.players;
  const facts = dealFacts(msg);
  const soloist = names[view.soloist] ?? "";
  const title = tSeat("result." + view.outcome, view.soloist, view.seat, { name: escape(soloist), bid: number(view.bid) });
  const mine = view.soloist === view.seat || model.isPartner(game, view.seat, view.soloist);
  const good = view.outcome === "redeal" || ["made", "durch_made", "bettel_made"].includes(view.outcome) === mine;
  // One row per score column: a team's score is counted once, on its own row (its members' melds and cards summed).
  const sum = (list, seats) => seats.reduce((total, seat) => total + (list[seat] ?? 0), 0);
  const rows = model.scoreColumns(game).map(({ name, seat, seats }) => `<tr${seats.includes(view.soloist) ? ` class="soloist"` : ""}><th>${escape(name)}</th>` +
    // After a surrender no card is played: no card points (the soloist's laid-away cards count for nothing).
    `<td>${number(sum(facts.melds, seats))}</td><td>${view.surrendered ? "—" : number(sum(facts.cards, seats))}</td>` +
    `<td class="${(facts.scores[seat] ?? 0) < 0 ? "minus" : "plus"}" data-testid="deal-score-${seat}">${signed(facts.scores[seat] ?? 0)}</td>` +
    `<td><b>${number(game.totals[seat])}</b></td></tr>`).join("");
  const contract = view.soloist == null ? "" :
    `<p class="contract-line">${tSeat("contract", view.soloist, view.seat, { name: escape(soloist), bid: number(view.bid) })} · ${gameLabel(view.game, deck)}</p>`;
  const deal = contract + `<table class="result-table"><thead><tr><th><span class="visually-hidden">${t("player_column")}</span></th><th>${t("melds")}</th><th>${t("card_points")}</th><th>${t("this_deal")}</th><th>${t("total")}</th></tr></thead><tbody>${rows}</tbody></table>`;
  const player = msg.seat != null && view.seat >= 0;  // a spectator only looks (no next deal, no rematch)
  const close = `<button type="button" class="close result-x" data-command="close-result" data-testid="result-x" aria-label="${t("close")}">×</button>`;
  let html;
  if (game.over) {
    // The game is over: the final ranking and totals first, then how the last deal went.
    const ranking = model.scoreColumns(game).map(({ name, seat }) => ({ name, total: game.totals[seat] }))
      .sort((a, b) => b.total - a.total);
    html = `<div class="dialog-head"><h2 class="good" id="game-winner" data-testid="game-winner">${player && iWon(game, view.seat) ? t("you_win") : t("winner_is", { name: escape(winnerName(game)) })}</h2>${close}</div>` +
      `<ol class="ranking" data-testid="final-ranking">${ranking.map((r) => `<li><span>${escape(r.name)}</span> <b>${number(r.total)}</b></li>`).join("")}</ol>` +
      `<h3 class="last-deal" id="result-title" data-testid="result-title">${t("last_deal")}: ${title}</h3>` + deal +
      `<div class="row">` + (player ? `<button type="button" class="primary" data-command="rematch" data-testid="result-rematch">${t("rematch")}</button>` +
      `<button type="button" class="secondary" data-command="new-game" data-testid="result-new-game">${t("new_game")}</button>` : "") +
      `<button type="button" class="secondary" data-command="sheet">${t("score_sheet")}</button></div>`;
  } else {
    const ready = player && (game.ready || []).includes(view.seat);
    html = `<div class="dialog-head"><h2 class="${good ? "good" : "bad"}" id="result-title" data-testid="result-title">${title}</h2>${close}</div>` + deal +
      `<div class="row">` + (player && !ready ? `<button type="button" class="primary" data-command="next-deal" data-testid="result-next-deal" autofocus>${t("next_deal")}</button>` : "") +
      (ready ? `<span class="prompt" data-testid="result-ready">${t("note.ready")}</span>` : "") +
      `<button type="button" class="secondary" data-command="sheet" data-testid="result-sheet">${t("score_sheet")}</button>` +
      `<button type="button" class="secondary" data-command="close-result" data-testid="result-close">${t("look_at_table")}</button></div>`;
  }
  return html;
}

/** The game log: earlier deals in a line each, then everything public in this deal. */
export function renderLog(msg, deck) {
  const { view, game } = msg;
  const names = game.players;
  const lines = [];
  const add = (html, cls = "") => lines.push(`<li class="${cls}">${html}</li>`);
  const chips = (cards) => cards.map((c) => cardChip(c, deck)).join(" ");
  (game.history || []).forEach((deal, i) => {
    if (i === game.deal_number - 1) return;  // the deal on the table is told in full below
    add((deal.soloist == null ? t("log.deal_redeal", { n: i + 1 })
      : tSeat("log.deal_summary", deal.soloist, view.seat, { n: i + 1, name: escape(names[deal.soloist]), bid: number(deal.bid) }) + " · " +
      gameLabel(deal.game, deck)) + " · " + t("outcome." + deal.outcome), "past");
  });
  add(tSeat("log.deal", view.dealer, view.seat, { n: game.deal_number, name: escape(names[view.dealer]) }), "head");
  if (view.sitting_out != null) add(tSeat("log.sits_out", view.sitting_out, view.seat, { name: escape(names[view.sitting_out]) }));
  for (const { seat, call } of model.auctionCalls(view)) {
    add(call === "pass" ? tSeat("log.pass", seat, view.seat, { name: escape(names[seat]) }) : tSeat("log.bid", seat, view.seat, { name: escape(names[seat]), bid: number(call) }));
  }
  if (view.soloist != null && view.tapp?.length) {
    add(tSeat("log.tapp", view.soloist, view.seat, { name: escape(names[view.soloist]), bid: number(view.bid) }) + " " + chips(view.tapp));
  } else if (view.soloist != null) {  // no Tapp in these rules, or it stays face down
    add(tSeat("log.won", view.soloist, view.seat, { name: escape(names[view.soloist]), bid: number(view.bid) }));
  }
  if (view.discard && view.discard.length) {
    add(t("log.discard_mine", { points: number(view.discard_points) }) + " " + chips(view.discard));
  } else if (view.game && view.game !== "hand_durch" && view.soloist !== view.seat) {
    add(t("log.discard", { name: escape(names[view.soloist]) }));
  }
  if (view.game) {
    add(model.isSuit(view.game) ? tSeat("log.trump", view.soloist, view.seat, { name: escape(names[view.soloist]) }) + " " + gameLabel(view.game, deck)
      : tSeat("log.no_trump", view.soloist, view.seat, { name: escape(names[view.soloist]), game: gameLabel(view.game, deck) }));
  }
  if (view.open_hand && view.soloist !== view.seat) {
    add(t("log.open_hand", { name: escape(names[view.soloist]) }) + " " + chips(view.open_hand));
  }
  if (view.surrendered) add(tSeat("log.surrender", view.soloist, view.seat, { name: escape(names[view.soloist]) }), "important");
  if (view.melds && model.isSuit(view.game)) {
    view.melds.forEach((melds, seat) => {
      if (!melds.length && seat === view.soloist && view.surrendered) return;
      const list = melds.map((m) => `${meldName(m.name)}${m.suit ? " " + namedSuit(m.suit, deck) : ""} ${number(m.points)}`).join(", ");
      add(tSeat("log.melds", seat, view.seat, { name: escape(names[seat]) }) + " " + (list ? `${list} = <b>${number(model.meldTotal(melds))}</b>` : t("no_melds")));
    });
  }
  view.tricks.forEach((trick, i) => {
    const played = trick.cards.map((c, k) => `${escape(names[trick.seats[k]])} ${cardChip(c, deck)}`).join(", ");
    add(t("log.trick", { n: i + 1 }) + " " + played + " → " + t("log.trick_won", { name: escape(names[trick.winner]), points: trick.points }));
  });
  if (view.phase === "over") {
    add(tSeat("result." + view.outcome, view.soloist, view.seat, { name: escape(names[view.soloist] ?? ""), bid: number(view.bid) }) + " " +
      model.scoreColumns(game).map(({ name, seat }) => `${escape(name)} ${t("points_signed", { points: signed((view.scores || [])[seat] ?? 0) })}`).join(", "), "important");
  }
  if (game.over) add(t("winner_is", { name: escape(winnerName(game)) }), "important");
  return lines.join("");
}
