// The table's menu on a phone: the actions used every deal stay in the bar, the rest (and
// the top bar's rules, settings, language and cards) are one tap away in this sheet. Each
// item stands for the real control and clicks it, so that every action has one home.

import { t } from "./i18n.js";

const $ = (id) => document.getElementById(id);

/** Is a control shown right now (not hidden by the phone layout or by the page)? */
const shown = (el) => el && !el.hidden && getComputedStyle(el).display !== "none";

function item(original) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "menu-item";
  button.textContent = original.textContent.replace(/\s+/g, " ").trim() || original.getAttribute("aria-label") || "";
  if (!button.textContent && original.dataset.i18nAria) button.textContent = t(original.dataset.i18nAria);
  button.setAttribute("data-testid", `menu-${original.dataset.testid}`);
  button.addEventListener("click", () => {
    $("menu-dialog").close();
    original.click();
  });
  return button;
}

/** A select that sets the top bar's select (language, cards) and lets its listeners act. */
function mirror(original, label) {
  const wrap = document.createElement("label");
  wrap.className = "menu-select";
  const span = document.createElement("span");
  span.textContent = label;
  const select = original.cloneNode(true);
  select.removeAttribute("id");
  select.setAttribute("data-testid", `menu-${original.dataset.testid}`);
  select.value = original.value;
  select.addEventListener("change", () => {
    original.value = select.value;
    original.dispatchEvent(new Event("change", { bubbles: true }));
  });
  wrap.append(span, select);
  return wrap;
}

export function openMenu() {
  const dialog = $("menu-dialog");
  const list = $("menu-items");
  list.replaceChildren();
  for (const el of document.querySelectorAll(".game-buttons .in-menu")) {
    if (!shown(el) && !el.hidden && !el.classList.contains("not-here")) list.append(item(el));
  }
  list.append(item($("rules-button")));
  const settings = item($("settings-button"));
  settings.textContent = t("settings");
  list.append(settings);
  list.append(mirror($("language-select"), t("language")), mirror($("deck-select"), t("deck")));
  if (!dialog.open) dialog.showModal();
}

export function bindMenu() {
  $("menu-button").addEventListener("click", openMenu);
  // A tap outside the sheet closes it.
  $("menu-dialog").addEventListener("click", (e) => { if (e.target === e.currentTarget) e.currentTarget.close(); });
}
