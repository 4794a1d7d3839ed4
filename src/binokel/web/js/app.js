// The page: routing between the start page and the table, the websocket, and the
// switch over server messages.

import { setLanguage, preferredLanguage, t, translatePage } from "./i18n.js";
import { StartPage, bindRules, renderRules } from "./start.js";
import { Table, toast } from "./table.js";
import { Chat, forget, remember, seatOf, showInvite, showJoin } from "./friends.js";
import { updateAdvice, refreshAdvice } from "./advice.js";
import { bindSettings } from "./settings.js";
import { bindKeyboard } from "./keyboard.js";
import { bindMenu } from "./menu.js";
import { soundsFor } from "./sound.js";
import { recordState, renderStatsSummary } from "./stats.js";
import { bindTutorial, offerTutorial } from "./tutorial.js";
import { registerWorker, serverUnreachable } from "./offline.js";
import { feel } from "./feel.js";
import { watchResults, bindUpload } from "./review.js";
import { bindAnnouncer, heard, reached, resetAnnouncer } from "./announce.js";

const $ = (id) => document.getElementById(id);
const DECKS = ["french", "german"];

const app = {
  meta: null,
  deck: DECKS.includes(localStorage.getItem("binokel.deck")) ? localStorage.getItem("binokel.deck") : "french",
  socket: null,
  gameId: null,
  watching: false,  // a spectator on purpose (#/watch/...), even with a seat token
  version: null,
  awaitingSync: true,
  retry: 0,
};

// ---------------------------------------------------------------- websocket

function connect(id, watching = false) {
  disconnect();
  resetAnnouncer();
  app.gameId = id;
  app.watching = watching;
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
    // The seat token goes in the first message, never in a URL; no token: a spectator.
    const token = app.watching ? null : seatOf(id)?.token ?? null;
    socket.send(JSON.stringify({ type: "hello", token, version: app.version }));
  });
  socket.addEventListener("message", (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    onMessage(message);
  });
  socket.addEventListener("close", (event) => {
    if (app.socket !== socket || app.gameId !== id) return;  // replaced on purpose
    if (event.code === 4403) {  // the token holds no seat here (table deleted and made again?): watch instead
      forget(id);
      toast(t("token_refused"), 5000);
    }
    if (event.code === 4404) { $("connection").hidden = true; return; }
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
      // The same version again is a fresh snapshot (a friend sat down): shown, not a gap.
      if (!app.awaitingSync && expected != null && message.version !== expected && message.version !== app.version) {
        if (message.version < app.version) return;
        app.awaitingSync = true;
        send({ type: "sync" });
      } else {
        app.awaitingSync = false;
      }
      app.version = message.version;
      showTable();
      table.update(message);
      reached(message);  // screen readers hear the events that led here, once
      updateAdvice(message, app.gameId, app.deck);
      soundsFor(message);
      recordState(message, app.gameId);
      offerTutorial();
      feel(message, app.gameId);
      break;
    }
    case "hint":
      table.showHint(message.action);
      break;
    case "events":
      table.onEvents(message);
      heard(message.events);
      break;
    case "presence":
      table.onPresence(message);
      break;
    case "chat":
      chat.add(message, table.mySeat);
      break;
    case "chat_log":
      chat.reset();
      for (const line of message.lines) chat.add(line, table.mySeat);
      chat.unread = 0;
      chat.badge();
      break;
    case "error":
      table.onError(message);
      app.awaitingSync = true;
      send({ type: "sync" });
      break;
    case "rematch": {
      const held = seatOf(app.gameId);  // the same people in the same seats: the same token
      if (held && !app.watching) remember(message.id, { token: held.token, seat: held.seat, host: held.host });
      location.hash = `#/${app.watching || !held ? "watch" : "game"}/${encodeURIComponent(message.id)}`;
      break;
    }
    default:
      break;
  }
}

// ---------------------------------------------------------------- pages

const table = new Table(send, {
  onNewGame: () => { location.hash = "#/"; },
  onInvite: () => showInvite(app.gameId, seatOf(app.gameId), app.meta?.listen),
});
const chat = new Chat(send);
let start;

function showTable() {
  $("loading").hidden = true;
  $("start-view").hidden = true;
  $("join-view").hidden = true;
  $("table-view").hidden = false;
  document.body.dataset.page = "table";
}

function showStart() {
  $("loading").hidden = true;
  $("table-view").hidden = true;
  $("join-view").hidden = true;
  $("start-view").hidden = false;
  document.body.dataset.page = "start";
  document.title = "Binokel";
  start.loadResumeList();
  renderStatsSummary(() => app.deck);
}

function showJoinPage(target) {
  disconnect();
  table.reset();
  $("loading").hidden = true;
  $("table-view").hidden = true;
  $("start-view").hidden = true;
  $("join-view").hidden = false;
  document.body.dataset.page = "join";
  showJoin(target, (id) => { location.hash = `#/game/${encodeURIComponent(id)}`; });
}

function route() {
  const hash = location.hash;
  // #/seat/{id}/{token}: take a seat this browser was handed (another device, a test); the
  // token stays in the fragment (never sent to the server in a URL) and is then removed.
  const handed = /^#\/seat\/([^/]+)\/([^/]+)$/.exec(hash);
  if (handed) {
    const id = decodeURIComponent(handed[1]);
    remember(id, { token: decodeURIComponent(handed[2]) });
    history.replaceState(null, "", `#/game/${encodeURIComponent(id)}`);
  }
  const match = /^#\/(game|watch)\/([^/]+)$/.exec(location.hash);
  const join = /^#\/join\/(.+)$/.exec(location.hash);
  const lobby = /^#\/lobby\/([^/]+)$/.exec(location.hash);
  if (match) {
    const id = decodeURIComponent(match[2]);
    const watching = match[1] === "watch";
    if (id !== app.gameId || watching !== app.watching) {
      table.reset();
      chat.reset();
      table.gameId = id;
      connect(id, watching);
      $("loading").hidden = false;
      $("start-view").hidden = true;
      $("join-view").hidden = true;
    }
  } else if (join) {
    showJoinPage({ code: decodeURIComponent(join[1]) });
  } else if (lobby) {
    showJoinPage({ id: decodeURIComponent(lobby[1]) });
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
  refreshAdvice(deck);
  start?.renderDecks();
}

async function changeLanguage(lang) {
  await setLanguage(lang);
  $("language-select").value = lang;
  start?.render();
  if (!$("start-view").hidden) renderStatsSummary(() => app.deck);  // its counts in the new language
  chat.renderPhrases();
  refreshAdvice();
  if ($("rules-dialog").open) renderRules();
  table.redraw?.call(table);
}

async function main() {
  // Listen at once: a choice made while the page is still loading must not be lost.
  $("language-select").addEventListener("change", (e) => changeLanguage(e.target.value));
  $("deck-select").addEventListener("change", (e) => setDeck(e.target.value));
  try {
    await setLanguage(preferredLanguage());
  } catch {
    serverUnreachable();  // no catalogue: neither from the server nor kept by the service worker
  }
  $("language-select").value = document.documentElement.lang;
  chat.renderPhrases();  // made before the catalogue had loaded: now in words, not keys
  try {
    app.meta = await (await fetch("/api/meta")).json();
  } catch {
    app.meta = { rule_sets: [{ name: "standard", about: "", changes: [] }], options: [], levels: ["easy", "medium", "hard", "expert"],
      decks: DECKS, opponent_names: [] };
    serverUnreachable();
  }
  table.options = app.meta.options;
  start = new StartPage({
    meta: app.meta,
    onStart: (id, invite) => {
      table.inviteOnStart = invite;
      location.hash = `#/game/${encodeURIComponent(id)}`;
    },
    getDeck: () => app.deck,
    setDeck,
  });
  start.render();
  setDeck(app.deck);
  bindRules();
  watchResults(() => table);
  bindSettings();
  bindAnnouncer();
  bindKeyboard(table);
  bindMenu();
  bindTutorial(table);
  registerWorker();
  bindUpload();
  window.addEventListener("hashchange", route);
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && document.body.classList.contains("log-open")) document.body.classList.remove("log-open");
  });
  translatePage(document);
  route();
  document.documentElement.dataset.ready = "true";  // for tests and tools: the page is live
}

main();
