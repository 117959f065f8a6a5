// scripts/short-imports.mjs on a small module built here byte by byte: the glue's `__wbg_…`
// imports renamed in the wasm and the glue alike, every other import and byte kept, the result
// linked and run; and the mismatches it must refuse.
import test from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { shortImports, shortName } from '../../scripts/short-imports.mjs';

const require = createRequire(new URL('../../.tools/node_modules/', import.meta.url));
const acorn = require('acorn');

const utf8 = (s) => [...new TextEncoder().encode(s)];
const name = (s) => [utf8(s).length, ...utf8(s)];
const section = (id, body) => [id, body.length, ...body];
const DOUBLE = '__wbg_double_0123456789abcdef';
const INIT = '__wbindgen_init_externref_table';

// (func (import "./app_bg.js" DOUBLE) (param i32) (result i32)), the intrinsic INIT () -> (),
// an imported constant i32 global and a memory with a maximum (other kinds of import, whose
// descriptions have other lengths), and `run(x) = DOUBLE(x) + g`.
function module(glueName = DOUBLE) {
  const types = section(1, [2, 0x60, 1, 0x7f, 1, 0x7f, 0x60, 0, 0]);
  const imports = section(2, [
    4,
    ...name('./app_bg.js'), ...name(glueName), 0, 0,
    ...name('./app_bg.js'), ...name(INIT), 0, 1,
    ...name('env'), ...name('g'), 3, 0x7f, 0,
    ...name('env'), ...name('mem'), 2, 1, 1, 2,
  ]);
  const funcs = section(3, [1, 0]);
  const exports = section(7, [1, ...name('run'), 0, 2]);
  const body = [0, 0x20, 0, 0x10, 0, 0x23, 0, 0x6a, 0x0b];
  const code = section(10, [1, body.length, ...body]);
  return new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0, ...types, ...imports, ...funcs, ...exports, ...code]);
}

const GLUE = `const other = { a: 1 };
const wbg = { __proto__: null, ${DOUBLE}: (x) => x * 2 + other.a - 1, ${INIT}: () => {} };
export const imports = { './app_bg.js': wbg };`;

test('short names: a … Z, then ba', () => {
  assert.deepEqual([0, 1, 25, 26, 51, 52, 53].map(shortName), ['a', 'b', 'z', 'A', 'Z', 'ba', 'bb']);
});

test('the glue imports renamed in both, the rest kept, and the module links and runs', async () => {
  const wasm = module();
  assert.ok(WebAssembly.validate(wasm));
  const out = shortImports(wasm, GLUE, acorn);
  assert.equal(out.renamed, 1);
  assert.ok(out.wasm.length < wasm.length);
  const imported = WebAssembly.Module.imports(new WebAssembly.Module(out.wasm)).map((i) => `${i.module} ${i.name} ${i.kind}`);
  assert.deepEqual(imported, ['./app_bg.js a function', `./app_bg.js ${INIT} function`, 'env g global', 'env mem memory']);
  assert.ok(out.js.includes('{ __proto__: null, a: (x) =>'), out.js);
  assert.ok(out.js.includes('const other = { a: 1 };'), 'other objects untouched');
  assert.ok(!out.js.includes(DOUBLE));
  const glue = await import(`data:text/javascript,${encodeURIComponent(out.js)}`);
  const env = { g: new WebAssembly.Global({ value: 'i32', mutable: false }, 5), mem: new WebAssembly.Memory({ initial: 1, maximum: 2 }) };
  const { instance } = await WebAssembly.instantiate(out.wasm, { ...glue.imports, env });
  assert.equal(instance.exports.run(21), 47);
});

test('a module without glue imports is left as it is', () => {
  const wasm = module('plain');
  const glue = GLUE.replaceAll(DOUBLE, 'plain');
  const out = shortImports(wasm, glue, acorn);
  assert.equal(out.renamed, 0);
  assert.equal(out.wasm, wasm);
  assert.equal(out.js, glue);
});

test('mismatches are refused, not shipped', () => {
  const wasm = module();
  // The imported name is no key of the glue.
  assert.throws(() => shortImports(wasm, GLUE.replaceAll(DOUBLE, 'plain'), acorn), /0 import objects/);
  // The key written twice (two objects name it).
  assert.throws(() => shortImports(wasm, `${GLUE}\nexport const again = { ${DOUBLE}: 1 };`, acorn), /2 import objects/);
  // The import object already holds a key the renaming would give.
  assert.throws(() => shortImports(wasm, GLUE.replace('__proto__: null', 'a: 0'), acorn), /has a key a/);
  // A damaged module: the import section's size says one byte more than its entries hold.
  const bad = module();
  bad[8 + 11 + 1] += 1;
  assert.throws(() => shortImports(bad, GLUE, acorn), /not a valid wasm module/);
});
