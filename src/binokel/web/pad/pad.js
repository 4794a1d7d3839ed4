// The score pad in the browser: a game played with real cards, kept deal by deal on the
// server (server/pad.py), which checks and scores every deal (binokel.score.explain); this
// page holds no rules. It keeps each sheet in localStorage with the deals not yet sent:
// without a connection deals wait on the phone (shown as waiting, without a score) and are
// sent in order once the server answers again. The read-only live view polls the sheet.
// The scorekeeper's secret travels in a link's fragment only and leaves the address bar at once.

import { t, translatePage, reason, number, suitName, meldName, ruleSetLabel } from "../js/i18n.js";
import { h, put, qrBox, say, startPage } from "../js/page.js";
import { registerWorker } from "../js/offline.js";
import { Outbox, jsonApi, loadKept, saveKept, withWaiting } from "../js/outbox.js";

const main = document.getElementById("main");
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
const TRUMPS = Object.keys(SUITS);
const WATCH_SECONDS = 2;
let stopView = () => {};

// ---------------------------------------------------------------------- the phone's copy

const INDEX = "binokel.pad.sheets";
const keyOf = (id) => `binokel.pad.${id}`;
/** A sheet as this phone keeps it: {token, sheet (the server's last answer), facts, queue, draft}. */
const loadLocal = (id) => loadKept(keyOf(id));
function saveLocal(id, local) {
  saveKept(keyOf(id), local);
  const index = JSON.parse(localStorage.getItem(INDEX) || "[]").filter((entry) => entry.id !== id);
  if (local.sheet) index.unshift({ id, players: local.sheet.players, rules: local.sheet.rules, keeper: Boolean(local.token) });
  localStorage.setItem(INDEX, JSON.stringify(index.slice(0, 30)));
}

/** A request to the pad API; a refusal throws {code, params}; no answer throws {offline}. */
const api = jsonApi("/api/pad", "pad_offline");

const factsOf = (rules) => api("GET", `/rules?text=${encodeURIComponent(rules)}`);

// ---------------------------------------------------------------------- words

const gameLabel = (game) => SUITS[game] || t(`game.${game}`);
const gameName = (game) => (SUITS[game] ? suitName(game, "french") : t(`game.${game}`));
const teamName = (facts, names, seat) => (facts.teams ? facts.teams.find((team) => team.includes(seat)).map((s) => names[s]).join(" & ") : names[seat]);

/** A refusal in words, the field named as the scorekeeper sees it ("card points of Ben"). */
function explainProblem(problem, names) {
  const params = { ...problem.params };
  const field = String(params.field ?? "");
  const seat = field.match(/^(melds|card_points|tricks)\[(\d+)\]$/);
  if (seat) params.field = t(`pad.field.${seat[1]}_of`, { name: names[Number(seat[2])] ?? seat[2] });
  else if (field && t(`pad.field.${field}`) !== `pad.field.${field}`) params.field = t(`pad.field.${field}`);
  if (typeof params.seat === "number" && names[params.seat]) params.seat = names[params.seat];
  return reason({ code: problem.code, params });
}

function describe(summary, names) {
  if (summary.soloist == null) return t("pad.all_passed");
  return `${names[summary.soloist] ?? "?"} ${number(summary.bid ?? 0)} ${summary.game ? gameLabel(summary.game) : ""}`;
}

// ---------------------------------------------------------------------- the sheet

/** Deals as the page shows them: the server's, with the ones waiting on this phone in place. */
const rowsOf = (sheet, queue) => withWaiting(sheet.deals.map((deal, index) => ({ number: index + 1, summary: deal.summary, scores: deal.scores,
  outcome: deal.outcome, totals: sheet.totals[index] })), queue);

function sheetTable(sheet, queue, onCorrect, editing) {
  const names = sheet.players;
  const rows = rowsOf(sheet, queue);
  const last = sheet.totals[sheet.totals.length - 1] || names.map(() => 0);
  const body = rows.map((row) => h("tr", { class: row.problem ? "refused" : row.pending ? "pending" : row.number === editing ? "editing" : null, "data-testid": `pad-row-${row.number}` },
    h("td", {}, row.number),
    h("td", { class: "name" }, describe(row.summary, names), h("br"),
      h("span", { class: "small" }, row.problem ? explainProblem(row.problem, names) : row.pending ? t("outbox.waiting") : t(`outcome.${row.outcome}`))),
    ...names.map((_, seat) => h("td", {}, row.pending ? "…" : number(row.scores[seat]), row.pending || !row.totals ? null : [h("br"), h("span", { class: "small" }, number(row.totals[seat]))])),
    onCorrect ? h("td", { class: "act" }, h("button", { type: "button", "data-testid": `pad-correct-${row.number}`, "aria-label": t("pad.correct_n", { n: row.number }),
      onclick: () => onCorrect(row) }, "✎")) : null));
  return h("div", { class: "sheet-wrap", tabindex: 0 }, h("table", { "data-testid": "pad-sheet" },
    h("caption", { class: "visually-hidden" }, t("pad.sheet")),
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col" }, t("pad.deal")), names.map((n) => h("th", { scope: "col" }, n)),
      onCorrect ? h("th", { class: "act" }, h("span", { class: "visually-hidden" }, t("pad.correct"))) : null)),
    h("tbody", {}, body),
    h("tfoot", {}, h("tr", {}, h("td"), h("th", { scope: "row" }, t("pad.total")),
      last.map((total, seat) => h("th", { "data-testid": `pad-total-${seat}` }, number(total))), onCorrect ? h("td", { class: "act" }) : null))));
}

function winnerLine(sheet, facts) {
  if (sheet.winner == null) return null;
  return h("p", { class: "winner", "data-testid": "pad-winner" }, t(facts.teams ? "pad.winner_team" : "pad.winner", { name: teamName(facts, sheet.players, sheet.winner) }));
}

// ---------------------------------------------------------------------- a new sheet

async function startView() {
  const error = h("p", { class: "error", role: "alert", "data-testid": "pad-error" });
  const sheets = JSON.parse(localStorage.getItem(INDEX) || "[]");
  const resume = h("section", { class: "card resume" }, h("h2", {}, t("pad.your_sheets")),
    sheets.length ? h("ul", {}, sheets.map((entry) => h("li", {}, h("a", { class: "button", href: `#/${entry.keeper ? "k" : "v"}/${entry.id}`, "data-testid": "pad-resume" },
      `${entry.players.join(", ")} — ${entry.rules}`)))) : h("p", { class: "hint" }, t("pad.no_sheets")));
  let meta;
  try {
    meta = await (await fetch("/api/meta", { cache: "no-store" })).json();
  } catch {
    return h("div", {}, h("h1", {}, t("pad.new_sheet")), h("p", { class: "error" }, t("error.pad_offline")), resume);
  }
  const field = (label, input) => h("label", { class: "field" }, h("span", {}, label), input);
  const ruleSet = h("select", { "data-testid": "pad-rule-set" }, meta.rule_sets.map((set) => h("option", { value: set.text },
    `${ruleSetLabel(set.name)} (${t("pad.players_n", { n: set.players })})`)));
  const rulesText = h("input", { value: localStorage.getItem("binokel.pad.rules") || "standard", autocomplete: "off", spellcheck: "false", "data-testid": "pad-rules" });
  ruleSet.value = rulesText.value;
  const players = h("div", {});
  const firstDealer = h("select", { "data-testid": "pad-first-dealer" });
  const teams = h("p", { class: "hint", "data-testid": "pad-teams" });
  const saved = JSON.parse(localStorage.getItem("binokel.pad.names") || "[]");
  let facts = null;
  const names = () => [...players.querySelectorAll("input")].map((input) => input.value.trim());
  const paintDealers = () => {
    const chosen = firstDealer.value;
    firstDealer.replaceChildren(...names().map((name, seat) => h("option", { value: seat }, name || t("pad.player_n", { n: seat + 1 }))));
    if (chosen && Number(chosen) < names().length) firstDealer.value = chosen;
    teams.textContent = facts?.teams ? t("pad.teams", { a: facts.teams[0].map((s) => names()[s] || s + 1).join(" & "), b: facts.teams[1].map((s) => names()[s] || s + 1).join(" & ") }) : "";
  };
  async function readRules() {
    error.textContent = "";
    try {
      facts = await factsOf(rulesText.value.trim() || "standard");
    } catch (problem) { facts = null; error.textContent = explainProblem(problem, []); return; }
    const old = names();
    players.replaceChildren(...Array.from({ length: facts.players }, (_, seat) => field(t("pad.player_n", { n: seat + 1 }),
      h("input", { value: old[seat] ?? saved[seat] ?? "", maxlength: 40, autocomplete: "off", "data-testid": `pad-player-${seat}`, oninput: paintDealers }))));
    paintDealers();
  }
  ruleSet.addEventListener("change", () => { rulesText.value = ruleSet.value; readRules(); });
  rulesText.addEventListener("change", readRules);
  await readRules();
  const form = h("form", { class: "card", novalidate: true, onsubmit: async (e) => {
    e.preventDefault();
    error.textContent = "";
    try {
      const made = await api("POST", "", { rules: rulesText.value.trim() || "standard", players: names(), first_dealer: Number(firstDealer.value || 0) });
      localStorage.setItem("binokel.pad.rules", rulesText.value.trim());
      localStorage.setItem("binokel.pad.names", JSON.stringify(names()));
      saveLocal(made.id, { token: made.token, sheet: made.sheet, facts: await factsOf(made.sheet.rules), queue: [] });
      location.hash = `#/k/${made.id}`;
    } catch (problem) { error.textContent = explainProblem(problem, names()); }
  } },
  h("h1", {}, t("pad.new_sheet")),
  field(t("pad.rule_set"), ruleSet), field(t("pad.rules_text"), rulesText),
  h("fieldset", {}, h("legend", {}, t("pad.players")), players, teams),
  field(t("pad.first_dealer"), firstDealer), error,
  h("button", { class: "primary", type: "submit", "data-testid": "pad-create" }, t("pad.create")));
  return h("div", {}, form, resume);
}

// ---------------------------------------------------------------------- the scorekeeper

async function keeperView(id, tokenFromLink) {
  const local = loadLocal(id);
  if (tokenFromLink) {
    local.token = tokenFromLink;
    history.replaceState(null, "", `#/k/${id}`);
  }
  let online = true;
  try {
    local.sheet = await api("GET", `/${id}`);
    local.facts = await factsOf(local.sheet.rules);  // afresh whenever the server answers
  } catch (problem) {
    if (!problem.offline || !local.sheet || !local.facts) throw problem;
    online = false;  // the phone's copy, until the server answers again
  }
  saveLocal(id, local);
  const { facts } = local;
  const names = local.sheet.players;
  const seats = names.map((_, seat) => seat);
  const outbox = new Outbox({
    kept: local, online, save: () => saveLocal(id, local),
    post: (item) => api("POST", `/${id}/deals`, { deal: item.deal, summary: item.summary }, local.token),
    fetch: () => api("GET", `/${id}`),
    refusedAtOnce: (item, problem) => { startEntry(item.deal, { summary: item.summary }); showProblem(problem); },  // nothing lost
    changed: () => {
      editing = Math.min(editing, outbox.next());  // a correction or a half-made entry stays
      paint();
      paintSheet();
    },
  });

  const error = h("p", { class: "error", role: "alert", "data-testid": "pad-error" });
  const sync = h("p", { class: "sync", role: "status", "data-testid": "pad-status" });
  const title = h("h2", { "data-testid": "pad-deal-title" });
  const sheetBox = h("div", {});
  const dealerOf = (n) => local.sheet.rotation[(n - 1) % local.sheet.rotation.length];
  const outOf = (n) => facts.sits_out[dealerOf(n)];
  const isOver = () => local.sheet.winner != null && !local.queue.length;

  // The entry being made: choices by taps, numbers in inputs (kept as a draft on the phone).
  let editing = local.draft?.editing ?? outbox.next();
  const choice = { soloist: undefined, game: undefined, surrendered: false, made: true, ...(local.draft?.choice || {}) };
  const numberInput = (testid, label, step) => h("input", { type: "number", inputmode: "numeric", min: 0, step, "data-testid": testid, "aria-label": label, oninput: keepDraft });
  const bid = numberInput("pad-bid", t("pad.bid"), 10);
  const inputs = {
    melds: seats.map((s) => numberInput(`pad-melds-${s}`, t("pad.field.melds_of", { name: names[s] }), 10)),
    tricks: seats.map((s) => numberInput(`pad-tricks-${s}`, t("pad.field.tricks_of", { name: names[s] }), 1)),
    card_points: seats.map((s) => numberInput(`pad-card_points-${s}`, t("pad.field.card_points_of", { name: names[s] }), 1)),
  };
  const all = () => [bid, ...Object.values(inputs).flat()];
  function keepDraft() { outbox.keepDraft(editing, choice, all()); }
  function fill(summary = {}) {
    choice.soloist = summary.soloist === undefined ? undefined : summary.soloist;
    choice.game = summary.game;
    choice.surrendered = Boolean(summary.surrendered);
    const noTrump = summary.game && !TRUMPS.includes(summary.game);
    choice.made = noTrump ? isContractMade(summary) : true;
    bid.value = summary.bid ?? facts.min_bid;
    for (const [name, list] of Object.entries(inputs)) list.forEach((input, seat) => { input.value = noTrump ? "" : summary[name]?.[seat] ?? ""; });
  }
  const isContractMade = (summary) => (summary.game === "bettel" ? summary.tricks?.[summary.soloist] === 0 : summary.tricks?.[summary.soloist] === facts.hand_size);
  /** The tricks of a Durch or Bettel as entered: made, or lost at the first trick (the next seat's). */
  function contractTricks() {
    const playing = seats.filter((s) => s !== outOf(editing));
    const after = playing.slice(playing.indexOf(choice.soloist) + 1).concat(playing);
    const other = after.find((s) => s !== choice.soloist);
    const tricks = seats.map(() => 0);
    if (choice.game === "bettel") tricks[choice.made ? other : choice.soloist] = choice.made ? facts.hand_size : 1;
    else tricks[choice.made ? choice.soloist : other] = choice.made ? facts.hand_size : 1;
    return tricks;
  }
  function summary() {
    if (choice.soloist === null) return { soloist: null };
    const out = outOf(editing);
    const numbers = (list, gaps) => list.map((input, seat) => (seat === out ? 0 : input.value === "" ? (gaps ? null : 0) : Number(input.value)));
    const data = { soloist: choice.soloist, bid: Number(bid.value), game: choice.game };
    if (!TRUMPS.includes(choice.game)) return { ...data, tricks: contractTricks() };
    data.surrendered = choice.surrendered;
    data.melds = numbers(inputs.melds);
    if (!choice.surrendered) Object.assign(data, { tricks: numbers(inputs.tricks), card_points: numbers(inputs.card_points, true) });
    return data;
  }

  // the form's parts
  const soloistRow = h("div", { class: "choices" });
  const gameRow = h("div", { class: "choices" });
  const playRow = h("div", { class: "choices" });
  const gameBox = h("fieldset", {}, h("legend", { class: "visually-hidden" }, t("pad.game")), gameRow);
  const playBox = h("fieldset", {}, h("legend", { class: "visually-hidden" }, t("pad.how")), playRow);
  const entries = h("div", { class: "entries" });
  const meldList = h("div", { "data-testid": "pad-meld-list" });
  const bidBox = h("fieldset", {}, h("legend", {}, h("label", { for: "pad-bid" }, t("pad.bid"))),
    h("div", { class: "stepper" },
      h("button", { type: "button", "aria-label": t("pad.bid_down"), onclick: () => { bid.value = Math.max(facts.min_bid, Number(bid.value) - 10); keepDraft(); } }, "−"),
      bid, h("button", { type: "button", "aria-label": t("pad.bid_up"), "data-testid": "pad-bid-up", onclick: () => { bid.value = Number(bid.value) + 10; keepDraft(); } }, "+")));
  bid.id = "pad-bid";
  const pressed = (on) => String(Boolean(on));
  const pick = (change) => () => { Object.assign(choice, change); error.textContent = ""; keepDraft(); paint(); };

  function openMelds(seat) {
    const trump = TRUMPS.includes(choice.game) ? choice.game : "H";
    meldList.replaceChildren(h("p", { class: "hint" }, t("pad.meld_list_for", { name: names[seat] })),
      h("div", { class: "meld-list" }, facts.melds[trump].map((meld) => h("button", { type: "button", "data-testid": `pad-meld-${meld.name}${meld.suit ? `-${meld.suit}` : ""}`,
        onclick: () => { inputs.melds[seat].value = Number(inputs.melds[seat].value || 0) + meld.points; keepDraft(); say(t("pad.meld_added", { name: names[seat], points: meld.points, total: inputs.melds[seat].value }), said); } },
      `${meldName(meld.name, "french")}${meld.suit ? ` ${SUITS[meld.suit]}` : ""} ${meld.points}`))),
      h("div", { class: "row" }, h("button", { type: "button", onclick: () => { inputs.melds[seat].value = ""; keepDraft(); } }, t("pad.meld_clear")),
        h("button", { type: "button", "data-testid": "pad-meld-done", onclick: () => { meldList.replaceChildren(); inputs.melds[seat].focus(); } }, t("pad.meld_done"))));
  }

  function paint() {
    const out = outOf(editing);
    title.textContent = t(editing <= local.sheet.deals.length ? "pad.correcting" : "pad.deal_n", { n: editing, dealer: names[dealerOf(editing)] });
    put(soloistRow, seats.map((seat) => h("button", { type: "button", disabled: seat === out, "aria-pressed": pressed(choice.soloist === seat),
      "data-testid": `pad-soloist-${seat}`, onclick: pick({ soloist: seat }) }, names[seat])),
    facts.can_pass ? h("button", { type: "button", "aria-pressed": pressed(choice.soloist === null), "data-testid": "pad-all-passed", onclick: pick({ soloist: null }) }, t("pad.all_passed")) : null);
    const played = choice.soloist != null;
    bidBox.hidden = gameBox.hidden = !played;
    gameRow.replaceChildren(...facts.games.map((game) => h("button", { type: "button", "aria-pressed": pressed(choice.game === game), "data-testid": `pad-game-${game}`,
      "aria-label": gameName(game), onclick: pick({ game }) }, gameLabel(game))));
    const trump = TRUMPS.includes(choice.game);
    playBox.hidden = !played || !choice.game;
    playRow.replaceChildren(...(trump
      ? [h("button", { type: "button", "aria-pressed": pressed(!choice.surrendered), "data-testid": "pad-played", onclick: pick({ surrendered: false }) }, t("pad.played")),
        h("button", { type: "button", "aria-pressed": pressed(choice.surrendered), "data-testid": "pad-surrendered", onclick: pick({ surrendered: true }) }, t("pad.surrendered"))]
      : [h("button", { type: "button", "aria-pressed": pressed(choice.made), "data-testid": "pad-made", onclick: pick({ made: true }) }, t("pad.made")),
        h("button", { type: "button", "aria-pressed": pressed(!choice.made), "data-testid": "pad-lost", onclick: pick({ made: false }) }, t("pad.lost"))]));
    const columns = !played || !trump ? [] : choice.surrendered ? ["melds"] : ["melds", "tricks", "card_points"];
    entries.hidden = !columns.length;
    entries.style.gridTemplateColumns = ["minmax(4rem, 1fr)", ...columns.map((c) => (c === "melds" ? "minmax(6.5rem, 8rem)" : "minmax(3.3rem, 4.5rem)"))].join(" ");
    entries.replaceChildren(h("span"), ...columns.map((c) => h("span", { class: "head", "aria-hidden": "true" }, t(`pad.field.${c}`))),
      ...seats.flatMap((seat) => [h("span", { class: `name${seat === out ? " out" : ""}` }, names[seat]),
        ...columns.map((c) => { inputs[c][seat].disabled = seat === out; return c === "melds"
          ? h("span", { class: "meld-cell" }, inputs.melds[seat], h("button", { type: "button", disabled: seat === out, "data-testid": `pad-meld-open-${seat}`,
            "aria-label": t("pad.meld_list_for", { name: names[seat] }), onclick: () => openMelds(seat) }, "≡"))
          : inputs[c][seat]; })]));
    if (!columns.includes("melds")) meldList.replaceChildren();
    hint.hidden = !columns.includes("card_points");
    form.hidden = isOver() && editing > local.sheet.deals.length;
    save.disabled = choice.soloist === undefined || (choice.soloist !== null && !choice.game);
  }
  const hint = h("p", { class: "hint" }, t("pad.card_points_hint", { points: facts.deal_points, tricks: facts.hand_size }));
  const save = h("button", { class: "primary", type: "submit", "data-testid": "pad-save" }, t("pad.save"));
  // What a tap did ("Deal 3 kept"), said under the form's buttons (the pad has no status line).
  const said = h("p", { class: "said", role: "status", "data-testid": "pad-said" });
  const form = h("form", { novalidate: true, onsubmit: (e) => { e.preventDefault(); enter(); } },
    title, h("fieldset", {}, h("legend", {}, t("pad.soloist")), soloistRow,
      facts.forced ? h("p", { class: "hint", "data-testid": "pad-forced" }, t("pad.forced_hint", { bid: facts.min_bid })) : null), bidBox,
    gameBox, playBox,
    entries, meldList, hint, error,
    h("div", { class: "row" }, save, h("button", { type: "button", "data-testid": "pad-new-entry", onclick: () => startEntry(outbox.next()) }, t("pad.clear"))), said);

  function startEntry(number, row) {
    editing = number;
    error.textContent = "";
    fill(row ? row.summary : {});
    for (const input of all()) input.removeAttribute("aria-invalid");
    meldList.replaceChildren();
    keepDraft();
    paint();
    paintSheet();
  }

  /** Enter the deal: kept on the phone at once, then sent (now, or when the server answers). */
  function enter() {
    const item = { deal: editing, summary: summary() };
    outbox.enter(item);
    say(t("outbox.kept", { n: item.deal }), said);
    startEntry(outbox.next());
  }

  function showProblem(problem) {
    error.textContent = explainProblem(problem, names);
    const field = String(problem.params?.field ?? "");
    const seat = field.match(/^(melds|card_points|tricks)\[(\d+)\]$/);
    const input = seat ? inputs[seat[1]][Number(seat[2])] : field === "bid" ? bid : null;
    if (input) { input.setAttribute("aria-invalid", "true"); input.focus(); }
  }

  function paintSheet() {
    outbox.show(sync);
    put(sheetBox, sheetTable(local.sheet, local.queue, (row) => {
      const queued = outbox.takeBack(row.number);  // a refused deal: back into the form to be corrected
      startEntry(row.number, row);
      title.scrollIntoView({ block: "start" });
      if (queued?.problem) showProblem(queued.problem);
    }, editing), winnerLine(local.sheet, facts));
  }

  const viewLink = `${location.origin}/pad#/v/${id}`;
  const share = h("details", { class: "card share" }, h("summary", {}, t("pad.share")),
    h("p", {}, t("pad.share_text")), qrBox(viewLink, t("pad.live_view"), "pad-qr"),
    h("p", {}, h("a", { class: "link", href: viewLink, "data-testid": "pad-view-link" }, viewLink)),
    local.token ? h("details", {}, h("summary", {}, t("pad.keeper_link")), h("p", { class: "link" }, `${location.origin}/pad#/k/${id}/${local.token}`)) : null);
  const actions = h("p", { class: "row actions" },
    h("a", { class: "button", href: `/api/pad/${id}/sheet.csv`, "data-testid": "pad-csv" }, t("pad.csv")),
    h("button", { type: "button", onclick: () => print() }, t("pad.print")));

  if (!outbox.restoreDraft(all())) fill({});  // an entry half made before a reload: as it was
  editing = Math.min(editing, outbox.next());
  paint();
  paintSheet();
  stopView = () => outbox.stop();
  outbox.start();
  return h("div", {}, h("h1", { class: "print-title" }, `${names.join(", ")} — ${local.sheet.rules}`), sync,
    local.token ? form : h("p", { class: "error" }, t("pad.no_secret")), sheetBox, actions, share);
}

// ---------------------------------------------------------------------- the live view

async function liveView(id) {
  const local = loadLocal(id);
  const box = h("div", { "data-testid": "pad-live" });
  const note = h("p", { class: "sync", role: "status", "data-testid": "pad-status" });
  let version = -1;
  let timer = null;
  async function look() {
    try {
      const sheet = await api("GET", `/${id}`);
      note.className = "sync";
      note.textContent = t("pad.live");
      if (sheet.version !== version) {
        version = sheet.version;
        local.sheet = sheet;
        local.facts ||= await factsOf(sheet.rules);
        saveLocal(id, local);
        put(box, sheetTable(sheet, []), winnerLine(sheet, local.facts));
      }
    } catch (problem) {
      if (!problem.offline) { box.replaceChildren(h("p", { class: "error", role: "alert" }, explainProblem(problem, []))); return; }
      note.className = "sync offline";
      note.textContent = t("pad.live_offline");
      if (version < 0 && local.sheet && local.facts) { version = local.sheet.version; put(box, sheetTable(local.sheet, []), winnerLine(local.sheet, local.facts)); }
    }
    timer = setTimeout(look, WATCH_SECONDS * 1000);
  }
  stopView = () => clearTimeout(timer);
  await look();
  return h("div", {}, h("h1", {}, t("pad.live_view")), note, box,
    h("p", { class: "row actions" }, h("a", { class: "button", href: `/api/pad/${id}/sheet.csv` }, t("pad.csv")),
      h("button", { type: "button", onclick: () => print() }, t("pad.print"))));
}

// ---------------------------------------------------------------------- routing

async function route() {
  stopView();
  stopView = () => {};
  const [, view, ...parts] = location.hash.split("/");
  try {
    let content;
    if (view === "k") content = await keeperView(parts[0], parts[1]);
    else if (view === "v") content = await liveView(parts[0]);
    else content = await startView();
    main.replaceChildren(content);
  } catch (problem) {
    main.replaceChildren(h("p", { class: "error", role: "alert" }, problem.code ? explainProblem(problem, []) : String(problem)),
      h("p", {}, h("a", { class: "button", href: "#/" }, t("pad.new_sheet"))));
  }
  translatePage(main);
  document.documentElement.dataset.ready = "true";  // the tests wait for the first view
}

await startPage(route);
registerWorker();  // the worker keeps this page and its files: it opens again without a connection
