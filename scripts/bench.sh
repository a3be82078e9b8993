#!/usr/bin/env bash
# make bench [ARGS="--quick | --full | --only query --repeats 5 ..."]: every benchmark, then the
# load test (when present), the replicas' run and /ask with 10,000 memories, then docs/benchmarks.md. The logic lives in backend/devtools/src/devkb_devtools/bench.
# Runs under `nice` so a shared machine stays usable; JSON in artifacts/bench/.
set -euo pipefail
cd "$(dirname "$0")/.."
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
export DEVKB_BENCH_COMMAND="make bench${*:+ ARGS=\"$*\"}"
PY=.venv/bin/python
NICE=${DEVKB_BENCH_NICE:-10}
started=$(date +%s)
status=0
nice -n "$NICE" "$PY" -m devkb_devtools.bench run "$@" || status=$?

# The 50-session load test is its own engineer's tool; run it when it exists (not in --quick).
case " $* " in *" --quick "*) quick=1 ;; *) quick=0 ;; esac
if [ "$quick" = 0 ]; then
  if [ -f scripts/bench_load.sh ]; then
    nice -n "$NICE" bash scripts/bench_load.sh || status=$?
  elif [ -f backend/devtools/src/devkb_devtools/bench/load_test.py ]; then
    nice -n "$NICE" "$PY" -m devkb_devtools.bench.load_test || status=$?
  else
    echo "load test not present yet (backend/devtools/src/devkb_devtools/bench/load_test.py or scripts/bench_load.sh): skipped"
  fi
  # /ask with 1 process and with one per core behind nginx (tests/integration/test_replicas.py's proxy)
  bash scripts/ensure_nginx.sh
  nice -n "$NICE" "$PY" -m devkb_devtools.bench.replicas || status=$?
  # /ask p95 with 10,000 memories against without, in one run (issue 59; ~3 min)
  nice -n "$NICE" "$PY" -m devkb_devtools.bench.memory_ask || status=$?
  # the whole run's wall time (the report's goal: make bench within 30 minutes)
  "$PY" -c 'import json, sys; from devkb_devtools.bench.measure import utc_now
json.dump({"seconds": int(sys.argv[1]), "args": sys.argv[2:], "finished": utc_now()}, open("artifacts/bench/wall.json", "w"))' \
    "$(( $(date +%s) - started ))" "$@"
  "$PY" -m devkb_devtools.bench report   # re-render with the load test's and the replicas' JSON
fi
exit $status
