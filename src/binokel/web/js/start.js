// The start page (a new game, the games to resume) and the rules and glossary dialog.

import { t, number, rulesText, glossary, language, optionLabel, optionMeaning, choiceLabel, ruleSetLabel, ruleSetAbout, reason } from "./i18n.js";
import { cardElement } from "./cards.js";
import { side } from "./model.js";

const $ = (id) => document.getElementById(id);
const escape = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export class StartPage {
  constructor({ meta, onStart, getDeck, setDeck }) {
    this.meta = meta;
    this.onStart = onStart;
    this.getDeck = getDeck;
    this.setDeck = setDeck;
    this.players = 3;
    this.teams = "none";
    this.asked = 0;  // the latest rules check; older answers are dropped
    $("new-game-form").addEventListener("submit", (e) => { e.preventDefault(); this.submit(); });
    $("rule-set").addEventListener("change", () => { this.clearOptions(); this.render(); });
    for (const kind of ["input", "change"]) $("more-options").addEventListener(kind, () => this.checkSoon());
    $("player-name").value = localStorage.getItem("binokel.name") || "";
  }

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
    more.innerHTML = meta.options.map((o) => {
      const own = this.setValue(o);
      const keep = `${t("rule_set_default")}: ${choiceLabel(o.name, own)}`;
      const control = o.choices
        ? `<select name="${o.name}" id="opt-${o.name}" data-testid="option-${o.name}"><option value="">${escape(keep)}</option>` +
          o.choices.map((c) => `<option value="${escape(c)}">${escape(choiceLabel(o.name, c))}</option>`).join("") + `</select>`
        : `<input name="${o.name}" id="opt-${o.name}" ${typeof o.standard === "number" ? `type="number" inputmode="numeric"` : `type="text"`}` +
          `${o.minimum != null ? ` min="${o.minimum}"` : ""}${o.step != null ? ` step="${o.step}"` : ""}` +
          ` placeholder="${escape(keep)}" data-testid="option-${o.name}">`;
      return `<label class="option" title="${escape(optionMeaning(o.name, meta.options))}"><span>${escape(optionLabel(o.name))}</span>${control}</label>`;
    }).join("");
    for (const [name, value] of Object.entries(values)) { const el = more.querySelector(`[name="${name}"]`); if (el) el.value = value; }
    this.renderOpponents();
    this.renderDecks();
    this.check();
  }

  clearOptions() {
    for (const el of $("more-options").querySelectorAll("select, input")) el.value = "";
  }

  /** One level per computer seat, named and placed as at the table. */
  renderOpponents() {
    const box = $("opponent-levels");
    const levels = this.meta.levels;
    const kept = Object.fromEntries([...box.querySelectorAll("select")].map((el) => [el.dataset.seat, el.value]));
    let html = "";
    for (let seat = 1; seat < this.players; seat++) {
      const level = kept[seat] || localStorage.getItem(`binokel.level${seat}`) || (levels.includes("medium") ? "medium" : levels[0]);
      const name = this.meta.opponent_names?.[seat - 1] ?? `${seat}`;
      const partner = this.teams !== "none" && seat % 2 === 0 ? ` · ${t("partner")}` : "";  // teams: seat % 2
      html += `<label><span>${escape(name)} · ${t("side." + side(this.players, 0, seat))}${partner}</span>` +
        `<select id="level-${seat}" data-seat="${seat}" data-testid="level-${seat}">` +
        levels.map((l) => `<option value="${l}"${l === level ? " selected" : ""}>${t("level." + l)}</option>`).join("") + `</select></label>`;
    }
    box.innerHTML = html;
  }

  checkSoon() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.check(), 150);
  }

  /** Ask the server how it reads the rule text: show the canonical text, or its exact objection. */
  async check() {
    const text = this.rulesText();
    const asked = ++this.asked;
    let answer;
    try {
      const response = await fetch(`/api/rules?text=${encodeURIComponent(text)}`);
      answer = { ok: response.ok, body: await response.json() };
    } catch {
      return;  // offline: the server will say so on submit
    }
    if (asked !== this.asked) return;
    $("rules-text").textContent = answer.ok ? answer.body.text : text;
    $("rules-text").classList.toggle("invalid", !answer.ok);
    $("rules-error").textContent = answer.ok ? "" : answer.body.code ? reason(answer.body, this.getDeck()) : answer.body.error;
    const teams = answer.ok ? answer.body.changes.find((c) => c.name === "teams")?.value ?? "none" : this.teams;
    if (answer.ok && (answer.body.players !== this.players || teams !== this.teams)) {
      this.players = answer.body.players;
      this.teams = teams;
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
      await this.check();  // the number of computer seats follows the rules
      const name = $("player-name").value.trim() || t("you");
      localStorage.setItem("binokel.name", $("player-name").value.trim());
      const opponents = [...$("opponent-levels").querySelectorAll("select")].map((el) => {
        localStorage.setItem(`binokel.level${el.dataset.seat}`, el.value);
        return el.value;
      });
      const body = { rules: this.rulesText(), opponents, name, language: language(), deck: this.getDeck() };
      const response = await fetch("/api/games", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(data.code ? reason(data, this.getDeck()) : data.error || response.statusText);
      this.onStart(data.id);
    } catch (e) {
      error.textContent = t("start_failed", { message: e.message });
    } finally {
      button.disabled = false;
    }
  }

  async loadResumeList() {
    const list = $("resume-list");
    let games = [];
    try {
      const response = await fetch("/api/games");
      games = (await response.json()).games || [];
    } catch { /* the list stays empty */ }
    const open = games.filter((g) => !g.over).sort((a, b) => String(b.updated).localeCompare(String(a.updated)));
    list.innerHTML = open.map((g) => {
      const when = g.updated ? new Date(g.updated).toLocaleString(language(), { dateStyle: "short", timeStyle: "short" }) : "";
      const scores = g.players.map((p, i) => `${escape(p)} ${number(g.totals[i])}`).join(" · ");
      return `<li><a class="resume-item" href="#/game/${encodeURIComponent(g.id)}" data-testid="resume-${escape(g.id)}">` +
        `<span class="scores">${scores}</span><span class="meta">${escape(ruleSetLabel(String(g.rules).split("(")[0]))}` +
        ` · ${t("deal_n", { n: g.deals })}${when ? " · " + escape(when) : ""}</span><span class="go">${t("resume")}</span></a></li>`;
    }).join("");
    $("resume-empty").hidden = open.length > 0;
  }
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
