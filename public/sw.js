// fitcard's service worker: the site works offline after the first visit.
//
// `scripts/finish-site.mjs` writes VERSION (a hash of every file below) and ASSETS (the built
// files, whose names carry trunk's content hash) after each release build, so each build gets
// its own cache. A changed worker installs beside the old one, caches its build, takes over at
// once and deletes the caches of older builds.
// https://developer.mozilla.org/en-US/docs/Web/API/Service_Worker_API/Using_Service_Workers
// https://web.dev/articles/service-worker-lifecycle

const VERSION = 'dev';
const ASSETS = [];

// One origin may host several copies of the site under different paths: each keeps to its
// own caches (named by its scope).
const PREFIX = `fitcard ${self.registration.scope} `;
const CACHE = PREFIX + VERSION;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((c) => c.addAll(ASSETS.map((a) => new Request(a, { cache: 'reload' }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) =>
        Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== CACHE).map((k) => caches.delete(k))),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== location.origin) return;
  const cached = () => caches.open(CACHE).then((c) => c.match(req, { ignoreSearch: req.mode === 'navigate' }));
  // The catalog keeps one name across builds: like the pages, it comes from the network first.
  if (req.mode === 'navigate' || new URL(req.url).pathname.endsWith('/catalog.postcard')) {
    // Pages: the network first, so that an online visit gets the newest build (whose assets
    // have new names); the cached copy when the network is gone.
    event.respondWith(fetch(req).catch(() => cached().then((r) => r || Response.error())));
  } else {
    // Assets: their names change with their content, so a cached one is never stale.
    event.respondWith(cached().then((r) => r || fetch(req)));
  }
});
