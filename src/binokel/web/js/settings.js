// Settings kept in this browser (localStorage "binokel.settings"): animation speed (or
// off), the pause after a computer opponent's card, sound, confirm before surrendering,
// card size, a left-handed layout, one-tap play on a touch screen and playing a forced
// single card by itself. The settings dialog is built here.

import { t, newDialog, dialogHead } from "./i18n.js";

const KEY = "binokel.settings";
export const DEFAULTS = Object.freeze({ speed: "normal", botPause: "normal", sound: false, confirmSurrender: true,
  cardSize: "normal", leftHanded: false, oneTapPlay: false, autoPlayForced: false });
const CHOICES = {
  speed: ["off", "fast", "normal", "slow"],
  botPause: ["short", "normal", "long"],
  cardSize: ["small", "normal", "large"],
};
const SPEED = { off: 0, fast: 0.5, normal: 1, slow: 1.6 };
const BOT_PAUSE = { short: 250, normal: 600, long: 1200 };

let current = load();
const listeners = new Set();

function load() {
  let saved = {};
  try { saved = JSON.parse(localStorage.getItem(KEY) || "{}") || {}; } catch { /* defaults */ }
  const out = { ...DEFAULTS };
  for (const [name, value] of Object.entries(saved)) {
    if (!(name in DEFAULTS)) continue;
    if (CHOICES[name] ? CHOICES[name].includes(value) : typeof value === typeof DEFAULTS[name]) out[name] = value;
  }
  return out;
}

export const settings = () => current;

export function setSetting(name, value) {
  current = { ...current, [name]: value };
  localStorage.setItem(KEY, JSON.stringify(current));
  apply();
  for (const listener of listeners) listener(current);
}

export const onSettings = (listener) => listeners.add(listener);

/** How long a pause of ``ms`` lasts at the chosen speed (0: animations off). */
export const scaled = (ms) => ms * SPEED[current.speed];

/** The pause after a computer opponent's (or another person's) card. */
export const botPause = () => (current.speed === "off" ? 0 : BOT_PAUSE[current.botPause]);

export const animationsOff = () => current.speed === "off";

/** Body classes and CSS variables for the settings. */
export function apply() {
  const body = document.body;
  body.dataset.speed = current.speed;
  body.dataset.cardSize = current.cardSize;
  body.classList.toggle("left-handed", current.leftHanded);
  body.style.setProperty("--speed", String(SPEED[current.speed] || 0.001));
}

// ------------------------------------------------------------------ the dialog

function dialog() {
  let el = document.getElementById("settings-dialog");
  if (el) return el;
  el = newDialog("settings", "settings");
  el.addEventListener("change", (e) => {
    const input = e.target;
    const name = input.name;
    if (!(name in DEFAULTS)) return;
    setSetting(name, input.type === "checkbox" ? input.checked : input.value);
  });
  return el;
}

export function openSettings() {
  const el = dialog();
  const select = (name) => `<label class="setting"><span>${t(`settings.${name}`)}</span><select name="${name}" data-testid="setting-${name}">` +
    CHOICES[name].map((v) => `<option value="${v}"${current[name] === v ? " selected" : ""}>${t(`settings.${name}.${v}`)}</option>`).join("") + `</select></label>`;
  const check = (name) => `<label class="setting check"><input type="checkbox" name="${name}" data-testid="setting-${name}"${current[name] ? " checked" : ""}><span>${t(`settings.${name}`)}</span></label>`;
  el.innerHTML = dialogHead("settings", t("settings")) +
    `<div class="settings-grid">${select("speed")}${select("botPause")}${select("cardSize")}${check("sound")}${check("confirmSurrender")}${check("leftHanded")}${check("oneTapPlay")}${check("autoPlayForced")}</div>` +
    `<p class="hint-text">${t("settings_kept")}</p>`;
  if (!el.open) el.showModal();
}

export function bindSettings() {
  apply();
  document.getElementById("settings-button")?.addEventListener("click", openSettings);
}
