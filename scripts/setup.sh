#!/usr/bin/env bash
# Install everything the build and the tests need; skip what is already there at the right
# version (safe to run again). Needs a Rust toolchain (rustup), node/npm, and root or sudo for
# apt when chromium is missing. Each version is pinned for a reason given beside it.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$FITCARD_ROOT"

say() { printf 'setup: %s\n' "$*"; }

# Rust: the wasm target, and the components CI uses (rustup-managed toolchains).
if command -v rustup >/dev/null; then
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  for c in rustfmt clippy; do
    if ! rustup component list --installed | grep -q "^$c"; then
      say "adding rustup component $c"
      rustup component add "$c"
    fi
  done
else
  say "no rustup: assuming the toolchain has wasm32-unknown-unknown, rustfmt and clippy"
fi

# trunk (0.22 needs a newer rustc). Release LTO off only for this install: it is slow.
if [ "$(trunk --version 2>/dev/null || true)" != "trunk $TRUNK_VERSION" ]; then
  say "installing trunk $TRUNK_VERSION (about 5 minutes)"
  CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=16 \
    cargo install trunk --version "$TRUNK_VERSION" --locked --no-default-features --force
else
  say "trunk $TRUNK_VERSION present"
fi

# wasm-bindgen-cli: exactly the crate's version; without --locked (its lock names a crate the
# registry lacks).
if [ "$(wasm-bindgen --version 2>/dev/null || true)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ] ||
  ! command -v wasm-bindgen-test-runner >/dev/null; then
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 2 minutes)"
  CARGO_RESOLVER_INCOMPATIBLE_RUST_VERSIONS=fallback \
    cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
else
  say "wasm-bindgen-cli $WASM_BINDGEN_VERSION present"
fi

# Node.js + npm (wasm-opt and the e2e driver come from the npm registry); Debian's if absent.
if ! command -v npm >/dev/null; then
  say "installing nodejs and npm"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends nodejs npm
fi

# wasm-opt from npm binaryen into .tools/ (never Debian's binaryen 108: blank page), terser for
# the glue scripts and csso for the style sheets (one install: a second one would prune the first).
want_opt="wasm-opt version ${BINARYEN_VERSION%%.*} (version_${BINARYEN_VERSION%%.*})"
have_min="$(node -p "[require('$FITCARD_ROOT/.tools/node_modules/terser/package.json').version, require('$FITCARD_ROOT/.tools/node_modules/csso/package.json').version].join(' ')" 2>/dev/null || true)"
if [ "$("$FITCARD_ROOT/.tools/node_modules/.bin/wasm-opt" --version 2>/dev/null || true)" != "$want_opt" ] ||
  [ "$have_min" != "$TERSER_VERSION $CSSO_VERSION" ]; then
  say "installing binaryen $BINARYEN_VERSION, terser $TERSER_VERSION and csso $CSSO_VERSION into .tools/"
  mkdir -p .tools
  npm install --prefix .tools --no-save --no-audit --no-fund --loglevel=error \
    "binaryen@$BINARYEN_VERSION" "terser@$TERSER_VERSION" "csso@$CSSO_VERSION"
else
  say "wasm-opt $BINARYEN_VERSION, terser $TERSER_VERSION and csso $CSSO_VERSION present"
fi

# Browser and driver (Debian's), for the browser and end-to-end tests; FITCARD_SETUP_BROWSER=0
# skips them (building the site needs neither).
if [ "${FITCARD_SETUP_BROWSER:-1}" = 0 ]; then
  say "browser and e2e packages skipped (FITCARD_SETUP_BROWSER=0)"
elif [ ! -x "$CHROMIUM" ] || [ ! -x "$CHROMEDRIVER" ]; then
  say "installing chromium and chromium-driver"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium chromium-driver
else
  say "chromium and chromedriver present"
fi

# The end-to-end driver (playwright-core only: it drives the chromium above).
if [ "${FITCARD_SETUP_BROWSER:-1}" = 0 ]; then
  :
elif ! (cd tests/e2e && npm ls --omit=dev >/dev/null 2>&1); then
  say "installing the e2e suite's npm packages"
  (cd tests/e2e && npm ci --no-audit --no-fund --loglevel=error)
else
  say "e2e npm packages present"
fi

# trunk builds offline: fetch the crates first.
cargo fetch --quiet
say "done"
