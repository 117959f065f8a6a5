// wasm-bindgen names each function its glue hands to the wasm `__wbg_<name>_<16 hex digits>`
// (the digits: a hash that keeps two bindings of one name apart), and writes each name twice:
// in the wasm's import section and as a key of the glue's import object. The hex digits do not
// compress (~140 imports on the page: 2.7 KB gzip of the wasm, 1.9 KB of the glue, measured on
// the build of 2026-12). `shortImports` renames them `a`, `b`, … `Z`, `ba`, … in both; nothing
// else changes (the import section's other entries, every other section, the glue's code).
//
// The wasm binary format: https://webassembly.github.io/spec/core/binary/modules.html (the
// import section, id 2: a vector of (module name, field name, import description)).

const SECTION_IMPORT = 2;
const WBG = /^__wbg_[A-Za-z0-9_]+_[0-9a-f]{16}$/;
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** The n-th short name: a … Z, ba … ZZ, baa …: letters only (never a glue name, all `__`). */
export function shortName(n) {
  let s = '';
  do {
    s = LETTERS[n % LETTERS.length] + s;
    n = Math.floor(n / LETTERS.length);
  } while (n > 0);
  return s;
}

function uleb(bytes, at) {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (at >= bytes.length) throw new Error('a LEB128 number runs past the end');
    const b = bytes[at++];
    value += (b & 0x7f) * 2 ** shift;
    shift += 7;
    if (b < 0x80) return [value, at];
    if (shift > 63) throw new Error('a LEB128 number longer than 64 bits');
  }
}

function encodeUleb(n) {
  const out = [];
  do {
    let b = n % 128;
    n = Math.floor(n / 128);
    if (n > 0) b |= 0x80;
    out.push(b);
  } while (n > 0);
  return out;
}

// Where an import description ends: a function (0: type index), a table (1: reference type,
// limits), a memory (2: limits), a global (3: value type, mutability), a tag (4: attribute,
// type index). Limits: a flags byte, the minimum, the maximum when flag bit 0 is set.
function descEnd(bytes, at) {
  const kind = bytes[at++];
  const limits = (p) => {
    const flags = bytes[p++];
    let [, q] = uleb(bytes, p);
    if (flags & 1) [, q] = uleb(bytes, q);
    return q;
  };
  switch (kind) {
    case 0:
      return [kind, uleb(bytes, at)[1]];
    case 1:
      return [kind, limits(at + 1)];
    case 2:
      return [kind, limits(at)];
    case 3:
      return [kind, at + 2];
    case 4:
      return [kind, uleb(bytes, at + 1)[1]];
    default:
      throw new Error(`an import of unknown kind ${kind}`);
  }
}

/**
 * Rename the glue's `__wbg_…` function imports of `wasm` (bytes) and the matching keys of the
 * glue `js`, whose import object is found with `acorn` (the parser finish-site uses). Returns
 * `{ wasm, js, renamed }`; throws when the two do not match one to one (a key missing or
 * written twice, a name clash in the import object), so a build never ships a page whose
 * imports do not link.
 */
export function shortImports(wasm, js, acorn) {
  if (!WebAssembly.validate(wasm)) throw new Error('not a valid wasm module');
  const text = (a, b) => new TextDecoder().decode(wasm.subarray(a, b));
  let at = 8;
  let section = null;
  while (at < wasm.length) {
    const id = wasm[at];
    const [size, body] = uleb(wasm, at + 1);
    if (body + size > wasm.length) throw new Error('a section runs past the end');
    if (id === SECTION_IMPORT) section = { start: at, body, end: body + size };
    at = body + size;
  }
  if (!section) return { wasm, js, renamed: 0 };

  const [count, first] = uleb(wasm, section.body);
  const entries = [];
  let p = first;
  for (let i = 0; i < count; i++) {
    const [mlen, m] = uleb(wasm, p);
    const [flen, f] = uleb(wasm, m + mlen);
    const [kind, end] = descEnd(wasm, f + flen);
    entries.push({ module: text(m, m + mlen), field: text(f, f + flen), kind, desc: wasm.subarray(f + flen, end) });
    p = end;
  }
  if (p !== section.end) throw new Error('the import section does not end where its size says');

  // The glue's import object: the one object literal whose keys are the imported names.
  const names = new Set(entries.filter((e) => e.kind === 0 && WBG.test(e.field)).map((e) => e.field));
  if (!names.size) return { wasm, js, renamed: 0 };
  const objects = [];
  const walk = (node) => {
    if (!node || typeof node.type !== 'string') return;
    if (node.type === 'ObjectExpression' && node.properties.some((q) => names.has(q.key?.name ?? q.key?.value))) {
      objects.push(node);
    }
    for (const v of Object.values(node)) {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') walk(v);
    }
  };
  walk(acorn.parse(js, { ecmaVersion: 'latest', sourceType: 'module' }));
  if (objects.length !== 1) throw new Error(`${objects.length} import objects in the glue, not 1`);
  const keys = objects[0].properties.map((q) => ({ name: q.key?.name ?? q.key?.value, node: q.key }));

  const rename = new Map();
  for (const name of names) rename.set(name, shortName(rename.size));
  for (const { name } of keys) {
    if (!names.has(name) && [...rename.values()].includes(name)) throw new Error(`the import object has a key ${name}`);
  }
  const replaced = keys.filter((k) => rename.has(k.name));
  if (replaced.length !== names.size) throw new Error('an imported name is not a key of the glue, or is one twice');

  // The glue: each key rewritten where it stands (from the end, so the offsets hold).
  let out = js;
  for (const k of [...replaced].sort((a, b) => b.node.start - a.node.start)) {
    out = out.slice(0, k.node.start) + rename.get(k.name) + out.slice(k.node.end);
  }

  // The wasm: the import section rebuilt, every other byte as it was.
  const utf8 = (s) => [...new TextEncoder().encode(s)];
  const body = [...encodeUleb(count)];
  for (const e of entries) {
    const field = e.kind === 0 && rename.has(e.field) ? rename.get(e.field) : e.field;
    body.push(...encodeUleb(utf8(e.module).length), ...utf8(e.module));
    body.push(...encodeUleb(utf8(field).length), ...utf8(field), ...e.desc);
  }
  const next = new Uint8Array([
    ...wasm.subarray(0, section.start),
    SECTION_IMPORT,
    ...encodeUleb(body.length),
    ...body,
    ...wasm.subarray(section.end),
  ]);
  return { wasm: next, js: out, renamed: rename.size };
}
