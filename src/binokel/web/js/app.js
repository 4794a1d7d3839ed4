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
import { announceStep, bindAnnouncer, heard, reached, resetAnnouncer } from "./announce.js";
import { Channel } from "./channel.js";

const $ = (id) => document.getElementById(id);
const DECKS = ["french", "german"];

const app = {
  meta: null,
  deck: DECKS.includes(localStorage.getItem("binokel.deck")) ? localStorage.getItem("binokel.deck") : "french",
  gameId: null,
  watching: false,  // a spectator on purpose (#/watch/...), even with a seat token
};

// ---------------------------------------------------------------- the channel

const channel = new Channel({
  model: onModel,
  message: onMessage,
  error: (message, quiet) => { if (!quiet) table.onError(message); else table.onError(null); },
  state: (online) => {
    $("connection").hidden = online;
    table.setOnline(online);
  },
  closed: (code) => {
    if (code === 4403) {  // the token holds no seat here (table deleted and made again?): watch instead
      forget(app.gameId);
      toast(t("token_refused"), 5000);
    }
    if (code === 4404) $("connection").hidden = true;
  },
});

function connect(id, watching = false) {
  resetAnnouncer();
  app.gameId = id;
  app.watching = watching;
  channel.connect(id, watching ? null : seatOf(id)?.token ?? null);
}

function disconnect() {
  channel.disconnect();
  app.gameId = null;
}

function send(message) {
  if (!channel.send(message) && message.type === "action") toast(t("not_connected"));
}

/** A new model: a snapshot (``update`` null), or the model after one step's update. */
function onModel(model, update) {
  showTable();
  table.update(model);
  if (update) {
    if (update.stand_in != null) table.onEvents(update);
    announceStep(update.events, model);
  } else {
    reached(model);  // screen readers hear the events that led here, once
  }
  updateAdvice(model, app.gameId, app.deck);
  soundsFor(model);
  recordState(model, app.gameId);
  offerTutorial();
  feel(model, app.gameId);
}

function onMessage(message) {
  switch (message.type) {
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
  translatePage(document);
  route();
  document.documentElement.dataset.ready = "true";  // for tests and tools: the page is live
}

main();
