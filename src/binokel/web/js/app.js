// The page: routing between the start page and the table, the websocket, and the
// switch over server messages.

import { setLanguage, preferredLanguage, t, translatePage } from "./i18n.js";
import { StartPage, bindRules, renderRules } from "./start.js";
import { Table, toast } from "./table.js";

const $ = (id) => document.getElementById(id);
const DECKS = ["french", "german"];

const app = {
  meta: null,
  deck: DECKS.includes(localStorage.getItem("binokel.deck")) ? localStorage.getItem("binokel.deck") : "french",
  socket: null,
  gameId: null,
  version: null,
  awaitingSync: true,
  retry: 0,
};

// ---------------------------------------------------------------- websocket

function connect(id) {
  disconnect();
  app.gameId = id;
  app.version = null;
  app.awaitingSync = true;
  open();
}

function open() {
  const id = app.gameId;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const socket = new WebSocket(`${scheme}://${location.host}/ws/games/${encodeURIComponent(id)}`);
  app.socket = socket;
  socket.addEventListener("open", () => {
    app.retry = 0;
    $("connection").hidden = true;
    app.awaitingSync = true;
    send({ type: "sync" });
  });
  socket.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    onMessage(message);
  });
  socket.addEventListener("close", () => {
    if (app.socket !== socket || app.gameId !== id) return;  // replaced on purpose
    $("connection").hidden = false;
    const delay = Math.min(5000, 400 * 2 ** app.retry++);
    setTimeout(() => { if (app.socket === socket && app.gameId === id) open(); }, delay);
  });
}

function disconnect() {
  const socket = app.socket;
  app.socket = null;
  app.gameId = null;
  if (socket) socket.close();
  $("connection").hidden = true;
}

function send(message) {
  if (app.socket && app.socket.readyState === WebSocket.OPEN) app.socket.send(JSON.stringify(message));
  else if (message.type === "action") toast(t("not_connected"));
}

/** Resync when a state does not follow the last one; stale states are dropped. */
function onMessage(message) {
  switch (message.type) {
    case "state": {
      const expected = app.version == null ? null : app.version + 1;
      if (!app.awaitingSync && expected != null && message.version !== expected) {
        if (message.version <= app.version) return;
        app.awaitingSync = true;
        send({ type: "sync" });
      } else {
        app.awaitingSync = false;
      }
      app.version = message.version;
      showTable();
      table.update(message);
      break;
    }
    case "hint":
      table.showHint(message.action);
      break;
    case "error":
      table.onError(message);
      app.awaitingSync = true;
      send({ type: "sync" });
      break;
    case "rematch":
      location.hash = `#/game/${encodeURIComponent(message.id)}`;
      break;
    default:
      break;
  }
}

// ---------------------------------------------------------------- pages

const table = new Table(send, { onNewGame: () => { location.hash = "#/"; } });
let start;

function showTable() {
  $("loading").hidden = true;
  $("start-view").hidden = true;
  $("table-view").hidden = false;
  document.body.dataset.page = "table";
}

function showStart() {
  $("loading").hidden = true;
  $("table-view").hidden = true;
  $("start-view").hidden = false;
  document.body.dataset.page = "start";
  document.title = "Binokel";
  start.loadResumeList();
}

function route() {
  const match = /^#\/game\/([^/]+)$/.exec(location.hash);
  if (match) {
    const id = decodeURIComponent(match[1]);
    if (id !== app.gameId) {
      table.reset();
      table.gameId = id;
      connect(id);
      $("loading").hidden = false;
      $("start-view").hidden = true;
    }
  } else {
    disconnect();
    table.reset();
    showStart();
  }
}

function setDeck(deck) {
  if (!DECKS.includes(deck)) return;
  app.deck = deck;
  localStorage.setItem("binokel.deck", deck);
  document.body.dataset.deck = deck;
  $("deck-select").value = deck;
  table.setDeck(deck);
  start?.renderDecks();
}

async function changeLanguage(lang) {
  await setLanguage(lang);
  $("language-select").value = lang;
  start?.render();
  if ($("rules-dialog").open) renderRules();
  table.redraw?.call(table);
}

async function main() {
  // Listen at once: a choice made while the page is still loading must not be lost.
  $("language-select").addEventListener("change", (e) => changeLanguage(e.target.value));
  $("deck-select").addEventListener("change", (e) => setDeck(e.target.value));
  await setLanguage(preferredLanguage());
  $("language-select").value = document.documentElement.lang;
  try {
    app.meta = await (await fetch("/api/meta")).json();
  } catch {
    app.meta = { rule_sets: [{ name: "standard", about: "", changes: [] }], options: [], levels: ["easy", "medium", "hard"],
      decks: DECKS, opponent_names: [] };
  }
  table.options = app.meta.options;
  start = new StartPage({
    meta: app.meta,
    onStart: (id) => { location.hash = `#/game/${encodeURIComponent(id)}`; },
    getDeck: () => app.deck,
    setDeck,
  });
  start.render();
  setDeck(app.deck);
  bindRules();
  window.addEventListener("hashchange", route);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && document.body.classList.contains("log-open")) document.body.classList.remove("log-open");
  });
  translatePage(document);
  route();
  document.documentElement.dataset.ready = "true";  // for tests and tools: the page is live
}

main();
