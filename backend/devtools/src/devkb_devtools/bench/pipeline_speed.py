"""Pipeline: what devkb costs besides the embedder, and whether it keeps up with a GPU.

Two embedders stand in for the model, each clearly labelled in the report:

- **pass-through** (:class:`PassThroughEmbedder`, no model): a deterministic unit vector per text
  (one coordinate picked by a CRC of the text), so the whole sync — loaders through the
  emulators, conversion, splitting, reference extraction, store writes, checkpoints — is timed
  with the model's cost taken out. Its chunks/s is "everything except the embedder".
- **simulated remote GPU** (:class:`SimulatedEmbeddingServer`): a real OpenAI-compatible
  ``POST /v1/embeddings`` server on 127.0.0.1, used through devkb's own ``DEVKB_EMBEDDER=openai``
  path (``OpenAICompatibleEmbedder``, the ``openai`` client, base64 vectors). It serves one batch at
  a time, like one GPU, and holds each batch ``len(batch) / rate`` seconds (rate 2,500 chunks/s,
  measured for the bundled model in fp16 on an H100), then answers with dense 384-d vectors in
  the encoding the client asked for (base64 float32 or JSON floats). The vectors come from a
  table made at start (a row picked by a CRC of the text): the GPU service it stands in for runs
  on a machine of its own, so the simulator should take as little as possible of the cores the
  benchmark measures (0.7 ms of CPU per request of 32 texts, against 2.0 ms when it drew a
  random vector per text).

Both index the whole Fluid corpus into a fresh store with the emulators' vendor-description
check off (a conformance check of the emulators that the test suite runs; a vendor's server does
not pay it). The same run also measures the pass-through with the previous defaults (no
read-ahead, one request at a time, store writes in the sync's own process) as its baseline.

    python -m devkb_devtools.bench run --only pipeline --repeats N   # as make bench measures it
    python -m devkb_devtools.bench.pipeline_speed --request-cpu   # CPU per request, client and simulator

Run on its own (``python -m devkb_devtools.bench.pipeline_speed [--repeats N]``), the figures are
lower: the store's write process is spawned, and a spawned process first re-imports the module
its parent ran as ``__main__`` — this one, with numpy and devkb's embedders (~3.5 s of CPU taken
from the cores the sync runs on, as ``devkb`` itself paid until its script pointed at
``devkb.cli.entry``, docs/deployment.md). ``python -m devkb_devtools.bench`` runs a package's
``__main__``, which a spawned process never re-imports.
"""

from __future__ import annotations

import argparse
import base64
import functools
import json
import logging
import multiprocessing
import os
import shutil
import tempfile
import threading
import time
import urllib.request
import zlib
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import numpy as np
from pydantic import SecretStr

from devkb.indexing.embedders.base import TextEmbedder
from devkb_devtools.bench.measure import (
    CollectorClock,
    RssSampler,
    Summary,
    cpu_by_process,
    cpu_seconds,
    load_average,
    machine,
    utc_now,
)
from devkb_devtools.bench.workspace import REPO_ROOT, Corpus, Workspace, corpus

log = logging.getLogger(__name__)

DIMENSION = 384
GPU_CHUNKS_PER_S = 2500.0
PIPELINE_TARGET = 3000.0  # chunks/s outside the embedder (issue #28, point 2)
REMOTE_TARGET_S = 20.0  # whole Fluid with the simulated GPU


class PassThroughEmbedder:
    """No model: a deterministic one-hot unit vector per text (labelled as such in the report)."""

    model_name = "bench/pass-through-384"
    dimension = DIMENSION

    def warm_up(self) -> None:
        pass

    def check(self) -> str | None:
        return None

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIMENSION), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, zlib.crc32(text.encode("utf-8", "replace")) % DIMENSION] = 1.0
        return out


class _GpuHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY, as the servers it stands in for have it (uvicorn, any asyncio server): with
    # Nagle on, a small answer's body waited for the client's delayed ACK of its headers — 44 ms
    # per request of 4 texts against 0.6 ms (whole-Fluid runs mostly send ~30: no change there)
    disable_nagle_algorithm = True
    gpu: _SimulatedGpu

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _reply(self, status: int, payload: dict[str, Any]) -> None:
        body = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        if self.path.rstrip("/") == "/stats":
            self._reply(200, self.gpu.stats())
        else:
            self._reply(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})

    def do_POST(self) -> None:
        if self.path.rstrip("/") not in ("/v1/embeddings", "/embeddings"):
            self._reply(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
            return
        try:
            request = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
            inputs = request["input"]
            texts = [inputs] if isinstance(inputs, str) else list(inputs)
            if not texts or not all(isinstance(t, str) for t in texts):
                raise ValueError("input must be a string or a non-empty list of strings")
        except (ValueError, KeyError, TypeError) as e:
            self._reply(400, {"error": {"message": str(e), "type": "invalid_request_error"}})
            return
        self._reply(200, self.gpu.answer(texts, request.get("model", ""), request.get("encoding_format")))


TABLE_ROWS = 4096


@functools.cache
def _table(dimension: int) -> tuple[np.ndarray, tuple[str, ...]]:
    """The simulated model's vectors: ``TABLE_ROWS`` dense unit vectors (fixed seed) and each
    one's base64 float32 form, made once — the simulator runs on the cores it measures, while
    the GPU service it stands in for has a machine of its own, so it spends next to no CPU."""
    v = np.random.default_rng(2500).standard_normal((TABLE_ROWS, dimension), dtype=np.float32)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return v, tuple(base64.b64encode(row.astype("<f4").tobytes()).decode() for row in v)


def _row(text: str) -> int:
    return zlib.crc32(text.encode("utf-8", "replace")) % TABLE_ROWS


def dense_vector(text: str, dimension: int = DIMENSION) -> np.ndarray:
    """The simulated model's vector of ``text``: dense, unit length, a function of the text."""
    out: np.ndarray = _table(dimension)[0][_row(text)]
    return out


class _SimulatedGpu:
    def __init__(self, rate: float, dimension: int) -> None:
        self.rate = rate
        self.dimension = dimension
        self.lock = threading.Lock()
        self.requests = 0
        self.texts = 0
        self.busy_seconds = 0.0

    def stats(self) -> dict[str, Any]:
        with self.lock:
            return {
                "server_requests": self.requests,
                "server_texts": self.texts,
                "server_busy_seconds": self.busy_seconds,
            }

    def answer(self, texts: list[str], model: str, encoding: str | None) -> dict[str, Any]:
        vectors, encoded = _table(self.dimension)
        with self.lock:  # one batch at a time on the "GPU"
            start = time.perf_counter()
            rows = [_row(t) for t in texts]
            remaining = len(texts) / self.rate - (time.perf_counter() - start)
            if remaining > 0:
                time.sleep(remaining)
            self.busy_seconds += time.perf_counter() - start
            self.requests += 1
            self.texts += len(texts)
        data = [
            {
                "object": "embedding",
                "index": i,
                "embedding": encoded[r] if encoding == "base64" else [float(x) for x in vectors[r]],
            }
            for i, r in enumerate(rows)
        ]
        tokens = sum(len(t) // 4 + 1 for t in texts)
        return {
            "object": "list",
            "data": data,
            "model": model,
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
        }


def _serve(rate: float, dimension: int, ports: Any) -> None:
    handler = type("Handler", (_GpuHandler,), {"gpu": _SimulatedGpu(rate, dimension)})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    _table(dimension)  # made before it reports ready
    ports.put(httpd.server_address[1])
    httpd.serve_forever()


class SimulatedEmbeddingServer:
    """An OpenAI-compatible embeddings endpoint on loopback that answers like one GPU serving
    ``rate`` chunks/s: batches are served one at a time, each held ``len(batch) / rate`` s. It
    runs in its own process, as a GPU service would (it shares the cores, not devkb's GIL)."""

    def __init__(self, rate: float = GPU_CHUNKS_PER_S, dimension: int = DIMENSION) -> None:
        self.rate = rate
        self.dimension = dimension
        self._process: multiprocessing.process.BaseProcess | None = None
        self.port = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/stats", timeout=10) as r:
            out: dict[str, Any] = json.loads(r.read())
        out["mean_batch"] = out["server_texts"] / max(1, out["server_requests"])
        return out

    def __enter__(self) -> Self:
        ctx = multiprocessing.get_context("spawn")
        ports = ctx.Queue()
        self._process = ctx.Process(
            target=_serve, args=(self.rate, self.dimension, ports), name="simulated-gpu", daemon=True
        )
        self._process.start()
        self.port = int(ports.get(timeout=60))
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.join(10)
            self._process = None


def remote_embedder(server: SimulatedEmbeddingServer, concurrency: int) -> TextEmbedder:
    """devkb's own OpenAI-compatible embedder (``DEVKB_EMBEDDER=openai``) pointed at ``server``."""
    from devkb.config.settings import Settings
    from devkb.container import build_embedder

    return build_embedder(
        Settings(
            embedder="openai",
            openai_api_key=SecretStr("bench-loopback"),
            openai_base_url=server.base_url,
            openai_embed_model="simulated-gpu-all-minilm-l6-v2",
            embed_concurrency=concurrency,
        )
    )


def cpu_split(before: dict[int, float], after: dict[int, float], emulators: int | None) -> dict[str, float]:
    """CPU seconds spent during a sync by this process (the sync: loaders, conversion, splitting,
    references, the embedder's client), by the emulators' process and by the other processes it
    started (the store's write process; the simulated GPU in the remote pass), from two
    :func:`cpu_by_process` readings. A process started during the sync counts from zero."""
    spent = {pid: cpu - before.get(pid, 0.0) for pid, cpu in after.items()}
    me = os.getpid()
    return {
        "sync_process": spent.pop(me, 0.0),
        "emulators": spent.pop(emulators, 0.0) if emulators is not None else 0.0,
        "other_processes": sum(spent.values()),
    }


def index_once(
    whole: Corpus,
    work: Path,
    label: str,
    embedder: TextEmbedder,
    settings: dict[str, Any],
    vendor_check: bool,
) -> dict[str, Any]:
    data_dir = work / label
    shutil.rmtree(data_dir, ignore_errors=True)
    with Workspace(
        whole, data_dir, embedder, settings=settings, vendor_check=vendor_check, emulator_process=True
    ) as ws:
        before = cpu_by_process(os.getpid())
        with RssSampler() as rss, CollectorClock() as collector:
            figures = ws.sync_all()
        cpu = cpu_split(before, cpu_by_process(os.getpid()), ws.emulator_pid)
        stats = ws.store.stats()
    shutil.rmtree(data_dir, ignore_errors=True)
    out = {
        "label": label,
        "settings": settings,
        "vendor_check": vendor_check,
        "seconds": figures.seconds,
        "documents": stats.documents,
        "chunks": stats.chunks,
        "chunks_per_s": stats.chunks / figures.seconds,
        "per_source_seconds": figures.per_source_seconds,
        "peak_rss_bytes": rss.peak,
        "cpu_seconds": cpu,
        # the sync's process: its garbage collector's share (devkb/indexing/heap.py)
        "collector": {
            "seconds": collector.seconds,
            "collections": collector.collections,
            "full_collections": collector.full_collections,
        },
        "load_average_after": load_average(),
    }
    log.info(
        "%s: %.1f s, %.0f chunks/s (load %.1f)",
        label,
        out["seconds"],
        out["chunks_per_s"],
        os.getloadavg()[0],
    )
    return out


def run(repeats: int, work: Path, whole: Corpus | None = None) -> dict[str, Any]:
    whole = whole or corpus("fluid-full")
    if whole is None:
        return {"skipped": "the Fluid corpus is absent (set DEVKB_FLUID_DATA)"}
    work.mkdir(parents=True, exist_ok=True)
    passes: dict[str, list[dict[str, Any]]] = {"baseline": [], "pass_through": [], "remote": []}
    remote: dict[str, Any] = {}
    for _ in range(repeats):
        # same run, interleaved: the previous defaults, the current ones, the simulated GPU
        passes["baseline"].append(
            index_once(
                whole,
                work,
                "baseline",
                PassThroughEmbedder(),
                {"sync_prefetch": 0, "sync_write_process": False},
                vendor_check=False,
            )
        )
        passes["pass_through"].append(
            index_once(whole, work, "pass-through", PassThroughEmbedder(), {}, False)
        )
        with SimulatedEmbeddingServer() as server:
            embedder = remote_embedder(server, concurrency=4)
            passes["remote"].append(index_once(whole, work, "remote", embedder, {}, False))
            remote = server.stats()
    summary = {
        name: {
            "chunks_per_s": Summary.of([p["chunks_per_s"] for p in runs], "chunks/s").to_json(),
            "seconds": Summary.of([p["seconds"] for p in runs], "s").to_json(),
        }
        for name, runs in passes.items()
    }
    speedup = Summary.of(
        [
            a["chunks_per_s"] / b["chunks_per_s"]
            for a, b in zip(passes["pass_through"], passes["baseline"], strict=True)
        ]
    )
    cpu = {  # where the pass-through's time goes: core-seconds by process, median over repeats
        part: Summary.of([p["cpu_seconds"][part] for p in passes["pass_through"]], "s").to_json()
        for part in ("sync_process", "emulators", "other_processes")
    }
    collector = {  # the sync's process: its garbage collector during the pass-through, median
        "seconds": Summary.of([p["collector"]["seconds"] for p in passes["pass_through"]], "s").to_json(),
        "full_collections": Summary.of(
            [p["collector"]["full_collections"] for p in passes["pass_through"]], ""
        ).to_json(),
    }
    through = summary["pass_through"]["chunks_per_s"]["median"]
    remote_s = summary["remote"]["seconds"]["median"]
    chunks = passes["pass_through"][-1]["chunks"]
    return {
        "corpus": whole.description,
        "chunks": chunks,
        "documents": passes["pass_through"][-1]["documents"],
        "gpu_chunks_per_s": GPU_CHUNKS_PER_S,
        "gpu_floor_seconds": chunks / GPU_CHUNKS_PER_S,
        "summary": summary,
        "speedup_vs_baseline": speedup.to_json(),
        "pass_through_cpu_seconds": cpu,
        "pass_through_collector": collector,
        "target_chunks_per_s": PIPELINE_TARGET,
        "remote_server": remote,
        "passes": passes,
        "goals": [
            {
                "goal": "pipeline: whole Fluid chunks/s outside the embedder (pass-through embedder, no model)",
                "target": f"≥ {PIPELINE_TARGET:,.0f}",
                "measured": through,
                "met": through >= PIPELINE_TARGET,
            },
            {
                "goal": f"pipeline: whole Fluid seconds with a remote embedder at {GPU_CHUNKS_PER_S:,.0f} chunks/s "
                "(simulated GPU on loopback)",
                "target": f"≤ {REMOTE_TARGET_S:.0f} s",
                "measured": remote_s,
                "met": remote_s <= REMOTE_TARGET_S,
            },
        ],
    }


def request_cpu(requests: int = 300, batch: int = 32) -> dict[str, float]:
    """CPU per embeddings request of ``batch`` Fluid-sized texts (~900 characters), one request at
    a time against the simulated GPU with no hold: devkb's client (this process) and the
    simulator's process, in milliseconds. What each request costs besides the GPU's own time."""

    def own_cpu() -> float:
        t = os.times()
        return t.user + t.system

    texts = [f"chunk {i} " + "text of a typical Fluid chunk " * 30 for i in range(requests * batch)]
    with SimulatedEmbeddingServer(rate=1e9) as server:
        assert server._process is not None and server._process.pid is not None
        embedder = remote_embedder(server, concurrency=1)
        embedder.embed(texts[:batch])  # connection and first-use costs out of the figure
        server_before, client_before, start = cpu_seconds(server._process.pid), own_cpu(), time.perf_counter()
        for i in range(0, len(texts), batch):
            embedder.embed(texts[i : i + batch])
        wall = time.perf_counter() - start
        client, server_cpu = own_cpu() - client_before, cpu_seconds(server._process.pid) - server_before
    return {
        "requests": requests,
        "batch": batch,
        "wall_ms": wall / requests * 1000,
        "client_cpu_ms": client / requests * 1000,
        "simulator_cpu_ms": server_cpu / requests * 1000,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devkb_devtools.bench.pipeline_speed", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "artifacts" / "bench")
    parser.add_argument("--doc", type=Path, default=None, help="re-render this report afterwards")
    parser.add_argument(
        "--request-cpu",
        action="store_true",
        help="only print the CPU per embeddings request of the client and of the simulator",
    )
    args = parser.parse_args(argv)
    if args.request_cpu:
        print(json.dumps({k: round(v, 3) for k, v in request_cpu().items()}))
        return 0
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s", datefmt="%H:%M:%S")
    for noisy in (
        "httpx",
        "httpx2",
        "openai",
        "haystack",
        "devkb_devtools.emulators",
        "devkb.indexing",
        "devkb.sources",
        "urllib3",
    ):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="devkb-pipeline-", dir=os.environ.get("DEVKB_BENCH_TMP")) as tmp:
        result = run(args.repeats, Path(tmp))
    payload = {
        "benchmark": "pipeline",
        "date": utc_now(),
        "command": f"python -m devkb_devtools.bench.pipeline_speed --repeats {args.repeats}",
        "machine": machine(),
        "benchmark_seconds": time.perf_counter() - started,
        "load_average_at_end": load_average(),
        **result,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "pipeline.json").write_text(
        json.dumps(payload, indent=2, default=str) + "\n", encoding="utf-8"
    )
    if args.doc is not None:
        from devkb_devtools.bench.report import write_report

        write_report(args.out, args.doc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
