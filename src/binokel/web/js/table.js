// The table: seats, Tapp, trick, hand and the controls of the current phase, drawn from
// the latest state message. Trick plays are animated (skippable) before the final view.

import { t, escape, tSeat, language, number, cardText, suitName, meldName, optionLabel, optionMeaning, choiceLabel, reason } from "./i18n.js";
import { cardElement, cardBack, sortHand, suitIcon, namedSuit, cardChip, points } from "./cards.js";
import * as model from "./model.js";
import { renderLog, renderSheet, dealResult, gameLabel } from "./sheet.js";
import { renderMarks, notNowText } from "./marks.js";
import { settings, scaled, botPause, animationsOff } from "./settings.js";
import { presenceClass, presenceText, seatOf } from "./friends.js";
import { refit, panelFocus } from "./layout.js";

const $ = (id) => document.getElementById(id);
/** Names as a sentence's list: "Ben and Cleo", "Ben, Cleo und Dora". */
const list = (names) => { try { return new Intl.ListFormat(language(), { type: "conjunction" }).format(names); } catch { return names.join(", "); } };
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
const DRAG_START = 12;  // px a press moves before it is a drag (a finger wobbles less on a tap)
/** Is the pointer over the felt (where a dragged card is played)? */
const overFelt = (e) => { const r = $("felt").getBoundingClientRect(); return e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom; };

/** A short message; ``kind`` names what it belongs to, so that it can go with it (hideToast). */
export function toast(text, ms = 2600, kind = "") {
  const el = $("toast");
  el.textContent = text;
  el.dataset.kind = kind;
  el.classList.add("show");
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => el.classList.remove("show"), ms);
}

/** Take away a toast of this kind (a hint once its moment has passed). */
export function hideToast(kind) {
  const el = $("toast");
  if (el.dataset.kind === kind) { el.classList.remove("show"); el.dataset.kind = ""; }
}

/** Open or close the game log. Under 1200 px it is a drawer over the table (panelFocus). */
function showLog(open) {
  const was = document.body.classList.contains("log-open");
  document.body.classList.toggle("log-open", open);
  if (was === open || getComputedStyle($("log-panel")).position !== "fixed") return;
  panelFocus($("log-panel"), open, $("log-panel").querySelector(".close"), $("menu-button"));
}

export class Table {
  constructor(send, { onNewGame, onInvite }) {
    this.send = send;
    this.onNewGame = onNewGame;
    this.onInvite = onInvite;
    this.inviteOnStart = false;
    this.options = [];  // /api/meta's options: the standard values and meanings
    this.deck = "french";
    this.reset();
    $("hand").addEventListener("click", (e) => this.onHandClick(e));
    // How the last press began: a finger raises a card first, a mouse plays it at once.
    $("hand").addEventListener("pointerdown", (e) => { this.pointer = e.pointerType; }, true);
    $("hand").addEventListener("pointerdown", (e) => this.dragStart(e));
    $("hand").addEventListener("keydown", (e) => this.onHandKey(e));
    $("controls").addEventListener("click", (e) => this.onControl(e));
    $("result").addEventListener("click", (e) => this.onControl(e));
    $("centre").addEventListener("click", () => this.skip());
    $("meld-reveal").addEventListener("click", (e) => {
      if (!e.target.closest("[data-testid=meld-reveal-close]")) return;
      e.stopPropagation();
      this.meldsClosed = `${this.gameId}:${this.msg.game.deal_number}`;
      this.renderMeldReveal();
    });
    $("hint-button").addEventListener("click", () => this.askHint());
    $("last-trick-button").addEventListener("click", () => this.showLastTrick());
    $("sheet-button").addEventListener("click", () => this.showSheet());
    $("in-force-button").addEventListener("click", () => this.showRulesInForce());
    $("invite-button").addEventListener("click", () => this.onInvite());
    $("controls").addEventListener("change", (e) => this.onBidChoice(e));
    for (const button of document.querySelectorAll(".log-toggle")) {
      button.addEventListener("click", () => showLog(!document.body.classList.contains("log-open")));
    }
    document.addEventListener("keydown", (e) => { if (e.key === "Escape") showLog(false); });
  }

  reset() {
    this.msg = null;
    this.seats = null;  // who sits where and who is connected (presence)
    this.selected = new Set();
    this.pending = [];
    this.shown = null;
    this.queue = Promise.resolve();
    this.skipping = false;
    this.animating = false;
    this.busy = false;
    this.resultFor = null;
    this.hint = null;
    this.raised = null;  // the card a finger raised (a second tap plays it)
    $("trick").replaceChildren();
    document.body.classList.remove("spectator");
    for (const id of ["result-dialog", "confirm-dialog", "last-trick-dialog", "sheet-dialog", "in-force-dialog", "invite-dialog"]) {
      if ($(id).open) $(id).close();
    }
  }

  get view() { return this.msg?.view; }
  /** This page's seat, or null for a spectator. */
  get mySeat() { return this.msg ? this.msg.seat : null; }
  /** The seat drawn at the bottom: mine, or seat 0 for a spectator. */
  get me() { return this.msg?.seat ?? 0; }
  get names() { return this.msg?.game.players ?? []; }

  /** The message as drawn: an open seat (no name yet) is called "open seat", never "". */
  named(msg) {
    const players = msg.game.players;
    if (!players.some((p) => !p)) return msg;
    return { ...msg, game: { ...msg.game, players: players.map((p) => p || t("presence.open")), raw_players: players } };
  }

  /** How many seats are still open (the table waits for them). */
  get openSeats() { return (this.seats || []).filter((s) => s.kind === "open").length; }
  get myTurn() { return this.view && this.view.to_move === this.view.seat && !this.busy; }

  setDeck(deck) {
    this.deck = deck;
    if (this.msg) this.redraw();
  }

  /** Redraw everything from the current message (language or deck changed). */
  redraw() {
    if (!this.msg) return;
    this.msg = this.named(this.rawMsg);  // the open seats' name in the new language
    this.render();
    this.renderTrick();
    if ($("result-dialog").open) this.showResult(true);
  }

  /** A new state message: queued so that animations play in order. */
  update(msg) {
    this.queue = this.queue.then(() => this.apply(msg)).catch((error) => console.error(error));
  }

  async apply(msg) {
    const previous = this.msg;
    // A spectator's view has no seat: -1 matches no seat, mover or soloist in the comparisons below.
    if (msg.view.seat == null) msg = { ...msg, view: { ...msg.view, seat: -1 } };
    this.rawMsg = msg;
    msg = this.named(msg);
    this.msg = msg;
    this.seats = msg.game.seats;
    this.busy = false;
    this.hint = null;
    this.raised = null;
    hideToast("hint");  // a hint belongs to the state it was asked in
    const view = msg.view;
    const samePhase = previous && previous.view.phase === view.phase && previous.game.deal_number === msg.game.deal_number;
    if (!samePhase) { this.selected.clear(); this.bidChoice = null; }
    this.sendPendingDiscard();
    this.render();
    await this.animatePlays(msg);
    this.renderTrick();
    if (view.phase === "over") this.showResult(false);
    else if ($("result-dialog").open) $("result-dialog").close();
    if (this.inviteOnStart) { this.inviteOnStart = false; this.onInvite(); }
    this.autoPlay();
  }

  /** The one card there is to play, played by itself when the player asked for that (setting). */
  autoPlay() {
    const view = this.view;
    if (!settings().autoPlayForced || view.phase !== "play" || view.to_move !== view.seat) return;
    if (view.legal_actions.length !== 1) return;
    const card = view.legal_actions[0];
    const version = this.msg.version;
    setTimeout(() => { if (this.msg.version === version && !this.busy) this.act(card); }, scaled(500) + 150);
  }

  // ------------------------------------------------------------------ friends

  /** Events of a change: say clearly when a bot played for an absent person. */
  onEvents(message) {
    if (message.stand_in == null || !this.msg) return;
    const name = this.names[message.stand_in] ?? "";
    toast(t("stand_in_played", { name }), 3500);
    this.standIns = [...(this.standIns || []), { version: message.version, seat: message.stand_in }].slice(-50);
  }

  onPresence(message) {
    this.seats = message.seats;
    if (this.msg) {
      for (const msg of new Set([this.msg, this.rawMsg])) Object.assign(msg.game, { waiting: message.waiting, ready: message.ready });
      this.spectators = message.spectators;
      for (let seat = 0; seat < this.view.players; seat++) this.renderSeat(seat);
      this.renderNote();
      this.renderScoreboard();
      this.renderStatus();
      this.renderControls();
    }
  }

  /** The line under the bar: watching, waiting for friends, waiting for the next deal. */
  renderNote() {
    const note = $("table-note");
    const game = this.msg.game;
    const open = (this.seats || []).filter((s) => s.kind === "open").length;
    let text = "";
    if (this.mySeat == null) text = t("note.spectator");
    else if (game.waiting) text = t(this.hosting ? "note.waiting" : "note.waiting_guest", { n: open });
    else if (this.view.phase === "over" && !game.over && (game.ready || []).length) {
      // Who is ready for the next deal, said to me in the first person.
      const others = (this.seats || []).map((s, seat) => ({ s, seat }))
        .filter(({ s, seat }) => s.kind === "person" && s.connected && seat !== this.mySeat && !game.ready.includes(seat)).map(({ s }) => s.name);
      if (this.iAmReady) text = others.length ? t("note.ready_waiting", { names: list(others) }) : t("note.ready");
      else {
        const ready = game.ready.filter((seat) => seat !== this.mySeat).map((seat) => this.names[seat]);
        if (ready.length) text = t("note.others_ready", { names: list(ready) });
      }
    }
    note.textContent = text;
    note.hidden = !text;
    note.dataset.kind = this.mySeat == null ? "spectator" : game.waiting ? "waiting" : "ready";
    $("hint-button").hidden = this.mySeat == null;
    $("invite-button").classList.toggle("primary", Boolean(game.waiting));
    $("invite-button").classList.toggle("keep", Boolean(game.waiting) && this.hosting);  // in the bar while friends are awaited
    document.body.classList.toggle("spectator", this.mySeat == null);  // only what a spectator can do
    const people = (this.seats || []).filter((s) => s.kind === "person").length;
    $("chat-button").classList.toggle("keep", people > 1 || this.mySeat == null);
  }

  /** Did this browser make the table (it holds the invite links)? */
  get hosting() { const held = seatOf(this.gameId); return Boolean(held?.host || held?.links); }

  /** Have I asked for the next deal already (the server lists me as ready)? */
  get iAmReady() { return this.mySeat != null && (this.msg?.game.ready || []).includes(this.mySeat); }

  // ------------------------------------------------------------------ actions

  act(action) {
    if (this.busy || !this.view.legal_actions.includes(action)) return false;
    this.busy = true;
    $("table-view").dataset.turn = "sent";
    this.send({ type: "action", action, version: this.msg.version });
    document.body.classList.add("waiting");
    setTimeout(() => document.body.classList.remove("waiting"), 300);
    return true;
  }

  /** The discard goes one card at a time; the next is sent when its state arrives. */
  sendPendingDiscard() {
    const view = this.view;
    if (!this.pending.length) return;
    if (view.phase !== "discard" || view.to_move !== view.seat) { this.pending = []; return; }
    const card = this.pending.shift();
    if (!this.act(card)) this.pending = [];
  }

  /** The server refused: say why in the player's language (its English text if it sent no
   *  code); null: refused for a reason the player need not hear (the page resyncs). */
  onError(message) {
    this.unsend();
    if (message) toast(message.code ? reason(message, this.deck, this.view?.seat) : message.message, 4000);
  }

  /** What was sent will not be answered: the card back in the hand, the turn as it was. */
  unsend() {
    this.busy = false;
    this.pending = [];
    for (const card of document.querySelectorAll("#hand .card.leaving")) card.classList.remove("leaving");
    if (this.view) $("table-view").dataset.turn = this.view.to_move === this.view.seat ? "me" : "other";
  }

  /** The line to the server is up or down: while it is down, nothing pretends otherwise
   *  (no "online" friends, no "your turn", no card on its way). */
  setOnline(online) {
    if (online === this.online) return;
    this.online = online;
    document.body.dataset.connection = online ? "online" : "offline";
    if (!online) this.unsend();
    if (!this.msg) return;
    for (let seat = 0; seat < this.view.players; seat++) this.renderSeat(seat);
    this.renderStatus();
  }

  askHint() {
    if (!this.view || this.view.to_move !== this.view.seat) { toast(t("hint_not_your_turn")); return; }
    // Laying away: the cards picked but not sent yet go along, so the hint is the next one.
    const view = this.view;
    const chosen = view.phase === "discard" ? [...this.selected].map((i) => this.sortedHand()[i]) : [];
    this.send(chosen.length ? { type: "hint", chosen } : { type: "hint" });
  }

  showHint(action) {
    this.hint = action;
    this.renderHand();
    this.renderControls();
    const target = document.querySelector(`#hand .card.hinted, #controls [data-action="${CSS.escape(action)}"], #controls [data-action-hint="${CSS.escape(action)}"]`);
    if (target) {
      target.classList.add("hinted");
      target.focus({ preventScroll: false });
    }
    toast(t("hint_says", { action: this.actionText(action) }), 6000, "hint");
  }

  actionText(action) {
    if (action === "pass") return t("pass");
    if (/^\d+$/.test(action)) return t("bid_n", { bid: action });
    if (model.isSuit(action)) return t("trump_suit", { suit: suitName(action, this.deck) });
    if (action in (this.msg?.contracts ?? {})) return t(`game.${action}`);
    if (action === "take") return t("take_tapp");
    if (action === "surrender") return t("surrender");
    if (action === "play") return t("play_on");
    return cardText(action, this.deck).name;
  }

  onHandClick(event) {
    const button = event.target.closest(".card");
    if (!button || !this.view) return;
    if (this.dragged) { this.dragged = false; return; }  // the end of a drag, not a tap
    this.skip();
    const view = this.view;
    const card = button.dataset.card;
    if (view.phase === "discard" && view.to_move === view.seat && !this.pending.length) {
      const index = Number(button.dataset.index);
      const need = this.discardsNeeded();
      if (this.selected.has(index)) this.selected.delete(index);
      else if (this.selected.size < need) this.selected.add(index);
      else toast(t("discard_enough", { n: need }));
      this.renderHand();
      this.renderControls();
      return;
    }
    if (view.phase === "play" && view.to_move === view.seat && view.legal_actions.includes(card)) {
      // A finger raises the card; a second tap (or the Play button) plays it, so a mis-tap never plays.
      const touch = (event.pointerType || this.pointer) === "touch";
      if (touch && !settings().oneTapPlay && this.raised !== card) {
        this.raised = card;
        for (const el of $("hand").querySelectorAll(".card.raised")) el.classList.remove("raised");
        button.classList.add("raised");
        this.renderStatus();  // "tap it again": the same line, so nothing moves under the finger
        return;
      }
      this.playCard(card);
      return;
    }
    const why = button.dataset.why || notNowText(view, this.names);  // never a click without an answer
    if (why) toast(why);
  }

  /** A playable card dragged onto the felt is played (a finger or a mouse alike). A press
   *  that moves less than a few px is a tap (raise, then play); a drag that ends off the
   *  felt puts the card back: a slip never plays. */
  dragStart(event) {
    const button = event.target.closest(".card.legal");
    const view = this.view;
    if (!button || !view || view.phase !== "play" || view.to_move !== view.seat || this.busy || event.button > 0) return;
    const drag = { id: event.pointerId, x: event.clientX, y: event.clientY, moved: false };
    const move = (e) => {
      if (e.pointerId !== drag.id) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < DRAG_START) return;
      drag.moved = true;
      button.classList.add("dragging");
      button.style.translate = `${Math.round(dx)}px ${Math.round(dy)}px`;
      $("felt").classList.toggle("drop-here", overFelt(e));
    };
    const end = (e) => {
      if (e.pointerId !== drag.id) return;
      for (const [type, listener] of listeners) removeEventListener(type, listener);
      button.classList.remove("dragging");
      button.style.translate = "";
      $("felt").classList.remove("drop-here");
      if (!drag.moved) return;
      this.dragged = true;  // the click that may follow is the drag's end
      setTimeout(() => { this.dragged = false; }, 400);
      if (e.type === "pointerup" && overFelt(e)) this.playCard(button.dataset.card);
    };
    const listeners = [["pointermove", move], ["pointerup", end], ["pointercancel", end]];
    for (const [type, listener] of listeners) addEventListener(type, listener);
  }

  playCard(card) {
    if (!this.act(card)) return;
    this.raised = null;
    $("hand").querySelector(`.card[data-card="${CSS.escape(card)}"]`)?.classList.add("leaving");
  }

  onHandKey(event) {
    if (!["ArrowLeft", "ArrowRight", "Home", "End"].includes(event.key)) return;
    const cards = [...$("hand").querySelectorAll(".card")];
    const i = cards.indexOf(document.activeElement);
    if (i < 0) return;
    const next = { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: cards.length - 1 }[event.key];
    cards[Math.max(0, Math.min(cards.length - 1, next))].focus();
    event.preventDefault();
  }

  onControl(event) {
    const button = event.target.closest("button[data-action], button[data-command]");
    if (!button) return;
    const { action, command } = button.dataset;
    if (command === "confirm-discard") {
      const hand = this.sortedHand();
      this.pending = [...this.selected].sort((a, b) => a - b).map((i) => hand[i]);
      this.selected.clear();
      this.sendPendingDiscard();
      this.renderControls();
    } else if (command === "bid-step") {
      const bids = this.view.legal_actions.filter((a) => /^\d+$/.test(a));
      const at = bids.indexOf(document.querySelector('[data-testid="bid-select"]')?.value ?? bids[0]);
      this.bidChoice = bids[Math.max(0, Math.min(bids.length - 1, at + Number(button.dataset.step)))];
      this.hint = null;
      this.renderControls();
    } else if (command === "surrender") {
      if (settings().confirmSurrender) this.confirmSurrender();
      else this.act("surrender");
    } else if (command === "next-deal") {
      $("result-dialog").close();
      this.send({ type: "next_deal" });
      // Said at once (the server's list follows): I am ready, the button goes.
      for (const { game } of new Set([this.msg, this.rawMsg])) {
        if (this.mySeat != null && !(game.ready || []).includes(this.mySeat)) game.ready = [...(game.ready || []), this.mySeat];
      }
      this.renderNote();
      this.renderControls();
    } else if (command === "rematch") {
      this.send({ type: "rematch" });
    } else if (command === "new-game") {
      $("result-dialog").close();
      this.onNewGame();
    } else if (command === "sheet") {
      this.showSheet();
    } else if (command === "close-result") {
      $("result-dialog").close();
    } else if (action) {
      this.act(action);
    }
  }

  confirmSurrender() {
    const view = this.view;
    const { credit } = this.msg.surrender;
    $("confirm-text").textContent = t("surrender_confirm", { bid: number(view.bid), credit: number(credit) });
    $("confirm-ok").textContent = t("surrender");
    const dialog = $("confirm-dialog");
    dialog.returnValue = "";
    dialog.addEventListener("close", () => { if (dialog.returnValue === "ok") this.act("surrender"); }, { once: true });
    dialog.showModal();
  }

  // ------------------------------------------------------------------ animation

  /** Wait ``ms`` at the chosen animation speed (``raw``: as given, e.g. the bot pause). */
  pause(ms, raw = false) {
    if (!raw) ms = scaled(ms);
    if (this.skipping || ms <= 0) return Promise.resolve();
    if (reducedMotion.matches) ms = Math.min(ms, 450);
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => { clearTimeout(timer); resolve(); };
    });
  }

  skip() {
    if (!this.animating) return;
    this.skipping = true;
    this.wake?.();
  }

  async animatePlays(msg) {
    const view = msg.view;
    const plays = model.allPlays(view);
    const deal = msg.game.deal_number;
    let from = this.shown && this.shown.deal === deal ? this.shown.count : plays.length;
    if (from > plays.length) from = plays.length;
    this.shown = { deal, count: plays.length };
    if (from === plays.length) return;
    this.animating = true;
    this.skipping = false;
    try {
      for (let i = from; i < plays.length; i++) {
        const play = plays[i];
        if (play.position === 0) this.clearTrick();
        this.placeCard(play.seat, play.card, true);
        const last = i === plays.length - 1;
        if (!last || play.complete) await this.pause(play.seat === view.seat ? 250 : botPause(), play.seat !== view.seat);
        if (play.complete) {
          this.markWinner(play.winner);
          if (view.phase === "over" && last) break;
          await this.pause(1100);
          $("trick").dataset.sweep = this.seatSide(play.winner);
          await this.pause(reducedMotion.matches ? 0 : 380);
          this.clearTrick();
        }
      }
    } finally {
      this.animating = false;
      this.skipping = false;
    }
  }

  seatSide(seat) {
    return model.side(this.view.players, this.me, seat);
  }

  clearTrick() {
    const trick = $("trick");
    trick.replaceChildren();
    trick.removeAttribute("role");  // an empty list is no list,
    trick.removeAttribute("aria-label");  // and a plain box may not carry a label (axe)
    delete trick.dataset.sweep;
  }

  placeCard(seat, card, animate) {
    const el = cardElement(card, this.deck);
    el.classList.add("played", `from-${this.seatSide(seat)}`);
    if (animate && !reducedMotion.matches && !animationsOff()) el.classList.add("enter");
    el.dataset.seat = seat;
    el.dataset.testid = "trick-card";
    el.setAttribute("data-testid", "trick-card");
    // The trick is a list for screen readers: "Anna: ace of hearts" (the picture is hidden).
    el.setAttribute("role", "listitem");
    el.removeAttribute("aria-label");
    el.querySelector("svg")?.setAttribute("aria-hidden", "true");
    el.append(Object.assign(document.createElement("span"), { className: "visually-hidden",
      textContent: t("trick_card", { name: this.names[seat] ?? "", card: cardText(card, this.deck).name }) }));
    $("trick").setAttribute("role", "list");
    $("trick").setAttribute("aria-label", t("trick_area"));
    $("trick").append(el);
  }

  markWinner(seat) {
    for (const el of $("trick").children) el.classList.toggle("winning", Number(el.dataset.seat) === seat);
  }

  /** The trick area without animation: the current trick, or the last one once the deal is over. */
  renderTrick() {
    if (this.animating || !this.view) return;
    const view = this.view;
    this.clearTrick();
    let trick = view.trick;
    if (!trick.cards.length && view.phase === "over" && view.tricks.length) trick = view.tricks[view.tricks.length - 1];
    trick.cards.forEach((card, i) => this.placeCard(trick.seats[i], card, false));
    if (trick.winner != null) this.markWinner(trick.winner);
    this.renderMeldReveal();
  }

  // ------------------------------------------------------------------ rendering

  render() {
    const board = $("table-view");
    board.dataset.phase = this.view.phase;
    // A discard card already sent (the next goes when its update comes) is not the player's turn.
    board.dataset.turn = this.busy ? "sent" : this.view.to_move === this.view.seat ? "me" : "other";
    board.dataset.version = this.msg.version;
    this.renderScoreboard();
    this.placeSeats();
    this.renderNote();
    for (let seat = 0; seat < this.view.players; seat++) this.renderSeat(seat);
    this.renderStatus();
    this.renderTapp();
    this.renderHand();
    this.renderControls();
    this.renderMeldReveal();
    renderMarks(this);
    $("log").innerHTML = renderLog(this.msg, this.deck);
    const log = $("log");
    log.scrollTop = log.scrollHeight;
    $("record-link").href = `/api/games/${encodeURIComponent(this.gameId)}/record`;
    $("record-link").setAttribute("download", `binokel-${this.gameId}.json`);
    if ($("sheet-dialog").open) this.showSheet();
    if ($("in-force-dialog").open) this.showRulesInForce();
  }

  /** One seat box per other seat around the felt (3, 4 or 6 seats), made once per game and
   *  seat; the box at the bottom is this page's seat (seat 0 for a spectator). */
  placeSeats() {
    const felt = $("felt");
    const players = this.view.players;
    const me = this.me;
    const mine = document.querySelector(".seat.mine");
    mine.id = `seat-${me}`;
    mine.dataset.seat = me;
    mine.setAttribute("data-testid", `seat-${me}`);
    if (felt.dataset.seats === String(players) && felt.dataset.me === String(me) && felt.querySelectorAll(".seat").length === players - 1) return;
    felt.dataset.seats = players;
    felt.dataset.me = me;
    $("trick").dataset.seats = players;
    for (const old of felt.querySelectorAll(".seat")) old.remove();
    for (let seat = 0; seat < players; seat++) {
      if (seat === me) continue;
      const el = document.createElement("div");
      el.className = `seat opponent ${this.seatSide(seat)}`;
      el.id = `seat-${seat}`;
      el.dataset.seat = seat;
      el.setAttribute("data-testid", `seat-${seat}`);
      felt.append(el);
    }
  }

  renderScoreboard() {
    const game = this.msg.game;
    const columns = model.scoreColumns(game);
    const best = Math.max(...game.totals);
    const chips = columns.map(({ name, seat }) => {
      const leader = game.totals[seat] === best && game.totals.some((x) => x);
      return `<span class="score-chip${leader ? " leading" : ""}${game.teams ? ` team-${game.teams[seat]}` : ""}" data-testid="total-${seat}"><span class="who">${escape(name)}</span> <b>${number(game.totals[seat])}</b></span>`;
    }).join("");
    const watching = this.spectators && this.mySeat != null
      ? `<span class="watchers" data-testid="watchers">${t("watchers_n", { n: number(this.spectators) })}</span>` : "";
    $("scoreboard").innerHTML = `<span class="deal-no" data-testid="deal-number">${t("deal_n", { n: game.deal_number })}</span>` +
      chips + watching + `<span class="target">${t("target_n", { n: number(game.target) })}</span>`;
  }

  renderSeat(seat) {
    const view = this.view, game = this.msg.game;
    const el = $(`seat-${seat}`);
    const calls = model.lastCalls(view);
    const level = game.levels?.[seat];
    const bits = [];
    const partner = model.isPartner(game, view.seat, seat);
    bits.push(`<div class="seat-head"><span class="name">${escape(game.players[seat])}</span>` +
      (level ? ` <span class="level">${t("level." + level)}</span>` : "") +
      (this.online !== false && presenceText(this.seats?.[seat]) ? ` <span class="badge presence ${presenceClass(this.seats[seat])}" data-testid="presence-${seat}">${escape(presenceText(this.seats[seat]))}</span>` : "") +
      (partner ? ` <span class="badge partner" data-testid="partner-${seat}">${t("partner")}</span>` : "") +
      (view.dealer === seat ? ` <span class="badge dealer" title="${t("dealer")}">${t("dealer_short")}</span>` : "") +
      (seat !== view.seat && view.hand_sizes[seat] && !view.open_hand ? ` <span class="count-badge" aria-hidden="true">${view.hand_sizes[seat]}</span>` : "") + `</div>`);
    const info = [t(model.role(view, seat))];
    if (["play", "over"].includes(view.phase)) {
      info.push(t("tricks_points", { tricks: view.tricks_won[seat], points: view.trick_points[seat] }));
      const melds = view.melds?.[seat];
      if (melds?.length && model.isSuit(view.game)) info.push(`<span class="info-melds">${t("melds_worth", { n: number(model.meldTotal(melds)) })}</span>`);
    }
    bits.push(`<div class="seat-info">${info.join(" · ")}</div>`);
    if (view.sitting_out === seat) {
      bits.push(`<div class="badge note" data-testid="sitting-out-${seat}">${t("sits_out")}</div>`);
    }
    if (view.soloist === seat) {
      const game = model.isSuit(view.game) ? namedSuit(view.game, this.deck) : view.game ? gameLabel(view.game, this.deck) : "";
      bits.push(`<div class="badge soloist" data-testid="soloist-badge">${t("soloist")} ${number(view.bid)} ${game}</div>`);
    } else if (view.phase === "auction" && calls[seat] !== undefined) {
      const call = calls[seat];
      bits.push(`<div class="bubble${call === "pass" ? " passed" : ""}" data-testid="call-${seat}">${call === "pass" ? t("pass") : number(call)}</div>`);
    }
    if (seat === view.seat && view.open_hand && seat === view.soloist) {
      bits.push(`<div class="badge note" data-testid="my-open-hand">${t("open_hand_mine")}</div>`);
    } else if (seat !== view.seat && view.open_hand && seat === view.soloist) {
      bits.push(`<div class="open-hand" data-testid="open-hand" aria-label="${escape(t("open_hand"))}">` +
        sortHand(view.open_hand, null).map((c) => cardChip(c, this.deck)).join("") + `</div>`);
    } else if (seat !== view.seat && view.hand_sizes[seat]) {
      const n = view.hand_sizes[seat];
      bits.push(`<div class="backs" aria-label="${t("cards_in_hand", { n })}" title="${t("cards_in_hand", { n })}">` +
        `<span class="backs-fan">${"<i></i>".repeat(Math.min(n, 15))}</span><span class="count">${n}</span></div>`);
    }
    const melds = view.melds?.[seat];
    if (melds && melds.length && model.isSuit(view.game)) {
      const fresh = view.phase === "play" && view.tricks.length < 2;  // highlighted while people read them
      bits.push(`<div class="melds${fresh ? " fresh" : ""}" data-testid="melds-${seat}">${melds.map((m) => this.meldChip(m)).join("")}` +
        `<span class="meld-total">= ${number(model.meldTotal(melds))}</span></div>`);
    }
    el.innerHTML = bits.join("");
    el.classList.toggle("to-move", view.to_move === seat);
    el.classList.toggle("is-soloist", view.soloist === seat);
    el.classList.toggle("partner", partner);
    el.classList.toggle("sitting-out", view.sitting_out === seat);
  }

  meldChip(meld) {
    const suit = meld.suit ? namedSuit(meld.suit, this.deck) : "";
    const cards = meld.cards.map((c) => cardText(c, this.deck).name).join(", ");
    return `<span class="meld-chip" title="${escape(cards)}">${meldName(meld.name)} ${suit} <b>${number(meld.points)}</b></span>`;
  }

  renderStatus() {
    const view = this.view, names = this.names;
    const mover = names[view.to_move] ?? "";
    const mine = view.to_move === view.seat;
    const key = {
      deal: "status.deal",
      auction: mine ? (view.auction.length ? "status.auction_me" : "status.open_me") : "status.auction",
      tapp: mine ? "status.tapp_me" : "status.tapp",
      discard: mine ? "status.discard_me" : "status.discard",
      game: mine ? "status.game_me" : "status.game",
      surrender: mine ? "status.surrender_me" : "status.surrender",
      play: mine ? "status.play_me" : "status.play",
      over: "status.over",
    }[view.phase];
    const bids = view.legal_actions.filter((a) => /^\d+$/.test(a));
    const next = bids[0];
    const open = view.phase === "auction" && mine && bids.length > 1;  // the open auction: any raise
    let text = t(open ? "status.auction_open_me" : key, { name: mover, bid: number(next), n: this.discardsNeeded() });
    if (view.phase === "play" && view.trick.cards.length) {
      text += " " + t("status.led", { suit: suitName(view.trick.cards[0][1], this.deck) });
    }
    if (view.phase === "play" && mine && this.raised) text = t("status.tap_again", { card: cardText(this.raised, this.deck).name });
    if (view.sitting_out === view.seat && view.phase !== "over") text = t("status.you_sit_out") + " " + text;
    if (this.msg.game.waiting) text = t("status.waiting_open", { n: number(this.openSeats) });  // nobody moves before every seat is taken
    if (this.online === false) text = t("reconnecting");
    let contract = "";
    if (view.soloist != null) {
      const game = model.isSuit(view.game) ? `${t("trump")}: ${suitIcon(view.game, this.deck)} ${suitName(view.game, this.deck)}`
        : view.game ? gameLabel(view.game, this.deck) : "";
      contract = `<span class="contract" data-testid="contract">${tSeat("contract", view.soloist, view.seat, { name: escape(names[view.soloist]), bid: number(view.bid) })}${game ? " · " + game : ""}</span>`;
    } else if (view.auction.length) {
      const high = [...view.auction].reverse().find((c) => c !== "pass");
      contract = `<span class="contract">${high ? t("highest_bid", { bid: number(high) }) : t("no_bid_yet")}</span>`;
    }
    $("status").innerHTML = `<span class="turn${mine ? " mine" : ""}" data-testid="turn">${escape(text)}</span>${contract}`;
  }

  renderTapp() {
    const view = this.view;
    const el = $("tapp");
    el.replaceChildren();
    const show = ["auction", "tapp", "discard", "game", "surrender"].includes(view.phase) && model.tappSize(view) > 0;
    el.hidden = !show;
    if (!show) return;
    const label = document.createElement("span");
    label.className = "label";
    label.textContent = view.tapp ? tSeat("tapp_of", view.soloist, view.seat, { name: this.names[view.soloist] }) : t("tapp");
    const cards = document.createElement("div");
    cards.className = "cards";
    if (view.tapp) view.tapp.forEach((c) => cards.append(cardElement(c, this.deck, { small: true })));
    else for (let i = 0; i < model.tappSize(view); i++) cards.append(cardBack({ small: true }));
    el.append(label, cards);
    if (view.tapp) el.append(Object.assign(document.createElement("span"), {
      className: "label", textContent: t("points_n", { points: view.tapp_points }) }));
  }

  sortedHand() {
    return sortHand(this.view.hand, model.isSuit(this.view.game) ? this.view.game : null);
  }

  discardsNeeded() {
    const view = this.view;
    return view.phase === "discard" ? model.tappSize(view) - (view.discard?.length ?? 0) : 0;
  }

  renderHand() {
    const view = this.view;
    const hand = this.sortedHand();
    const el = $("hand");
    const focused = document.activeElement?.closest?.("#hand .card")?.dataset.index;
    el.replaceChildren();
    const playing = view.phase === "play" && view.to_move === view.seat;
    const discarding = view.phase === "discard" && view.to_move === view.seat && !this.pending.length;
    const fromTapp = view.soloist === view.seat && ["discard"].includes(view.phase) ? [...(view.tapp || [])] : [];
    let hinted = false;
    hand.forEach((card, index) => {
      const button = cardElement(card, this.deck, { button: true });
      button.dataset.index = index;
      button.dataset.testid = "hand-card";
      button.setAttribute("data-testid", `hand-card-${card}`);
      const legal = playing && view.legal_actions.includes(card);
      const refusal = playing && !legal ? this.msg.refusals?.[card] : null;  // the server says why
      const why = refusal ? reason(refusal, this.deck, view.seat) : "";
      if (legal || discarding) button.classList.add("legal");
      else button.setAttribute("aria-disabled", "true");
      if (why) {
        button.dataset.why = why;
        button.title = why;
        button.querySelector(".card-name").textContent = `${cardText(card, this.deck).name} — ${why}`;
        button.classList.add("illegal");
      }
      if (discarding && this.selected.has(index)) {
        button.classList.add("selected");
        button.setAttribute("aria-pressed", "true");
      } else if (discarding) button.setAttribute("aria-pressed", "false");
      const tappIndex = fromTapp.indexOf(card);
      if (tappIndex >= 0) {
        fromTapp.splice(tappIndex, 1);
        button.classList.add("from-tapp");
        button.append(Object.assign(document.createElement("span"), { className: "tapp-mark", title: t("from_tapp") }));
      }
      if (model.isSuit(view.game) && card[1] === view.game) button.classList.add("trump");
      if (this.hint === card && !hinted && !(discarding && this.selected.has(index))) { button.classList.add("hinted"); hinted = true; }
      if (legal && this.raised === card) button.classList.add("raised");
      el.append(button);
    });
    el.classList.toggle("active", playing || discarding);
    el.style.setProperty("--count", hand.length);
    if (focused != null) el.querySelector(`[data-index="${focused}"]`)?.focus({ preventScroll: true });
    refit();
  }

  renderControls() {
    const view = this.view, game = this.msg.game;
    const el = $("controls");
    const mine = view.to_move === view.seat;
    const button = (action, label, extra = "", testid = `action-${action}`, cls = "") =>
      `<button type="button" class="${cls}${this.hint === action ? " hinted" : ""}" data-action="${escape(action)}" data-testid="${testid}" ${extra}>${label}</button>`;
    let html = "";
    if (game.waiting) {
      // Nothing to do before every seat is taken.
    } else if (view.phase === "auction" && mine) {
      html = this.auctionControls(button);
    } else if (view.phase === "tapp" && mine) {
      html = button("take", t("take_tapp"), "", "action-take", "primary") +
        button("hand_durch", `<span>${t("game.hand_durch")}</span><small>${this.contractValue("hand_durch")}</small>`,
          `title="${escape(t("about.hand_durch"))}"`, "action-hand_durch", "trump durch");
    } else if (view.phase === "discard" && mine) {
      const hand = this.sortedHand();
      const need = this.discardsNeeded();
      const chosen = [...this.selected].map((i) => hand[i]);
      const banked = points(chosen, view.rank_points) + (view.discard_points ?? 0);
      const ready = chosen.length === need && !this.pending.length;
      html = `<span class="prompt" data-testid="discard-info">${t("discard_info", { chosen: chosen.length, n: need, points: number(banked) })}</span>` +
        `<button type="button" class="primary" data-command="confirm-discard" data-testid="confirm-discard" ${ready ? "" : "disabled"}>${t("discard_confirm", { n: need })}</button>`;
    } else if (view.phase === "game" && mine) {
      const options = this.msg.meld_options || {};
      html = ["S", "H", "D", "C"].filter((s) => view.legal_actions.includes(s)).map((s) =>
        button(s, `${suitIcon(s, this.deck)}<span>${escape(suitName(s, this.deck))}</span>` +
          (options[s] != null ? `<small>${t("melds_worth", { n: number(options[s]) })}</small>` : ""), "", `trump-${s}`, "trump")).join("");
      for (const contract of Object.keys(this.msg.contracts).filter((g) => view.legal_actions.includes(g))) {
        html += button(contract, `<span>${t(`game.${contract}`)}</span><small>${this.contractValue(contract)}</small>`,
          `title="${escape(t(`about.${contract}`))}"`, `trump-${contract}`, "trump durch");
      }
    } else if (view.phase === "surrender" && mine) {
      const { credit } = this.msg.surrender;
      html = button("play", t("play_on"), "", "action-play", "primary") +
        `<button type="button" class="danger${this.hint === "surrender" ? " hinted" : ""}" data-command="surrender" data-action-hint="surrender" data-testid="action-surrender">${t("surrender")}<small>${t("surrender_cost", { bid: number(view.bid), credit: number(credit) })}</small></button>`;
    } else if (view.phase === "over" && this.mySeat != null) {  // spectators do not deal
      html = game.over
        ? `<button type="button" class="primary" data-command="rematch" data-testid="rematch">${t("rematch")}</button>` +
          `<button type="button" class="secondary" data-command="new-game">${t("new_game")}</button>`
        : this.iAmReady ? `<span class="prompt" data-testid="ready-note">${t("note.ready")}</span>`
          : `<button type="button" class="primary" data-command="next-deal" data-testid="next-deal">${t("next_deal")}</button>`;
      html += `<button type="button" class="secondary" data-command="sheet">${t("score_sheet")}</button>`;
    }
    const focused = el.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
    el.innerHTML = html;
    el.hidden = !html;
    if (focused) el.querySelector(`[data-testid="${CSS.escape(focused)}"]`)?.focus();  // keyboard users keep their place
  }

  /** Fixed auction: the one bid there is (and pass). Open auction: pass, or any bid from the
   *  lowest allowed, chosen with a stepper over the legal bids the server sent. */
  auctionControls(button) {
    const view = this.view;
    const bids = view.legal_actions.filter((a) => /^\d+$/.test(a));
    const pass = view.legal_actions.includes("pass") ? button("pass", t("pass"), "", "action-pass", "secondary") : "";
    const label = (bid) => (view.auction.some((c) => c !== "pass") ? t("bid_n", { bid: number(bid) }) : t("open_n", { bid: number(bid) }));
    if (bids.length <= 1) return pass + bids.map((bid) => button(bid, label(bid), "", "action-bid", "primary")).join("");
    const chosen = [this.hint, this.bidChoice].find((b) => bids.includes(b)) ?? bids[0];
    return pass +
      `<span class="bid-stepper"><button type="button" class="secondary" data-command="bid-step" data-step="-1" data-testid="bid-down" aria-label="${escape(t("bid_lower"))}">−</button>` +
      `<select data-testid="bid-select" aria-label="${escape(t("bid"))}">${bids.map((b) => `<option value="${b}"${b === chosen ? " selected" : ""}>${number(b)}</option>`).join("")}</select>` +
      `<button type="button" class="secondary" data-command="bid-step" data-step="1" data-testid="bid-up" aria-label="${escape(t("bid_higher"))}">+</button></span>` +
      button(chosen, label(chosen), "", "action-bid", "primary");
  }

  onBidChoice(event) {
    if (event.target.dataset.testid !== "bid-select") return;
    this.bidChoice = event.target.value;
    this.hint = null;
    this.renderControls();
  }

  /** What a contract without trump is played for, as the server says (the rules in force). */
  contractValue(contract) {
    const { value, whole_game: wholeGame } = this.msg.contracts[contract];
    return wholeGame ? escape(t("whole_game")) : `±${number(value)}`;
  }

  /** The melds of the deal: beside each player (highlighted while fresh), and in one line
   *  of totals above the trick through the first two tricks (until closed). Never over the trick. */
  renderMeldReveal() {
    const view = this.view;
    const el = $("meld-reveal");
    const key = `${this.gameId}:${this.msg.game.deal_number}`;
    const show = view.phase === "play" && model.isSuit(view.game) && view.melds && view.tricks.length < 2 && this.meldsClosed !== key;
    el.hidden = !show;
    if (!show) return;
    el.innerHTML = `<h2>${t("melds")}</h2><span class="meld-sums">` + view.melds.map((melds, seat) =>
      `<span class="reveal-seat" data-testid="meld-sum-${seat}"><span class="name">${escape(this.names[seat])}</span> ` +
      `<b>${melds.length ? number(model.meldTotal(melds)) : `<span class="none">${t("no_melds")}</span>`}</b></span>`).join("") +
      `</span><button type="button" class="close" data-testid="meld-reveal-close" aria-label="${escape(t("close"))}">×</button>`;
  }

  // ------------------------------------------------------------------ dialogs

  showResult(refresh) {
    const key = `${this.gameId}:${this.msg.game.deal_number}:${this.msg.game.over}`;
    if (!refresh && this.resultFor === key) return;
    this.resultFor = key;
    $("result").innerHTML = dealResult(this.msg, this.deck);
    if (!$("result-dialog").open) $("result-dialog").showModal();
  }

  /** The rules in force: the canonical text and every option that differs from standard. */
  showRulesInForce() {
    if (!this.msg) return;
    const game = this.msg.game;
    const value = (name, v) => escape(choiceLabel(name, v));
    const rows = (game.changes || []).map((c) => `<tr data-testid="change-${escape(c.name)}"><th>${escape(optionLabel(c.name))}</th>` +
      `<td><b>${value(c.name, c.value)}</b></td><td>${value(c.name, c.standard)}</td><td>${escape(optionMeaning(c.name, this.options))}</td></tr>`).join("");
    $("in-force").innerHTML = `<p><code data-testid="in-force-text">${escape(game.rules)}</code></p>` +
      (rows ? `<table class="changes"><thead><tr><th>${t("option")}</th><th>${t("this_game")}</th><th>${t("standard_value")}</th><th>${t("meaning")}</th></tr></thead><tbody>${rows}</tbody></table>`
        : `<p>${t("all_standard")}</p>`);
    if (!$("in-force-dialog").open) $("in-force-dialog").showModal();
  }

  showSheet() {
    if (!this.msg) return;
    $("sheet").innerHTML = renderSheet(this.msg.game, this.deck);
    if (!$("sheet-dialog").open) $("sheet-dialog").showModal();
  }

  showLastTrick() {
    const view = this.view;
    const trick = view?.tricks[view.tricks.length - 1] || this.msg?.last_trick;
    const el = $("last-trick");
    if (!trick) {
      el.innerHTML = `<p>${t("no_trick_yet")}</p>`;
    } else {
      el.innerHTML = "";
      const row = document.createElement("div");
      row.className = "last-trick-cards";
      trick.cards.forEach((card, i) => {
        const seat = trick.seats[i];
        const fig = document.createElement("figure");
        fig.className = seat === trick.winner ? "winner" : "";
        fig.append(cardElement(card, this.deck));
        const cap = document.createElement("figcaption");
        cap.textContent = this.names[seat] + (seat === trick.winner ? " ★" : "");
        fig.append(cap);
        row.append(fig);
      });
      el.append(row);
      const p = document.createElement("p");
      p.textContent = tSeat("trick_won_by", trick.winner, view?.seat, { name: this.names[trick.winner], points: trick.points });
      el.append(p);
    }
    $("last-trick-dialog").showModal();
  }
}
