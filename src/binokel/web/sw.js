// The service worker: holds the whole app shell (the page, its styles, scripts, icon and
// manifest, and the catalogues the page loaded) so the page starts fast and opens even
// when the server cannot be reached — then it says so.
// The API and the websocket are never cached: the game itself always comes from the server.

// @shell
// (The server replaces the line above by the shell's list, its pages and a version made from the
// files' contents: server/delivery.py. Served as a plain file, it keeps the page alone.)
const FILES = typeof SHELL === "undefined" ? ["/"] : SHELL;
const KEPT_PAGES = typeof PAGES === "undefined" ? ["/"] : PAGES;
const CACHE = `binokel-shell-${typeof VERSION === "undefined" ? "dev" : VERSION}`;

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

// The page names what it loaded beyond the shell (its language's catalogue): kept too.
self.addEventListener("message", (event) => {
  const urls = (event.data?.keep || []).filter((u) => typeof u === "string" && u.startsWith("/i18n/"));
  if (urls.length) event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(urls)));
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin) return;
  const page = KEPT_PAGES.includes(url.pathname);
  const asset = url.pathname.startsWith("/static/") || url.pathname.startsWith("/i18n/");
  if (!page && !asset) return;  // /api/… and the websocket: always the server
  // Network first (a new version shows at once; unchanged files cost a 304), the cache when
  // the server is away.
  event.respondWith(fetch(event.request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(event.request, copy));
    }
    return response;
  }).catch(() => caches.match(event.request, { ignoreSearch: true }).then((hit) => hit || Response.error())));
});
