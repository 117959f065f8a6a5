#!/usr/bin/env bash
# The whole test suite (README command #2):
#   1. host tests of the workspace (estimator, CLI, the page's pure modules);
#   2. browser tests of the mounted app (tests/web.rs, wasm-bindgen-test in headless chromium);
#   3. the release build (trunk) and the end-to-end suite against it (tests/e2e, served from a
#      sub-path by a local static server, driven in chromium by playwright-core);
#   4. a second release build whose Hub base URL is a local fixture server (FITCARD_HUB, read at
#      compile time; into target/dist-hub, never dist/), and the import tests against it;
#   5. a size report of the wasm (of dist/, the real build).
# Set FITCARD_SKIP_SETUP=1 when scripts/setup.sh has just run.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$FITCARD_ROOT"

if [ "${FITCARD_SKIP_SETUP:-0}" != 1 ]; then
  bash scripts/setup.sh
fi

step() { printf '\n== %s\n' "$*"; }
t0=$SECONDS
timed() { printf '   (%ss)\n' "$((SECONDS - t0))"; t0=$SECONDS; }

step "host tests: cargo test --workspace"
cargo test --workspace
timed

step "browser tests: tests/web.rs in headless chromium"
CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner \
  cargo test -p fitcard --target wasm32-unknown-unknown --test web
timed

step "release build: trunk build --release (and the Hugging Face Space folder from it)"
bash scripts/site.sh
bash scripts/site.sh --no-build --space target/space
grep -q '^sdk: static$' target/space/README.md
timed

step "end-to-end tests: tests/e2e against dist/"
(cd tests/e2e && FITCARD_DIST="$FITCARD_ROOT/dist" node --test)
timed

step "Hub import: a build pointed at the stand-in Hub (crates/standin; target/dist-hub), tests/e2e/import.test.mjs"
# The ports must equal HUB_PORT and CDN_PORT in tests/e2e/import.test.mjs (the importer reads
# answers from the Hub and its file hosts only); a short timeout for its slow answers. The
# stand-in is the one the CLI's tests start (its binary, built here).
cargo build -q -p fitcard-standin
FITCARD_HUB="http://127.0.0.1:47831" FITCARD_HUB_CDN="http://127.0.0.1:47832" FITCARD_IMPORT_TIMEOUT_MS=4000 \
  trunk build --release=true --dist target/dist-hub
(cd tests/e2e && FITCARD_HUB_DIST="$FITCARD_ROOT/target/dist-hub" \
  FITCARD_STANDIN="$FITCARD_ROOT/target/debug/fitcard-standin" node --test import.test.mjs)
timed

step "size report"
for f in dist/*.wasm dist/*.js dist/train/*.wasm dist/train/*.js; do
  printf '%-48s %9d bytes, %8d gzip\n' "$(basename "$f")" "$(wc -c <"$f")" "$(gzip -9c "$f" | wc -c)"
done
# Everything a first estimate downloads stays within its budget of 300,000 bytes gzip: the
# HTML, the style sheets, the page's script and wasm (built without train mode, which loads on
# demand), and the catalog: for a link that names a model its family's part (the largest one
# counts), for a landing link the landing catalog (every model without its repos and files; the
# whole catalog follows once the list is drawn, and its best-model list then also needs the
# importer, printed below, not counted). A model the catalog lacks reads the landing catalog as
# well (then the importer, for its estimate from the Hub). The page with the whole catalog is
# held to the budget too (what the page reads once it has mounted, and what a link with other
# models, with= or draft=, preloads for the whole calculator it loads on demand: printed, not
# counted, as the importer).
gz() { gzip -9c "$1" | wc -c; }
page=0
for f in dist/index.html dist/*.css dist/fitcard-web-*.js dist/fitcard-web-*_bg.wasm; do
  page=$((page + $(gz "$f")))
done
part=0
for f in dist/parts/*.postcard; do
  case "$f" in */landing-*) continue ;; esac
  n=$(gz "$f")
  if [ "$n" -gt "$part" ]; then part=$n; fi
done
whole=$(gz dist/catalog.postcard)
lite=$(gz dist/parts/landing-*.postcard)
importer=$(( $(gz dist/fitcard-import.js) + $(gz dist/fitcard-import_bg.wasm) ))
printf 'first estimate: %d bytes gzip (page %d + largest catalog part %d; budget 300000)\n' \
  "$((page + part))" "$page" "$part"
printf 'landing view: %d bytes gzip (page %d + landing catalog %d; budget 300000), then the whole catalog %d and the importer %d for its list\n' \
  "$((page + lite))" "$page" "$lite" "$whole" "$importer"
printf 'a model the catalog lacks: %d bytes gzip (page %d + landing catalog %d; budget 300000), then the importer %d for its estimate from the Hub\n' \
  "$((page + lite))" "$page" "$lite" "$importer"
printf 'the page with the whole catalog: %d bytes gzip (page %d + whole catalog %d; budget 300000)\n' \
  "$((page + whole))" "$page" "$whole"
full=$(( $(gz dist/train/fitcard-full.js) + $(gz dist/train/fitcard-full_bg.wasm) ))
printf 'other models (with=, draft=): %d bytes gzip (page %d + whole catalog %d + the whole calculator %d, on demand)\n' \
  "$((page + whole + full))" "$page" "$whole" "$full"
if [ "$((page + part))" -gt 300000 ] || [ "$((page + lite))" -gt 300000 ] || [ "$((page + whole))" -gt 300000 ]; then
  echo "what the page downloads before its first estimate is over its budget" >&2
  exit 1
fi

step "benchmark: tests/e2e/bench.mjs (first estimate, landing view, slider ticks at 4x CPU; printed, not judged)"
(cd tests/e2e && node bench.mjs "$FITCARD_ROOT/dist")
timed
