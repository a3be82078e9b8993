"""``ConversionPool``: PDF, DOCX and HTML parsed in worker processes that cannot take the server
with them.

Each worker (``worker.py``, a fresh interpreter started with ``subprocess``, never a fork of the
threaded server) limits its address space to ``memory_bytes`` (``RLIMIT_AS``) and each request's
CPU time; the pool waits at most ``seconds`` for an answer, then kills the worker and starts
another for the next file. A parser that runs out of memory gets a ``MemoryError`` in the worker
(answered as ``Unreadable``); one that crashes or is killed is answered the same way. At most
``workers`` conversions run at once (callers beyond wait their turn), so the conversions' memory
is bounded by ``workers × memory_bytes`` whatever the files are.

Cost: a worker starts once (about a second: the interpreter and the parsers) and is reused for
up to ``MAX_TASKS`` files; a file then costs its bytes through a pipe and its text back as JSON
(``python -m devkb_devtools.bench.conversion_cost``: 1–5 ms a file, a worker's start
about 1.7 s, on the project's 2-core machine).

``configure`` (the container, from the settings) sets the limits and the pool's size for the
process; ``conversion_pool`` is the process's pool, started on first use and closed at exit.
``convert_bytes`` and ``convert_html_page`` are the sources' way in (``convert.py`` holds the
parsers the worker runs and never imports this module).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from devkb.sources.formats.convert import SANDBOXED_FORMATS, Converted, convert_in_process, precheck
from devkb.sources.formats.limits import MB, ConversionLimits
from devkb.sources.formats.unreadable import Unreadable
from devkb.sources.formats.worker import HEADER

START_SECONDS = 60.0  # a worker's start (the interpreter and the parsers loaded); slow disks, busy cores
MAX_TASKS = 500  # files one worker converts before it is replaced (fragmented heaps do not grow forever)
_SRC = str(Path(__file__).resolve().parents[3])  # the directory holding the devkb package


class _Stopped(Exception):
    """The worker ended or stopped answering."""


class ConversionUnavailable(OSError):
    """No conversion worker could be started (the machine, not the file: tried again later)."""


class _Worker:
    def __init__(self, memory_bytes: int) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (_SRC, env.get("PYTHONPATH", "")) if p)
        env.setdefault("OMP_NUM_THREADS", "1")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "devkb.sources.formats.worker", str(memory_bytes)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=env,
            start_new_session=True,  # a Ctrl-C at the server's terminal is the server's to handle
        )
        self.tasks = 0

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        for stream in (self.proc.stdin, self.proc.stdout):
            if stream is not None:
                stream.close()

    def close(self) -> None:
        """Ends the worker as it waits for input (its input closed), or kills it."""
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()
            self.proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired):
            pass
        self.kill()

    def request(self, header: bytes, data: bytes, deadline: float) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.tasks += 1
        try:
            self.proc.stdin.write(HEADER.pack(len(header)) + header)
            self.proc.stdin.write(HEADER.pack(len(data)))
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise _Stopped(self._ended(f"it stopped reading ({e})")) from e
        return self._read(deadline)

    def wait_ready(self, seconds: float = START_SECONDS) -> None:
        try:
            self._read(time.monotonic() + seconds)
        except (TimeoutError, _Stopped) as e:
            self.kill()
            raise ConversionUnavailable(
                f"a conversion worker did not start within {seconds:g} s: {e}"
            ) from None

    def _read(self, deadline: float) -> dict[str, Any]:
        """One JSON frame from the worker, by ``deadline`` (``TimeoutError``)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        size = HEADER.size
        buf = bytearray()
        while len(buf) < size:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                raise TimeoutError
            chunk = os.read(fd, max(size - len(buf), 1 << 16))
            if not chunk:
                raise _Stopped(self._ended("it ended without an answer"))
            buf += chunk
            if size == HEADER.size and len(buf) >= HEADER.size:
                size = HEADER.size + HEADER.unpack(bytes(buf[: HEADER.size]))[0]
        answer: dict[str, Any] = json.loads(bytes(buf[HEADER.size : size]))
        return answer

    def _ended(self, what: str) -> str:
        try:
            code = self.proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            return what
        if code < 0:
            return f"{what}: ended by signal {-code}"
        return f"{what}: exit status {code}"


class ConversionPool:
    def __init__(self, limits: ConversionLimits, workers: int = 2) -> None:
        self.limits = limits
        self.workers = workers
        self._slots = threading.BoundedSemaphore(workers)
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        self._closed = False
        self.started = 0  # workers started (tests, the bench)
        self.killed = 0  # workers killed on a time-out or found ended
        self.converted = 0  # files sent to a worker

    def _take(self) -> _Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.alive():
                    return worker
                worker.kill()
            self.started += 1
        worker = _Worker(self.limits.memory_bytes)
        worker.wait_ready()
        return worker

    def _give(self, worker: _Worker) -> None:
        if worker.tasks >= MAX_TASKS or not worker.alive():
            worker.close()
            return
        with self._lock:
            if not self._closed:
                self._idle.append(worker)
                return
        worker.close()

    def convert(self, name: str, data: bytes, op: str = "convert", charset: str | None = None) -> Converted:
        """``name``'s bytes converted in a worker; raises ``Unreadable`` (also on a time-out, a
        worker out of memory or crashed)."""
        header = json.dumps(
            {"op": op, "name": name, "charset": charset, "limits": self.limits.to_dict()}
        ).encode()
        with self._slots:
            with self._lock:
                self.converted += 1
            worker = self._take()
            deadline = time.monotonic() + self.limits.seconds
            try:
                answer = worker.request(header, data, deadline)
            except TimeoutError:
                self._lost(worker)
                raise Unreadable(
                    f"took longer than {self.limits.seconds:g} s to convert (conversion_seconds)"
                ) from None
            except _Stopped as e:
                self._lost(worker)
                raise Unreadable(
                    f"the converter stopped on this file ({e}; the limit is "
                    f"{self.limits.memory_bytes / MB:,.0f} MB of memory, conversion_memory_mb)"
                ) from None
            except BaseException:
                self._lost(worker)
                raise
            if answer.get("retire"):
                worker.close()
            else:
                self._give(worker)
        if "ok" in answer:
            return Converted.from_dict(answer["ok"])
        raise Unreadable(str(answer.get("unreadable") or "cannot convert"))

    def _lost(self, worker: _Worker) -> None:
        with self._lock:
            self.killed += 1
        worker.kill()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for worker in idle:
            worker.close()


_settings: tuple[ConversionLimits, int] = (ConversionLimits(), 2)
_pool: ConversionPool | None = None
_pool_lock = threading.Lock()


def configure(limits: ConversionLimits, workers: int) -> None:
    """This process's conversion limits and pool size (a running pool with others is replaced)."""
    global _settings, _pool
    with _pool_lock:
        _settings = (limits, workers)
        old, _pool = (_pool, None) if _pool and (_pool.limits, _pool.workers) != _settings else (None, _pool)
    if old is not None:
        old.close()


def conversion_limits() -> ConversionLimits:
    return _settings[0]


def conversion_pool() -> ConversionPool:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ConversionPool(*_settings)
        return _pool


@atexit.register
def _close() -> None:
    with _pool_lock:
        pool = _pool
    if pool is not None:
        pool.close()


def convert_bytes(
    name: str, data: bytes, max_bytes: int | None = None, limits: ConversionLimits | None = None
) -> Converted:
    """Convert ``data`` (the content of a file called ``name``); raises ``Unreadable``.

    PDF, DOCX and HTML are parsed in a worker process with memory and time limits
    (the pool below); text is decoded in this process (its cost is linear in its size, which is
    capped).
    ``limits`` given: everything converted here, in this process, with them (tests)."""
    fmt = precheck(name, data, max_bytes)
    if fmt in SANDBOXED_FORMATS and limits is None:
        return conversion_pool().convert(name, data)
    return convert_in_process(name, data, limits or conversion_limits())


def convert_html_page(data: bytes, charset: str | None = None) -> Converted:
    """``html_page_in_process`` in the conversion worker (the crawler's pages)."""
    return conversion_pool().convert("page.html", data, op="html", charset=charset)
