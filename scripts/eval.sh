#!/usr/bin/env bash
# The evaluation harness: `make eval ARGS="--queries FILE --limit N --skip-fidelity --skip-agent ..."`.
# Everything happens in `python -m devkb_devtools.evaluation` (backend/devtools/src/devkb_devtools/evaluation/__main__.py).
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec nice -n "${DEVKB_EVAL_NICE:-10}" .venv/bin/python -m devkb_devtools.evaluation "$@"
