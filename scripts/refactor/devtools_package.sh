#!/usr/bin/env bash
# Issue 27: the development tooling becomes its own top-level package, `devkb_devtools`, instead of
# extending the product's `devkb` package from a second distribution. Mechanical and idempotent:
#   scripts/refactor/devtools_package.sh          # move the folder (once) and rewrite every tracked file
#   scripts/refactor/devtools_package.sh FILE...  # rewrite only these files (e.g. new code on another branch)
# Rewrites `devkb.{demo,emulators,bench,evaluation,testkit}` (imports, `python -m`, mypy modules) to
# `devkb_devtools.…`, and the folder `backend/devtools/src/devkb/` to `backend/devtools/src/devkb_devtools/`.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [ $# -eq 0 ]; then
  if [ -d backend/devtools/src/devkb ] && [ ! -d backend/devtools/src/devkb_devtools ]; then
    git mv backend/devtools/src/devkb backend/devtools/src/devkb_devtools
  fi
  mapfile -t files < <(git grep -lIE '\bdevkb[./](demo|emulators|bench|evaluation|testkit)\b|devtools/src/devkb\b|"devtools" / "src" / "devkb"' -- . ':!scripts/refactor/')
else
  files=("$@")
fi
[ ${#files[@]} -eq 0 ] && exit 0
sed -i -E \
  -e 's#devtools/src/devkb\b#devtools/src/devkb_devtools#g' \
  -e 's#"devtools" / "src" / "devkb"#"devtools" / "src" / "devkb_devtools"#g' \
  -e 's#\bdevkb\.(demo|emulators|bench|evaluation|testkit)\b#devkb_devtools.\1#g' \
  -e 's#(^|[^/_[:alnum:]])devkb/(demo|emulators|bench|evaluation|testkit)\b#\1devkb_devtools/\2#g' \
  "${files[@]}"
# imports re-sorted (devkb_devtools sorts after devkb) and lines re-wrapped, in the rewritten files only
mapfile -t py < <(printf '%s\n' "${files[@]}" | grep '\.py$' | grep -v '/demo/data/' || true)
if [ ${#py[@]} -gt 0 ]; then
  (cd backend && ../.venv/bin/python -m ruff check -q --fix --select I001 "${py[@]/#backend\//}" || true)
  (cd backend && ../.venv/bin/python -m ruff format -q "${py[@]/#backend\//}")
fi
echo "rewrote ${#files[@]} files"
