"""Measuring primitives shared by the benchmarks: summaries over repeated runs (median, min,
max), latency percentiles, process memory, and a description of the machine.

Every figure the report shows is a :class:`Summary` of the per-run values, so a reader sees the
spread as well as the middle; ratios are computed per run (both sides measured in that run) and
then summarised, never divided across runs.
"""

from __future__ import annotations

import gc
import os
import platform
import resource
import statistics
import threading
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Self


@dataclass(frozen=True)
class Summary:
    """Median, min and max of the per-run values of one figure."""

    median: float
    min: float
    max: float
    runs: int
    unit: str = ""

    @classmethod
    def of(cls, values: Sequence[float], unit: str = "") -> Summary:
        if not values:
            raise ValueError("a summary needs at least one value")
        return cls(
            float(statistics.median(values)), float(min(values)), float(max(values)), len(values), unit
        )

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) by linear interpolation, like ``numpy.percentile``."""
    if not values:
        raise ValueError("percentile of nothing")
    ordered = sorted(values)
    pos = (len(ordered) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


def latency_figures(seconds: Sequence[float]) -> dict[str, float]:
    """p50/p95/max in milliseconds of one run's latencies."""
    return {
        "p50_ms": 1000 * percentile(seconds, 50),
        "p95_ms": 1000 * percentile(seconds, 95),
        "max_ms": 1000 * max(seconds),
        "count": float(len(seconds)),
    }


def timed_calls(fn: Any, args_list: Sequence[Any]) -> list[float]:
    """Call ``fn(arg)`` for each argument in turn; the seconds each call took."""
    out = []
    for arg in args_list:
        start = time.perf_counter()
        fn(arg)
        out.append(time.perf_counter() - start)
    return out


# -- memory ---------------------------------------------------------------------------------------


def peak_rss_bytes() -> int:
    """High-water mark of this process's resident memory (``ru_maxrss``, KiB on Linux)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def rss_bytes(pid: int | None = None) -> int | None:
    """Current resident memory of a process (``VmRSS``), None when it cannot be read."""
    try:
        text = Path(f"/proc/{pid or 'self'}/status").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return None


def hwm_bytes(pid: int) -> int | None:
    """Peak resident memory of another process (``VmHWM``)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return None


def process_tree(pid: int) -> list[int]:
    """``pid`` and its descendants (Linux ``/proc``; just ``pid`` elsewhere)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            todo += [int(c) for c in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
        except OSError:
            pass
    return out


def cpu_by_process(pid: int) -> dict[int, float]:
    """User + system CPU seconds so far of ``pid`` and of each of its descendants, each its own
    (``/proc/<pid>/stat``; a process that has exited is missing)."""
    out: dict[int, float] = {}
    tick = os.sysconf("SC_CLK_TCK")
    for p in process_tree(pid):
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        out[p] = (int(fields[11]) + int(fields[12])) / tick
    return out


def cpu_seconds(pid: int) -> float:
    """User + system CPU of ``pid`` and its descendants so far."""
    return sum(cpu_by_process(pid).values())


class RssSampler:
    """Samples this process's RSS every ``interval`` seconds while active; ``peak`` is the
    largest sample (``ru_maxrss`` only ever grows, so it cannot give a per-run peak)."""

    def __init__(self, interval: float = 0.1) -> None:
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> Self:
        self.peak = rss_bytes() or 0
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="rss-sampler", daemon=True)
        self._thread.start()
        return self

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, rss_bytes() or 0)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.peak = max(self.peak, rss_bytes() or 0)


class CollectorClock:
    """Time this process's garbage collector spends while active (``gc.callbacks``), and how many
    collections it made — wall time of each collection, which holds the interpreter lock."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self.collections = 0
        self.full_collections = 0
        self._started: dict[int, float] = {}

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._started[threading.get_ident()] = time.perf_counter()
            return
        began = self._started.pop(threading.get_ident(), None)
        if began is not None:
            self.seconds += time.perf_counter() - began
            self.collections += 1
            self.full_collections += info.get("generation") == 2

    def __enter__(self) -> Self:
        gc.callbacks.append(self._callback)
        return self

    def __exit__(self, *exc: object) -> None:
        gc.callbacks.remove(self._callback)


def directory_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in Path(path).rglob("*") if p.is_file())


# -- the machine -------------------------------------------------------------------------------------


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def total_ram_bytes() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def machine() -> dict[str, Any]:
    """Cores, RAM, CPU model, OS and Python, and the load when asked (a load above the core
    count means other processes shared the CPU during the run)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 0
    import numpy

    return {
        "cpu_model": cpu_model(),
        "cores": cores,
        "ram_bytes": total_ram_bytes(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "load_average": load_average(),
        "nice": os.nice(0),
    }


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
