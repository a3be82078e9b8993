"""Load generators: a real ``devkb serve`` process, closed-loop HTTP clients against it, and
closed-loop worker threads against an in-process function.

Closed loop: each of N clients sends a request, waits for the answer, sends the next, for a
fixed time; latency is per request, throughput is requests completed ÷ wall time. Clients cycle
through the question list from different offsets, so concurrent clients ask different things.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import httpx

from devkb.bench.measure import hwm_bytes, latency_figures, rss_bytes
from devkb.bench.workspace import BenchError


def embedder_env(embedder: object) -> dict[str, str]:
    """``DEVKB_*`` settings that make a server embed queries like ``embedder`` (unwrapping the
    bench's and the cache's wrappers), so it opens a store that embedder wrote. ONNX keeps its
    export cache, so the server does not export the model again."""
    while hasattr(embedder, "inner"):
        embedder = embedder.inner
    name = type(embedder).__name__
    if name == "OnnxMiniLMEmbedder":
        return {"DEVKB_EMBEDDER": "onnx", "DEVKB_ONNX_PRECISION": str(embedder.precision),  # type: ignore[attr-defined]
                "DEVKB_MODEL_CACHE_DIR": str(Path(embedder.cache_dir).resolve())}  # type: ignore[attr-defined]
    if name == "LocalMiniLMEmbedder":
        return {"DEVKB_EMBEDDER": "local"}
    return {}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``devkb serve --no-index`` on 127.0.0.1 over ``data_dir``, extractive, no scheduler."""

    def __init__(self, data_dir: Path, sources_file: Path | None, timeout: float = 600.0,
                 env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.data_dir = data_dir
        self.timeout = timeout
        self.env = {**os.environ, "DEVKB_DATA_DIR": str(data_dir), "DEVKB_LLM_PROVIDER": "none",
                    "DEVKB_SCHEDULER_ENABLED": "false", **(env or {})}
        if sources_file is not None:
            self.env["DEVKB_SOURCES_FILE"] = str(sources_file)
        self.log_path = data_dir.parent / f"{data_dir.name}-server.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.headers = {"X-API-Key": self.env["DEVKB_API_KEY"]} if self.env.get("DEVKB_API_KEY") else {}

    def __enter__(self) -> Self:
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "devkb", "serve", "--no-index", "--host", "127.0.0.1", "--port", str(self.port)],
            env=self.env, stdout=self._log, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BenchError(f"devkb serve exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(self.base_url + "/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.__exit__(None, None, None)
        raise BenchError(f"devkb serve did not become healthy in {self.timeout:.0f} s:\n{self.log()}")

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")[-4000:]

    def memory(self) -> dict[str, int | None]:
        pid = self.proc.pid if self.proc else None
        return {"rss_bytes": rss_bytes(pid) if pid else None, "peak_rss_bytes": hwm_bytes(pid) if pid else None}

    def ask(self, question: str, timeout: float = 120.0) -> float:
        """One POST /ask; its latency in seconds (raises on a non-200 answer or a timeout)."""
        start = time.perf_counter()
        response = httpx.post(self.base_url + "/ask", json={"question": question}, headers=self.headers,
                              timeout=timeout)
        if response.status_code != 200:
            raise BenchError(f"POST /ask answered {response.status_code}: {response.text[:300]}")
        return time.perf_counter() - start


async def _http_loop(base_url: str, path: str, bodies: Sequence[dict[str, Any]], clients: int, seconds: float,
                     headers: dict[str, str]) -> tuple[list[float], int, float]:
    latencies: list[float] = []
    errors = 0
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base_url, limits=limits, timeout=120, headers=headers) as client:
        start = time.perf_counter()
        deadline = start + seconds

        async def one(offset: int) -> None:
            nonlocal errors
            i = offset
            while time.perf_counter() < deadline:
                t = time.perf_counter()
                response = await client.post(path, json=bodies[i % len(bodies)])
                if response.status_code == 200:
                    latencies.append(time.perf_counter() - t)
                else:
                    errors += 1
                i += 1

        await asyncio.gather(*(one(c * len(bodies) // clients) for c in range(clients)))
        wall = time.perf_counter() - start
    return latencies, errors, wall


def http_closed_loop(base_url: str, path: str, bodies: Sequence[dict[str, Any]], clients: int, seconds: float,
                     headers: dict[str, str] | None = None) -> dict[str, float]:
    """``clients`` concurrent HTTP clients (one connection each) for ``seconds``."""
    latencies, errors, wall = asyncio.run(_http_loop(base_url, path, bodies, clients, seconds, headers or {}))
    if not latencies:
        raise BenchError(f"no successful request to {path} in {seconds} s ({errors} errors)")
    return {**latency_figures(latencies), "throughput_per_s": len(latencies) / wall, "errors": float(errors)}


def thread_closed_loop(fn: Callable[[Any], Any], args: Sequence[Any], workers: int,
                       seconds: float) -> dict[str, float]:
    """``workers`` threads calling ``fn`` in a closed loop for ``seconds``, in process."""
    latencies: list[float] = []
    lock = threading.Lock()
    start = time.perf_counter()
    deadline = start + seconds

    def loop(offset: int) -> None:
        mine = []
        i = offset
        while time.perf_counter() < deadline:
            t = time.perf_counter()
            fn(args[i % len(args)])
            mine.append(time.perf_counter() - t)
            i += 1
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=loop, args=(w * len(args) // workers,)) for w in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - start
    return {**latency_figures(latencies), "throughput_per_s": len(latencies) / wall, "errors": 0.0}
