// The start page (a new game, the games to resume) and the rules and glossary dialog.

import { t, number, rulesText, glossary, language } from "./i18n.js";
import { cardElement } from "./cards.js";

const $ = (id) => document.getElementById(id);
const escape = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

// The options offered under "More options" (target has its own field); the rest keep the rule set's value.
const MORE_OPTIONS = ["surrender_credit", "durch", "first_lead", "min_bid", "defender_melds", "double_melds",
  "failed_credit", "rounding", "eight_tens", "deals"];

export class StartPage {
  constructor({ meta, onStart, getDeck, setDeck }) {
    this.meta = meta;
    this.onStart = onStart;
    this.getDeck = getDeck;
    this.setDeck = setDeck;
    $("new-game-form").addEventListener("submit", (e) => { e.preventDefault(); this.submit(); });
    $("rule-set").addEventListener("change", () => this.describeRuleSet());
    $("player-name").value = localStorage.getItem("binokel.name") || "";
  }

  /** Fill the form's choices (again, when the language changes). */
  render() {
    const meta = this.meta;
    const ruleSet = $("rule-set");
    const chosen = ruleSet.value || "standard";
    ruleSet.innerHTML = meta.rule_sets.map((r) => `<option value="${escape(r.name)}">${escape(this.ruleSetLabel(r.name))}</option>`).join("");
    ruleSet.value = meta.rule_sets.some((r) => r.name === chosen) ? chosen : meta.rule_sets[0]?.name;
    this.describeRuleSet();
    for (const seat of [1, 2]) {
      const select = $(`level-${seat}`);
      const level = select.value || localStorage.getItem(`binokel.level${seat}`) || (meta.levels.includes("medium") ? "medium" : meta.levels[0]);
      select.innerHTML = meta.levels.map((l) => `<option value="${l}">${t("level." + l)}</option>`).join("");
      select.value = level;
    }
    const more = $("more-options");
    const values = Object.fromEntries([...more.querySelectorAll("select, input")].map((el) => [el.name, el.value]));
    more.innerHTML = MORE_OPTIONS.map((name) => meta.options.find((o) => o.name === name)).filter(Boolean).map((o) => {
      const label = t(`option.${o.name}`) === `option.${o.name}` ? o.name : t(`option.${o.name}`);
      const control = o.choices
        ? `<select name="${o.name}" id="opt-${o.name}" data-testid="option-${o.name}"><option value="">${t("rule_set_default")}</option>` +
          o.choices.map((c) => `<option value="${escape(c)}">${escape(this.choiceLabel(o.name, c))}</option>`).join("") + `</select>`
        : `<input name="${o.name}" id="opt-${o.name}" type="number" inputmode="numeric" placeholder="${escape(t("rule_set_default"))} (${escape(o.standard)})" data-testid="option-${o.name}">`;
      return `<label class="option" title="${escape(o.meaning)}"><span>${escape(label)}</span>${control}</label>`;
    }).join("");
    for (const [name, value] of Object.entries(values)) { const el = more.querySelector(`[name="${name}"]`); if (el) el.value = value; }
    this.renderDecks();
  }

  ruleSetLabel(name) {
    const key = `ruleset.${name}`;
    return t(key) === key ? name : t(key);
  }

  choiceLabel(option, value) {
    const key = `choice.${option}.${value}`;
    return t(key) === key ? String(value) : t(key);
  }

  describeRuleSet() {
    const name = $("rule-set").value;
    const set = this.meta.rule_sets.find((r) => r.name === name);
    const key = `ruleset_about.${name}`;
    $("rule-set-about").textContent = t(key) === key ? set?.about ?? "" : t(key);
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
    const target = $("opt-target").value.trim();
    if (target) parts.push(`target=${target}`);
    for (const el of $("more-options").querySelectorAll("select, input")) {
      if (el.value.trim()) parts.push(`${el.name}=${el.value.trim()}`);
    }
    const name = $("rule-set").value;
    return parts.length ? `${name}(${parts.join(",")})` : name;
  }

  async submit() {
    const error = $("new-game-error");
    error.textContent = "";
    const name = $("player-name").value.trim() || t("you");
    localStorage.setItem("binokel.name", $("player-name").value.trim());
    localStorage.setItem("binokel.level1", $("level-1").value);
    localStorage.setItem("binokel.level2", $("level-2").value);
    const body = {
      rules: this.rulesText(), opponents: [$("level-1").value, $("level-2").value],
      name, language: language(), deck: this.getDeck(),
    };
    const button = document.querySelector('[data-testid="start-game"]');
    button.disabled = true;
    try {
      const response = await fetch("/api/games", {
        method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
      const data = await response.json().catch(() => ({}));
      if (!response.ok) throw new Error(data.error || response.statusText);
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
        `<span class="scores">${scores}</span><span class="meta">${escape(this.ruleSetLabel(String(g.rules).split("(")[0]))}` +
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
