// scripts/finish-site.mjs on a small stand-in for a trunk build: the policy with the hashes of
// the inline scripts and styles, the worker's version and list, the manifest's icon, and the
// link previews only for a valid site URL. (The real build is checked in e2e.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const SCRIPT = path.join(here, '..', '..', 'scripts', 'finish-site.mjs');
const SW = fs.readFileSync(path.join(here, '..', '..', 'public', 'sw.js'), 'utf8');
const MANIFEST = fs.readFileSync(path.join(here, '..', '..', 'public', 'manifest.webmanifest'), 'utf8');

// The preload script's catalog tag line, and the FNV-1a 64 of the stand-in catalog's bytes.
const PRELOAD = (tag) => `\nconst FITCARD_CATALOG_TAG = "${tag}";\n`;
const CATALOG = 'catalog';
// fitcard_estimator::catalog::tag(b"catalog"), in hex (the estimator's FNV-1a 64, not this
// script's copy of it).
const TAG = 'f9928605e9a2ddd8';
const LOADER = "\nimport init from './app-1a2b.js';\nawait init({ module_or_path: './app-1a2b_bg.wasm' });\n";
// trunk's preload links for the page's script and wasm, written at the end of <head>.
const PRELOADS =
  '<link rel="modulepreload" href="./app-1a2b.js" crossorigin="anonymous" integrity="sha384-x">' +
  '<link rel="preload" href="./app-1a2b_bg.wasm" crossorigin="anonymous" integrity="sha384-y" as="fetch" type="application/wasm">';
const INDEX = `<!DOCTYPE html><html lang="en"><head>
<meta charset="utf-8" />
<meta name="description" content="Estimate &amp; compare" />
<title>fitcard: will this LLM fit?</title>
<link rel="stylesheet" href="./style-3c4d.css" />
<link rel="icon" href="./favicon-5e6f.png" />
<link rel="manifest" href="manifest.webmanifest" />
<script>${PRELOAD('')}</script>
<script type="module">${LOADER}</script>
${PRELOADS}
</head><body><p>hi</p></body></html>`;
const DOC = (t) =>
  `<!DOCTYPE html><html><head>\n<meta charset="utf-8" />\n<title>${t}</title>\n<style>body{margin:0}</style>\n</head><body></body></html>`;

function fakeDist() {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'fitcard-finish-'));
  const files = {
    'index.html': INDEX,
    'method.html': DOC('method'),
    'accuracy.html': DOC('accuracy'),
    'app-1a2b.js': 'export default async function init() {}',
    'app-1a2b_bg.wasm': '\0asm',
    'style-3c4d.css': 'body{}',
    'favicon-5e6f.png': 'PNG',
    'robots.txt': '',
    'og.png': 'png',
    'sw.js': SW,
    'manifest.webmanifest': MANIFEST,
    'fitcard-import.js': 'export default async function init() {}',
    'fitcard-import_bg.wasm': '\0asm',
    'fitcard-import_loader.js': "import init from './fitcard-import.js'; await init();",
    'catalog.postcard': CATALOG,
  };
  for (const [n, c] of Object.entries(files)) fs.writeFileSync(path.join(d, n), c);
  // Train mode's whole calculator, in its own folder.
  fs.mkdirSync(path.join(d, 'train'));
  fs.writeFileSync(path.join(d, 'train', 'fitcard-full.js'), 'export default async function init() {}');
  fs.writeFileSync(path.join(d, 'train', 'fitcard-full_bg.wasm'), '\0asm');
  fs.writeFileSync(path.join(d, 'train', 'fitcard-full_loader.js'), "import init from './fitcard-full.js'; await init();");
  return d;
}

function finish(dist, site) {
  const env = { ...process.env };
  delete env.FITCARD_SITE_URL;
  if (site !== undefined) env.FITCARD_SITE_URL = site;
  return spawnSync(process.execPath, [SCRIPT, dist], { env, encoding: 'utf8' });
}

const read = (d, n) => fs.readFileSync(path.join(d, n), 'utf8');
const sha = (s) => `'sha256-${crypto.createHash('sha256').update(s).digest('base64')}'`;

test('the policy, the worker and the manifest; a second run changes nothing', () => {
  const d = fakeDist();
  const r = finish(d);
  assert.equal(r.status, 0, r.stderr);
  const index = read(d, 'index.html');
  const policy = index.match(/<meta http-equiv="Content-Security-Policy" content="([^"]+)" \/>/)[1];
  const register = index.match(/<script>([^<]*serviceWorker[^<]*)<\/script>/)[1];
  // The inline scripts are minified (terser), their global names kept, the tag written.
  const preload = `const FITCARD_CATALOG_TAG="${TAG}";`;
  const loader = 'import a from"./app-1a2b.js";await a({module_or_path:"./app-1a2b_bg.wasm"});';
  assert.ok(index.includes(`<script>${preload}</script>`), index);
  assert.ok(index.includes(`<script type="module">${loader}</script>`), index);
  assert.equal(
    policy,
    `default-src 'self'; script-src 'self' ${sha(preload)} ${sha(loader)} ${sha(register)} 'wasm-unsafe-eval'; ` +
      "connect-src 'self' https://huggingface.co https://*.hf.co; object-src 'none'; base-uri 'self'",
  );
  assert.ok(index.indexOf('Content-Security-Policy') < index.indexOf('<link'), 'before what it governs');
  // The wasm's preload, the style sheet and the script's preload open <head>, after the policy,
  // before the metadata and the inline script that waits for the sheet.
  const [script, wasm] = PRELOADS.split('><').map((l, i) => (i ? `<${l}` : `${l}>`));
  assert.ok(
    index.includes(`" />${wasm}<link rel="stylesheet" href="./style-3c4d.css" />${script}<meta name="description"`),
    index,
  );
  assert.equal(index.split('type="application/wasm"').length, 2, 'the wasm preloaded once');
  assert.doesNotMatch(index, /og:|twitter:/, 'no previews without a site URL');
  assert.match(read(d, 'method.html'), new RegExp(`style-src 'self' ${sha('body{margin:0}').replace(/[+/]/g, '\\$&')};`));
  const sw = read(d, 'sw.js');
  const version = sw.match(/^const VERSION = '([0-9a-f]{16})';$/m)[1];
  const assets = JSON.parse(sw.match(/^const ASSETS = (.*);$/m)[1]);
  assert.deepEqual(assets, [
    './',
    'accuracy.html',
    'app-1a2b.js',
    'app-1a2b_bg.wasm',
    'catalog.postcard',
    'favicon-5e6f.png',
    'index.html',
    'manifest.webmanifest',
    'method.html',
    'style-3c4d.css',
  ]);
  // The importer's and train mode's files are cached when first asked for, never ahead.
  assert.deepEqual(JSON.parse(sw.match(/^const ON_DEMAND = (.*);$/m)[1]), [
    'fitcard-import.js',
    'fitcard-import_bg.wasm',
    'fitcard-import_loader.js',
    'train/fitcard-full.js',
    'train/fitcard-full_bg.wasm',
    'train/fitcard-full_loader.js',
  ]);
  // A worker script gets the page's policy for what a worker does.
  assert.equal(
    JSON.parse(sw.match(/^const WORKER_CSP = (.*);$/m)[1]),
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; connect-src 'self' https://huggingface.co https://*.hf.co",
  );
  assert.equal(JSON.parse(read(d, 'manifest.webmanifest')).icons[0].src, 'favicon-5e6f.png');
  const again = finish(d, 'https://example.org/');
  assert.equal(again.status, 0, again.stderr);
  assert.equal(read(d, 'index.html'), index, 'a finished folder is left as it is');
  assert.ok(read(d, 'sw.js').includes(version));
  // Another build (one changed file) gets another version.
  const d2 = fakeDist();
  fs.writeFileSync(path.join(d2, 'app-1a2b_bg.wasm'), '\0asm2');
  finish(d2);
  assert.notEqual(read(d2, 'sw.js').match(/^const VERSION = '(.*)';$/m)[1], version);
  fs.rmSync(d, { recursive: true });
  fs.rmSync(d2, { recursive: true });
});

test('link previews: absolute URLs from the site URL, escaped; a bad site URL stops the build', () => {
  const d = fakeDist();
  assert.equal(finish(d, 'https://user.github.io/fitcard').status, 0);
  const index = read(d, 'index.html');
  assert.match(index, /<meta property="og:url" content="https:\/\/user\.github\.io\/fitcard\/" \/>/);
  assert.match(index, /<meta property="og:image" content="https:\/\/user\.github\.io\/fitcard\/og\.png" \/>/);
  assert.match(index, /<meta property="og:title" content="fitcard: will this LLM fit\?" \/>/);
  assert.match(index, /<meta property="og:description" content="Estimate &amp; compare" \/>/);
  assert.match(index, /<meta name="twitter:card" content="summary_large_image" \/>/);
  fs.rmSync(d, { recursive: true });
  const e = fakeDist();
  assert.equal(finish(e, 'https://example.org/a"><script>x</script>/').status, 0);
  const html = read(e, 'index.html');
  assert.doesNotMatch(html, /"><script>x/);
  assert.match(html, /og:url" content="https:\/\/example\.org\/a%22%3E%3Cscript%3Ex%3C\/script%3E\/"/);
  fs.rmSync(e, { recursive: true });
  for (const bad of ['javascript:alert(1)', 'not a url']) {
    const f = fakeDist();
    const r = finish(f, bad);
    assert.notEqual(r.status, 0, bad);
    assert.match(r.stderr, /FITCARD_SITE_URL/);
    fs.rmSync(f, { recursive: true });
  }
});

test('a build without the importer wasm stops', () => {
  const d = fakeDist();
  fs.rmSync(path.join(d, 'fitcard-import_bg.wasm'));
  const r = finish(d);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /no importer wasm/);
  fs.rmSync(d, { recursive: true });
});

test('an SVG tab icon stops the build', () => {
  const d = fakeDist();
  fs.writeFileSync(path.join(d, 'favicon-5e6f.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  const index = path.join(d, 'index.html');
  fs.writeFileSync(index, fs.readFileSync(index, 'utf8').replace('favicon-5e6f.png', 'favicon-5e6f.svg'));
  const r = finish(d);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /tab's icon is an SVG/);
  fs.rmSync(d, { recursive: true });
});

test('a build without the train-mode wasm stops', () => {
  const d = fakeDist();
  fs.rmSync(path.join(d, 'train', 'fitcard-full_bg.wasm'));
  const r = finish(d);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr, /no train-mode wasm/);
  fs.rmSync(d, { recursive: true });
});

test('an inline event handler or style attribute stops the build', () => {
  for (const [tag, why] of [
    ['<p onclick="x()">hi</p>', /inline event handler/],
    ['<p style="color:red">hi</p>', /inline style attribute/],
  ]) {
    const d = fakeDist();
    fs.writeFileSync(path.join(d, 'index.html'), INDEX.replace('<p>hi</p>', tag));
    const r = finish(d);
    assert.notEqual(r.status, 0, tag);
    assert.match(r.stderr, why);
    fs.rmSync(d, { recursive: true });
  }
});
