// End-to-end tests of the built site (dist/), as a person would use it.
//
// A small static server (below) serves dist/ under a sub-path, to prove the page works from
// any base path with relative URLs, plus a host page that embeds it in an <iframe>. Debian's
// chromium is driven by playwright-core (never a downloaded browser). Every request the page
// makes is recorded: none may leave the server's origin.
//
// Run: node --test (from tests/e2e), after `trunk build --release`. FITCARD_DIST overrides the
// folder served.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.resolve(process.env.FITCARD_DIST || path.join(here, '..', '..', 'dist'));
const BASE = '/tools/fitcard/'; // not the root: relative URLs must hold
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const URL_SETTLE_MS = 700; // > the page's 200 ms debounce

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
};

const HOST_PAGE = (src) => `<!DOCTYPE html><html><head><meta charset="utf-8"><title>host</title></head>
<body><h1>A page that embeds fitcard</h1>
<iframe id="fc" src="${src}" style="border:0;width:700px;height:100px"></iframe>
<script>
window.heights = [];
addEventListener('message', (e) => {
  if (e.data && e.data.type === 'fitcard:height') {
    window.heights.push(e.data.height);
    document.getElementById('fc').style.height = e.data.height + 'px';
  }
});
</script></body></html>`;

let server, origin, browser, context;
const served = [];
const offsite = [];
const pageErrors = [];

function serve(req, res) {
  const u = new URL(req.url, 'http://x');
  served.push(u.pathname);
  if (u.pathname === '/host.html') {
    res.writeHead(200, { 'content-type': TYPES['.html'] });
    res.end(HOST_PAGE(`${BASE}${u.search}`));
    return;
  }
  if (!u.pathname.startsWith(BASE)) {
    res.writeHead(404).end('not under the base path');
    return;
  }
  let rel = decodeURIComponent(u.pathname.slice(BASE.length)) || 'index.html';
  const file = path.join(DIST, path.normalize(rel));
  if (!file.startsWith(DIST) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404).end('not found');
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
}

before(async () => {
  assert.ok(fs.existsSync(path.join(DIST, 'index.html')), `no build in ${DIST}: run trunk build --release`);
  server = http.createServer(serve);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${server.address().port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
  context.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith(origin + '/') && !url.startsWith('data:') && !url.startsWith('blob:')) {
      offsite.push(url);
    }
  });
});

after(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

/** Open the calculator with `query` and wait until it has rendered a verdict. */
async function open(query = '') {
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${origin}${BASE}${query}`);
  await page.waitForSelector('.verdict-label');
  return page;
}

/** Every control's value and shown text, to compare two pages. */
async function controls(page) {
  return page.evaluate(() => {
    const out = {};
    for (const el of document.querySelectorAll('.controls select, .controls input')) {
      out[el.id] = el.type === 'checkbox' ? el.checked : el.value;
    }
    for (const o of document.querySelectorAll('.controls output')) out[o.id] = o.textContent;
    return out;
  });
}

const kvWidth = (page) =>
  page.$eval('rect.seg[data-term=kv_cache]', (r) => Number(r.getAttribute('width')));

test('the page loads from a sub-path and shows a verdict, a bar and a command', async () => {
  const page = await open();
  const verdict = await page.textContent('.verdict-label');
  assert.match(verdict, /^(Fits|Tight|Does not fit)$/);
  assert.ok((await page.$$('rect.seg')).length >= 2, 'stacked segments');
  assert.ok((await page.$$('.legend .key')).length >= 2, 'legend');
  assert.match(await page.textContent('#command'), /\S/);
  assert.match(await page.textContent('.units'), /2\s*30/);
  // The URL is completed to the whole configuration.
  await page.waitForFunction(() => location.search.includes('v=1'));
  const q = new URL(page.url()).searchParams;
  for (const k of ['model', 'quant', 'ctx', 'par', 'cards', 'engine', 'kv']) assert.ok(q.has(k), k);
  // Everything was loaded from under the base path.
  assert.ok(served.some((p) => p.startsWith(BASE) && p.endsWith('.wasm')), 'wasm under the base path');
  await page.close();
});

test('a slider moved by keyboard updates the bar at once and the URL in place', async () => {
  const page = await open('?ctx=2048');
  await page.waitForFunction(() => location.search.includes('v=1'));
  const historyBefore = await page.evaluate(() => history.length);
  const kvBefore = await kvWidth(page);
  const textBefore = await page.textContent('#ctx-value');
  await page.focus('#ctx');
  await page.keyboard.press('ArrowRight');
  // The bar follows the input event, before any debounce.
  await page.waitForFunction((t) => document.querySelector('#ctx-value').textContent !== t, textBefore);
  for (let k = 0; k < 3; k++) await page.keyboard.press('ArrowRight');
  await page.waitForTimeout(URL_SETTLE_MS);
  const kvAfter = await kvWidth(page);
  assert.ok(kvAfter > kvBefore, `KV grows with context: ${kvBefore} → ${kvAfter}`);
  const ctx = Number(new URL(page.url()).searchParams.get('ctx'));
  assert.ok(ctx > 2048, `ctx in the URL: ${ctx}`);
  assert.equal(await page.evaluate(() => history.length), historyBefore, 'replaceState, no new entries');
  await page.close();
});

test('a permalink restores every control', async () => {
  // Build a configuration through the controls, take its URL, open it afresh.
  const a = await open();
  await a.selectOption('#engine', 'vllm');
  await a.focus('#par');
  for (let k = 0; k < 2; k++) await a.keyboard.press('ArrowRight');
  await a.focus('#cards');
  await a.keyboard.press('ArrowRight');
  await a.focus('#ctx');
  await a.keyboard.press('ArrowLeft');
  await a.selectOption('#gpu', 'custom');
  await a.fill('#vram', '40');
  await a.press('#vram', 'Enter');
  await a.$eval('#vram', (e) => e.dispatchEvent(new Event('change', { bubbles: true })));
  await a.waitForTimeout(URL_SETTLE_MS);
  const link = a.url();
  assert.match(link, /engine=vllm/);
  assert.match(link, /vram=40/);
  assert.match(link, /par=3/);
  assert.match(link, /cards=2/);
  const want = await controls(a);
  await a.close();

  const b = await context.newPage();
  b.on('pageerror', (e) => pageErrors.push(e.message));
  await b.goto(link);
  await b.waitForSelector('.verdict-label');
  assert.deepEqual(await controls(b), want);
  assert.equal(await b.$$eval('.notice', (n) => n.length), 0, 'a clean link raises no notice');
  await b.waitForTimeout(URL_SETTLE_MS);
  assert.equal(b.url(), link, 'the restored page writes back the same link');
  await b.close();
});

test('changing the family keeps every other setting that still applies', async () => {
  const page = await open('?ctx=4096&par=3&cards=2&engine=vllm&gpu=rtx-4090');
  const current = await page.inputValue('#family');
  const families = await page.$$eval('#family option', (os) => os.map((o) => o.value));
  assert.ok(families.length > 1, 'more than one family in the catalog');
  for (const f of families.filter((x) => x !== current).slice(0, 3)) {
    await page.selectOption('#family', f);
    await page.waitForTimeout(URL_SETTLE_MS);
    assert.equal(await page.inputValue('#family'), f);
    const q = new URL(page.url()).searchParams;
    for (const [k, v] of [['par', '3'], ['cards', '2'], ['engine', 'vllm'], ['gpu', 'rtx-4090']]) {
      assert.equal(q.get(k), v, `${f}: ${k}`);
    }
    assert.ok(Number(q.get('ctx')) <= 4096, `${f}: ctx ${q.get('ctx')}`);
    assert.match(await page.textContent('.verdict-label'), /^(Fits|Tight|Does not fit)$/);
  }
  await page.close();
});

test('a bad parameter shows a dismissible notice and the page still works', async () => {
  const page = await open('?ctx=banana&gpu=no-such-card&par=2&frobnicate=1');
  const keys = await page.$$eval('.notice', (n) => n.map((x) => x.dataset.key));
  for (const k of ['ctx', 'gpu', 'frobnicate']) assert.ok(keys.includes(k), `notice for ${k}: ${keys}`);
  assert.match(await page.textContent('.notice[data-key=ctx]'), /banana/);
  assert.equal(await page.inputValue('#par'), '2', 'the good parameter is kept');
  await page.click('.notice[data-key=ctx] .dismiss');
  assert.equal(await page.$$eval('.notice[data-key=ctx]', (n) => n.length), 0);
  await page.click('.dismiss-all');
  assert.equal(await page.$$eval('.notice', (n) => n.length), 0);
  // Still a working calculator.
  const before = await page.textContent('#par-value');
  await page.focus('#par');
  await page.keyboard.press('ArrowRight');
  await page.waitForFunction((t) => document.querySelector('#par-value').textContent !== t, before);
  await page.waitForTimeout(URL_SETTLE_MS);
  assert.doesNotMatch(page.url(), /banana|frobnicate/);
  await page.close();
});

test('embed=1 shows the compact view and posts its height to the parent', async () => {
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${origin}/host.html?par=2&embed=1`);
  const frame = page.frameLocator('#fc');
  await frame.locator('.verdict-label').waitFor();
  assert.equal(await frame.locator('.embed').count(), 1);
  assert.equal(await frame.locator('#family').count(), 0, 'the model is fixed by the link');
  for (const s of ['#quant', '#ctx', '#par', '#cards']) assert.equal(await frame.locator(s).count(), 1, s);
  assert.ok((await frame.locator('rect.seg').count()) >= 2, 'the bar');
  await page.waitForFunction(() => window.heights.length > 0);
  const h = await page.evaluate(() => window.heights.at(-1));
  assert.ok(h > 150, `height ${h}`);
  const box = await page.$eval('#fc', (f) => f.getBoundingClientRect().height);
  assert.equal(Math.round(box), h, 'the host resized the frame');
  // "Open full calculator": same permalink, no embed, same base path.
  const href = await frame.locator('a.open-full').getAttribute('href');
  const full = new URL(href, `${origin}${BASE}`);
  assert.equal(full.pathname, BASE);
  assert.equal(full.searchParams.get('par'), '2');
  assert.equal(full.searchParams.has('embed'), false);
  // Its sliders still drive the bar.
  const kv = await frame.locator('rect.seg[data-term=kv_cache]').getAttribute('width');
  await frame.locator('#ctx').focus();
  await page.keyboard.press('End');
  await page.waitForTimeout(300);
  assert.notEqual(await frame.locator('rect.seg[data-term=kv_cache]').getAttribute('width'), kv);
  await page.close();
});

test('one click on a ranked candidate applies it', async () => {
  const page = await open();
  const row = page.locator('.cands.fit > li:not(.current)').first();
  assert.ok((await row.count()) === 1, 'at least one other fitting candidate');
  const model = await row.getAttribute('data-model');
  const quant = await row.getAttribute('data-quant');
  await row.locator('button.apply').click();
  await page.waitForTimeout(URL_SETTLE_MS);
  const q = new URL(page.url()).searchParams;
  assert.equal(q.get('model'), model);
  assert.equal(q.get('quant'), quant);
  const cur = page.locator('.cands > li.current');
  assert.equal(await cur.getAttribute('data-model'), model);
  assert.equal(await cur.getAttribute('data-quant'), quant);
  // Candidates that do not fit are listed with their reasons.
  const path = '?ctx=131072&par=8';
  const p2 = await open(path);
  if ((await p2.locator('details.nofit li').count()) > 0) {
    await p2.click('details.nofit summary');
    assert.match(await p2.textContent('details.nofit li .why'), /\S/);
  }
  await p2.close();
  await page.close();
});

test('copy buttons copy the link, the command and the embed snippet', async () => {
  const page = await open('?par=2');
  await page.waitForTimeout(URL_SETTLE_MS);
  for (const id of ['#copy-link', '#copy-command', '#embed-button']) {
    assert.equal(await page.locator(id).count(), 1, id);
  }
  await page.click('#copy-link');
  await page.waitForSelector('#copy-link + .copy-status:has-text("Copied")');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), page.url());
  await page.click('#copy-command');
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), await page.textContent('#command'));
  await page.click('#embed-button');
  const snippet = await page.inputValue('#embed-snippet');
  assert.match(snippet, /^<iframe src="http:\/\/127\.0\.0\.1:\d+\/tools\/fitcard\/\?v=1&amp;/);
  assert.match(snippet, /embed=1/);
  assert.match(snippet, /fitcard:height/);
  assert.equal(await page.locator('#copy-embed').count(), 1);
  await page.close();
});

test('hovering a segment shows its formula, value and provenance', async () => {
  const page = await open();
  await page.hover('rect.seg[data-term=kv_cache]');
  const d = await page.textContent('.term-detail');
  assert.match(d, /KV/);
  assert.match(d, /GiB|MiB/);
  assert.match(await page.textContent('.term-detail .formula'), /\S/);
  assert.match(await page.textContent('.term-detail .provenance'), /\S/);
  await page.close();
});

test('dark and light themes follow the system setting', async () => {
  const bg = async (scheme) => {
    const p = await context.newPage();
    await p.emulateMedia({ colorScheme: scheme });
    await p.goto(`${origin}${BASE}`);
    await p.waitForSelector('.verdict-label');
    const c = await p.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    await p.close();
    return c;
  };
  assert.notEqual(await bg('dark'), await bg('light'));
});

test('train mode: switch, sliders, target modules and the GPU pool', async () => {
  const page = await open('?mode=train&cards=2');
  assert.equal(await page.locator('#engine').count(), 0, 'serve-only controls hidden');
  for (const term of ['weights', 'optimizer', 'gradients', 'activations', 'cuda_overhead']) {
    assert.equal(await page.locator(`rect.seg[data-term=${term}]`).count(), 1, term);
  }
  const act = () => page.$eval('rect.seg[data-term=activations]', (r) => Number(r.getAttribute('width')));
  const a0 = await act();
  await page.focus('#seq');
  await page.keyboard.press('End');
  await page.waitForTimeout(URL_SETTLE_MS);
  assert.ok((await act()) > a0, 'activations grow with the sequence length');
  assert.notEqual(new URL(page.url()).searchParams.get('seq'), '2048');
  await page.selectOption('#method', 'lora');
  await page.uncheck('#target-down');
  await page.waitForTimeout(URL_SETTLE_MS);
  let q = new URL(page.url()).searchParams;
  assert.equal(q.get('method'), 'lora');
  assert.equal(q.get('targets'), 'q,k,v,o,gate,up');
  // The pool editor: two cards, then a third GPU; a GPU with little free memory is not picked.
  await page.focus('#seq');
  await page.keyboard.press('Home');
  assert.equal(await page.locator('.pool-list li').count(), 2);
  await page.click('#add-gpu');
  assert.equal(await page.locator('.pool-list li').count(), 3);
  await page.fill('#free-0', '2');
  await page.$eval('#free-0', (e) => e.dispatchEvent(new Event('change', { bubbles: true })));
  await page.waitForTimeout(URL_SETTLE_MS);
  q = new URL(page.url()).searchParams;
  assert.match(q.get('free'), /^2,/);
  assert.equal(await page.locator('.pool-list li[data-gpu="0"].picked').count(), 0, 'GPU 0 is too small');
  assert.ok((await page.locator('.pool-list li.picked').count()) >= 1);
  // The whole train configuration survives a reload of its link.
  const want = await controls(page);
  const link = page.url();
  const b = await context.newPage();
  await b.goto(link);
  await b.waitForSelector('.verdict-label');
  assert.deepEqual(await controls(b), want);
  await b.close();
  // Back to serve mode.
  await page.check('#mode-serve');
  await page.waitForSelector('#engine');
  await page.waitForTimeout(URL_SETTLE_MS);
  assert.equal(new URL(page.url()).searchParams.get('mode'), 'serve');
  await page.close();
});

test('no request left the origin and no page error happened', () => {
  assert.deepEqual(offsite, []);
  assert.deepEqual(pageErrors, []);
});
