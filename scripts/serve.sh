#!/usr/bin/env bash
# Serve the calculator on http://127.0.0.1:8080 and rebuild on change (README command #1).
# Extra arguments go to `trunk serve` (e.g. --port 9000). It builds into target/dist-serve, so
# dist/ keeps the finished release build (scripts/site.sh) that the size gate measures.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
bash "$FITCARD_ROOT/scripts/setup.sh"
cd "$FITCARD_ROOT"
exec trunk serve --release=true --offline=true --dist target/dist-serve "$@"
