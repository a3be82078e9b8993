#!/usr/bin/env bash
# The web app's tests: unit tests (ng test, Vitest) and end-to-end tests (Playwright in Debian's
# Chromium against `devkb serve --index` on the demo workspace). Installs chromium and the npm
# packages when they are missing; artifacts (screenshots, traces, server log) go to artifacts/.
set -euo pipefail
cd "$(dirname "$0")/.."
export CI="${CI:-true}" NG_CLI_ANALYTICS=false HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1

if [ ! -x /usr/bin/chromium ]; then
  echo "==> installing chromium (Debian package)"
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo -n"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
if [ ! -d frontend/node_modules ]; then
  echo "==> installing npm packages"
  (cd frontend && npm ci --no-audit --no-fund --loglevel=error)
fi

# (a stale frontend/openapi.json fails scripts/lint.sh, which `make test` runs first)

echo "==> web app: unit tests"
(cd frontend && npx ng test --watch=false)

echo "==> web app: build"
bash scripts/build_frontend.sh

echo "==> web app: end-to-end tests (Chromium, demo workspace)"
mkdir -p artifacts/screenshots
(cd frontend && npx playwright test)
