// Club tournaments in the browser: the organiser's console, the scorekeeper's sheet, the
// projector's live standings and the printable table cards. Every rule lives on the server
// (binokel.club); this page sends what was entered and shows what the server says.
// Secrets arrive in a link's fragment (never sent to the server in a URL), are kept in
// localStorage and removed from the address bar at once. The scorekeeper's sheet is kept
// on the phone (web/js/outbox.js, as the score pad's): it opens and takes deals offline.

import { t, translatePage, reason, number } from "../js/i18n.js";
import { h, qrBox, say, startPage } from "../js/page.js";
import { registerWorker } from "../js/offline.js";
import { Outbox, jsonApi, loadKept, saveKept, withWaiting } from "../js/outbox.js";

const main = document.getElementById("main");
const GAMES = ["S", "H", "D", "C", "durch", "bettel"];
const SUITS = { S: "♠", H: "♥", D: "♦", C: "♣" };
let socket = null;
let stopView = () => {};

const secretKey = (...parts) => `binokel.club.${parts.join(".")}`;
const euros = (cents) => (cents / 100).toLocaleString(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** A request to the club API; a refusal throws {code, params} (shown with the catalogue). */
const api = jsonApi("/api/club/", "club_offline");

/** A refusal in words: in ``where`` (an alert beside what was refused) when there is one, else
 *  in the page's status line. Once: said in both, a screen reader heard it twice. */
function showError(problem, where) {
  const text = reason(problem);
  if (where) where.textContent = text;
  else say(text);
}

// ---------------------------------------------------------------------- new event

function newEventView() {
  const error = h("p", { class: "error", role: "alert" });
  const field = (key, input) => h("label", { class: "field" }, h("span", { "data-i18n": key }), input);
  const name = h("input", { name: "name", required: true, maxlength: 60, "data-testid": "club-name" });
  const rules = h("input", { name: "rules", value: "club" });
  const rounds = h("input", { type: "number", min: 1, max: 10, value: 3 });
  const deals = h("input", { type: "number", min: 1, max: 60, value: 12 });
  const size = h("select", {}, h("option", { value: 3, "data-i18n": "club.size3" }), h("option", { value: 4, "data-i18n": "club.size4" }));
  const fee = h("input", { type: "number", min: 0, step: "0.10", value: "0.50" });
  const feeFrom = h("input", { type: "number", min: 2, value: 5 });
  const feeLater = h("input", { type: "number", min: 0, step: "0.10", value: "1.00" });
  const entry = h("input", { type: "number", min: 0, step: "0.50", value: "0" });
  const cents = (input) => Math.round(Number(input.value) * 100);
  const form = h("form", {
    novalidate: true,
    onsubmit: async (e) => {
      e.preventDefault();
      const settings = { name: name.value, rules: rules.value.trim() || "club", rounds: Number(rounds.value),
        deals: Number(deals.value), table_size: Number(size.value), entry_fee: cents(entry),
        fees: [[1, cents(fee)], [Number(feeFrom.value), cents(feeLater)]] };
      try {
        const created = await api("POST", "events", settings);
        localStorage.setItem(secretKey("organiser", created.id), created.organiser);
        location.hash = `#/o/${created.id}`;
      } catch (problem) { showError(problem, error); }
    },
  },
  h("h1", { "data-i18n": "club.new_event" }),
  field("club.event_name", name), field("club.rules", rules),
  h("div", { class: "grid2" }, field("club.rounds", rounds), field("club.deals", deals)),
  field("club.table_size", size),
  h("div", { class: "grid2" }, field("club.fee", fee), field("club.entry_fee", entry)),
  h("div", { class: "grid2" }, field("club.fee_from", feeFrom), field("club.fee_later", feeLater)),
  error, h("button", { class: "primary", type: "submit", "data-testid": "club-create", "data-i18n": "club.create" }));
  return form;
}

// ---------------------------------------------------------------------- standings

/** The standings: place, player, each round, total, won, lost, fees. On a phone the columns
 *  marked "more" give way to one line under the player's name that says the same (club.css). */
function standingsTable(rows, rounds) {
  const round = (n) => t("club.round_n", { n: n + 1 });
  const after = [t("club.won"), t("club.lost"), t("club.fees")];  // the columns after the total
  const head = h("tr", {}, h("th", { "data-i18n": "club.place" }), h("th", { "data-i18n": "club.player" }),
    ...Array.from({ length: rounds }, (_, i) => h("th", { class: "more" }, round(i))),
    h("th", { "data-i18n": "club.total" }), ...after.map((text) => h("th", { class: "more" }, text)));
  const body = rows.map((row) => {
    const rest = [row.won, row.lost, euros(row.fees)];
    const detail = [...row.rounds.map((n, i) => `${round(i)}: ${number(n)}`), ...rest.map((v, i) => `${after[i]}: ${v}`)];
    return h("tr", { class: row.dropped ? "dropped" : null },
      h("td", {}, row.place), h("td", { class: "name" }, h("span", {}, row.name), h("small", { class: "detail" }, detail.join(" · "))),
      ...row.rounds.map((n) => h("td", { class: "more" }, number(n))),
      h("td", {}, h("strong", {}, number(row.total))), ...rest.map((v) => h("td", { class: "more" }, v)));
  });
  return h("div", { style: "overflow-x:auto", tabindex: 0 }, h("table", { class: "standings", "data-testid": "club-standings" }, h("thead", {}, head), h("tbody", {}, body)));
}

// ---------------------------------------------------------------------- organiser

async function organiserView(id, secretFromLink) {
  if (secretFromLink) {
    localStorage.setItem(secretKey("organiser", id), secretFromLink);
    history.replaceState(null, "", `#/o/${id}`);
  }
  const secret = localStorage.getItem(secretKey("organiser", id));
  const event = await api("GET", `events/${id}`);
  const error = h("p", { class: "error", role: "alert" });
  const base = `${location.origin}/club`;
  const act = async (work) => { try { await work(); route(); } catch (problem) { showError(problem, error); } };
  const name = h("input", { maxlength: 60, "data-testid": "club-player-name", "aria-label": t("club.player") });
  const register = h("form", { class: "row", onsubmit: (e) => { e.preventDefault(); act(() => api("POST", `events/${id}/entries`, { kind: "register", name: name.value }, secret)); } },
    name, h("button", { class: "primary", type: "submit", "data-testid": "club-register", "data-i18n": "club.register" }));
  const players = h("ul", {}, event.players.map((p) => h("li", { class: `row ${p.dropped ? "dropped" : ""}` }, p.name,
    h("button", { onclick: () => act(() => api("POST", `events/${id}/entries`, { kind: p.dropped ? "return" : "drop", player: p.id }, secret)) },
      t(p.dropped ? "club.return" : "club.drop")))));
  const current = event.rounds[event.round - 1];
  const canDraw = !event.over && (!current || current.complete) && event.round < event.settings.rounds;
  const drawButton = h("button", { class: "primary", disabled: !canDraw, "data-testid": "club-draw",
    onclick: () => act(async () => {
      const drawn = await api("POST", `events/${id}/draw`, undefined, secret);
      localStorage.setItem(secretKey("cards", id, drawn.round), JSON.stringify(drawn.cards));
    }) }, t("club.draw_round", { n: event.round + 1 }));
  const cards = current ? JSON.parse(localStorage.getItem(secretKey("cards", id, current.number)) || "null") : null;
  return h("div", {},  // printed: only the table cards (the rest is marked no-print)
    h("h1", {}, event.settings.name),
    h("p", { class: "no-print" }, t("club.progress", { round: event.round, rounds: event.settings.rounds })),
    secret ? null : h("p", { class: "error", "data-i18n": "club.no_secret" }),
    h("div", { class: "card no-print" }, h("h2", { "data-i18n": "club.links" }),
      h("p", {}, h("span", { "data-i18n": "club.projector_link" }), " ", h("a", { class: "link", href: `${base}#/s/${id}` }, `${base}#/s/${id}`)),
      secret ? h("details", {}, h("summary", { "data-i18n": "club.organiser_link" }),
        h("p", { class: "link" }, `${base}#/o/${id}/${secret}`)) : null,
      h("p", {}, h("a", { class: "button", href: `/api/club/events/${id}/standings.csv`, "data-i18n": "club.csv" }), " ",
        h("a", { class: "button", href: `/api/club/events/${id}/deals.csv`, "data-i18n": "club.deals_csv" }))),
    error,
    h("div", { class: "card no-print" }, h("h2", { "data-i18n": "club.players" }), register, players, drawButton),
    current ? roundView(id, event, current, cards) : null,
    h("div", { class: "no-print" }, h("h2", { "data-i18n": "club.standings" }), standingsTable(event.standings, event.round)),
    h("div", { class: "card no-print" }, h("h2", { "data-i18n": "club.sheets" }),  // the organiser corrects any deal
      event.rounds.map((round) => h("p", { class: "row" }, t("club.round_n", { n: round.number }), ":",
        round.tables.map((table) => h("a", { class: "button", href: `#/t/${id}/${round.number}/${table.number}` }, table.number))))),
    secret ? auditView(id, secret) : null);
}

/** The audit log: every entry with who made it and when; a correction with the scores before. */
function auditView(id, secret) {
  const box = h("details", { class: "card no-print", "data-testid": "club-audit" }, h("summary", { "data-i18n": "club.audit" }));
  box.addEventListener("toggle", async () => {
    if (!box.open || box.querySelector("table")) return;
    try {
      const { audit } = await api("GET", `events/${id}/audit`, undefined, secret);
      const what = (line) => (line.kind === "deal"
        ? `${t("club.round_n", { n: line.round })}, ${t("club.table_n", { n: line.table })}, ${t("club.deal_n_short", { n: line.deal })}: ${line.before ? `${line.before.join(" / ")} → ` : ""}${line.scores.join(" / ")}`
        : [line.kind, line.name, line.player].filter((v) => v != null).join(" "));
      box.append(h("div", { style: "overflow-x:auto", tabindex: 0 }, h("table", {}, h("tbody", {}, audit.slice().reverse().map((line) =>
        h("tr", { class: line.before ? "correction" : null }, h("td", {}, line.at.replace("T", " ").slice(0, 19)),
          h("td", { class: "name" }, line.by), h("td", { class: "name" }, what(line))))))));
    } catch (problem) { showError(problem); }
  });
  return box;
}

function roundView(id, event, round, cards) {
  const base = `${location.origin}/club`;
  const secretOf = (number) => cards?.find((c) => c.table === number)?.secret;
  return h("div", {},
    h("h2", { class: "no-print" }, t("club.round_n", { n: round.number })),
    cards ? h("button", { class: "no-print", onclick: () => print(), "data-i18n": "club.print_cards" }) : null,
    round.tables.map((table) => {
      const secret = secretOf(table.number);
      const link = `${base}#/t/${id}/${round.number}/${table.number}${secret ? `/${secret}` : ""}`;
      return h("section", { class: "table-card", "data-testid": "club-table-card" },
        h("div", { class: "row" }, h("span", { class: "number" }, t("club.table_n", { n: table.number })),
          h("span", {}, t("club.deals_entered", { n: table.deals.length, of: event.settings.deals }))),
        h("ol", {}, table.names.map((name, seat) => h("li", {}, name,
          table.players[seat] === table.scorekeeper ? ` — ${t("club.scorekeeper")}` : "",
          seat === table.first_dealer ? ` — ${t("club.first_dealer")}` : ""))),
        secret ? qrBox(link, t("club.table_n", { n: table.number }), "club-qr") : null,
        secret ? h("p", {}, h("span", { "data-i18n": "club.sheet_link" }), " ", h("a", { class: "link", href: link }, link)) : null);
    }));
}

// ---------------------------------------------------------------------- scorekeeper

/** The table's sheet as this phone keeps it: {title, deals (per round), sheet (the server's
 *  table), queue, draft}; see web/js/outbox.js. */
const keptKey = (id, round, table) => secretKey("sheet", id, round, table);

async function tableView(id, roundNumber, tableNumber, secretFromLink) {
  const key = secretKey("table", id, roundNumber, tableNumber);
  if (secretFromLink) {
    localStorage.setItem(key, secretFromLink);
    history.replaceState(null, "", `#/t/${id}/${roundNumber}/${tableNumber}`);
  }
  const secret = localStorage.getItem(key) || localStorage.getItem(secretKey("organiser", id));
  const local = loadKept(keptKey(id, roundNumber, tableNumber));
  const keep = () => saveKept(keptKey(id, roundNumber, tableNumber), local);
  const tableOf = (event) => {
    const table = event.rounds[roundNumber - 1]?.tables[tableNumber - 1];
    if (!table) throw { code: "club_no_table", params: { field: "table" } };
    return table;
  };
  let online = true;
  try {
    const event = await api("GET", `events/${id}`);
    Object.assign(local, { title: event.settings.name, deals: event.settings.deals, sheet: tableOf(event) });
  } catch (problem) {
    if (!problem.offline || !local.sheet) throw problem;
    online = false;  // the phone's copy, until the server answers again
  }
  keep();
  const table = local.sheet;  // who sits where does not change within a round
  const seats = table.players.length;
  const outbox = new Outbox({
    kept: local, online, save: keep,
    post: async (item) => (await api("POST", `events/${id}/deals`, { round: roundNumber, table: tableNumber, deal: item.deal, summary: item.summary }, secret)).table,
    fetch: async () => tableOf(await api("GET", `events/${id}`)),
    refusedAtOnce: (item, problem) => { startEntry(item.deal, item.summary); showError(problem, error); },  // nothing lost
    changed: () => {
      editing = Math.min(editing, outbox.next());  // a correction or a half-made entry stays
      paint();
      paintSheet();
    },
  });
  const error = h("p", { class: "error", role: "alert", "data-testid": "club-error" });
  const sync = h("p", { class: "sync", role: "status", "data-testid": "club-status" });
  // "Deal 3 kept", said under Save: the page's status line at the screen's foot covered the form.
  const said = h("p", { class: "said", role: "status", "data-testid": "club-said" });
  const rows = () => withWaiting(local.sheet.deals.map((deal, index) => ({ number: index + 1, ...deal })), local.queue);
  let editing = local.draft?.editing ?? outbox.next();
  const state = { soloist: undefined, game: "H", surrendered: false, ...(local.draft?.choice || {}) };
  const dealerOf = (deal) => (table.first_dealer + deal - 1) % seats;
  const outOf = (deal) => (seats === 4 ? dealerOf(deal) : null);
  const title = h("h2", {});
  const soloistRow = h("div", { class: "row", role: "group" });
  const gameRow = h("div", { class: "row", role: "group" });
  function keepDraft() { outbox.keepDraft(editing, state, all()); }
  const bid = h("input", { type: "number", step: 10, min: 0, value: 150, "data-testid": "club-bid", "aria-label": t("club.bid"), oninput: keepDraft });
  const pick = (change) => () => { Object.assign(state, change); keepDraft(); paint(); };
  const surrendered = h("button", { type: "button", "data-testid": "club-surrendered", onclick: () => pick({ surrendered: !state.surrendered })() }, t("club.surrendered"));
  const inputs = { melds: [], card_points: [], tricks: [] };
  const all = () => [bid, ...Object.values(inputs).flat()];
  const grid = h("div", { class: "seats" }, h("span"), ["club.melds", "club.card_points", "club.tricks"].map((k) => h("span", { class: "head", "data-i18n": k })));
  for (let seat = 0; seat < seats; seat++) {
    grid.append(h("span", { class: "name", "data-seat": seat }, table.names[seat]));
    for (const field of Object.keys(inputs)) {
      const input = h("input", { type: "number", min: 0, step: field === "tricks" ? 1 : 10, inputmode: "numeric",
        "data-testid": `club-${field}-${seat}`, "aria-label": `${table.names[seat]}: ${t(`club.${field}`)}`, oninput: keepDraft });
      inputs[field].push(input);
      grid.append(input);
    }
  }
  function paint() {
    title.textContent = t("club.deal_n", { n: editing, dealer: table.names[dealerOf(editing)] });
    soloistRow.replaceChildren(...table.names.map((name, seat) => h("button", { type: "button", disabled: seat === outOf(editing),
      "aria-pressed": String(state.soloist === seat), "data-testid": `club-soloist-${seat}`, onclick: pick({ soloist: seat }) }, name)),
    h("button", { type: "button", "aria-pressed": String(state.soloist === null), "data-testid": "club-nobody", onclick: pick({ soloist: null }) }, t("club.nobody_played")));
    gameRow.replaceChildren(...GAMES.map((game) => h("button", { type: "button", "aria-pressed": String(state.game === game),
      "aria-label": t(`club.game.${game}`), "data-testid": `club-game-${game}`, onclick: pick({ game }) }, SUITS[game] || t(`club.game.${game}`))));
    surrendered.setAttribute("aria-pressed", String(state.surrendered));
    for (let seat = 0; seat < seats; seat++) for (const field of Object.keys(inputs)) inputs[field][seat].disabled = seat === outOf(editing);
    form.hidden = editing > local.deals;
  }
  function fill(summary) {
    state.soloist = summary.soloist; state.game = summary.game || "H"; state.surrendered = !!summary.surrendered;
    bid.value = summary.bid ?? 150;
    for (const field of Object.keys(inputs)) inputs[field].forEach((input, seat) => { input.value = summary[field]?.[seat] ?? ""; });
  }
  function summary() {
    if (state.soloist === null) return { soloist: null };
    const numbers = (field, gaps) => inputs[field].map((input, seat) => (seat === outOf(editing) ? 0 : input.value === "" ? (gaps ? null : 0) : Number(input.value)));
    const data = { soloist: state.soloist ?? -1, bid: Number(bid.value), game: state.game, surrendered: state.surrendered, melds: numbers("melds") };
    if (!state.surrendered && !["durch", "bettel"].includes(state.game)) Object.assign(data, { card_points: numbers("card_points", true), tricks: numbers("tricks") });
    if (["durch", "bettel"].includes(state.game)) data.tricks = numbers("tricks");
    return data;
  }
  /** A deal into the form: the next one (empty) or one entered before, to correct it. */
  function startEntry(number, entered = {}) {
    editing = number;
    error.textContent = "";
    fill(entered);
    keepDraft();
    paint();
    paintSheet();
  }
  const sheet = h("div", {});
  function paintSheet() {
    outbox.show(sync);
    const cells = (row) => (row.pending ? [h("td", { colspan: seats }, row.problem ? reason(row.problem) : t("outbox.waiting"))]
      : row.scores.map((s) => h("td", {}, number(s))));
    sheet.replaceChildren(h("table", { "data-testid": "club-sheet" },
      h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", { "data-i18n": "club.soloist" }), local.sheet.names.map((n) => h("th", {}, n)),
        h("th", {}, h("span", { class: "visually-hidden" }, t("club.correct"))))),
      h("tbody", {}, rows().map((row) => h("tr", { class: row.problem ? "refused" : row.pending ? "pending" : null, "data-testid": `club-row-${row.number}` },
        h("td", {}, row.number), h("td", { class: "name" }, row.summary.soloist == null ? "—" : table.names[row.summary.soloist]),
        ...cells(row),
        h("td", {}, h("button", { "data-testid": `club-correct-${row.number}`, onclick: () => {
          const refused = outbox.takeBack(row.number);  // a refused deal: back into the form to be corrected
          startEntry(row.number, row.summary);
          if (refused) showError(refused.problem, error);
        }, "aria-label": t("pad.correct_n", { n: row.number }) }, "✎"))))),  // the score pad's words: the same sheet
      h("tfoot", {}, h("tr", {}, h("td"), h("th", { scope: "row", "data-i18n": "club.total" }), local.sheet.totals.map((n) => h("th", {}, number(n))), h("td")))));
    translatePage(sheet);
  }
  const form = h("form", {
    class: "no-print",  // printed: the sheet of the deals entered, without the form
    novalidate: true,  // the server says what is wrong, in the reader's language
    onsubmit: (e) => {  // kept on the phone at once, then sent (now, or when the server answers)
      e.preventDefault();
      const item = { deal: editing, summary: summary() };
      outbox.enter(item);
      say(t("outbox.kept", { n: item.deal }), said);
      startEntry(outbox.next());
    },
  }, title, h("p", { "data-i18n": "club.soloist" }), soloistRow, h("label", { class: "field" }, h("span", { "data-i18n": "club.bid" }), bid),
  gameRow, h("div", { class: "row" }, surrendered), grid, error,
  h("button", { class: "primary", type: "submit", "data-testid": "club-save", "data-i18n": "club.save" }), said);
  if (!outbox.restoreDraft(all())) fill({});  // an entry half made before a reload: as it was
  editing = Math.min(editing, outbox.next());
  paint();
  paintSheet();
  stopView = () => outbox.stop();
  outbox.start();
  return h("div", {}, h("h1", {}, `${local.title} — ${t("club.round_n", { n: roundNumber })}, ${t("club.table_n", { n: tableNumber })}`),
    secret ? null : h("p", { class: "error", "data-i18n": "club.no_table_secret" }), sync, form, sheet);
}

// ---------------------------------------------------------------------- projector

function projectorView(id) {
  document.body.classList.add("projector");
  const view = h("div", { "data-testid": "club-projector" });
  const connect = () => {
    socket = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/club/${id}`);
    socket.onmessage = (message) => {
      const data = JSON.parse(message.data);
      if (data.type !== "event") return showError(data);
      const event = data.event;
      view.replaceChildren(h("h1", {}, event.settings.name, " — ", t("club.progress", { round: event.round, rounds: event.settings.rounds })),
        standingsTable(event.standings, event.round));
      translatePage(view);
    };
    socket.onclose = (closed) => { if (socket === closed.target && closed.code !== 4404) setTimeout(connect, 2000); };
  };
  connect();
  return view;
}

// ---------------------------------------------------------------------- routing

async function route() {
  stopView();
  stopView = () => {};
  if (socket) { const old = socket; socket = null; old.close(); }
  document.body.classList.remove("projector");
  const [, view, ...parts] = location.hash.split("/");
  try {
    let content;
    if (view === "o") content = await organiserView(parts[0], parts[1]);
    else if (view === "t") content = await tableView(parts[0], Number(parts[1]), Number(parts[2]), parts[3]);
    else if (view === "s") content = projectorView(parts[0]);
    else content = newEventView();
    main.replaceChildren(content);
  } catch (problem) {
    main.replaceChildren(h("p", { class: "error", role: "alert" }, reason(problem)));
  }
  translatePage(main);
  document.documentElement.dataset.ready = "true";  // the tests wait for the first view
}

await startPage(route);
registerWorker();  // the worker keeps this page and its files: a scorekeeper's sheet opens again offline
