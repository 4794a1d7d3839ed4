// The start page (a new game, the games to resume) and the rules and glossary dialog.

import { t, escape, number, rulesText, glossary, language, dateTime, optionLabel, optionMeaning, choiceLabel, ruleSetLabel, ruleSetAbout, reason } from "./i18n.js";
import { cardElement } from "./cards.js";
import { side } from "./model.js";
import { forget, heldSeats, myGames, remember } from "./friends.js";

const $ = (id) => document.getElementById(id);

/** Where each rule option goes on the start page (the rest: the expert step). */
const OPTION_GROUPS = {
  players: "table", teams: "table", target: "table", deals: "table", end: "table", rounding: "table",
  min_bid: "bidding", auction: "bidding", all_pass: "bidding", surrender_credit: "bidding", failed_credit: "bidding",
  double_melds: "melds", eight_tens: "melds", eight_sevens: "melds", defender_melds: "melds",
  durch: "durch", open_durch: "durch", hand_durch: "durch", durch_fail_credit: "durch", durch_game: "durch", bettel: "durch",
};

export class StartPage {
  constructor({ meta, onStart, getDeck, setDeck }) {
    this.meta = meta;
    this.onStart = onStart;
    this.getDeck = getDeck;
    this.setDeck = setDeck;
    this.seats = meta.rule_sets?.[0] ?? { players: 3, teams: [0, 1, 2], bot_names: [] };  // refreshed by each rules check
    this.asked = 0;  // the latest rules check; older answers are dropped
    $("new-game-form").addEventListener("submit", (e) => { e.preventDefault(); this.submit(); });
    $("rule-set").addEventListener("change", () => { this.clearOptions(); this.render(); });
    for (const kind of ["input", "change"]) $("more-options").addEventListener(kind, () => this.checkSoon());
    $("player-name").value = localStorage.getItem("binokel.name") || "";
    $("code-form").addEventListener("submit", (e) => {
      e.preventDefault();
      const code = $("code-input").value.trim();
      if (code) location.hash = `#/join/${encodeURIComponent(code)}`;
    });
  }

  get players() { return this.seats.players; }

  get ruleSet() {
    const name = $("rule-set").value;
    return this.meta.rule_sets.find((r) => r.name === name) || this.meta.rule_sets[0];
  }

  /** An option's value in the chosen rule set (before the player's changes). */
  setValue(option) {
    const change = (this.ruleSet?.changes || []).find((c) => c.name === option.name);
    return change ? change.value : option.standard;
  }

  /** Fill the form's choices (again, when the language or the rule set changes). */
  render() {
    const meta = this.meta;
    const ruleSet = $("rule-set");
    const chosen = ruleSet.value || "standard";
    ruleSet.innerHTML = meta.rule_sets.map((r) => `<option value="${escape(r.name)}">${escape(ruleSetLabel(r.name))}</option>`).join("");
    ruleSet.value = meta.rule_sets.some((r) => r.name === chosen) ? chosen : meta.rule_sets[0]?.name;
    $("rule-set-about").textContent = ruleSetAbout(ruleSet.value, this.ruleSet?.about);
    const more = $("more-options");
    const values = Object.fromEntries([...more.querySelectorAll("select, input")].map((el) => [el.name, el.value]));
    const field = (o) => {
      const own = this.setValue(o);
      const keep = `${t("rule_set_default")}: ${choiceLabel(o.name, own)}`;
      const control = o.choices
        ? `<select name="${o.name}" id="opt-${o.name}" data-testid="option-${o.name}"><option value="">${escape(keep)}</option>` +
          o.choices.map((c) => `<option value="${escape(c)}">${escape(choiceLabel(o.name, c))}</option>`).join("") + `</select>`
        : `<input name="${o.name}" id="opt-${o.name}" ${typeof o.standard === "number" ? `type="number" inputmode="numeric"` : `type="text"`}` +
          `${o.minimum != null ? ` min="${o.minimum}"` : ""}${o.step != null ? ` step="${o.step}"` : ""}` +
          ` placeholder="${escape(keep)}" data-testid="option-${o.name}">`;
      return `<label class="option" title="${escape(optionMeaning(o.name, meta.options))}"><span>${escape(optionLabel(o.name))}</span>${control}</label>`;
    };
    // In groups a player recognises; how the cards are dealt and played behind a second step.
    const group = (name) => meta.options.filter((o) => (OPTION_GROUPS[o.name] ?? "expert") === name).map(field).join("");
    more.innerHTML = ["table", "bidding", "melds", "durch"].map((name) => group(name) &&
      `<fieldset class="option-group" data-testid="options-${name}"><legend>${escape(t("options_group." + name))}</legend><div class="options-grid">${group(name)}</div></fieldset>`).join("") +
      `<div class="option-group expert"><button type="button" class="ghost expert-toggle" aria-expanded="${this.expert ? "true" : "false"}" data-testid="options-expert-toggle">` +
      `${escape(t("options_group.expert"))}</button><div class="options-grid" data-testid="options-expert"${this.expert ? "" : " hidden"}>${group("expert")}</div></div>`;
    more.querySelector(".expert-toggle").addEventListener("click", () => { this.expert = !this.expert; this.render(); });
    for (const [name, value] of Object.entries(values)) { const el = more.querySelector(`[name="${name}"]`); if (el) el.value = value; }
    this.renderOpponents();
    this.renderDecks();
    renderLevels(this.meta.levels);
    this.check();
  }

  clearOptions() {
    for (const el of $("more-options").querySelectorAll("select, input")) el.value = "";
  }

  /** One choice per seat: me, a friend (an open seat, with an invite link) or a computer level. */
  renderOpponents() {
    const box = $("opponent-levels");
    const levels = this.meta.levels;
    const kept = Object.fromEntries([...box.querySelectorAll("select")].map((el) => [el.dataset.seat, el.value]));
    const kinds = ["me", "open", ...levels];
    const choice = (seat) => {
      const saved = kept[seat] ?? localStorage.getItem(`binokel.level${seat}`);
      if (seat === 0) return kinds.includes(kept[0]) ? kept[0] : "me";
      return kinds.includes(saved) && saved !== "me" ? saved : (levels.includes("medium") ? "medium" : levels[0]);
    };
    const chosen = Array.from({ length: this.players }, (_, seat) => choice(seat));
    const me = Math.max(0, chosen.indexOf("me"));
    let html = "";
    for (let seat = 0; seat < this.players; seat++) {
      const name = this.seats.bot_names[seat] ?? "";  // the name a computer player there gets
      const partner = seat !== me && this.seats.teams[seat] === this.seats.teams[me] ? ` · ${t("partner")}` : "";
      const where = seat === me ? "" : ` · ${t("side." + side(this.players, me, seat))}`;
      html += `<label><span>${escape(t("seat_n", { n: seat + 1 }))}${where}${partner}</span>` +
        `<select id="level-${seat}" data-seat="${seat}" data-testid="level-${seat}" title="${escape(name)}">` +
        kinds.map((k) => `<option value="${k}"${k === chosen[seat] ? " selected" : ""}>${escape(t("seat_kind." + k))}</option>`).join("") + `</select></label>`;
    }
    box.innerHTML = html;
    for (const select of box.querySelectorAll("select")) {
      select.addEventListener("change", () => {
        if (select.value === "me") {  // one "me" at most: another "me" becomes a friend's seat
          for (const other of box.querySelectorAll("select")) if (other !== select && other.value === "me") other.value = "open";
        }
        this.renderOpponents();
      });
    }
    $("friend-options").hidden = !chosen.includes("open");
  }

  checkSoon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), 150);
  }

  /** Ask the server how it reads the rule text: show the canonical text, or its exact objection.
   * An answer to an older question is dropped, unless `always`: the start asks last and must
   * take its seats from its own answer, even when a check from a change just before is pending. */
  async check({ always = false } = {}) {
    const text = this.rulesText();
    const asked = ++this.asked;
    let answer;
    try {
      // The check answers 200 either way: a text being typed is no error of the page (no 400 in the console).
      const body = await (await fetch(`/api/rules/check?text=${encodeURIComponent(text)}`)).json();
      answer = { ok: body.ok === true, body };
    } catch {
      return;  // offline: the server will say so on submit
    }
    if (asked !== this.asked && !always) return;
    $("rules-text").textContent = answer.ok ? answer.body.text : text;
    $("rules-text").classList.toggle("invalid", !answer.ok);
    $("rules-error").textContent = answer.ok ? "" : answer.body.code ? reason(answer.body, this.getDeck()) : answer.body.error;
    if (answer.ok && JSON.stringify(answer.body.teams) !== JSON.stringify(this.seats.teams)) {
      this.seats = answer.body;
      this.renderOpponents();
    }
    return answer.ok;
  }

  renderDecks() {
    const box = $("deck-choices");
    box.innerHTML = "";
    for (const deck of this.meta.decks) {
      const label = document.createElement("label");
      label.className = "deck-choice";
      label.innerHTML = `<input type="radio" name="deck" value="${deck}" data-testid="deck-${deck}" ${deck === this.getDeck() ? "checked" : ""}><span class="deck-name">${t("deck." + deck)}</span>`;
      const sample = document.createElement("span");
      sample.className = "deck-sample";
      for (const card of ["AC", "QS", "JD", "TH"]) sample.append(cardElement(card, deck, { small: true }));
      label.append(sample);
      label.querySelector("input").addEventListener("change", () => this.setDeck(deck));
      box.append(label);
    }
  }

  /** The rule text sent to the server: the set's name and only the options the player set. */
  rulesText() {
    const parts = [];
    for (const el of $("more-options").querySelectorAll("select, input")) {
      if (el.value.trim()) parts.push(`${el.name}=${el.value.trim()}`);
    }
    const name = $("rule-set").value || "standard";
    return parts.length ? `${name}(${parts.join(",")})` : name;
  }

  async submit() {
    const error = $("new-game-error");
    error.textContent = "";
    const button = document.querySelector('[data-testid="start-game"]');
    button.disabled = true;
    try {
      clearTimeout(this.timer);  // a check still waiting to start would make this one's answer old
      await this.check({ always: true });  // the number of computer seats follows the rules
      const name = $("player-name").value.trim() || t("you");
      localStorage.setItem("binokel.name", $("player-name").value.trim());
      const seats = [...$("opponent-levels").querySelectorAll("select")].map((el) => {
        if (el.value !== "me") localStorage.setItem(`binokel.level${el.dataset.seat}`, el.value);
        return el.value;
      });
      const body = { rules: this.rulesText(), seats, name, language: language(), deck: this.getDeck() };
      if (seats.includes("open")) {
        body.grace = Math.max(0, Math.min(3600, Number($("grace").value) || 0));
        body.lobby = $("lobby").checked;
      }
      const response = await fetch("/api/games", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(data.code ? reason(data, this.getDeck()) : data.error || response.statusText);
      remember(data.id, { token: data.token, seat: data.seat, host: true, links: data.links, code: data.invites.code });
      this.onStart(data.id, seats.includes("open"));
    } catch (e) {
      error.textContent = t("start_failed", { message: e.message });
    } finally {
      button.disabled = false;
    }
  }

  /** Delete a table this browser created (for everybody), or leave one it was invited to (from
   * this browser's list only; a bot stands in for an absent person). Asks first. */
  async forgetGame(gameId) {
    const held = heldSeats()[gameId];
    if (!held || !window.confirm(t(held.host ? "delete_game_confirm" : "leave_game_confirm"))) return;
    if (held.host) {
      const response = await fetch(`/api/games/${encodeURIComponent(gameId)}`, {
        method: "DELETE", headers: { Authorization: `Bearer ${held.token}` },
      });
      if (!response.ok && response.status !== 404) return;  // not deleted: keep it in the list
    }
    forget(gameId);
    await this.loadResumeList();
  }

  /** "Your games": the tables this browser holds a seat at (by its tokens), and the lobby. */
  async loadResumeList() {
    const list = $("resume-list");
    let games = [];
    try {
      games = await myGames();
    } catch { /* the list stays empty */ }
    const open = games.filter((g) => !g.over);
    // A table this browser keeps no token for (a rematch made while it was away): the server's, to come back.
    for (const g of open) if (g.token && !heldSeats()[g.id]) remember(g.id, { token: g.token, seat: g.seat, host: g.host });
    list.innerHTML = open.map((g) => {
      const when = g.updated ? dateTime(g.updated) : "";
      const scores = g.players.map((p, i) => `${escape(p || "?")} ${number(g.totals[i])}`).join(" · ");
      const options = ruleOptions(g.rules).map(([name, value]) => `${escape(optionLabel(name))}: ${escape(/^\d+$/.test(value) ? number(Number(value)) : choiceLabel(name, value))}`);
      // A friend is a name; only a computer player has a level (a friend's stand-in level is not theirs).
      const opponents = (g.seats || []).map((s, seat) => (seat === g.seat ? null : `${escape(g.players[seat] || t("presence.open"))}${s.kind === "bot" && s.level ? ` (${escape(t("level." + s.level))})` : ""}`)).filter(Boolean);
      const turn = g.waiting ? t("presence.waiting") : g.to_move === g.seat ? t("your_turn") : g.to_move != null ? t("turn_of", { name: escape(g.players[g.to_move]) }) : "";
      return `<li><a class="resume-item" href="#/game/${encodeURIComponent(g.id)}" data-testid="resume-${escape(g.id)}">` +
        `<span class="scores">${scores}</span><span class="meta">${escape(ruleSetLabel(String(g.rules).split("(")[0]))}` +
        ` · ${t("deal_n", { n: g.deals })}${when ? " · " + escape(when) : ""}</span>` +
        `<span class="options" data-testid="resume-options">${options.length ? options.join(" · ") : escape(t("resume_standard"))}</span>` +
        (opponents.length ? `<span class="options">${t("opponents")}: ${opponents.join(", ")}</span>` : "") +
        (turn ? `<span class="turn${g.to_move === g.seat ? " mine" : ""}">${turn}</span>` : "") +
        `<span class="go">${t("resume")}</span></a>` +
        // The creator deletes the table for everybody; anyone else only drops it from this browser.
        `<button type="button" class="forget-game" data-game="${escape(g.id)}" data-testid="forget-${escape(g.id)}">` +
        `${t(heldSeats()[g.id]?.host ? "delete_game" : "leave_game")}</button></li>`;
    }).join("");
    list.querySelectorAll("button.forget-game").forEach((button) => {
      button.addEventListener("click", () => this.forgetGame(button.dataset.game));
    });
    $("resume-empty").hidden = open.length > 0;
    $("start-view").classList.toggle("has-games", open.length > 0);  // phones show them first
    let tables = [];
    try {
      tables = (await (await fetch("/api/lobby")).json()).tables || [];
    } catch { /* no lobby */ }
    const held = heldSeats();
    tables = tables.filter((g) => !held[g.id]);
    $("lobby-box").hidden = !tables.length;
    $("lobby-list").innerHTML = tables.map((g) => `<li><a class="resume-item" href="#/lobby/${encodeURIComponent(g.id)}" data-testid="lobby-${escape(g.id)}">` +
      `<span class="scores">${g.seats.map((s) => escape(s.kind === "open" ? t("presence.open") : s.name)).join(" · ")}</span>` +
      `<span class="meta">${escape(ruleSetLabel(String(g.rules).split("(")[0]))}</span><span class="go">${t("join_sit")}</span></a></li>`).join("");
  }
}

/** The options a rule text sets: "standard(target=1000,bettel=300)" → [["target", "1000"], ["bettel", "300"]]. */
export function ruleOptions(text) {
  const inside = /\((.*)\)\s*$/.exec(String(text ?? ""));
  if (!inside) return [];
  return inside[1].split(",").map((part) => part.split("=").map((s) => s.trim())).filter((p) => p.length === 2 && p[0]);
}

/** What each computer level does, for the start page. */
export function renderLevels(levels) {
  const box = $("levels-about");
  if (!box) return;
  box.innerHTML = levels.map((level) => `<dt>${escape(t("level." + level))}</dt><dd>${escape(t("level_about." + level))}</dd>`).join("");
}

/** The rules and glossary dialog, in the current language. */
export function openRules(tab = "rules") {
  const dialog = $("rules-dialog");
  dialog.dataset.tab = tab;
  renderRules();
  if (!dialog.open) dialog.showModal();
}

export function renderRules() {
  const dialog = $("rules-dialog");
  const tab = dialog.dataset.tab || "rules";
  for (const button of dialog.querySelectorAll("[data-tab]")) button.setAttribute("aria-selected", String(button.dataset.tab === tab));
  const content = $("rules-content");
  if (tab === "glossary") {
    content.innerHTML = `<h2>${t("glossary")}</h2><dl class="glossary">` +
      glossary().map(([term, meaning]) => `<dt>${escape(term)}</dt><dd>${escape(meaning)}</dd>`).join("") + `</dl>`;
  } else {
    content.innerHTML = `<h2>${t("rules_title")}</h2>` + rulesText().map((section) =>
      `<h3>${escape(section.h)}</h3>` + section.p.map((p) => `<p>${escape(p)}</p>`).join("")).join("");
  }
  content.scrollTop = 0;
}

export function bindRules() {
  const dialog = $("rules-dialog");
  for (const button of dialog.querySelectorAll("[data-tab]")) {
    button.addEventListener("click", () => { dialog.dataset.tab = button.dataset.tab; renderRules(); });
  }
  $("rules-button").addEventListener("click", () => openRules("rules"));
  for (const button of document.querySelectorAll("[data-open-rules]")) {
    button.addEventListener("click", () => openRules(button.dataset.openRules));
  }
}
