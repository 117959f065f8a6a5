// Draws the site's link-preview image, public/og.png (1200 × 630, the size Open Graph readers
// crop least: https://ogp.me/#structured): the name, the question, and a stacked memory bar
// like the page's, in flat colours from a 6-colour palette, so the PNG stays a few KB.
// Run: node scripts/og-image.mjs [out.png]; the output is committed (deterministic).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { palettePng } from './png.mjs';

const W = 1200;
const H = 630;
// Palette: background, text, track, weights, KV cache, overhead (the favicon's colours).
const PALETTE = ['ffffff', '1b1f24', 'e3e7ec', '0072b2', 'e69f00', 'cc79a7'];
const [BG, INK, TRACK, WEIGHTS, KV, OVERHEAD] = PALETTE.keys();

// A 5 × 7 bitmap font, only the letters drawn below.
const FONT = {
  A: '01110 10001 10001 11111 10001 10001 10001',
  C: '01110 10001 10000 10000 10000 10001 01110',
  D: '11110 10001 10001 10001 10001 10001 11110',
  F: '11111 10000 10000 11110 10000 10000 10000',
  G: '01110 10001 10000 10111 10001 10001 01111',
  H: '10001 10001 10001 11111 10001 10001 10001',
  I: '01110 00100 00100 00100 00100 00100 01110',
  L: '10000 10000 10000 10000 10000 10000 11111',
  M: '10001 11011 10101 10101 10001 10001 10001',
  N: '10001 11001 10101 10011 10001 10001 10001',
  O: '01110 10001 10001 10001 10001 10001 01110',
  P: '11110 10001 10001 11110 10000 10000 10000',
  R: '11110 10001 10001 11110 10100 10010 10001',
  S: '01111 10000 10000 01110 00001 00001 11110',
  T: '11111 00100 00100 00100 00100 00100 00100',
  U: '10001 10001 10001 10001 10001 10001 01110',
  W: '10001 10001 10001 10101 10101 10101 01010',
  Y: '10001 10001 01010 00100 00100 00100 00100',
  '?': '01110 10001 00001 00010 00100 00000 00100',
  ' ': '00000 00000 00000 00000 00000 00000 00000',
};

const px = new Uint8Array(W * H).fill(BG);
const rect = (x, y, w, h, c) => {
  for (let j = y; j < y + h; j++) px.fill(c, j * W + x, j * W + x + w);
};
const text = (s, x, y, dot) => {
  for (const ch of s) {
    FONT[ch].split(' ').forEach((row, j) =>
      [...row].forEach((b, i) => b === '1' && rect(x + i * dot, y + j * dot, dot, dot, INK)),
    );
    x += 6 * dot;
  }
};

text('FITCARD', 60, 70, 14);
text('WILL THIS LLM FIT ON YOUR GPU?', 60, 230, 6);
// The bar: weights, KV cache and overhead against the card's capacity (the dark line).
rect(60, 380, 1080, 120, TRACK);
rect(60, 380, 560, 120, WEIGHTS);
rect(628, 380, 260, 120, KV);
rect(896, 380, 70, 120, OVERHEAD);
rect(1040, 350, 10, 180, INK);

const png = palettePng(W, H, px, PALETTE);

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2] || path.join(here, '..', 'public', 'og.png');
fs.writeFileSync(out, png);
console.log(`og-image: ${out}, ${png.length} bytes`);
