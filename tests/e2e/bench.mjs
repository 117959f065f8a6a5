// The page's speed as a user on a slow phone meets it, in headless Chromium with the CPU
// throttled 4× (Chromium's Emulation.setCPUThrottlingRate), the build served gzip-compressed as
// a static host serves it. A benchmark, not a test: it prints its figures and fails only when
// the page does not work at all.
//
// - First estimate: from navigation to the first verdict and memory bar in the document, and
//   to the frame that shows them (the first task after the next animation frame), on a fresh
//   cache, on localhost and on an emulated slow network (1.6 Mbps down, 750 kbps up, 150 ms
//   round trip: Network.emulateNetworkConditions); and the landing view's first recommendation
//   (the best-model list's first row), the same two ways.
// - Slider ticks: real key presses (CDP Input.dispatchKeyEvent through Playwright's keyboard),
//   each measured from the keydown event's timestamp to the first task after the next animation
//   frame (the frame that shows the change has been produced by then), paced 400 ms apart so that
//   the settled ranking (150 ms after the last change) runs between ticks, as it does for a person.
//   The views off the verdict's path follow one frame later (the page's `AppState::late`): the
//   frame after is printed beside each figure.
//   On the calculator (context, concurrency, cards) and on the landing view (context).
// - The method's floor: the same key presses, measured the same way, on a page that holds one
//   range input and one output and nothing else (served by this script at /__floor), before and
//   after the page's ticks. Its median is what the browser and the machine cost by themselves
//   (input routing, the wait for the next frame, a frame's style, layout and paint, all throttled
//   4×); each tick line prints it beside the page's figure. On a loaded 2-core machine both vary
//   by ±10 ms from run to run, so compare a page's ticks with the floor of the same run.
//
// Usage: node bench.mjs [dist]   (FITCARD_BENCH_RUNS: runs per first-estimate figure, default 5)

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.resolve(process.argv[2] || path.join(here, '..', '..', 'dist'));
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const RUNS = Number(process.env.FITCARD_BENCH_RUNS || 5);
const MODEL = '?model=google/gemma-3-12b-it&gpu=rtx-4090';
const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.postcard': 'application/octet-stream',
  '.webmanifest': 'application/manifest+json',
};

// A static host: gzip for every file, as `gzip -9` would give it.
const gzipped = new Map();
const FLOOR = '<!doctype html><html lang=en><meta charset=utf-8><title>floor</title>' +
  '<input id=ctx type=range min=0 max=100 value=50 aria-label=x><output id=o>50</output>' +
  '<script>ctx.oninput = () => { o.textContent = ctx.value; };</script></html>';
function serve(req, res) {
  const u = new URL(req.url, 'http://x');
  if (u.pathname === '/__floor') {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(FLOOR);
    return;
  }
  const rel = decodeURIComponent(u.pathname.slice(1)) || 'index.html';
  const file = path.join(DIST, path.normalize(rel));
  if (!file.startsWith(DIST) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
    res.writeHead(404).end('not found');
    return;
  }
  if (!gzipped.has(file)) gzipped.set(file, zlib.gzipSync(fs.readFileSync(file), { level: 9 }));
  res.writeHead(200, {
    'content-type': TYPES[path.extname(file)] || 'application/octet-stream',
    'content-encoding': 'gzip',
    'cache-control': 'no-cache',
  });
  res.end(gzipped.get(file));
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ms = (x) => `${Math.round(x)} ms`;

const server = http.createServer(serve);
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const origin = `http://127.0.0.1:${server.address().port}/`;
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
    '--disable-component-update', '--disable-sync', '--no-first-run'],
});

/** A fresh page (empty cache, no service worker) with the CPU throttled 4× and `net`. */
async function freshPage(net) {
  const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 412, height: 915 } });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  if (net) {
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, ...net });
  }
  return { context, page };
}

/** Milliseconds from navigation to `sel` appearing in the document, and to the first task after
 * the next animation frame (the frame that shows it has been produced by then: the ticks'
 * method, below), on a fresh page. Not the Element Timing API: it reports no entry for an
 * element that leaves the document before the report, as the verdict the page draws into its
 * placeholder does when the calculator mounts in its place (a screencast shows that frame on
 * the screen before the mount). */
async function firstShown(query, sel, net) {
  const { context, page } = await freshPage(net);
  await page.addInitScript((sel) => {
    new MutationObserver((_, o) => {
      if (document.querySelector(sel)) {
        window.__shown = performance.now();
        requestAnimationFrame(() => setTimeout(() => (window.__painted = performance.now())));
        o.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  }, sel);
  await page.goto(origin + query);
  await page.waitForSelector(sel, { timeout: 30000 });
  await page.waitForFunction(() => window.__painted > 0, null, { timeout: 30000 });
  const t = await page.evaluate(() => [window.__shown, window.__painted]);
  await context.close();
  return t;
}

/** keydown → next frame, in ms, for `presses` key presses on `#id`: half ArrowRight, then half
 * ArrowLeft (each one moves the slider, from a middle position). Only presses that changed the
 * slider's value count. */
async function ticks(page, id, presses) {
  await page.evaluate((id) => {
    window.__ticks = [];
    window.__whole = [];
    window.__bench = id;
    if (window.__listening) return;
    window.__listening = true;
    // A frame has been produced once a task runs after its animation frame callbacks.
    const afterFrame = (f) => requestAnimationFrame(() => setTimeout(f, 0));
    addEventListener(
      'keydown',
      (e) => {
        const t0 = e.timeStamp;
        const el = document.getElementById(window.__bench);
        const before = el?.value;
        afterFrame(() => {
          const now = document.getElementById(window.__bench);
          if (!now || now.value === before) return;
          window.__ticks.push(performance.now() - t0);
          // The views drawn one frame after the verdict and the bar (the legend, the lines
          // under the verdict, the command): the frame after.
          afterFrame(() => window.__whole.push(performance.now() - t0));
        });
      },
      { capture: true },
    );
  }, id);
  await page.focus(`#${id}`);
  for (let k = 0; k < presses; k++) {
    await page.keyboard.press(k < presses / 2 ? 'ArrowRight' : 'ArrowLeft');
    await page.waitForTimeout(400);
  }
  const { t, whole } = await page.evaluate(() => ({
    t: window.__ticks.splice(0),
    whole: window.__whole.splice(0),
  }));
  t.whole = whole;
  return t;
}

/** The method's floor: ticks on the bare page (one range input, one output). */
async function floorTicks() {
  const { context, page } = await freshPage(null);
  await page.goto(origin + '__floor');
  const t = await ticks(page, 'ctx', 12);
  await context.close();
  return t;
}
const floor = [];

/** One line for the ticks `t` of `what`. */
function tickLine(what, t) {
  const f = median(floor);
  return `bench: ${what} at 4x CPU: median ${ms(median(t))} (the method's floor ${ms(f)}), worst ${ms(Math.max(...t))} over ${t.length} key presses; target 16 ms` +
    ` (every view drawn, the frame after: median ${ms(median(t.whole))})`;
}

const SLOW = { latency: 150, downloadThroughput: (1.6e6 / 8) | 0, uploadThroughput: (750e3 / 8) | 0 };
const firsts = [
  ['first estimate, localhost', MODEL, '.verdict-label', null],
  ['first estimate, 1.6 Mbps / 150 ms', MODEL, '.verdict-label', SLOW],
  ['landing view, first recommendation, localhost', '', '.best-list li', null],
];
for (const [what, query, sel, net] of firsts) {
  const t = [];
  const painted = [];
  for (let k = 0; k < RUNS; k++) {
    const [shown, paint] = await firstShown(query, sel, net);
    t.push(shown);
    painted.push(paint);
  }
  console.log(`bench: ${what} at 4x CPU: median ${ms(median(t))}, worst ${ms(Math.max(...t))} over ${RUNS} runs` +
    ` (painted: median ${ms(median(painted))}, worst ${ms(Math.max(...painted))})`);
}

const lines = [];
floor.push(...(await floorTicks()));
{
  const { context, page } = await freshPage(null);
  await page.goto(origin + MODEL);
  await page.waitForSelector('.verdict-label');
  await page.waitForTimeout(1000);
  for (const id of ['ctx', 'par', 'cards']) {
    const t = await ticks(page, id, 12);
    if (t.length < 6) throw new Error(`${id}: only ${t.length} ticks measured`);
    lines.push([`calculator tick, ${id}`, t]);
  }
  await context.close();
}
{
  const { context, page } = await freshPage(null);
  await page.goto(origin);
  await page.waitForSelector('.best-list li', { timeout: 30000 });
  await page.waitForTimeout(1000);
  const t = await ticks(page, 'ctx', 12);
  if (t.length < 6) throw new Error(`landing ctx: only ${t.length} ticks measured`);
  lines.push(['landing view tick, ctx', t]);
  await context.close();
}
floor.push(...(await floorTicks()));
if (floor.length < 12) throw new Error(`floor: only ${floor.length} ticks measured`);
console.log(`bench: the method's floor (one range input, nothing else) at 4x CPU: median ${ms(median(floor))}, worst ${ms(Math.max(...floor))} over ${floor.length} key presses`);
for (const [what, t] of lines) console.log(tickLine(what, t));

await browser.close();
await new Promise((r) => server.close(r));
