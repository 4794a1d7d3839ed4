// Playing with friends: this browser's seat tokens, the invite dialog, the join page,
// the chat panel and who is at the table. Chat and names are always set as text
// (textContent), never as HTML.

import { t, ruleSetLabel, reason } from "./i18n.js";
import { panelFocus } from "./layout.js";

const $ = (id) => document.getElementById(id);
const KEY = "binokel.seats";

// ---------------------------------------------------------------- seat tokens

/** Every seat this browser holds: { gameId: { token, seat, links?, code? } }. */
export function heldSeats() {
  try {
    const seats = JSON.parse(localStorage.getItem(KEY) || "{}");
    return seats && typeof seats === "object" ? seats : {};
  } catch {
    return {};
  }
}

export const seatOf = (gameId) => heldSeats()[gameId] || null;

export function remember(gameId, entry) {
  const seats = heldSeats();
  seats[gameId] = { ...(seats[gameId] || {}), ...entry };
  localStorage.setItem(KEY, JSON.stringify(seats));
}

export function forget(gameId) {
  const seats = heldSeats();
  delete seats[gameId];
  localStorage.setItem(KEY, JSON.stringify(seats));
}

/** The tables this browser holds a seat at, with whose turn it is (the server checks the tokens). */
export async function myGames() {
  const tokens = [...new Set(Object.values(heldSeats()).map((s) => s.token).filter(Boolean))].slice(0, 50);
  if (!tokens.length) return [];
  const response = await fetch("/api/my-games", {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ tokens }),
  });
  return response.ok ? (await response.json()).games || [] : [];
}

// ---------------------------------------------------------------- who sits where

/** A seat's presence line: online, away, a bot playing for them, an open seat, a bot. */
export function presenceText(seat) {
  if (!seat) return "";
  if (seat.kind === "open") return t("presence.open");
  if (seat.kind === "bot") return "";
  if (seat.stand_in) return t("presence.stand_in", { level: t("level." + seat.level) });
  return seat.connected ? t("presence.online") : t("presence.away");
}

export function presenceClass(seat) {
  if (!seat || seat.kind === "bot") return "";
  if (seat.kind === "open") return "open";
  return seat.stand_in ? "stand-in" : seat.connected ? "online" : "away";
}

// ---------------------------------------------------------------- the invite dialog

/** Show the links and the code of a table. ``entry`` is what this browser holds for it;
 *  ``listen`` is /api/meta's (does the server only listen on this computer?). */
export function showInvite(gameId, entry, listen, { onRenew } = {}) {
  const dialog = $("invite-dialog");
  // Only whoever made the table can change how the server listens, and holds the seats' links.
  $("invite-local").hidden = !listen?.local_only || !entry?.host;
  const links = entry?.links;
  const box = $("invite-links");
  box.replaceChildren();
  const row = (label, url, testid) => {
    const line = document.createElement("div");
    line.className = "invite-row";
    const name = document.createElement("span");
    name.textContent = label;
    const input = document.createElement("input");
    input.readOnly = true;
    input.value = url;
    input.setAttribute("data-testid", testid);
    const copy = document.createElement("button");
    copy.type = "button";
    copy.className = "secondary";
    copy.textContent = t("copy");
    copy.addEventListener("click", async () => {
      input.select();
      try { await navigator.clipboard.writeText(url); copy.textContent = t("copied"); } catch { document.execCommand?.("copy"); }
    });
    line.append(name, input, copy);
    box.append(line);
  };
  const code = entry?.code;
  $("invite-code").textContent = code || "";
  $("invite-code-box").hidden = !code;
  if (links?.next_seat) row(t("invite.next_seat"), links.next_seat, "invite-link-next");
  for (const seat of links?.seats || []) row(t("invite.seat_n", { n: seat.seat + 1 }), seat.url, `invite-link-${seat.seat}`);
  row(t("invite.watch"), links?.watch || `${location.origin}/#/watch/${encodeURIComponent(gameId)}`, "watch-link");
  $("invite-none").hidden = Boolean(links?.next_seat) || !entry?.host;
  $("invite-guest").hidden = Boolean(entry?.host);
  $("invite-renew").hidden = !entry?.host;
  $("invite-renew").onclick = async () => {
    const response = await fetch(`/api/games/${encodeURIComponent(gameId)}/invites`, {
      method: "POST", headers: { Authorization: `Bearer ${entry.token}` },
    });
    if (!response.ok) return;
    const data = await response.json();
    remember(gameId, { links: data.links, code: data.invites.code });
    showInvite(gameId, seatOf(gameId), listen, { onRenew });
    onRenew?.();
  };
  if (!dialog.open) dialog.showModal();
}

// ---------------------------------------------------------------- the join page

/** Fill the join page from an invite code (or a lobby table): the table and its seats. */
export async function showJoin({ code, id }, onJoined) {
  const error = $("join-error");
  error.textContent = "";
  $("join-name").value = localStorage.getItem("binokel.name") || "";
  let table;
  try {
    const response = code
      ? await fetch("/api/invite", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ code }) })
      : await fetch("/api/lobby");
    const data = await response.json();
    if (!response.ok) throw new Error(data.code ? reason(data) : data.error || response.statusText);
    table = code ? data : (data.tables || []).find((x) => x.id === id);
    if (!table) throw new Error(t("join.gone"));
  } catch (e) {
    $("join-table").replaceChildren();
    error.textContent = e.message;
    $("join-button").disabled = true;
    return;
  }
  $("join-button").disabled = false;
  $("join-rules").textContent = ruleSetLabel(String(table.rules).split("(")[0]) + (table.rules.includes("(") ? ` · ${table.rules}` : "");
  const list = $("join-table");
  list.replaceChildren();
  table.seats.forEach((seat, i) => {
    const li = document.createElement("li");
    li.setAttribute("data-testid", `join-seat-${i}`);
    li.className = seat.kind;
    // A seat's own code names its seat; the table's code gives the first open one: say which.
    const yours = (table.seat ?? table.open_seats?.[0]) === i;
    if (yours) li.setAttribute("data-yours", "true");
    li.textContent = seat.kind === "open" ? t("presence.open") + (yours ? " ← " + t("join.yours") : "")
      : `${seat.name}${seat.kind === "bot" ? " · " + t("level." + seat.level) : ""}`;
    list.append(li);
  });
  $("join-watch").href = `#/watch/${encodeURIComponent(table.id)}`;
  $("join-form").onsubmit = async (event) => {
    event.preventDefault();
    const name = $("join-name").value.trim() || t("you");
    localStorage.setItem("binokel.name", $("join-name").value.trim());
    $("join-button").disabled = true;
    try {
      const response = await fetch("/api/join", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(code ? { code, name } : { id, name }),
      });
      const data = await response.json();
      if (!response.ok) throw new Error(data.code ? reason(data) : data.error || response.statusText);
      remember(data.id, { token: data.token, seat: data.seat });
      onJoined(data.id);
    } catch (e) {
      error.textContent = e.message;
    } finally {
      $("join-button").disabled = false;
    }
  };
}

// ---------------------------------------------------------------- chat

const PHRASES = ["hello", "well_played", "good_luck", "thanks", "oops", "bye"];

export class Chat {
  constructor(send) {
    this.send = send;
    this.muted = localStorage.getItem("binokel.mute") === "1";
    this.unread = 0;
    $("chat-form").addEventListener("submit", (event) => {
      event.preventDefault();
      const text = $("chat-input").value.trim();
      if (!text) return;
      this.send({ type: "chat", text });
      $("chat-input").value = "";
    });
    $("chat-mute").addEventListener("change", (event) => this.mute(event.target.checked));
    $("chat-button").addEventListener("click", () => this.toggle());
    $("chat-close").addEventListener("click", () => this.toggle(false));
    $("chat-panel").addEventListener("keydown", (e) => { if (e.key === "Escape") this.toggle(false); });
    this.renderPhrases();
    this.mute(this.muted);
  }

  renderPhrases() {
    const box = $("chat-phrases");
    box.replaceChildren();
    for (const phrase of PHRASES) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "secondary small";
      button.textContent = t("phrase." + phrase);
      button.setAttribute("data-testid", `phrase-${phrase}`);
      button.addEventListener("click", () => this.send({ type: "chat", phrase }));
      box.append(button);
    }
  }

  toggle(open = !document.body.classList.contains("chat-open")) {
    if (open === document.body.classList.contains("chat-open")) return;
    document.body.classList.toggle("chat-open", open);
    if (open) { this.unread = 0; this.badge(); }
    // Into the input (a spectator, who may not write: the close button), without scrolling the
    // page (a spectator's header stayed cut off); closed, back to what opened it.
    const into = document.body.classList.contains("spectator") ? $("chat-close") : $("chat-input");
    panelFocus($("chat-panel"), open, into, $("menu-button"));
  }

  mute(muted) {
    this.muted = muted;
    localStorage.setItem("binokel.mute", muted ? "1" : "0");
    $("chat-mute").checked = muted;
    $("chat-lines").hidden = muted;
    $("chat-muted").hidden = !muted;
    this.badge();
  }

  badge() {
    const badge = $("chat-unread");
    badge.textContent = this.unread ? String(this.unread) : "";
    badge.hidden = !this.unread || this.muted;
  }

  reset() {
    $("chat-lines").replaceChildren();
    this.unread = 0;
    this.badge();
  }

  /** A chat line from the server: the text goes in as text, never as HTML. */
  add(line, mySeat) {
    const li = document.createElement("li");
    li.setAttribute("data-testid", "chat-line");
    const who = document.createElement("b");
    who.textContent = line.name + ": ";
    const text = document.createElement("span");
    text.className = "chat-text";
    text.textContent = line.phrase ? t("phrase." + line.phrase) : line.text;
    li.append(who, text);
    if (line.seat === mySeat) li.className = "mine";
    const list = $("chat-lines");
    list.append(li);
    while (list.children.length > 100) list.firstChild.remove();
    list.scrollTop = list.scrollHeight;
    if (!document.body.classList.contains("chat-open") && line.seat !== mySeat) { this.unread += 1; this.badge(); }
  }
}
