// trunk post_build hook: point train mode's loader at its module beside it.
//
// trunk 0.21 writes the loader shim of a build with `data-target-path` as
// `import init from './train/fitcard-full.js'`, a path relative to the site's root, while an
// ES module's import is resolved against the importing module's own URL (here `train/`), so the
// shim would ask for `train/train/fitcard-full.js`. This rewrites it to `./fitcard-full.js`.
// https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Statements/import#module-name
import fs from 'node:fs';
import path from 'node:path';

const staging = process.argv[2] || process.env.TRUNK_STAGING_DIR;
const loader = path.join(staging, 'train', 'fitcard-full_loader.js');
if (!fs.existsSync(loader)) {
  console.error(`train-loader: ${loader} is missing`);
  process.exit(1);
}
const before = fs.readFileSync(loader, 'utf8');
const after = before.replaceAll("'./train/", "'./");
if (!/from '\.\/fitcard-full\.js'/.test(after)) {
  console.error(`train-loader: unexpected loader: ${before}`);
  process.exit(1);
}
fs.writeFileSync(loader, after);
