"""Load generators: a real ``devkb serve`` process, closed-loop HTTP clients against it, and
closed-loop worker threads against an in-process function.

Closed loop: each of N clients sends a request, waits for the answer, sends the next, for a
fixed time; latency is per request, throughput is requests completed ÷ wall time. Clients cycle
through the question list from different offsets, so concurrent clients ask different things.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httptools
import httpx
import uvloop

from devkb_devtools.bench.measure import hwm_bytes, latency_figures, process_tree, rss_bytes
from devkb_devtools.bench.server_process import DevkbServer
from devkb_devtools.bench.workspace import BenchError


def embedder_env(embedder: object) -> dict[str, str]:
    """``DEVKB_*`` settings that make a server embed queries like ``embedder`` (unwrapping the
    bench's and the cache's wrappers), so it opens a store that embedder wrote. ONNX keeps its
    export cache, so the server does not export the model again."""
    while hasattr(embedder, "inner"):
        embedder = embedder.inner
    name = type(embedder).__name__
    if name == "OnnxMiniLMEmbedder":
        return {
            "DEVKB_EMBEDDER": "onnx",
            "DEVKB_ONNX_PRECISION": str(getattr(embedder, "precision", "int8")),
            "DEVKB_MODEL_CACHE_DIR": str(Path(getattr(embedder, "cache_dir", ".")).resolve()),
        }
    if name == "LocalMiniLMEmbedder":
        return {"DEVKB_EMBEDDER": "local"}
    return {}


class ServerProcess(DevkbServer):
    """``devkb serve --no-index`` on 127.0.0.1 over ``data_dir``, extractive, no scheduler."""

    def __init__(
        self,
        data_dir: Path,
        sources_file: Path | None,
        timeout: float = 600.0,
        env: dict[str, str] | None = None,
        args: tuple[str, ...] = (),
        name: str = "server",
    ) -> None:
        extra = dict(env or {})
        if sources_file is not None:
            extra["DEVKB_SOURCES_FILE"] = str(sources_file)
        super().__init__(
            data_dir,
            env=extra,
            index=False,
            timeout=timeout,
            log_path=data_dir.parent / f"{data_dir.name}-{name}.log",
            args=args,
        )
        self.headers = {"X-API-Key": self.env["DEVKB_API_KEY"]} if self.env.get("DEVKB_API_KEY") else {}

    def memory(self) -> dict[str, int | None]:
        """Resident memory of the server: its process and, with ``--workers``, every worker."""
        pids = process_tree(self.proc.pid) if self.proc else []
        rss = [rss_bytes(p) for p in pids]
        peak = [hwm_bytes(p) for p in pids]
        return {
            "rss_bytes": sum(x for x in rss if x) if pids else None,
            "peak_rss_bytes": sum(x for x in peak if x) if pids else None,
            "processes": len(pids),
        }

    def ask(self, question: str, timeout: float = 120.0) -> float:
        """One POST /ask; its latency in seconds (raises on a non-200 answer or a timeout)."""
        start = time.perf_counter()
        response = httpx.post(
            self.base_url + "/ask", json={"question": question}, headers=self.headers, timeout=timeout
        )
        if response.status_code != 200:
            raise BenchError(f"POST /ask answered {response.status_code}: {response.text[:300]}")
        return time.perf_counter() - start


class _Connection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection of a closed-loop client: a request is written whole,
    the answer is parsed by httptools (the C parser uvicorn serves with) and discarded — only its
    status and whether the server keeps the connection are kept."""

    def __init__(self) -> None:
        self.parser = httptools.HttpResponseParser(self)
        self.transport: asyncio.Transport | None = None
        self.waiter: asyncio.Future[tuple[int, bool]] | None = None
        self.lost: BaseException | None = None
        self.session: bytes | None = None  # the X-Session-ID of the first answer: this client's chat

    def on_header(self, name: bytes, value: bytes) -> None:  # httptools' callback
        if self.session is None and name.lower() == b"x-session-id":
            self.session = value

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserError as e:
            self._fail(e)

    def on_message_complete(self) -> None:  # httptools' callback
        status, keep = self.parser.get_status_code(), self.parser.should_keep_alive()
        self.parser = httptools.HttpResponseParser(self)
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_result((status, keep))

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = exc or ConnectionResetError("the server closed the connection")
        self._fail(self.lost)

    def _fail(self, exc: BaseException) -> None:
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(exc)
        if self.transport is not None:
            self.transport.close()


def _request_parts(
    host: str, port: int, path: str, body: dict[str, Any], headers: dict[str, str]
) -> tuple[bytes, bytes]:
    """A request's head without its closing blank line, and its body, encoded once."""
    data = json.dumps(body).encode()
    head = f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\n"
    head += f"Content-Length: {len(data)}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items())
    return head.encode(), data


async def _http_loop(
    base_url: str,
    path: str,
    bodies: Sequence[dict[str, Any]],
    clients: int,
    seconds: float,
    headers: dict[str, str],
    timeout: float = 120.0,
) -> tuple[list[float], int, float]:
    url = urlsplit(base_url)
    host, port = url.hostname or "127.0.0.1", url.port or 80
    requests = [_request_parts(host, port, path, b, headers) for b in bodies]
    loop = asyncio.get_running_loop()
    latencies: list[float] = []
    errors = 0
    start = time.perf_counter()
    deadline = start + seconds

    async def one(offset: int) -> None:
        nonlocal errors
        conn: _Connection | None = None
        session: bytes | None = None  # one conversation per client, like a person in the chat panel
        i = offset
        while time.perf_counter() < deadline:
            try:
                if conn is None or conn.lost is not None:
                    _, conn = await loop.create_connection(_Connection, host, port)
                assert conn.transport is not None
                conn.waiter = loop.create_future()
                t = time.perf_counter()
                head, data = requests[i % len(requests)]
                own = b"X-Session-ID: " + session + b"\r\n" if session else b""
                conn.transport.write(head + own + b"\r\n" + data)
                status, keep = await asyncio.wait_for(conn.waiter, timeout)
                if status == 200:
                    latencies.append(time.perf_counter() - t)
                    session = session or conn.session
                else:
                    errors += 1
                if not keep:
                    conn.transport.close()
                    conn = None
            except (OSError, httptools.HttpParserError, TimeoutError):
                errors += 1
                if conn is not None and conn.transport is not None:
                    conn.transport.close()
                conn = None
                await asyncio.sleep(0.05)  # a refused connection does not spin
            i += 1
        if conn is not None and conn.transport is not None:
            conn.transport.close()

    await asyncio.gather(*(one(c * len(bodies) // clients) for c in range(clients)))
    return latencies, errors, time.perf_counter() - start


def http_closed_loop(
    base_url: str,
    path: str,
    bodies: Sequence[dict[str, Any]],
    clients: int,
    seconds: float,
    headers: dict[str, str] | None = None,
) -> dict[str, float]:
    """``clients`` concurrent HTTP clients (one keep-alive connection each) for ``seconds``; each
    client keeps the chat session its first answer named (``X-Session-ID``), as a person in the
    chat panel does with its cookie, so its questions are one conversation.

    The load generator shares the machine with the server, so it is kept lean: uvloop and
    httptools (the event loop and HTTP parser uvicorn serves with), requests encoded once,
    answers parsed and dropped. About 0.25 ms of CPU per request on the 2-core bench machine,
    where httpx's client took ~2.2 ms — a fifth of what the server spends on an extractive
    answer, taken from the same two cores (docs/deployment.md, "The load generator")."""
    cpu = time.process_time()
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        latencies, errors, wall = runner.run(
            _http_loop(base_url, path, bodies, clients, seconds, headers or {})
        )
    if not latencies:
        raise BenchError(f"no successful request to {path} in {seconds} s ({errors} errors)")
    return {
        **latency_figures(latencies),
        "throughput_per_s": len(latencies) / wall,
        "errors": float(errors),
        # this process's CPU per answer: the load generator's share of the cores it shares
        "client_cpu_ms": (time.process_time() - cpu) / len(latencies) * 1000,
    }


def thread_closed_loop(
    fn: Callable[[Any], Any], args: Sequence[Any], workers: int, seconds: float
) -> dict[str, float]:
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
