// Every user-visible string, in five languages, from the one catalogue the server serves at
// /i18n/{lang}.json (the terminal reads the same files: src/binokel/i18n/).

export const LANGUAGES = ["de", "en", "fr", "it", "pt"];
const FALLBACK = "en";
let dict = {};
let english = {};
let current = FALLBACK;

/** The language to start with: the saved choice, else the browser's, else English. */
export function preferredLanguage() {
  const saved = localStorage.getItem("binokel.language");
  if (LANGUAGES.includes(saved)) return saved;
  for (const tag of navigator.languages || [navigator.language || ""]) {
    const code = String(tag).slice(0, 2).toLowerCase();
    if (LANGUAGES.includes(code)) return code;
  }
  return FALLBACK;
}

async function load(lang) {
  const response = await fetch(`/i18n/${lang}.json`);
  if (!response.ok) throw new Error(`cannot load language ${lang}`);
  return response.json();
}

export async function setLanguage(lang) {
  if (!LANGUAGES.includes(lang)) lang = FALLBACK;
  // Remember the choice at once: a reload while the dictionary loads must keep it.
  localStorage.setItem("binokel.language", lang);
  // Every catalogue has every key (tests/test_i18n.py): English is loaded only to be shown.
  dict = lang === FALLBACK && english.strings ? english : await load(lang);
  if (lang === FALLBACK) english = dict;
  current = lang;
  document.documentElement.lang = lang;
  translatePage(document);
}

export const language = () => current;

/** The browser's own tag for the current language ("en-GB" for English in Britain), for
 *  numbers, dates and plural rules; the bare language where the browser prefers none. */
export function locale() {
  for (const tag of navigator.languages || [navigator.language || ""]) {
    if (String(tag).slice(0, 2).toLowerCase() === current) {
      try { return Intl.getCanonicalLocales(tag)[0]; } catch { /* a malformed tag: try the next */ }
    }
  }
  return current;
}

/** A template as written, or of a plural template (``{"one": …, "other": …}``, CLDR
 *  categories) the form for the count ``n`` (else ``count``) in ``lang``'s rules; the
 *  terminal picks the same (binokel.i18n.plural_form). */
export function pluralForm(value, params, lang) {
  if (typeof value === "string" || value == null) return value;
  const count = params.n ?? params.count;
  const form = count == null ? "other" : new Intl.PluralRules(lang).select(Number(count));
  return value[form] ?? value.other;
}

/** The string for ``key`` with {placeholders} filled in; English if missing. The catalogue
 *  is Python format syntax: a format spec ({name:>4}, the terminal's) is ignored here. A
 *  plural template takes the form for its count; a count given as a number is shown in
 *  the language's number format. */
export function t(key, params = {}) {
  const own = dict.strings?.[key];
  let text = own != null ? pluralForm(own, params, current) : pluralForm(english.strings?.[key], params, FALLBACK);
  if (text == null) return key;
  if (typeof own === "object" || (own == null && typeof english.strings?.[key] === "object")) {
    params = { ...params };
    for (const name of ["n", "count"]) if (typeof params[name] === "number") params[name] = number(params[name]);
  }
  // A brace written twice ("{{") is one brace, as Python's format() has it.
  return text.replace(/\{\{|\}\}|\{(\w+)(?::[^{}]*)?\}/g,
    (m, name) => (name === undefined ? m[0] : name in params ? String(params[name]) : m));
}

/** A sentence about the player in ``seat``: the current language's second-person
 *  variant ``key + ".you"`` when that seat is the viewer's ("You bid 160", not
 *  "You bids 160"), else ``t(key, params)``. No English ".you" stands in for another language. */
export function tSeat(key, seat, viewer, params = {}) {
  if (seat != null && seat === viewer && dict.strings?.[key + ".you"] != null) return t(key + ".you", params);
  return t(key, params);
}

/** Why the server refused something or a card cannot be played: its reason code and params
 *  (``{code, params}``) in this language, cards and suits named in ``deck``; second person
 *  when the reason is about the ``viewer``'s seat. */
export function reason({ code, params = {} }, deck, viewer) {
  const named = { ...params };
  for (const key of ["card", "best"]) {
    if (/^[ATKQJ97][SHDC]$/.test(named[key] ?? "")) named[key] = cardText(named[key], deck).name;
  }
  if (/^[SHDC]$/.test(named.suit ?? "")) named.suit = suitName(named.suit, deck);
  return tSeat(`error.${code}`, params.seat, viewer, named);
}

/** Long texts: the rules and the glossary. */
export const rulesText = () => dict.rules || english.rules || [];
export const glossary = () => dict.glossary || english.glossary || [];

/** Fill every element marked data-i18n (text), data-i18n-title and data-i18n-aria. */
export function translatePage(root) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-title]")) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) el.setAttribute("aria-label", t(el.dataset.i18nAria));
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) el.placeholder = t(el.dataset.i18nPlaceholder);
}

/** Text made safe to put into HTML (as text or an attribute's value). */
export const escape = (s) => String(s ?? "").replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A dialog the script makes (review, settings, statistics, keys): ``name``-dialog, its test
 *  id too, named by the heading of ``dialogHead``; in the page, not yet open. */
export function newDialog(name, className) {
  const el = Object.assign(document.createElement("dialog"), { id: `${name}-dialog`, className });
  el.dataset.testid = el.id;
  el.setAttribute("aria-labelledby", `${name}-title`);
  document.body.append(el);
  return el;
}

/** The head of such a dialog: its heading (``title``, already safe HTML) and the close button. */
export const dialogHead = (name, title) => `<div class="dialog-head"><h2 id="${name}-title">${title}</h2>` +
  `<form method="dialog"><button class="close" aria-label="${t("close")}">×</button></form></div>`;

function deckWords(deck) {
  const cards = dict.cards || english.cards;
  return cards[deck] || cards.french;
}

/** A suit's name in this deck and language ("hearts", "Eichel"). */
export const suitName = (suit, deck) => deckWords(deck).suits[suit];

/** A card's corner index and its full name in this deck and language. */
export function cardText(card, deck) {
  const words = deckWords(deck);
  const rank = card[0], suit = card[1];
  const pattern = (dict.cards || english.cards).pattern;
  return {
    index: words.index[rank],
    name: pattern.replace("{rank}", words.ranks[rank]).replace("{suit}", words.suits[suit]),
  };
}

/** The label of a rule option, a value of it, and what it means (the server's English
 *  meaning where no translation exists). */
export const optionLabel = (name) => (has(`option.${name}`) ? t(`option.${name}`) : name);
export const choiceLabel = (name, value) => (has(`choice.${name}.${value}`) ? t(`choice.${name}.${value}`) : String(value));
export function optionMeaning(name, options) {
  return has(`meaning.${name}`) ? t(`meaning.${name}`) : (options || []).find((o) => o.name === name)?.meaning ?? "";
}

/** The name and description of a rule set. */
export const ruleSetLabel = (name) => (has(`ruleset.${name}`) ? t(`ruleset.${name}`) : name);
export const ruleSetAbout = (name, fallback) => (has(`ruleset_about.${name}`) ? t(`ruleset_about.${name}`) : fallback ?? "");

const has = (key) => (dict.strings?.[key] ?? english.strings?.[key]) != null;

/** A meld's name ("Family", "Four aces"), in the words of the deck shown: "Four queens"
 *  with French cards, "Four obers" with German ones (``meld.{name}.{deck}`` where it differs). */
export const meldName = (name, deck = document.body.dataset.deck) =>
  (has(`meld.${name}.${deck}`) ? t(`meld.${name}.${deck}`) : t(`meld.${name}`));

/** Numbers in the language's format, negative ones with the one minus sign (U+2212) used
 *  everywhere on the page (Intl gives a hyphen in most languages). */
export const number = (n) => (n == null ? "" : new Intl.NumberFormat(locale()).format(n).replace(/^[-\u2212]/, "\u2212"));

/** A moment (ms or an ISO text) as a short date and time in the browser's conventions for
 *  this language (en-GB: day first, 24-hour clock). */
export const dateTime = (when) => new Intl.DateTimeFormat(locale(), { dateStyle: "short", timeStyle: "short" }).format(new Date(when));
