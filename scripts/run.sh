#!/usr/bin/env bash
# Index the configured sources (the built-in demo workspace when none are configured), then
# serve the API and web app on http://127.0.0.1:8000 (DEVKB_HOST / DEVKB_PORT to change).
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# the demo runs with its people (shown on the sign-in page); a configured server is unaffected
export DEVKB_DEMO_USERS=${DEVKB_DEMO_USERS:-true}
exec .venv/bin/devkb serve --index
