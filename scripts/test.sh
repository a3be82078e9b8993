#!/usr/bin/env bash
# Every test tier that can run here, one pytest run per tier folder (backend/tests/<tier>) so each
# tier's wall time is printed: unit (in-process, offline), contract (the store protocol on both
# stores), integration (emulators, servers and tools on loopback; corpus tests when ../shared is
# present), llm (a real language model), then the web app's unit and browser (e2e) tests — in two
# lanes at once (below), so the machine's two cores are both used.
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
if [ $# -gt 0 ]; then
  bash scripts/build_llm.sh >/dev/null || { rc=$?; [ $rc -eq 3 ] || exit $rc; }
  cd backend && exec ../.venv/bin/python -m pytest -q -p no:cacheprovider "$@"
fi
# Two lanes on the machine's cores at once (DEVKB_TEST_SERIAL=1: one after the other):
#   lane 1: the integration tier (the longest: servers, emulators, the corpus);
#   lane 2: the gates (lint, format, types, lock, web app lint, stale schema and demo data), unit,
#           contract, the llama-server build (cached in .cache/llm after the first time), the
#           real-model tier, and the web app's unit and browser tests.
# Each tier's wall time and result are printed at the end; lane 2's output is printed whole after
# lane 1's. Every test server takes a free port, so the lanes do not collide.
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT
tier() {  # tier NAME COMMAND...: run one tier, record its wall time and result
  local name=$1; shift
  echo "==> tier: $name"
  local t0=$SECONDS rc=0
  "$@" || rc=$?
  printf '%-12s %5d s%s\n' "$name" $((SECONDS - t0)) "$([ $rc -eq 0 ] || echo '  FAILED')" >> "$results/times"
  [ $rc -eq 0 ] || echo "$name" >> "$results/failed"
}
pytest_tier() { tier "$1" bash -c "cd backend && ../.venv/bin/python -m pytest -q -p no:cacheprovider tests/$1"; }
llm_tier() {
  local t0=$SECONDS status=0
  bash scripts/build_llm.sh >/dev/null || status=$?
  if [ $status -eq 0 ]; then
    echo "==> llama-server and model ready ($((SECONDS - t0)) s; build time recorded in .cache/llm/*/build-seconds)"
  elif [ $status -ne 3 ]; then
    echo "ERROR: building llama-server failed (scripts/build_llm.sh, exit $status)" >&2
    echo "llm (build)" >> "$results/failed"
    return 0
  fi  # exit 3 = no compilers: the tier skips saying so
  pytest_tier llm
}
lane2() {
  tier gates bash scripts/lint.sh
  pytest_tier unit
  pytest_tier contract
  llm_tier
  if [ -f frontend/package.json ] && [ "${DEVKB_SKIP_FRONTEND:-0}" != "1" ]; then
    tier "web app" bash scripts/test_frontend.sh
  fi
}
started=$SECONDS
if [ "${DEVKB_TEST_SERIAL:-0}" = "1" ]; then
  lane2
  pytest_tier integration
else
  echo "==> lane 2 (gates, unit, contract, llm, web app) runs beside the integration tier; its output follows lane 1's"
  lane2 > "$results/lane2.log" 2>&1 &
  lane2_pid=$!
  pytest_tier integration
  wait $lane2_pid || true
  echo "==> lane 2's output"
  cat "$results/lane2.log"
fi
echo "==> wall time per tier (all tiers: $((SECONDS - started)) s)"
sed 's/^/  /' "$results/times"
if [ -s "$results/failed" ]; then
  echo "tiers failed: $(paste -sd' ' "$results/failed")" >&2
  exit 1
fi
