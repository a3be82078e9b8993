#!/usr/bin/env bash
# Install npm packages and build the Angular app into the backend's static folder, when its
# sources changed since the last build.
set -euo pipefail
cd "$(dirname "$0")/.."
STAMP=.cache/frontend.stamp
WANT=$( (cat frontend/package.json frontend/package-lock.json 2>/dev/null; find frontend/src frontend/angular.json -type f -print0 2>/dev/null | sort -z | xargs -0 cat) | sha256sum | cut -c1-16)
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$WANT" ] && [ -f backend/src/devkb/static/index.html ]; then
  exit 0
fi
echo "==> building the web app"
(cd frontend && { [ -d node_modules ] || npm ci --no-audit --no-fund --loglevel=error; } && npm run build --silent)
echo "$WANT" > "$STAMP"
