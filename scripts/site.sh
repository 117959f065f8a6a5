#!/usr/bin/env bash
# Build the static site into dist/ (trunk release build; the post-build hook adds the method
# page and the accuracy report; scripts/finish-site.mjs then finishes the pages). With --space DIR, also assemble the folder to push to a
# Hugging Face static Space: dist/ plus a README.md whose front matter says `sdk: static`.
# --no-build reuses an existing dist/.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
cd "$FITCARD_ROOT"

build=1
space=""
while [ $# -gt 0 ]; do
  case "$1" in
    --no-build) build=0 ;;
    --space) space="$2"; shift ;;
    *) echo "usage: scripts/site.sh [--no-build] [--space DIR]" >&2; exit 2 ;;
  esac
  shift
done

if [ "$build" = 1 ]; then
  cargo fetch --quiet
  trunk build --release=true
fi
for f in dist/index.html dist/method.html dist/accuracy.html; do
  [ -s "$f" ] || { echo "site: $f is missing" >&2; exit 1; }
done
ls dist/*.wasm >/dev/null
# What only the finished build can say: the Content-Security-Policy with the hash of trunk's
# inline loader, the service worker's file list and version, and, with FITCARD_SITE_URL (the
# site's public address, e.g. https://user.github.io/fitcard/), the link-preview tags.
node scripts/finish-site.mjs dist

if [ -n "$space" ]; then
  rm -rf "$space"
  mkdir -p "$space"
  cp -R dist/. "$space/"
  cat > "$space/README.md" <<'MD'
---
title: fitcard
emoji: 🧮
colorFrom: gray
colorTo: green
sdk: static
app_file: index.html
pinned: false
---

fitcard estimates the GPU memory an LLM needs, in your browser. Built from its repository with
`bash scripts/site.sh --space <folder>`.
MD
  echo "site: Space folder ready in $space (push its contents to the Space repository)"
fi
