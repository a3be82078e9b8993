#!/usr/bin/env bash
# Create or update the Python virtual environment (.venv) and, when a front end exists, its
# npm packages and build. Re-runs are cheap: each step is skipped while its inputs are unchanged.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
mkdir -p .cache

if [ ! -x .venv/bin/python ]; then
  echo "==> creating .venv with $($PY --version)"
  "$PY" -m venv .venv
fi
STAMP=.cache/venv.stamp
WANT=$(cat backend/pyproject.toml backend/devtools/pyproject.toml backend/requirements.lock scripts/setup.sh | sha256sum | cut -c1-16)
if [ ! -f "$STAMP" ] || [ "$(cat "$STAMP")" != "$WANT" ]; then
  echo "==> installing Python packages (backend/requirements.lock)"
  .venv/bin/python -m pip install -q --upgrade pip
  # torch first, pinned: the CPU wheel for 2.13.0 is on this machine's disk
  .venv/bin/python -m pip install -q "torch==2.13.0"
  # exact versions from the lock (scripts/lock.sh regenerates it; scripts/check_lock.py gates it)
  .venv/bin/python -m pip install -q -r backend/requirements.lock
  if ! .venv/bin/python scripts/check_lock.py; then
    echo "ERROR: backend/requirements.lock does not match the pyproject files; regenerate it (scripts/lock.sh header)" >&2
    exit 1
  fi
  .venv/bin/python -m pip install -q --no-deps -e "backend[dev,torch]"
  # the development tooling (emulators, demo workspace, bench, eval): its own package, devkb_devtools;
  # the demo reaches the product through its `devkb.workspaces` entry point (devkb/config/workspaces.py)
  .venv/bin/python -m pip install -q --no-deps -e backend/devtools
  echo "$WANT" > "$STAMP"
fi

# WordNet 3.0 (Debian's wordnet-base): the synonyms and antonyms with which a question is compared
# with a verified one (backend/src/devkb/memory/lexicon.py, read with NLTK); without it devkb runs on
# with the folding table alone and says so in its log
if [ ! -f "${DEVKB_WORDNET_DIR:-/usr/share/wordnet}/data.noun" ]; then
  echo "==> installing wordnet-base (Debian package: WordNet 3.0)"
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo -n"; fi
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends wordnet-base >/dev/null; } \
    || echo "WARNING: could not install wordnet-base; verified answers are matched without WordNet's synonyms and antonyms (its tests skip)" >&2
fi

# the embedding model's ONNX export, made here (with torch, the `torch` extra) so the served product
# needs only onnxruntime: a few seconds once, then a hash check (backend/src/devkb/indexing/embedders/onnx_export.py)
MODELS=${DEVKB_MODEL_CACHE_DIR:-${DEVKB_DATA_DIR:-data}/models}
HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 .venv/bin/python -m devkb.indexing.embedders.onnx_export --out "$MODELS" >/dev/null

if [ -f frontend/package.json ] && [ "${DEVKB_SKIP_FRONTEND:-0}" != "1" ]; then
  bash scripts/build_frontend.sh
fi

# the vendors' published API descriptions that tests validate the emulators against (npm packages;
# backend/devtools/src/devkb_devtools/emulators/vendor_check.py): the ADF JSON schema, GitHub's OpenAPI
if [ -f tools/vendor-apis/package-lock.json ]; then
  STAMP_VENDOR=.cache/vendor-apis.stamp
  WANT_VENDOR=$(sha256sum tools/vendor-apis/package-lock.json | cut -c1-16)
  if [ ! -d tools/vendor-apis/node_modules ] || [ ! -f "$STAMP_VENDOR" ] || [ "$(cat "$STAMP_VENDOR")" != "$WANT_VENDOR" ]; then
    echo "==> installing vendor API descriptions (tools/vendor-apis)"
    (cd tools/vendor-apis && npm ci --no-audit --no-fund --loglevel=error)
    echo "$WANT_VENDOR" > "$STAMP_VENDOR"
  fi
fi

# a real OpenID Connect provider (panva's oidc-provider, npm) that the sign-in tests start on loopback
# (tools/oidc-provider/provider.mjs; backend/tests/integration/access/test_oidc_real_provider.py)
if [ -f tools/oidc-provider/package-lock.json ]; then
  STAMP_OIDC=.cache/oidc-provider.stamp
  WANT_OIDC=$(sha256sum tools/oidc-provider/package-lock.json | cut -c1-16)
  if [ ! -d tools/oidc-provider/node_modules ] || [ ! -f "$STAMP_OIDC" ] || [ "$(cat "$STAMP_OIDC")" != "$WANT_OIDC" ]; then
    echo "==> installing the test OpenID Connect provider (tools/oidc-provider)"
    (cd tools/oidc-provider && npm ci --no-audit --no-fund --loglevel=error)
    echo "$WANT_OIDC" > "$STAMP_OIDC"
  fi
fi
