// Draws the site's icon, public/favicon.png (192 × 192: the tab's icon and the manifest's), from
// the shapes of public/favicon.svg (a 32-unit square, scaled 6×): a stacked memory bar (weights,
// KV cache, overhead) and the card's capacity line.
// A PNG, not the SVG: Chromium fetches and decodes the tab's icon again on every same-document
// navigation (each `history.replaceState` of the permalink), and an SVG icon builds a whole SVG
// document each time (about 20 ms of main thread per write at 4× CPU throttling, measured with
// a DevTools trace of slider ticks), where a small PNG costs a fraction of a millisecond.
// Run: node scripts/favicon.mjs [out.png]; the output is committed (deterministic).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { palettePng } from './png.mjs';

const S = 6;
const W = 32 * S;
// Palette: transparent, weights, KV cache, overhead, the capacity line (favicon.svg's colours).
const PALETTE = ['ffffff', '0072b2', 'e69f00', 'cc79a7', '222222'];
const ALPHA = [0, 255, 255, 255, 255];
const px = new Uint8Array(W * W);
// favicon.svg's <rect x y width height rx fill> and its stroke, in its 32-unit coordinates; a
// pixel is drawn when its centre lies inside (rounded corners of radius rx).
const rect = (x, y, w, h, rx, c) => {
  for (let j = 0; j < W; j++) {
    for (let i = 0; i < W; i++) {
      const [u, v] = [(i + 0.5) / S, (j + 0.5) / S];
      if (u < x || u > x + w || v < y || v > y + h) continue;
      const dx = Math.max(x + rx - u, u - (x + w - rx), 0);
      const dy = Math.max(y + rx - v, v - (y + h - rx), 0);
      if (dx * dx + dy * dy <= rx * rx) px[j * W + i] = c;
    }
  }
};
rect(2, 9, 28, 14, 2, 1);
rect(2, 9, 17, 14, 2, 2);
rect(19, 9, 5, 14, 0, 3);
// <path d="M26 5v22" stroke-width="2">: a 2-unit-wide line.
rect(25, 5, 2, 22, 0, 4);

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] || path.join(here, '..', 'public', 'favicon.png');
const png = palettePng(W, W, px, PALETTE, ALPHA);
fs.writeFileSync(out, png);
console.log(`favicon: ${out}, ${png.length} bytes`);
