#!/usr/bin/env bash
# Issue 27: test tiers as folders (unit, contract, integration, llm), topics inside them; the topic
# folders tests/access and tests/sources move into their tiers. Mechanical and idempotent:
#   scripts/refactor/test_tiers.sh          # move (once) and rewrite every tracked file
#   scripts/refactor/test_tiers.sh FILE...  # rewrite only these files (tests written on another branch)
# A new test from another branch that was written into tests/access/ or tests/sources/ goes to
# tests/integration/access/ (servers, emulators, HTTP) or tests/unit/access/ (in-process), likewise
# sources; tests/unit/test_gates.py (spawns ruff, mypy, ESLint) is integration now.
set -euo pipefail
cd "$(dirname "$0")/../.."
T=backend/tests
MOVES=(
  "$T/access/test_auth_api.py:$T/integration/access/test_auth_api.py"
  "$T/access/test_oidc_real_provider.py:$T/integration/access/test_oidc_real_provider.py"
  "$T/access/test_permission_leak_matrix.py:$T/integration/access/test_permission_leak_matrix.py"
  "$T/access/test_scoped_store_properties.py:$T/unit/access/test_scoped_store_properties.py"
  "$T/access/accounts_app.py:$T/accounts_app.py"
  "$T/access/permission_world.py:$T/permission_world.py"
  "$T/sources/test_permission_sync.py:$T/integration/sources/test_permission_sync.py"
  "$T/unit/test_gates.py:$T/integration/test_gates.py"
)
if [ $# -eq 0 ]; then
  for m in "${MOVES[@]}"; do
    from=${m%%:*}; to=${m#*:}
    if [ -f "$from" ] && [ ! -f "$to" ]; then
      mkdir -p "$(dirname "$to")"
      [ -f "$(dirname "$to")/__init__.py" ] || { : > "$(dirname "$to")/__init__.py"; git add "$(dirname "$to")/__init__.py"; }
      git mv "$from" "$to"
    fi
  done
  for d in "$T/access" "$T/sources"; do
    if [ -d "$d" ] && [ -z "$(git ls-files "$d" | grep -v '__init__.py$')" ]; then git rm -q -r "$d"; fi
  done
  mapfile -t files < <(git grep -lIE 'tests[./](access|sources)\b|tests/unit/test_gates\.py|tests\.unit\.test_gates' -- . ':!scripts/refactor/')
else
  files=("$@")
fi
[ ${#files[@]} -eq 0 ] && exit 0
sed -i -E \
  -e 's#\btests\.access\.(accounts_app|permission_world)\b#tests.\1#g' \
  -e 's#\btests/access/(accounts_app|permission_world)\.py#tests/\1.py#g' \
  -e 's#\btests\.access\.(test_auth_api|test_oidc_real_provider|test_permission_leak_matrix)\b#tests.integration.access.\1#g' \
  -e 's#\btests/access/(test_auth_api|test_oidc_real_provider|test_permission_leak_matrix)\.py#tests/integration/access/\1.py#g' \
  -e 's#\btests\.access\.test_scoped_store_properties\b#tests.unit.access.test_scoped_store_properties#g' \
  -e 's#\btests/access/test_scoped_store_properties\.py#tests/unit/access/test_scoped_store_properties.py#g' \
  -e 's#\btests\.sources\.test_permission_sync\b#tests.integration.sources.test_permission_sync#g' \
  -e 's#\btests/sources/test_permission_sync\.py#tests/integration/sources/test_permission_sync.py#g' \
  -e 's#\btests/unit/test_gates\.py#tests/integration/test_gates.py#g' \
  -e 's#\btests\.unit\.test_gates\b#tests.integration.test_gates#g' \
  -e 's#\btests/access\b/?#tests/{unit,integration}/access/#g' \
  -e 's#\btests/sources\b/?#tests/integration/sources/#g' \
  "${files[@]}"
# the OIDC test finds the repository one folder further up
f=$T/integration/access/test_oidc_real_provider.py
if [ -f "$f" ]; then sed -i 's#Path(__file__).resolve().parents\[3\]#Path(__file__).resolve().parents[4]#' "$f"; fi
mapfile -t py < <(printf '%s\n' "${files[@]}" | grep '^backend/.*\.py$' || true)
if [ ${#py[@]} -gt 0 ]; then
  (cd backend && ../.venv/bin/python -m ruff check -q --fix --select I001 "${py[@]/#backend\//}" || true)
  (cd backend && ../.venv/bin/python -m ruff format -q "${py[@]/#backend\//}")
fi
echo "rewrote ${#files[@]} files"
