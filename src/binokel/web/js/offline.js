// Installable and clear when the server is away: the service worker (sw.js, served from
// the root) keeps the static files; when the server cannot be reached the page says so
// plainly and tries again by itself, reloading once it answers.

const $ = (id) => document.getElementById(id);
let timer = null;
// The banner's English words, kept for when no catalogue could be loaded at all.
const english = new Map([...document.querySelectorAll("#offline [data-i18n]")].map((el) => [el, el.textContent]));

export function registerWorker() {
  if (!("serviceWorker" in navigator) || !window.isSecureContext) return;
  navigator.serviceWorker.register("/sw.js").catch(() => { /* the page works without it */ });
  // The worker holds the app shell; the catalogue this page loaded (before the worker
  // was there to see it) it is told to keep as well.
  navigator.serviceWorker.ready.then((registration) => registration.active?.postMessage({
    keep: [`/i18n/${document.documentElement.lang}.json`] })).catch(() => {});
}

async function reachable() {
  try { return (await fetch("/api/meta", { cache: "no-store" })).ok; } catch { return false; }
}

/** The server did not answer: say so, and try again every few seconds. */
export function serverUnreachable() {
  $("offline").hidden = false;
  for (const [el, text] of english) if (el.textContent === el.dataset.i18n || !el.textContent) el.textContent = text;
  document.documentElement.dataset.offline = "true";
  const retry = async () => {
    if (await reachable()) { clearInterval(timer); location.reload(); }
  };
  $("offline-retry").onclick = retry;
  clearInterval(timer);
  timer = setInterval(retry, 4000);
}
