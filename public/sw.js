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
// Files the page fetches only on demand (the importer, a worker with its own wasm, and the whole
// calculator of train mode): never downloaded ahead, cached by this build the first time the page
// asks for one, so that what a visitor has used works offline too. A visitor who never opens
// train mode, the frontier or an import never downloads them.
const ON_DEMAND = [];
// The policy of a worker script served here (a worker's policy comes from its own response,
// which static hosts cannot give one): the page's, for what a worker does.
const WORKER_CSP = '';

// A file whose name carries trunk's content hash never changes: the copy the page has just
// downloaded (the HTTP cache) is the one to keep. Any other file is revalidated (a 304 when
// unchanged), never downloaded again for nothing. trunk writes the 64-bit hash in hex without
// leading zeros, so a name carries up to 16 digits (fewer in one build of sixteen).
// https://developer.mozilla.org/en-US/docs/Web/API/Request/cache
const request = (a) => new Request(a, { cache: /-[0-9a-f]{8,16}[._]/.test(a) ? 'default' : 'no-cache' });
const store = (list) => caches.open(CACHE).then((c) => c.addAll(list.map(request)));

// One origin may host several copies of the site under different paths: each keeps to its
// own caches (named by its scope).
const PREFIX = `fitcard ${self.registration.scope} `;
const CACHE = PREFIX + VERSION;

self.addEventListener('install', (event) => {
  event.waitUntil(
    store(ASSETS).then(() => self.skipWaiting()),
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

const withPolicy = (r) => {
  if (!r || !r.ok || !WORKER_CSP) return r;
  const headers = new Headers(r.headers);
  headers.set('Content-Security-Policy', WORKER_CSP);
  return new Response(r.body, { status: r.status, statusText: r.statusText, headers });
};

self.addEventListener('fetch', (event) => {
  const req = event.request;
  if (req.method !== 'GET' || new URL(req.url).origin !== location.origin) return;
  const cached = () => caches.open(CACHE).then((c) => c.match(req, { ignoreSearch: req.mode === 'navigate' }));
  // The catalog and its parts keep their names across builds: like the pages, they come from
  // the network first (offline, a part missing from the cache sends the page to the whole
  // catalog, which is cached).
  const path = new URL(req.url).pathname;
  if (req.mode === 'navigate' || path.endsWith('/catalog.postcard') || path.includes('/parts/')) {
    // Pages: the network first, so that an online visit gets the newest build (whose assets
    // have new names); the cached copy when the network is gone.
    event.respondWith(fetch(req).catch(() => cached().then((r) => r || Response.error())));
  } else {
    // Assets: their names change with their content, so a cached one is never stale (the
    // on-demand files keep theirs, but each build has its own cache). An on-demand file is
    // cached as it arrives, the first time it is asked for.
    const worker = req.destination === 'worker';
    const onDemand = ON_DEMAND.some((n) => path.endsWith(`/${n}`));
    const fetched = () =>
      fetch(req).then((r) => {
        if (onDemand && r.ok) {
          const copy = r.clone();
          event.waitUntil(caches.open(CACHE).then((c) => c.put(req, copy)).catch(() => {}));
        }
        return r;
      });
    event.respondWith(cached().then((r) => r || fetched()).then((r) => (worker ? withPolicy(r) : r)));
  }
});
