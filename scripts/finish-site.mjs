// After the release build (scripts/site.sh): what only the finished dist/ can say.
//   1. index.html registers the service worker (sw.js) once the page has loaded;
//   2. with FITCARD_SITE_URL (the site's public address), index.html gains Open Graph and
//      Twitter tags whose absolute URLs start with it (https://ogp.me/); without it, none;
//   3. every page gets a Content-Security-Policy <meta> (static hosts cannot set headers):
//      scripts and styles from the site itself plus the sha256 of each inline one, found in the
//      built page (trunk's module loader); https://www.w3.org/TR/CSP3/;
//   4. sw.js gets the list of files to precache and a version hashed from their contents, so
//      each build has its own cache; the manifest names the built (hashed) icon.
// Run: node scripts/finish-site.mjs dist. A second run on the same folder changes nothing.
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';

const dist = path.resolve(process.argv[2] || 'dist');
const file = (name) => path.join(dist, name);
const read = (name) => fs.readFileSync(file(name), 'utf8');
const fail = (msg) => {
  console.error(`finish-site: ${msg}`);
  process.exit(1);
};
const CSP_META = 'http-equiv="Content-Security-Policy"';
const PAGES = ['index.html', 'method.html', 'accuracy.html'];

if (read('index.html').includes(CSP_META)) {
  console.log(`finish-site: ${dist} is already finished`);
  process.exit(0);
}

// 0. wasm-bindgen's glue scripts (the page's and the importer's) and the style sheets,
// minified: trunk's own minifier would also rewrite index.html, which the steps below read.
// terser (https://terser.org/) and csso (https://github.com/css/csso), pinned by
// scripts/setup.sh; the integrity of trunk's modulepreload link follows the new bytes.
{
  const { createRequire } = await import('node:module');
  const require = createRequire(new URL('../.tools/node_modules/', import.meta.url));
  const { minify } = require('terser');
  const csso = require('csso');
  const acorn = require('acorn');
  // The glue of a class whose wasm exports are gone (the page's build removes the stream
  // adapters Leptos's server-function client exports, which a client-side page never calls:
  // index.html, data-wasm-opt-params): its declaration, its dispose line and its finalizer.
  const unexported = (name, code) => {
    const wasm = file(name.replace(/\.js$/, '_bg.wasm'));
    if (!fs.existsSync(wasm)) return code;
    let exports;
    try {
      exports = new Set(WebAssembly.Module.exports(new WebAssembly.Module(fs.readFileSync(wasm))).map((e) => e.name));
    } catch {
      return code; // not a module this script can read (the stand-in test's placeholder bytes)
    }
    const ast = acorn.parse(code, { ecmaVersion: 'latest', sourceType: 'module' });
    const gone = new Set();
    for (const n of ast.body) {
      const c = n.type === 'ExportNamedDeclaration' ? n.declaration : null;
      if (c?.type === 'ClassDeclaration' && !exports.has(`__wbg_${c.id.name.toLowerCase()}_free`)) gone.add(c.id.name);
    }
    if (!gone.size) return code;
    const names = [...gone].join('|');
    const mentions = new RegExp(`\\b(${names})(Finalization)?\\b`);
    const cut = ast.body.filter((n) => {
      const text = code.slice(n.start, n.end);
      if (n.type === 'ExportNamedDeclaration') return gone.has(n.declaration?.id?.name);
      return (n.type === 'IfStatement' || n.type === 'VariableDeclaration') && mentions.test(text);
    });
    let out = '';
    let at = 0;
    for (const n of cut) {
      out += code.slice(at, n.start);
      at = n.end;
    }
    out += code.slice(at);
    if (new RegExp(`\\b(${names})\\b`).test(out)) fail(`${name}: the glue of ${names} is still referenced`);
    return out;
  };
  for (const name of fs.readdirSync(dist)) {
    if (/^fitcard-[a-z-]+(-[0-9a-f]+)?(_loader)?\.js$/.test(name)) {
      const out = await minify(unexported(name, read(name)), { module: true, compress: true, mangle: true });
      if (!out.code) fail(`terser gave nothing for ${name}`);
      fs.writeFileSync(file(name), out.code);
      // trunk's modulepreload link names the script's bytes (sha384): name the new ones.
      const sri = `sha384-${crypto.createHash('sha384').update(out.code, 'utf8').digest('base64')}`;
      const html = read('index.html');
      const linked = new RegExp(`(href="\\./${name.replace(/[.]/g, '\\.')}"[^>]*integrity=")sha384-[^"]*"`);
      if (linked.test(html)) fs.writeFileSync(file('index.html'), html.replace(linked, `$1${sri}"`));
    } else if (name.endsWith('.css')) {
      fs.writeFileSync(file(name), csso.minify(read(name)).css);
    }
  }
}

// 0b. The catalog's tag (FNV-1a 64 of catalog.postcard, as fitcard_estimator::catalog::tag
// computes it) in index.html's preload script, which names the catalog part of a link's model
// from it.
{
  let h = 0xcbf29ce484222325n;
  for (const b of fs.readFileSync(file('catalog.postcard'))) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
  const html = read('index.html');
  const slot = 'const FITCARD_CATALOG_TAG = "";';
  if (!html.includes(slot)) fail('index.html lacks the catalog tag line of its preload script');
  fs.writeFileSync(file('index.html'), html.replace(slot, `const FITCARD_CATALOG_TAG = "${h.toString(16)}";`));
}

// 0c. index.html's inline scripts minified as the glue is (terser, top-level names kept: the
// page reads `window.fitcardGpu`, and the tag above is a global): they are in every first
// transfer (−450 B gzip on the build of 2026-12), and the whitespace between its tags. The
// policy below hashes what is written.
{
  const { createRequire } = await import('node:module');
  const require = createRequire(new URL('../.tools/node_modules/', import.meta.url));
  const { minify } = require('terser');
  let html = read('index.html');
  for (const m of [...html.matchAll(/<script(?![^>]*\ssrc=)([^>]*)>([^]*?)<\/script>/g)]) {
    const module = /type="module"/.test(m[1]);
    const out = await minify(m[2], { module, toplevel: false, compress: true, mangle: true });
    if (!out.code) fail('terser gave nothing for an inline script of index.html');
    html = html.replace(`<script${m[1]}>${m[2]}</script>`, () => `<script${m[1]}>${out.code}</script>`);
  }
  // The indentation between tags goes too (no text lives there; the scripts are minified).
  fs.writeFileSync(file('index.html'), html.replace(/>\s+</g, '><'));
}

// 0d. trunk writes its preload links for the page's script and wasm at the end of <head>, after
// the inline preload script, which waits for the style sheets before it runs (a classic
// script waits for pending sheets: https://html.spec.whatwg.org/#script-blocking-style-sheet);
// Chromium's preload scanner then left the wasm, the largest file of a first estimate, until
// that script had run (~230 ms later at 1.6 Mbps in tests/e2e/bench.mjs's waterfall). The
// wasm's preload, the style sheets and the script's preload open <head>, right after the
// charset (and the policy, step 3): the parser requests them before it reads the metadata and
// the inline scripts, which took ~15 ms at 4x CPU before the wasm was asked for (its request
// 312 -> 284 ms after navigation in that waterfall; the wasm, the largest file, first).
{
  let html = read('index.html');
  const find = (re) => [...html.matchAll(re)].map((m) => m[0]);
  const wasm = find(/<link rel="preload"[^>]*type="application\/wasm"[^>]*>/g);
  const sheets = find(/<link rel="stylesheet"[^>]*>/g);
  const script = find(/<link rel="modulepreload"[^>]*>/g);
  const charset = html.match(/<meta charset="utf-8"\s*\/?>/i);
  if (wasm.length && charset) {
    const links = [...wasm, ...sheets, ...script];
    for (const l of links) html = html.replace(l, '');
    const at = html.indexOf(charset[0]) + charset[0].length;
    html = `${html.slice(0, at)}${links.join('')}${html.slice(at)}`;
    fs.writeFileSync(file('index.html'), html);
  }
}

// 0e. The glue's imports get short names in the wasm and its glue (scripts/short-imports.mjs
// says why): the page −4.6 KB gzip (wasm −2.7, glue −1.9), the importer and the whole
// calculator about as much, on the build of 2026-12. The new wasm must compile, and every one
// of its imports be a key of the glue's import object; the preload links name the new bytes.
{
  const { createRequire } = await import('node:module');
  const require = createRequire(new URL('../.tools/node_modules/', import.meta.url));
  const acorn = require('acorn');
  const { shortImports } = await import('./short-imports.mjs');
  const glue = ['', 'train/'].flatMap((dir) =>
    fs.existsSync(file(dir))
      ? fs.readdirSync(file(dir)).filter((n) => /^fitcard-[a-z-]+(-[0-9a-f]+)?\.js$/.test(n)).map((n) => dir + n)
      : [],
  );
  const sri = (bytes) => `sha384-${crypto.createHash('sha384').update(bytes).digest('base64')}`;
  let html = read('index.html');
  for (const name of glue) {
    const wasmName = name.replace(/\.js$/, '_bg.wasm');
    if (!fs.existsSync(file(wasmName))) continue;
    const bytes = new Uint8Array(fs.readFileSync(file(wasmName)));
    if (!WebAssembly.validate(bytes)) continue; // the stand-in test's placeholder bytes
    let out;
    try {
      out = shortImports(bytes, read(name), acorn);
    } catch (e) {
      fail(`${name}: ${e.message}`);
    }
    if (!out.renamed) continue;
    const imported = WebAssembly.Module.imports(new WebAssembly.Module(out.wasm));
    const lost = imported.filter((i) => i.kind === 'function' && !new RegExp(`[{,]\\s*${i.name}\\s*:`).test(out.js));
    if (lost.length) fail(`${name}: ${lost.length} imports without a key in the glue, e.g. ${lost[0].name}`);
    fs.writeFileSync(file(wasmName), out.wasm);
    fs.writeFileSync(file(name), out.js);
    for (const [n, b] of [[name, out.js], [wasmName, out.wasm]]) {
      const linked = new RegExp(`(href="\\./${n.replace(/[.]/g, '\\.')}"[^>]*integrity=")sha384-[^"]*"`);
      html = html.replace(linked, `$1${sri(b)}"`);
    }
  }
  fs.writeFileSync(file('index.html'), html);
}

const attr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const sha256 = (s) => `'sha256-${crypto.createHash('sha256').update(s, 'utf8').digest('base64')}'`;
const inline = (html, tag) =>
  [...html.matchAll(new RegExp(`<${tag}(?![^>]*\\ssrc=)[^>]*>([^]*?)</${tag}>`, 'g'))].map((m) => m[1]);

// 1. The service worker, registered after load: nothing waits for it. A browser or a frame
// that refuses it (sandbox without an origin, blocked storage) just stays online-only.
// https://web.dev/articles/service-workers-registration
const REGISTER =
  '<script>addEventListener("load",()=>{try{navigator.serviceWorker.register("sw.js").catch(()=>{})}catch{}})</script>';
let index = read('index.html');
if (!index.includes('</head>')) fail('index.html has no </head>');
// trunk 0.21 copies `data-integrity="none"` onto the stylesheet links it writes: no use there.
index = index.replace(/ data-integrity="none"/g, '');
index = index.replace('</head>', `${REGISTER}\n</head>`);

// 2. Link previews, only with an absolute http(s) site URL.
const site = (process.env.FITCARD_SITE_URL || '').trim();
if (site) {
  let base;
  try {
    base = new URL(site.endsWith('/') ? site : `${site}/`);
  } catch {
    fail(`FITCARD_SITE_URL is not a URL: ${site}`);
  }
  if (!/^https?:$/.test(base.protocol)) fail(`FITCARD_SITE_URL is not http(s): ${site}`);
  // The page's own title and description, as written in index.html (already escaped).
  const title = index.match(/<title>([^<]*)<\/title>/)?.[1];
  const description = index.match(/<meta name="description" content="([^"]*)"/)?.[1];
  if (!title || !description) fail('index.html lacks its <title> or description');
  const tags = [
    ['property', 'og:type', 'website'],
    ['property', 'og:site_name', 'fitcard'],
    ['property', 'og:url', attr(base.href)],
    ['property', 'og:title', title],
    ['property', 'og:description', description],
    ['property', 'og:image', attr(new URL('og.png', base).href)],
    ['property', 'og:image:width', '1200'],
    ['property', 'og:image:height', '630'],
    ['property', 'og:image:alt', 'A stacked bar of the memory an LLM takes on a GPU'],
    ['name', 'twitter:card', 'summary_large_image'],
  ]
    .map(([k, n, v]) => `<meta ${k}="${n}" content="${v}" />`)
    .join('\n');
  index = index.replace('</head>', `${tags}\n</head>`);
}
fs.writeFileSync(file('index.html'), index);

// The Hugging Face Hub and the hosts it redirects file downloads to (the importer refuses an
// answer from anywhere else: src/model/hub.rs, may_read).
const CONNECT = "connect-src 'self' https://huggingface.co https://*.hf.co";
// A worker's own policy (its script has no inline parts), given by the service worker.
const WORKER_POLICY = ["default-src 'self'", "script-src 'self' 'wasm-unsafe-eval'", CONNECT].join('; ');

// 3. The policy of each page, from its own inline scripts and styles. No inline event
// handler or style attribute may exist: the policy blocks them.
for (const name of PAGES) {
  let html = read(name);
  if (/<[^>]+\son[a-z]+\s*=/i.test(html)) fail(`${name} has an inline event handler`);
  if (/<[^>]+\sstyle\s*=/i.test(html)) fail(`${name} has an inline style attribute`);
  const scripts = inline(html, 'script').map(sha256);
  const styles = inline(html, 'style').map(sha256);
  // Everything else (styles without inline ones, images, the manifest, the worker) falls back
  // to default-src. Each byte here is in the page's first transfer: nothing is spelled twice.
  const policy = [
    "default-src 'self'",
    ["script-src 'self'", ...scripts, "'wasm-unsafe-eval'"].join(' '),
    styles.length && ["style-src 'self'", ...styles].join(' '),
    CONNECT,
    "object-src 'none'",
    "base-uri 'self'",
  ]
    .filter(Boolean)
    .join('; ');
  const charset = html.match(/<meta charset="utf-8"\s*\/?>/i);
  if (!charset) fail(`${name} has no <meta charset>`);
  // Right after the charset, before anything the policy governs.
  const at = charset.index + charset[0].length;
  html = `${html.slice(0, at)}\n<meta ${CSP_META} content="${policy}" />${html.slice(at)}`;
  fs.writeFileSync(file(name), html);
}

// 4. The manifest names the built icon; the worker precaches every file it needs offline.
const icon = index.match(/<link rel="icon" href="([^"]+)"/)?.[1]?.replace(/^\.\//, '');
if (!icon || !fs.existsSync(file(icon))) fail('index.html links no built icon');
// A raster icon: Chromium fetches and decodes the tab's icon again on each same-document
// navigation (every replaceState of the permalink), and an SVG one builds an SVG document each
// time (scripts/favicon.mjs says what it costs).
if (icon.endsWith('.svg')) fail(`the tab's icon is an SVG (${icon}): link the PNG scripts/favicon.mjs draws`);
const manifest = JSON.parse(read('manifest.webmanifest'));
manifest.icons = manifest.icons.map((i) => ({ ...i, src: icon }));
fs.writeFileSync(file('manifest.webmanifest'), `${JSON.stringify(manifest, null, 2)}\n`);

const SKIP = new Set(['sw.js', 'robots.txt', 'og.png']);
const files = fs
  .readdirSync(dist, { withFileTypes: true })
  .filter((d) => d.isFile() && !SKIP.has(d.name))
  .map((d) => d.name)
  .sort();
// Train mode's whole calculator, built into its own folder (`data-target-path="train"`).
const TRAIN = 'train';
const train = fs.existsSync(file(TRAIN))
  ? fs
      .readdirSync(file(TRAIN), { withFileTypes: true })
      .filter((d) => d.isFile())
      .map((d) => `${TRAIN}/${d.name}`)
      .sort()
  : [];
// The importer (a web worker: the Hub client, the file readers and the extras), the price list
// it reads when the rent is asked for, and the whole calculator (train mode) are fetched on
// demand: never ahead, cached by the service worker the first time the page asks for them.
const later = [...files.filter((n) => n.startsWith('fitcard-import') || n === 'prices.json'), ...train];
const assets = files.filter((n) => !later.includes(n));
if (!later.some((n) => n.startsWith('fitcard-import') && n.endsWith('.wasm'))) fail(`no importer wasm in ${dist}`);
if (!train.some((n) => n.endsWith('.wasm'))) fail(`no train-mode wasm in ${dist}/${TRAIN}`);
for (const need of [...PAGES, 'manifest.webmanifest', icon]) {
  if (!assets.includes(need)) fail(`${need} is missing from ${dist}`);
}
for (const ext of ['.js', '.wasm', '.css']) {
  if (!assets.some((a) => a.endsWith(ext))) fail(`no ${ext} file in ${dist}`);
}
const hash = crypto.createHash('sha256');
for (const a of [...files, ...train]) hash.update(`${a}\0`).update(fs.readFileSync(file(a)));
const version = hash.digest('hex').slice(0, 16);
let sw = read('sw.js');
const before = sw;
sw = sw
  .replace(/^const VERSION = '[^']*';$/m, `const VERSION = '${version}';`)
  .replace(/^const ASSETS = \[\];$/m, `const ASSETS = ${JSON.stringify(['./', ...assets])};`)
  .replace(/^const ON_DEMAND = \[\];$/m, `const ON_DEMAND = ${JSON.stringify(later)};`)
  .replace(/^const WORKER_CSP = '';$/m, `const WORKER_CSP = ${JSON.stringify(WORKER_POLICY)};`);
if (sw === before || !sw.includes(version) || /^const (ASSETS|ON_DEMAND) = \[\];$|^const WORKER_CSP = '';$/m.test(sw)) {
  fail('sw.js lacks its VERSION, ASSETS, ON_DEMAND and WORKER_CSP lines');
}
fs.writeFileSync(file('sw.js'), sw);
console.log(
  `finish-site: CSP on ${PAGES.length} pages, service worker ${version} precaching ${assets.length + 1} URLs, ${later.length} on first use` +
    (site ? `, link previews for ${site}` : ', no link previews (FITCARD_SITE_URL unset)'),
);
