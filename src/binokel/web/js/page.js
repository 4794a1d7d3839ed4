// What the pages made in script share (the club page, the score pad): building elements,
// a QR code, a word in the status line, and starting up in the reader's language with a view per fragment.

import { setLanguage, preferredLanguage } from "./i18n.js";
import { qrSvg } from "../club/qr.js";

/** An element: h("button", {class: "primary", onclick}, "text", child...). Attributes that
 *  are null or false are left out; ``on…`` ones are listeners; ``text`` is the text. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
    else if (key === "text") el.textContent = value;
    else el.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) if (child != null) el.append(child instanceof Node ? child : String(child));
  return el;
}

/** Replace an element's children, leaving out the absent ones (null: a part not shown). */
export const put = (el, ...children) => el.replaceChildren(...children.flat().filter((child) => child != null));

/** A link as a QR code (drawn here: web/club/qr.js), for another phone's camera. */
export function qrBox(link, label, testid) {
  const box = h("div", { class: "qr", "data-testid": testid });
  box.innerHTML = qrSvg(link, label);
  return box;
}

/** Say ``text`` in the page's status line (#status, a polite live region) or in ``status``
 *  for a few seconds. */
export function say(text, status = document.getElementById("status")) {
  status.textContent = text;
  if (text) setTimeout(() => status.textContent === text && (status.textContent = ""), 5000);
}

/** Start a page: its language (the saved or the browser's; the #language select switches
 *  it) and ``route`` for the fragment, now and on every change of it. */
export async function startPage(route) {
  const language = document.getElementById("language");
  // The tab's title in the page's language too ("Binokel — Schreibblock"): a screen reader says it first.
  const title = () => { document.title = `Binokel — ${document.querySelector(".brand [data-i18n]")?.textContent ?? ""}`; };
  language.addEventListener("change", async () => { await setLanguage(language.value); title(); route(); });
  await setLanguage(preferredLanguage());
  title();
  language.value = document.documentElement.lang;
  window.addEventListener("hashchange", route);
  route();
}
