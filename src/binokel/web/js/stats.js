// History and statistics of this browser (localStorage "binokel.history"): every game
// seen at this table, kept after each finished deal; games played and won per rule set
// and level, the soloist's success rate, the average bid, the best deal; the finished
// games with their score sheets and a review of each deal.

import { t, escape, number, ruleSetLabel, dateTime, newDialog, dialogHead } from "./i18n.js";
import { renderSheet, iWon } from "./sheet.js";
import { openReview } from "./review.js";
import { tokenOf } from "./seats.js";

const KEY = "binokel.history";
const KEEP = 200;  // games kept (the oldest go first)
const MADE = ["made", "durch_made", "bettel_made"];
const $ = (id) => document.getElementById(id);

export function history() {
  try { const games = JSON.parse(localStorage.getItem(KEY) || "[]"); return Array.isArray(games) ? games : []; } catch { return []; }
}

/** Keep a game's public facts after each finished deal (the score sheet, never a hand). */
export function recordState(msg, gameId) {
  const view = msg.view, game = msg.game;
  if (view.phase !== "over" || view.seat == null || !gameId) return;
  const games = history().filter((g) => g.id !== gameId);
  const levels = (game.levels || []).filter(Boolean);
  games.push({
    id: gameId, rules: game.rules, seat: view.seat, players: game.players, levels, teams: game.teams,
    totals: game.totals, over: game.over, winner: game.winner, won: game.over ? iWon(game, view.seat) : null,
    target: game.target, history: game.history || [], durch_games: game.durch_games, changes: game.changes,
    updated: new Date().toISOString(),
  });
  localStorage.setItem(KEY, JSON.stringify(games.slice(-KEEP)));
}

const ruleSetOf = (rules) => String(rules).split("(")[0];
const levelOf = (g) => (g.levels.length ? [...new Set(g.levels)].sort().join("+") : "people");

/** The numbers: played/won per rule set and level, soloist success, average bid, best deal. */
export function statistics(games = history()) {
  const finished = games.filter((g) => g.over);
  const groups = {};
  for (const g of finished) {
    const key = `${ruleSetOf(g.rules)}|${levelOf(g)}`;
    groups[key] = groups[key] || { ruleSet: ruleSetOf(g.rules), level: levelOf(g), played: 0, won: 0 };
    groups[key].played++;
    if (g.won) groups[key].won++;
  }
  let solo = 0, made = 0, bids = 0, deals = 0;
  let best = null;
  for (const g of games) {
    for (const [i, d] of (g.history || []).entries()) {
      deals++;
      const score = d.scores?.[g.seat] ?? 0;
      if (!best || score > best.score) best = { score, game: g.id, deal: i, rules: g.rules };
      if (d.soloist === g.seat) {
        solo++;
        bids += d.bid || 0;
        if (MADE.includes(d.outcome)) made++;
      }
    }
  }
  return { games: games.length, finished: finished.length, won: finished.filter((g) => g.won).length,
    groups: Object.values(groups), solo, made, averageBid: solo ? Math.round(bids / solo) : null, best, deals };
}

function statsHtml(s) {
  const rows = s.groups.map((g) => `<tr data-testid="stats-group"><td>${escape(ruleSetLabel(g.ruleSet))}</td><td>${escape(g.level.split("+").map((l) => t("level." + l)).join(", "))}</td>` +
    `<td>${number(g.played)}</td><td>${number(g.won)}</td></tr>`).join("");
  return `<dl class="stats-numbers">` +
    `<dt>${t("stats_played")}</dt><dd data-testid="stats-played">${number(s.finished)}</dd>` +
    `<dt>${t("stats_won")}</dt><dd data-testid="stats-won">${number(s.won)}</dd>` +
    `<dt>${t("stats_soloist")}</dt><dd data-testid="stats-soloist">${s.solo ? t("stats_rate", { made: number(s.made), solo: number(s.solo), rate: number(Math.round(100 * s.made / s.solo)) }) : "–"}</dd>` +
    `<dt>${t("stats_average_bid")}</dt><dd data-testid="stats-average-bid">${s.averageBid != null ? number(s.averageBid) : "–"}</dd>` +
    `<dt>${t("stats_best_deal")}</dt><dd data-testid="stats-best">${s.best ? t("points_signed", { points: (s.best.score > 0 ? "+" : "") + number(s.best.score) }) : "–"}</dd></dl>` +
    (rows ? `<table class="stats-table"><thead><tr><th>${t("rule_set")}</th><th>${t("opponents")}</th><th>${t("stats_played")}</th><th>${t("stats_won")}</th></tr></thead><tbody>${rows}</tbody></table>` : "");
}

/** The statistics and history dialog. */
export function openStats(deck) {
  let el = $("stats-dialog");
  if (!el) {
    el = newDialog("stats", "wide");
    el.addEventListener("click", (e) => {
      const sheet = e.target.closest("[data-sheet]");
      if (sheet) {
        const game = history().find((g) => g.id === sheet.dataset.sheet);
        const box = el.querySelector(`[data-sheet-box="${CSS.escape(sheet.dataset.sheet)}"]`);
        if (game && box) box.innerHTML = box.innerHTML ? "" : renderSheet(game, deck);
      }
      const review = e.target.closest("[data-review]");
      if (review) {
        const [id, deal] = [review.dataset.review, Number(review.dataset.deal)];
        const game = history().find((g) => g.id === id);
        openReview(async () => {
          const response = await fetch(`/api/games/${encodeURIComponent(id)}/review?deal=${deal}&seat=${game?.seat ?? 0}`,
            { headers: { Authorization: `Bearer ${tokenOf(id) ?? ""}` } });
          const body = await response.json();
          if (!response.ok) throw new Error(body.error || response.statusText);
          return body;
        }, deck);
      }
    });
  }
  const games = history().slice().reverse();
  const list = games.map((g) => {
    const when = dateTime(g.updated);
    const result = g.over ? (g.won ? t("stats_result_won") : t("stats_result_lost")) : t("stats_result_open");
    const deals = (g.history || []).map((_, i) => `<button type="button" class="secondary small" data-review="${escape(g.id)}" data-deal="${i}" data-testid="stats-review">${t("deal_n", { n: i + 1 })}</button>`).join("");
    return `<li class="stats-game" data-testid="stats-game"><div><b>${escape(ruleSetLabel(ruleSetOf(g.rules)))}</b> · ${escape(g.players.join(", "))} · ${escape(result)} · ${escape(when)}</div>` +
      `<div class="row left"><button type="button" class="secondary small" data-sheet="${escape(g.id)}" data-testid="stats-sheet">${t("score_sheet")}</button><span class="hint-text">${t("review_title")}:</span>${deals}</div>` +
      `<div class="sheet-wrap" data-sheet-box="${escape(g.id)}"></div></li>`;
  }).join("");
  el.innerHTML = dialogHead("stats", t("stats_title")) +
    statsHtml(statistics()) + `<h3>${t("stats_games")}</h3>` + (list ? `<ul class="stats-games">${list}</ul>` : `<p class="hint-text">${t("stats_none")}</p>`) +
    `<p class="hint-text">${t("stats_kept")}</p>`;
  if (!el.open) el.showModal();
}

/** A short line on the start page, with the button to the dialog. */
export function renderStatsSummary(deck) {
  const box = $("stats-summary");
  if (!box) return;
  const s = statistics();
  box.innerHTML = `<p class="hint-text" data-testid="stats-line">${t("stats_line", { finished: t("stats_games_finished", { n: s.finished }), won: t("stats_won_n", { n: s.won }), deals: t("stats_deals", { n: s.deals }) })}</p>` +
    `<p><button type="button" class="secondary" data-testid="stats-button">${t("stats_title")}</button></p>`;
  box.querySelector("button").addEventListener("click", () => openStats(deck()));
}
