// The first-game tutorial: a short walk through one deal (the auction, the Tapp, the
// discard, trump, melds, following suit, the hint), offered once at the first game —
// never in the way: it opens only when asked, can be skipped, and reopened any time.

import { t } from "./i18n.js";

const KEY = "binokel.tutorial";  // "done" or "skipped" once answered
const STEPS = ["auction", "tapp", "discard", "trump", "melds", "follow", "hint"];
const TARGETS = { auction: "#controls", tapp: "#tapp", discard: "#hand", trump: "#trump-marker", melds: "#meld-reveal", follow: "#hand", hint: "#hint-button" };
const $ = (id) => document.getElementById(id);

function dialog() {
  let el = $("tutorial-dialog");
  if (!el) {
    el = Object.assign(document.createElement("dialog"), { id: "tutorial-dialog", className: "tutorial" });
    el.setAttribute("data-testid", "tutorial-dialog");
    document.body.append(el);
    el.addEventListener("close", () => { for (const x of document.querySelectorAll(".tutorial-target")) x.classList.remove("tutorial-target"); });
  }
  return el;
}

/** Open the tutorial at step ``at``. */
export function openTutorial(at = 0) {
  const el = dialog();
  const step = STEPS[at];
  for (const x of document.querySelectorAll(".tutorial-target")) x.classList.remove("tutorial-target");
  document.querySelector(TARGETS[step])?.classList.add("tutorial-target");
  const last = at === STEPS.length - 1;
  el.innerHTML = `<div class="dialog-head"><h2>${t("tutorial_title")}</h2><span class="hint-text" data-testid="tutorial-step">${t("tutorial_step", { n: at + 1, total: STEPS.length })}</span></div>` +
    `<h3>${t(`tutorial.${step}.title`)}</h3><p data-testid="tutorial-text">${t(`tutorial.${step}`)}</p>` +
    `<div class="row"><button type="button" class="secondary" data-go="skip" data-testid="tutorial-skip">${t("tutorial_skip")}</button>` +
    (at ? `<button type="button" class="secondary" data-go="back" data-testid="tutorial-back">${t("tutorial_back")}</button>` : "") +
    `<button type="button" class="primary" data-go="${last ? "done" : "next"}" data-testid="tutorial-${last ? "done" : "next"}" autofocus>${t(last ? "tutorial_done" : "tutorial_next")}</button></div>`;
  el.onclick = (e) => {
    const go = e.target.closest("[data-go]")?.dataset.go;
    if (!go) return;
    if (go === "next") openTutorial(at + 1);
    else if (go === "back") openTutorial(at - 1);
    else { localStorage.setItem(KEY, go === "done" ? "done" : "skipped"); el.close(); hideOffer(); }
  };
  if (!el.open) el.showModal();
}

function hideOffer() { const offer = $("tutorial-offer"); if (offer) offer.hidden = true; }

/** At the table: offer the tutorial once (a line above the cards, never over them). */
export function offerTutorial() {
  if (localStorage.getItem(KEY)) return;
  let offer = $("tutorial-offer");
  if (!offer) {
    offer = Object.assign(document.createElement("div"), { id: "tutorial-offer", className: "tutorial-offer" });
    offer.setAttribute("data-testid", "tutorial-offer");
    $("controls").before(offer);
  }
  offer.hidden = false;
  offer.innerHTML = `<span>${t("tutorial_offer")}</span><button type="button" class="primary small" data-testid="tutorial-start">${t("tutorial_start")}</button>` +
    `<button type="button" class="ghost small" data-testid="tutorial-no">${t("tutorial_no")}</button>`;
  offer.querySelector("[data-testid=tutorial-start]").addEventListener("click", () => openTutorial(0));
  offer.querySelector("[data-testid=tutorial-no]").addEventListener("click", () => { localStorage.setItem(KEY, "skipped"); hideOffer(); });
}

export function bindTutorial() {
  for (const button of document.querySelectorAll("[data-open-tutorial]")) button.addEventListener("click", () => openTutorial(0));
}
