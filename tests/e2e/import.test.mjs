// Importing a Hugging Face Hub repo, end to end, without the network: the stand-in Hub
// (crates/standin, the same server and fixture repos the CLI's tests read) answers as the Hub
// does (its JSON shapes, `resolve` redirecting to another host with CORS headers, `Range`
// answered with 206, a gated repo, a 404, a slow answer, a cut-short body; GGUF repos, a
// safetensors checkpoint in shards with its config.json, a repo with both), and the page is a
// build whose Hub base URL points at it (FITCARD_HUB at compile time; see scripts/test.sh). The
// GGUF files are a small valid header with large sizes in the file list: the stand-in counts the
// bytes it sends, and an import must read headers only.
//
// Run: FITCARD_HUB_DIST=<that build> FITCARD_STANDIN=<target/debug/fitcard-standin> node --test
// import.test.mjs (skipped without FITCARD_HUB_DIST).

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';

const DIST = process.env.FITCARD_HUB_DIST ? path.resolve(process.env.FITCARD_HUB_DIST) : '';
// Must equal the FITCARD_HUB the build was made with (scripts/test.sh).
const HUB_PORT = 47831;
const CDN_PORT = 47832;
// A host outside the Hub and its file hosts, where a redirect may lead: never read.
const AWAY_PORT = 47833;
// Must equal the FITCARD_IMPORT_TIMEOUT_MS the build was made with (scripts/test.sh), in s.
const TIMEOUT_S = 4;
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
// The calculator's verdict once it has mounted (a catalog model's first estimate is drawn into
// the placeholder, #boot, before that).
const READY = '.verdict-label:not(#boot *)';
const SHA = '0123456789abcdef0123456789abcdef01234567';
const skip = !DIST;

// The stand-in Hub: the `fitcard-standin` binary (crates/standin; its fixture repos are
// crates/standin/src/page.rs, which the CLI's tests read too), started on the ports the build
// was pointed at. Its log says what it was asked and how many file bytes it sent.
const STANDIN = process.env.FITCARD_STANDIN ? path.resolve(process.env.FITCARD_STANDIN) : '';
const standin = async (what, port = HUB_PORT) => fetch(`http://127.0.0.1:${port}/_standin/${what}`);
/** { requests: [[method, path, range] …] (file-host paths prefixed `cdn:`), sent: bytes }. */
const hubLog = async () => (await standin('log')).json();
const hubReset = async () => { await standin('reset'); };
/** A fixture file's first bytes (its header), as the stand-in holds them. */
const fixtureHead = async (repo, file) => Buffer.from(await (await standin(`head/${repo}/${file}`, CDN_PORT)).arrayBuffer());
// The fixture bytes the tests compare with (read in `before`).
let Q4KM, ST1, ST2, CONFIG_LEN;
let hubProcess;

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' };
function site(req, res) {
  const u = new URL(req.url, 'http://x');
  const rel = decodeURIComponent(u.pathname).replace(/^\/+/, '') || 'index.html';
  const file = path.join(DIST, path.normalize(rel));
  if (!file.startsWith(DIST) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { 'content-type': TYPES[path.extname(file)] || 'application/octet-stream' });
  fs.createReadStream(file).pipe(res);
}

let servers = [], origin, browser, context;
const pageErrors = [];
const elsewhere = [];

before(async () => {
  if (skip) return;
  assert.ok(STANDIN, 'FITCARD_STANDIN: the stand-in Hub binary (cargo build -p fitcard-standin; scripts/test.sh sets it)');
  hubProcess = spawn(STANDIN, ['--hub', HUB_PORT, '--cdn', CDN_PORT, '--away', AWAY_PORT].map(String), { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((ok, fail) => {
    hubProcess.stdout.on('data', (d) => { if (String(d).includes('ready')) ok(); });
    hubProcess.on('exit', (code) => fail(new Error(`the stand-in Hub exited (${code})`)));
  });
  Q4KM = await fixtureHead('fx/Tiny-GGUF', 'Tiny-Q4_K_M.gguf');
  ST1 = await fixtureHead('fx/Tiny-ST', 'model-00001-of-00002.safetensors');
  ST2 = await fixtureHead('fx/Tiny-ST', 'model-00002-of-00002.safetensors');
  CONFIG_LEN = (await fixtureHead('fx/Tiny-ST', 'config.json')).length;
  const listen = (h, port) => new Promise((r) => { const s = http.createServer(h); servers.push(s); s.listen(port, '127.0.0.1', () => r(s)); });
  const s = await listen(site, 0);
  origin = `http://127.0.0.1:${s.address().port}`;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  context.on('request', (r) => {
    const url = r.url();
    const ok = [origin, `http://127.0.0.1:${HUB_PORT}`, `http://127.0.0.1:${CDN_PORT}`, `http://127.0.0.1:${AWAY_PORT}`].some((o) => url.startsWith(o + '/'));
    if (!ok && !url.startsWith('data:')) elsewhere.push(url);
  });
});

after(async () => {
  await browser?.close();
  for (const s of servers) await new Promise((r) => s.close(r));
  hubProcess?.kill();
});

async function newPage(query = '') {
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(`${page.url()}: ${e.message}`));
  await page.goto(`${origin}/${query}`);
  return page;
}

const statusLine = (page) => page.textContent('.import-status');
/** The shown option of the family select. */
const familyShown = (page) => page.$eval('#family', (s) => s.options[s.selectedIndex].textContent);
/** Type `input` in the model search and press Enter. */
async function search(page, input) {
  await page.fill('#model-search', input);
  await page.press('#model-search', 'Enter');
}

test('?model= of a repo outside the catalog imports it on load: formats, an estimate, the command, a pinned link', { skip }, async () => {
  await hubReset();
  const page = await newPage('?model=fx/Tiny-GGUF&ctx=4096&engine=vllm');
  await page.waitForSelector(READY, { timeout: 20000 });
  assert.match(await page.textContent('.verdict-label'), /^(Fits|Tight|Does not fit)$/);
  // The repo is a family of the page now.
  const fam = await page.$eval('#family', (s) => s.options[s.selectedIndex].textContent);
  assert.match(fam, /Tiny-GGUF \(imported\)/);
  // GGUF only: the engine became llama.cpp, and both formats are on the slider.
  assert.equal(await page.$eval('#engine', (s) => s.value), 'llama.cpp');
  assert.equal(await page.$eval('#quant', (s) => s.max), '1');
  assert.match(await page.textContent('#command'), /llama-server -hf fx\/Tiny-GGUF:Q4_K_M/);
  // The link pins the commit and names the file read.
  await page.waitForFunction((sha) => location.search.includes(`rev=${sha}`), SHA);
  const q = new URL(page.url()).searchParams;
  assert.equal(q.get('model'), 'fx/Tiny-GGUF');
  assert.equal(q.get('file'), 'Tiny-Q4_K_M.gguf');
  assert.equal(q.get('ctx'), '4096');
  // Requests: the model info, then ranges of one file through the redirect; headers only.
  const { requests, sent } = await hubLog();
  assert.ok(requests.some(([, u]) => u === '/api/models/fx/Tiny-GGUF?blobs=true'), JSON.stringify(requests));
  const ranges = requests.filter(([, u]) => u.startsWith('cdn:')).map(([, , r]) => r);
  assert.ok(ranges.length >= 2, `the header was read in growing ranges: ${ranges}`);
  assert.ok(ranges.every((r) => /^bytes=0-\d+$/.test(r)), ranges.join(' '));
  assert.ok(sent < 20_000_000, `${sent} bytes sent`);
  // Another format of the repo: the file follows.
  await page.focus('#quant');
  await page.keyboard.press('End');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('file') === 'Tiny-Q8_0-00001-of-00002.gguf', null, { timeout: 5000 });
  assert.match(await page.textContent('#command'), /-hf fx\/Tiny-GGUF:Q8_0/);
  await page.close();
});

test('a safetensors-only repo imports from config.json and the shard headers: vLLM estimate and command', { skip }, async () => {
  await hubReset();
  const page = await newPage('?model=fx/Tiny-ST&ctx=4096&engine=vllm');
  await page.waitForSelector('.import-status.done', { timeout: 20000 });
  assert.match(await statusLine(page), /Imported fx\/Tiny-ST at 0123456: 1 format$/);
  await page.waitForSelector(READY);
  assert.match(await page.textContent('.verdict-label'), /^(Fits|Tight|Does not fit)$/);
  const fam = await page.$eval('#family', (s) => s.options[s.selectedIndex].textContent);
  assert.match(fam, /Tiny-ST \(imported\)/);
  // A checkpoint: vLLM stays the engine, with its command for the repo.
  assert.equal(await page.$eval('#engine', (s) => s.value), 'vllm');
  assert.match(await page.textContent('#command'), /vllm serve fx\/Tiny-ST /);
  await page.waitForFunction((sha) => location.search.includes(`rev=${sha}`), SHA);
  const q = new URL(page.url()).searchParams;
  assert.equal(q.get('quant'), 'BF16');
  assert.equal(q.get('file'), null, 'a checkpoint is the whole repo, no file=');
  // The weights are the shards' listed sizes, exactly: 2,471,000,000 bytes = 2.30 GiB.
  assert.match(await page.textContent('body'), /2\.30 GiB/);
  // Requests: config.json, then the shard headers through the redirect; never the index, the
  // data or the original/ folder.
  const { requests, sent } = await hubLog();
  const cdn = requests.filter(([, u]) => u.startsWith('cdn:')).map(([, u, r]) => `${u.replace('cdn:/cdn/fx/Tiny-ST/', '')} ${r}`);
  const h1 = 8 + ST1.readUInt32LE(0);
  const h2 = 8 + ST2.readUInt32LE(0);
  assert.ok(h1 > 65536 && h2 < 65536, `${h1} ${h2}`);
  assert.deepEqual(cdn, [
    `config.json bytes=0-${CONFIG_LEN - 1}`,
    'model-00001-of-00002.safetensors bytes=0-65535',
    `model-00001-of-00002.safetensors bytes=0-${h1 - 1}`,
    // The second shard's guess is the first one's length, plus a quarter: one read.
    `model-00002-of-00002.safetensors bytes=0-${h1 - 8 + Math.floor((h1 - 8) / 4) + 8 - 1}`,
  ]);
  assert.ok(sent < 1_000_000, `${sent} bytes sent: headers only`);
  await page.close();
});

test('a repo with GGUF files and a safetensors checkpoint keeps both', { skip }, async () => {
  const page = await newPage('?ctx=4096&engine=vllm');
  await page.waitForSelector('#model-search');
  await page.fill('#model-search', 'fx/Both');
  await page.press('#model-search', 'Enter');
  await page.waitForSelector('.import-status.done', { timeout: 20000 });
  // Q4_K_M (its header read), Q8_0 (its name), FP8 (config.json + the header).
  assert.match(await statusLine(page), /Imported fx\/Both at 0123456: 3 formats/);
  // The checkpoint's FP8 on vLLM.
  await page.selectOption('#engine', 'vllm');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('quant') === 'FP8', null, { timeout: 5000 });
  assert.match(await page.textContent('#command'), /vllm serve fx\/Both /);
  await page.close();
});

test('a Hub address pasted in the model search of the landing view imports the repo and opens it; a slow answer shows progress', { skip }, async () => {
  // No model in the link: the best-model view, with the search above it.
  const page = await newPage('?ctx=8192');
  await page.waitForSelector('#model-search');
  await page.fill('#model-search', 'https://huggingface.co/fx/Slow-GGUF/blob/main/Tiny-Q8_0-00001-of-00002.gguf');
  await page.press('#model-search', 'Enter');
  await page.waitForSelector('.import-status.busy');
  assert.match(await statusLine(page), /Slow-GGUF|file list/);
  await page.waitForSelector('.import-status.done', { timeout: 20000 });
  assert.match(await statusLine(page), /Imported fx\/Slow-GGUF at 0123456: 2 formats/);
  await page.waitForFunction(() => new URLSearchParams(location.search).get('model') === 'fx/Slow-GGUF');
  const q = new URL(page.url()).searchParams;
  assert.equal(q.get('quant'), 'Q8_0', 'the file asked for is the one shown');
  assert.equal(q.get('file'), 'Tiny-Q8_0-00001-of-00002.gguf');
  // The calculator is open on it.
  await page.waitForSelector(READY);
  assert.equal(q.get('best'), null);
  await page.close();
});

test('each failure says why in one line and keeps the configuration and the link', { skip }, async () => {
  const page = await newPage('?model=Qwen/Qwen3-8B&ctx=4096&par=2');
  await page.waitForSelector(READY);
  await page.waitForTimeout(500);
  const url = page.url();
  const command = await page.textContent('#command');
  // Text that names no Hub repo stays a catalog search.
  for (const input of ['nonsense', 'https://example.com/a/b']) {
    await page.fill('#model-search', input);
    await page.press('#model-search', 'Enter');
    await page.waitForFunction(() => document.querySelector('.search-msg').textContent.length > 0);
    assert.match(await page.textContent('.search-msg'), /No catalog model matches/);
    assert.equal(page.url(), url, input);
  }
  const rows = [
    ['fx/Nothing-Here', /not found on the Hugging Face Hub/],
    ['fx/Gated', /gated/],
    ['https://huggingface.co/fx/Locked-GGUF', /gated/],
    ['fx/Cut-GGUF', /cut short/],
    ['fx/NoConfig-ST', /without a config\.json/],
  ];
  for (const [input, why] of rows) {
    await page.fill('#model-search', input);
    await page.press('#model-search', 'Enter');
    await page.waitForSelector('.import-status.failed', { timeout: 20000 });
    const line = await statusLine(page);
    assert.match(line, why, `${input}: ${line}`);
    assert.doesNotMatch(line, /\n/);
    assert.equal(page.url(), url, input);
    assert.equal(await page.textContent('#command'), command, input);
    // Ready for the next one.
    await page.fill('#model-search', '');
  }
  await page.close();
});

test('?model= of a repo the Hub does not have: the not-available view, with the reason', { skip }, async () => {
  const page = await newPage('?model=fx/Nothing-Here&ctx=4096');
  await page.waitForSelector('.import-status.failed', { timeout: 20000 });
  assert.equal(await page.textContent('.unavailable h2'), 'fx/Nothing-Here: not available');
  assert.match(await statusLine(page), /not found/);
  assert.ok((await page.$$('.closest a')).length >= 3);
  assert.equal(new URL(page.url()).searchParams.get('model'), 'fx/Nothing-Here');
  await page.close();
});

test('?model= of a gated base release whose chat sibling is catalogued: estimated with the sibling\'s architecture, said so', { skip }, async () => {
  const page = await newPage('?model=meta-llama/Llama-2-7b-hf&engine=vllm&ctx=4096');
  await page.waitForSelector('.import-status.done', { timeout: 20000 });
  assert.match(await statusLine(page), /architecture of its catalog sibling release/);
  assert.match(await page.textContent('#command'), /vllm serve meta-llama\/Llama-2-7b-hf/);
  // The link follows once the inputs settle.
  await page.waitForFunction(() => new URLSearchParams(location.search).get('model') === 'meta-llama/Llama-2-7b-hf');
  await page.close();
});

test('on a phone the model search fits and leads on by keyboard', { skip }, async () => {
  const page = await context.newPage();
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${origin}/?model=Qwen/Qwen3-8B`);
  await page.waitForSelector(READY);
  const box = await page.locator('#model-search').boundingBox();
  assert.ok(box && box.x + box.width <= 390, JSON.stringify(box));
  await page.focus('#model-search');
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.id), 'to-best');
  await page.close();
});

test('a model file picked on the disk: its header read in the importer (nothing sent anywhere), the estimate, -m FILE; a wrong pick says why', { skip }, async () => {
  await hubReset();
  const page = await newPage('?ctx=4096');
  await page.waitForSelector('#model-file');
  // A wrong pick first: said in one line, nothing else changes.
  await page.setInputFiles('#model-file', [{ name: 'README.md', mimeType: 'text/markdown', buffer: Buffer.from('# hi') }]);
  await page.waitForSelector('.import-status.failed', { timeout: 20000 });
  assert.match(await statusLine(page), /pick a \.gguf file/);
  assert.equal(await page.locator('.verdict-label').count(), 0, 'still the best-model view');
  await page.setInputFiles('#model-file', [{ name: 'Tiny-Q4_K_M.gguf', mimeType: 'application/octet-stream', buffer: Q4KM }]);
  await page.waitForSelector('.import-status.done', { timeout: 20000 });
  assert.match(await statusLine(page), /^Read Tiny-Q4_K_M\.gguf from your disk \(headers only\)/);
  await page.waitForSelector(READY);
  const fam = await page.$eval('#family', (s) => s.options[s.selectedIndex].textContent);
  assert.match(fam, /Tiny-Q4_K_M\.gguf \(from your disk\)/);
  assert.match(await page.textContent('#command'), /llama-server -m Tiny-Q4_K_M\.gguf /);
  await page.waitForFunction(() => new URLSearchParams(location.search).get('model') === 'file:Tiny-Q4_K_M.gguf');
  assert.deepEqual((await hubLog()).requests, [], 'nothing went to the Hub');
  await page.close();
});

test('a model file dropped on the page is read like a picked one: the page is outlined while dragging, then the estimate', { skip }, async () => {
  await hubReset();
  const page = await newPage('?model=Qwen/Qwen3-8B&ctx=4096');
  await page.waitForSelector(READY);
  const drop = await page.evaluateHandle((bytes) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], 'Dropped-Q4_K_M.gguf'));
    return dt;
  }, [...Q4KM]);
  await page.dispatchEvent('body', 'dragover', { dataTransfer: drop });
  assert.ok(await page.evaluate(() => document.documentElement.classList.contains('dragging')), 'outlined while dragging');
  await page.dispatchEvent('body', 'drop', { dataTransfer: drop });
  assert.ok(!(await page.evaluate(() => document.documentElement.classList.contains('dragging'))), 'outline gone after the drop');
  await page.waitForSelector('.import-status.done', { timeout: 20000 });
  assert.match(await statusLine(page), /^Read Dropped-Q4_K_M\.gguf from your disk \(headers only\)/);
  await page.waitForFunction(() => new URLSearchParams(location.search).get('model') === 'file:Dropped-Q4_K_M.gguf');
  assert.match(await page.textContent('#command'), /llama-server -m Dropped-Q4_K_M\.gguf /);
  assert.deepEqual((await hubLog()).requests, [], 'nothing went to the Hub');
  await page.close();
});

test('an import from the calculator view: the family select shows the imported model (a Hub repo, then a file on the disk)', { skip }, async () => {
  const page = await newPage('?model=Qwen/Qwen3-8B&ctx=4096');
  await page.waitForSelector(READY);
  assert.doesNotMatch(await familyShown(page), /imported/);
  await search(page, 'fx/Tiny-GGUF');
  await page.waitForSelector('.import-status.done', { timeout: 20000 });
  await page.waitForFunction(() => new URLSearchParams(location.search).get('model') === 'fx/Tiny-GGUF');
  assert.match(await familyShown(page), /^Tiny-GGUF \(imported\)$/);
  assert.equal(await page.$eval('#family', (s) => s.value), 'hub:fx/Tiny-GGUF');
  await page.setInputFiles('#model-file', [{ name: 'Mine-Q4_K_M.gguf', mimeType: 'application/octet-stream', buffer: Q4KM }]);
  await page.waitForSelector('.import-status.done >> text=/^Read Mine-Q4_K_M/', { timeout: 20000 });
  assert.match(await familyShown(page), /^Mine-Q4_K_M\.gguf \(from your disk\)$/);
  assert.equal(await page.$eval('#family', (s) => s.value), 'file:Mine-Q4_K_M.gguf');
  await page.close();
});

test('the last import started wins; the old estimate is dimmed meanwhile; an older failure never replaces a later success', { skip }, async () => {
  const page = await newPage('?model=Qwen/Qwen3-8B&ctx=4096');
  await page.waitForSelector(READY);
  for (const [slow, fast, said] of [
    ['fx/Slow-Gated', 'fx/Tiny-GGUF', /^Imported fx\/Tiny-GGUF at 0123456/],
    ['fx/Slower-GGUF', 'fx/Tiny-ST', /^Imported fx\/Tiny-ST at 0123456/],
  ]) {
    await search(page, slow);
    await page.waitForSelector('.import-status.busy');
    // The estimate shown is the old one, dimmed and marked busy, until the answer.
    await page.waitForFunction(() => Number(getComputedStyle(document.querySelector('main.layout')).opacity) < 1);
    await search(page, fast);
    await page.waitForSelector('.import-status.done', { timeout: 20000 });
    assert.match(await statusLine(page), said);
    assert.equal(await page.$eval('main.layout', (m) => getComputedStyle(m).opacity), '1', 'no longer dimmed');
    // The slow answer comes (2.5 s), and changes nothing.
    await page.waitForTimeout(3500);
    assert.match(await statusLine(page), said);
    assert.equal(new URL(page.url()).searchParams.get('model'), fast);
    assert.match(await familyShown(page), new RegExp(`^${fast.slice(3)} \\(imported\\)$`));
  }
  await page.close();
});

test('a Hub that does not answer: the import times out with a retry offered; an import can be cancelled', { skip }, async () => {
  const page = await newPage('?model=Qwen/Qwen3-8B&ctx=4096');
  await page.waitForSelector(READY);
  await page.waitForTimeout(500);
  const url = page.url();
  assert.ok(await page.locator('.import-retry').isHidden());
  await search(page, 'fx/Hung-GGUF');
  await page.waitForSelector('.import-cancel:visible');
  const t0 = Date.now();
  await page.waitForSelector('.import-status.failed', { timeout: (TIMEOUT_S + 10) * 1000 });
  assert.ok(Date.now() - t0 >= (TIMEOUT_S - 1) * 1000, 'not before the timeout');
  assert.equal(await statusLine(page), `the Hugging Face Hub did not answer within ${TIMEOUT_S} s: try again`);
  assert.equal(page.url(), url);
  assert.ok(await page.locator('.import-cancel').isHidden());
  // Try again: the same repo is asked again; then cancelled.
  const asked = (await hubLog()).requests.filter(([, u]) => u.startsWith('/api/models/fx/Hung-GGUF')).length;
  await page.click('.import-retry');
  await page.waitForSelector('.import-status.busy');
  await page.waitForSelector('.import-cancel:visible');
  assert.equal((await hubLog()).requests.filter(([, u]) => u.startsWith('/api/models/fx/Hung-GGUF')).length, asked + 1);
  await page.click('.import-cancel');
  await page.waitForSelector('.import-status.failed');
  assert.match(await statusLine(page), /^Import cancelled/);
  assert.equal(await page.$eval('main.layout', (m) => getComputedStyle(m).opacity), '1');
  // Nothing else changed, and nothing comes later.
  await page.waitForTimeout(TIMEOUT_S * 1000 + 500);
  assert.match(await statusLine(page), /^Import cancelled/);
  assert.equal(page.url(), url);
  await page.close();
});

test('an answer from outside the Hub and its file hosts is refused: a redirected file, a redirected model info', { skip }, async () => {
  const page = await newPage('?model=Qwen/Qwen3-8B&ctx=4096');
  await page.waitForSelector(READY);
  await page.waitForTimeout(500);
  const url = page.url();
  for (const repo of ['fx/Away-GGUF', 'fx/AwayInfo-GGUF']) {
    await search(page, repo);
    await page.waitForSelector('.import-status.failed', { timeout: 20000 });
    const line = await statusLine(page);
    assert.match(line, new RegExp(`^refused: the Hub redirected ${repo}'s request to http://127\\.0\\.0\\.1:${AWAY_PORT}, outside the Hub and its file hosts$`), line);
    assert.equal(page.url(), url, repo);
    await page.fill('#model-search', '');
  }
  await page.close();
});

test('a catalog entry without the files the engine loads: the import it offers reads the repo, which replaces the entry', { skip }, async () => {
  const repo = 'mistralai/Mistral-Small-3.2-24B-Instruct-2506';
  const page = await newPage(`?model=${repo}&engine=vllm&ctx=4096`);
  await page.waitForSelector('.reasons li[data-check=format_available]');
  assert.match(await page.textContent('.reasons li[data-check=format_available]'), /^fitcard's catalog lists no safetensors files of /);
  await page.click('.import-offer');
  await page.waitForSelector('.import-status.done', { timeout: 20000 });
  assert.match(await statusLine(page), new RegExp(`^Imported ${repo} at 0123456: 1 format$`));
  assert.equal(await page.$eval('#family', (s) => s.value), `hub:${repo}`);
  assert.equal(await page.locator('.reasons li[data-check=format_available]').count(), 0);
  assert.ok(await page.locator('.import-offer').isHidden());
  assert.match(await page.textContent('#command'), new RegExp(`vllm serve ${repo} `));
  await page.close();
});

test('no request went anywhere but the page, the Hub and its CDN; no page error', { skip }, () => {
  assert.deepEqual(elsewhere, []);
  assert.deepEqual(pageErrors, []);
});
