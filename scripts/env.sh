# Sourced by the other scripts: the tool versions and the PATH they need.
# shellcheck shell=bash

FITCARD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export FITCARD_ROOT

TRUNK_VERSION="0.21.14"
BINARYEN_VERSION="132.0.0"
# terser and csso minify wasm-bindgen's glue scripts and the style sheets after the build
# (scripts/finish-site.mjs).
TERSER_VERSION="5.51.4"
CSSO_VERSION="5.0.5"
# wasm-bindgen-cli must equal the wasm-bindgen crate in Cargo.lock.
WASM_BINDGEN_VERSION="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' "$FITCARD_ROOT/Cargo.lock")"

# Project-local tools (npm binaryen's wasm-opt) first, then cargo-installed ones.
export PATH="$FITCARD_ROOT/.tools/node_modules/.bin:${CARGO_HOME:-$HOME/.cargo}/bin:$PATH"
# wasm32 builds (trunk, the browser tests, wasm32 clippy): the flags of .cargo/config.toml, plus
# shorter panic locations: the registry's path prefix is dropped from the crates' file names
# the wasm carries (about 4 KB; a build without this file still works, only larger).
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="--cfg erase_components --remap-path-prefix=${CARGO_HOME:-$HOME/.cargo}/registry/src/index.crates.io-1949cf8c6b5b557f/="
# trunk 0.21 refuses to start with NO_COLOR=1 in the environment.
unset NO_COLOR
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
