#!/usr/bin/env bash
# The gates `make lint` and `make test` run; any failure fails the build:
#   ruff check (rule set in backend/pyproject.toml), ruff format --check, mypy (strict for store/,
#   api/, agent/, indexing/; 0 errors everywhere), the lock file against pyproject, ESLint (with the
#   import-circle check, frontend/scripts/check-import-cycles.mjs) and
#   Prettier on the web app, a stale frontend/openapi.json, stale demo data, and the question kinds'
#   gate (no regex and no raw question text in agent/kinds: devkb_devtools.evaluation.agent_census).
# `scripts/lint.sh --root DIR` checks another checkout (the gate tests use it on broken copies).
set -uo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
ROOT="$HERE"
if [ "${1:-}" = "--root" ]; then ROOT="$(cd "$2" && pwd)"; fi
PY="$HERE/.venv/bin/python"
failed=()
gate() {  # gate NAME COMMAND...: run one gate, remember a failure
  local name=$1; shift
  echo "==> $name"
  if ! "$@"; then failed+=("$name"); echo "FAILED: $name" >&2; fi
}
cd "$ROOT/backend"
gate "ruff check" "$PY" -m ruff check .
gate "ruff format" "$PY" -m ruff format --check .
gate "mypy" "$PY" -m mypy
gate "lock file" "$PY" "$ROOT/scripts/check_lock.py" "$ROOT"
export PYTHONPATH="$ROOT/backend/src:$ROOT/backend/devtools/src"
gate "OpenAPI schema of the web app" "$PY" "$ROOT/scripts/check_openapi.py" "$ROOT/frontend/openapi.json"
gate "demo data" "$PY" "$ROOT/backend/devtools/src/devkb_devtools/demo/build_demo_data.py" --check
# no module of agent/kinds imports re or reads the raw question text (docs/agent.md, "The gate")
gate "question kinds read the frame" "$PY" -m devkb_devtools.evaluation.agent_census --check
unset PYTHONPATH
if [ -f "$ROOT/frontend/package.json" ] && [ "${DEVKB_SKIP_FRONTEND:-0}" != "1" ]; then
  cd "$ROOT/frontend"
  if [ ! -d node_modules ]; then npm ci --no-audit --no-fund --loglevel=error; fi
  gate "eslint" npm run --silent lint
  gate "prettier" npm run --silent format:check
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "gates failed: ${failed[*]}" >&2
  exit 1
fi
echo "all gates passed"
