// The service worker: keeps the page's static files (and the catalogues) so the page
// starts fast and opens even when the server cannot be reached — then it says so.
// The API and the websocket are never cached: the game itself always comes from the server.

const CACHE = "binokel-static-v1";
const CORE = ["/", "/static/css/style.css", "/static/css/round2.css", "/static/js/app.js", "/static/img/icon.svg",
  "/static/manifest.webmanifest"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(CORE)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(caches.keys()
    .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
    .then(() => self.clients.claim()));
});

self.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== "GET" || url.origin !== location.origin) return;
  const page = url.pathname === "/";
  const asset = url.pathname.startsWith("/static/") || url.pathname.startsWith("/i18n/");
  if (!page && !asset) return;  // /api/… and the websocket: always the server
  // Network first (a new version shows at once), the cache when the server is away.
  event.respondWith(fetch(event.request).then((response) => {
    if (response.ok) {
      const copy = response.clone();
      caches.open(CACHE).then((cache) => cache.put(event.request, copy));
    }
    return response;
  }).catch(() => caches.match(event.request, { ignoreSearch: page }).then((hit) => hit || Response.error())));
});
