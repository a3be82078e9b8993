#!/usr/bin/env bash
# Every test tier that can run here: unit, contract, integration (emulators, server on
# loopback), corpus tests when ../shared is present, and the web app's unit and browser tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
status=0
(cd backend && ../.venv/bin/python -m pytest -q -p no:cacheprovider "$@") || status=$?
if [ $status -ne 0 ]; then exit $status; fi
if [ -f frontend/package.json ] && [ "${DEVKB_SKIP_FRONTEND:-0}" != "1" ]; then
  bash scripts/test_frontend.sh
fi
