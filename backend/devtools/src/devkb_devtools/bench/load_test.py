"""The load test: N concurrent chat sessions against a real ``devkb serve`` on loopback.

Each session has its own cookie jar and a unique token; for ``seconds`` it asks a question that
carries its token (``POST /ask``, extractive mode) and reads its history (``GET /chat/history``).
A churn task meanwhile opens a new session on every request, so the server's session cap
(``DEVKB_MAX_SESSIONS``) is exercised. Checked on every response:

- **errors**: any non-2xx status, timeout or connection error;
- **isolation**: a history holds only its own session's token, the newest question is in it, and
  the session id never changes to one another client holds; no response carries another
  session's token. A session the cap evicted (least recently used: one whose client stalled while
  the churn opened enough new sessions) comes back as a new, empty session with an id nobody else
  has: that is counted as an **eviction**, reported, and the client carries on with the new id;
- **secrets** (optional): no response body contains any of the given strings;
- **memory**: the server's RSS (``/proc/<pid>/status``) sampled every second, bounded by the RSS
  after warm-up plus ``rss_growth_limit``.

Bounded in count and time, loopback only::

    python -m devkb_devtools.bench.load_test                          # 50 sessions x 60 s, starts its own server
    python -m devkb_devtools.bench.load_test --sessions 10 --seconds 10 --url http://127.0.0.1:8000 --pid 1234

Writes ``artifacts/bench/load.json`` (``make bench`` lists it in ``docs/benchmarks.md``); exits 1
when a check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import os
import re
import secrets as pysecrets
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

from devkb_devtools.bench.server_process import DevkbServer

QUESTIONS = [
    "What is PAY-12 about?",
    "How do we retry failed webhooks?",
    "Why were customers charged twice in April?",
    "How long are idempotency keys kept?",
    "Which issues are linked to PAY-13?",
    "What does the Payments Ledger Design page say?",
    "Who fixed the rounding bug in the ledger?",
    "What is the retry policy for Meridian calls?",
]
TOKEN = re.compile(r"LT\d{3}[0-9a-f]{8}")
MiB = 2**20
MAX_ERRORS_KEPT = 20


@dataclass
class LoadResult:
    sessions: int
    seconds: float
    asks: int = 0
    history_reads: int = 0
    churn_requests: int = 0
    errors: int = 0
    leaks: int = 0
    evictions: int = 0  # a session the cap dropped came back as a new one (not a leak)
    secret_leaks: int = 0
    latency_ms: dict[str, float] = field(default_factory=dict)
    rss_start_bytes: int | None = None
    rss_peak_bytes: int | None = None
    rss_end_bytes: int | None = None
    rss_limit_bytes: int | None = None
    oldest_churn_session_evicted: bool | None = None  # the cap dropped the first churned session
    problems: list[str] = field(default_factory=list)

    @property
    def requests(self) -> int:
        return self.asks + self.history_reads + self.churn_requests

    @property
    def ok(self) -> bool:
        rss_ok = (
            self.rss_peak_bytes is None
            or self.rss_limit_bytes is None
            or self.rss_peak_bytes <= self.rss_limit_bytes
        )
        return self.errors == 0 and self.leaks == 0 and self.secret_leaks == 0 and rss_ok and self.asks > 0

    def note(self, kind: str, message: str) -> None:
        setattr(self, kind, getattr(self, kind) + 1)
        if len(self.problems) < MAX_ERRORS_KEPT:
            self.problems.append(f"{kind}: {message}")

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "requests": self.requests, "ok": self.ok}


def session_change(owners: dict[str, int], client: int, new: str) -> str:
    """What it means that ``client``'s session id became ``new``: ``"leaks"`` when ``new`` was
    given to another client first (``owners``: session id → client), ``"evictions"`` when it is
    new to everyone (the cap dropped the old session; the server opened a fresh one)."""
    return "evictions" if owners.setdefault(new, client) == client else "leaks"


def require_loopback(url: str) -> None:
    host = urlsplit(url).hostname or ""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        raise SystemExit(f"the load test only targets loopback servers, not {url}")


def rss_bytes(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(p * len(ordered)))] if ordered else 0.0


async def run_load(
    base_url: str,
    sessions: int = 10,
    seconds: float = 10.0,
    *,
    api_key: str | None = None,
    pid: int | None = None,
    rss_growth_limit: int = 256 * MiB,
    churn_interval: float = 0.05,
    forbidden: tuple[str, ...] = (),
    request_timeout: float = 60.0,
) -> LoadResult:
    """Run the load against ``base_url`` (loopback) and return what was measured and found."""
    require_loopback(base_url)
    result = LoadResult(sessions=sessions, seconds=seconds)
    headers = {"X-API-Key": api_key} if api_key else {}
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=4, max_keepalive_connections=4)

    def check_secrets(where: str, text: str) -> None:
        for s in forbidden:
            if s and s in text:
                result.note("secret_leaks", f"{where}: a configured secret is in the response")

    async def call(client: httpx.AsyncClient, method: str, path: str, **kw: Any) -> httpx.Response | None:
        started = time.perf_counter()
        try:
            r = await client.request(method, path, **kw)
        except httpx.HTTPError as e:
            result.note("errors", f"{method} {path}: {type(e).__name__}: {e}")
            return None
        latencies.append((time.perf_counter() - started) * 1000)
        if r.status_code >= 300:
            result.note("errors", f"{method} {path}: HTTP {r.status_code}: {r.text[:200]}")
            return None
        check_secrets(f"{method} {path}", r.text)
        return r

    # warm up (first query loads the vector index), then take the baseline RSS
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=request_timeout) as warm:
        await call(warm, "POST", "/ask", json={"question": QUESTIONS[0]})
    result.rss_start_bytes = rss_bytes(pid) if pid else None
    if result.rss_start_bytes is not None:
        result.rss_limit_bytes = result.rss_start_bytes + rss_growth_limit
    deadline = time.monotonic() + seconds

    owners: dict[str, int] = {}  # session id → the client it was first given to (-1: churn)

    def changed(i: int, old: str, new: str, where: str) -> None:
        kind = session_change(owners, i, new)
        if kind == "leaks":
            result.note(kind, f"session {i}: {where} of session {new}, client {owners[new]}'s, not {old}")
        else:
            result.note(kind, f"session {i}: {old} evicted by the cap; {where} of a new session {new}")

    async def session(i: int) -> None:
        token = f"LT{i:03d}{pysecrets.token_hex(4)}"
        sid: str | None = None
        async with httpx.AsyncClient(
            base_url=base_url, headers=headers, timeout=request_timeout, limits=limits
        ) as client:
            n = 0
            while time.monotonic() < deadline:
                question = f"{QUESTIONS[(i + n) % len(QUESTIONS)]} (ref {token}-{n})"
                r = await call(client, "POST", "/ask", json={"question": question})
                n += 1
                if r is None:
                    continue
                result.asks += 1
                body = r.json()
                if sid is None:
                    sid = body["session_id"]
                    owners.setdefault(sid, i)
                if body["session_id"] != sid:
                    changed(i, sid, body["session_id"], "an answer")
                    sid = body["session_id"]
                if set(TOKEN.findall(r.text)) - {token}:
                    result.note("leaks", f"session {i}: an answer carries another session's token")
                h = await call(client, "GET", "/chat/history")
                if h is None:
                    continue
                result.history_reads += 1
                history = h.json()
                found = set(TOKEN.findall(h.text))
                evicted_between = history["session_id"] != sid
                if evicted_between:
                    changed(i, sid, history["session_id"], "the history")
                    sid = history["session_id"]
                if found - {token}:
                    result.note(
                        "leaks",
                        f"session {i}: history holds other sessions' tokens {sorted(found - {token})}",
                    )
                users = [m["content"] for m in history["messages"] if m["role"] == "user"]
                if not evicted_between and (not users or users[-1] != question):
                    result.note("leaks", f"session {i}: its newest question is missing from its history")

    async def churn() -> None:
        first: str | None = None
        async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=request_timeout) as client:
            while time.monotonic() < deadline:
                client.cookies.clear()  # a new session every time
                r = await call(client, "GET", "/chat/history")
                if r is not None:
                    result.churn_requests += 1
                    first = first or r.json()["session_id"]
                    owners.setdefault(r.json()["session_id"], -1)
                await asyncio.sleep(churn_interval)
            if first is not None:
                client.cookies.clear()
                r = await call(client, "GET", "/chat/history", headers={"X-Session-ID": first})
                if r is not None:
                    result.oldest_churn_session_evicted = r.json()["session_id"] != first

    async def sample_rss() -> None:
        while pid and time.monotonic() < deadline:
            rss = rss_bytes(pid)
            if rss is not None:
                result.rss_peak_bytes = max(result.rss_peak_bytes or 0, rss)
            await asyncio.sleep(1.0)

    started = time.monotonic()
    await asyncio.gather(*(session(i) for i in range(sessions)), churn(), sample_rss())
    result.seconds = round(time.monotonic() - started, 1)
    if pid:
        result.rss_end_bytes = rss_bytes(pid)
        result.rss_peak_bytes = max(result.rss_peak_bytes or 0, result.rss_end_bytes or 0)
    if result.rss_limit_bytes and result.rss_peak_bytes and result.rss_peak_bytes > result.rss_limit_bytes:
        result.problems.append(
            f"rss: peak {result.rss_peak_bytes / MiB:.0f} MiB over the limit "
            f"{result.rss_limit_bytes / MiB:.0f} MiB"
        )
    result.latency_ms = {
        "p50": round(percentile(latencies, 0.5), 1),
        "p95": round(percentile(latencies, 0.95), 1),
        "max": round(max(latencies, default=0.0), 1),
    }
    return result


# -- a server of its own ------------------------------------------------------------------------------


class DemoServer(DevkbServer):
    """``devkb serve --index`` on a free loopback port with the demo workspace (extractive, no
    scheduler); ``env`` adds settings. Stopped on exit."""

    def __init__(self, data_dir: Path, env: dict[str, str] | None = None, timeout: float = 600.0) -> None:
        super().__init__(data_dir, env=env, index=True, timeout=timeout)


def report(result: LoadResult) -> str:
    rss = ""
    if result.rss_start_bytes:
        rss = (
            f"; server RSS {result.rss_start_bytes / MiB:.0f} → peak {(result.rss_peak_bytes or 0) / MiB:.0f} MiB "
            f"(limit {(result.rss_limit_bytes or 0) / MiB:.0f})"
        )
    lines = [
        (
            f"load: {result.sessions} sessions x {result.seconds:.0f} s: {result.asks} asks, {result.history_reads} "
            f"history reads, {result.churn_requests} churn sessions (oldest evicted: "
            f"{result.oldest_churn_session_evicted}); latency p50 {result.latency_ms.get('p50')} ms, "
            f"p95 {result.latency_ms.get('p95')} ms{rss}"
        ),
        (
            f"errors {result.errors}, cross-session leaks {result.leaks}, secret leaks {result.secret_leaks}, "
            f"active sessions evicted by the cap {result.evictions}: " + ("OK" if result.ok else "FAILED")
        ),
        *[f"  {p}" for p in result.problems],
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m devkb_devtools.bench.load_test", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--url", help="an already running server on loopback (default: start one)")
    parser.add_argument("--pid", type=int, help="its process id, for RSS (with --url)")
    parser.add_argument("--api-key", default=os.environ.get("DEVKB_API_KEY"))
    parser.add_argument(
        "--max-sessions",
        type=int,
        default=100,
        help="DEVKB_MAX_SESSIONS of the server this test starts (the cap the churn exercises)",
    )
    parser.add_argument("--rss-growth-mib", type=int, default=384)
    parser.add_argument(
        "--out", type=Path, default=Path(__file__).resolve().parents[5] / "artifacts" / "bench" / "load.json"
    )
    args = parser.parse_args(argv)
    if not 1 <= args.sessions <= 500 or not 1 <= args.seconds <= 3600:
        parser.error("--sessions must be 1-500 and --seconds 1-3600")

    def go(url: str, pid: int | None) -> LoadResult:
        return asyncio.run(
            run_load(
                url,
                args.sessions,
                args.seconds,
                api_key=args.api_key,
                pid=pid,
                rss_growth_limit=args.rss_growth_mib * MiB,
            )
        )

    if args.url:
        result = go(args.url, args.pid)
    else:
        with (
            tempfile.TemporaryDirectory(prefix="devkb-load-") as tmp,
            DemoServer(Path(tmp), {"DEVKB_MAX_SESSIONS": str(args.max_sessions)}) as server,
        ):
            result = go(server.base_url, server.proc.pid if server.proc else None)
    print(report(result))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result.to_json(), indent=2) + "\n", encoding="utf-8")
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
