// What the pages made in script share (the club page, the score pad): building elements,
// and starting up in the reader's language with a view per fragment.

import { setLanguage, preferredLanguage } from "./i18n.js";

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

/** Start a page: its language (the saved or the browser's; the #language select switches
 *  it) and ``route`` for the fragment, now and on every change of it. */
export async function startPage(route) {
  const language = document.getElementById("language");
  language.addEventListener("change", async () => { await setLanguage(language.value); route(); });
  await setLanguage(preferredLanguage());
  language.value = document.documentElement.lang;
  window.addEventListener("hashchange", route);
  route();
}
