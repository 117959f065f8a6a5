import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
const dists = process.argv.slice(2).map((d) => path.resolve(d));
const gz = new Map();
function mk(DIST) {
  return http.createServer((req, res) => {
    const u = new URL(req.url, 'http://x');
    const rel = decodeURIComponent(u.pathname.slice(1)) || 'index.html';
    const file = path.join(DIST, path.normalize(rel));
    if (!fs.existsSync(file) || !fs.statSync(file).isFile()) { res.writeHead(404).end(); return; }
    if (!gz.has(file)) gz.set(file, zlib.gzipSync(fs.readFileSync(file)));
    const t = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css' }[path.extname(file)] || 'application/octet-stream';
    res.writeHead(200, { 'content-type': t, 'content-encoding': 'gzip' }); res.end(gz.get(file));
  });
}
const origins = [];
for (const d of dists) { const s = mk(d); await new Promise((r) => s.listen(0, '127.0.0.1', r)); origins.push(`http://127.0.0.1:${s.address().port}/`); }
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu'] });
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); const m = s.length >> 1; return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2; };
async function ticks(page, id, presses) {
  await page.evaluate((id) => {
    window.__ticks = []; window.__bench = id;
    if (window.__listening) return; window.__listening = true;
    const afterFrame = (f) => requestAnimationFrame(() => setTimeout(f, 0));
    addEventListener('keydown', (e) => { const t0 = e.timeStamp; const before = document.getElementById(window.__bench)?.value;
      afterFrame(() => { const now = document.getElementById(window.__bench); if (!now || now.value === before) return; window.__ticks.push(performance.now() - t0); }); }, { capture: true });
  }, id);
  await page.focus(`#${id}`);
  for (let k = 0; k < presses; k++) { await page.keyboard.press(k % 4 < 2 ? 'ArrowRight' : 'ArrowLeft'); await page.waitForTimeout(300); }
  return page.evaluate(() => window.__ticks.splice(0));
}
const res = dists.map(() => ({ ctx: [], cards: [], par: [] }));
for (let round = 0; round < 3; round++) {
  for (let k = 0; k < dists.length; k++) {
    const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 412, height: 915 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
    await page.goto(origins[k] + '?model=google/gemma-3-12b-it&gpu=rtx-4090');
    await page.waitForSelector('.verdict-label'); await page.waitForTimeout(1000);
    for (const id of ['ctx', 'par', 'cards']) res[k][id].push(...await ticks(page, id, 12));
    await context.close();
  }
}
for (let k = 0; k < dists.length; k++) console.log(dists[k], Object.entries(res[k]).map(([id, t]) => `${id} ${median(t).toFixed(1)} (n${t.length})`).join('  '));
await browser.close(); process.exit(0);
