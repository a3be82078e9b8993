"""The conversion worker: ``python -m devkb.sources.formats.worker MEMORY_BYTES``, started by
``sandbox.ConversionPool``. It limits its own address space (``RLIMIT_AS``) before importing a
parser, then converts one file per request until its input closes.

Protocol on stdin/stdout, each frame a 4-byte big-endian length and its bytes: a request is a
JSON header (``op``, ``name``, ``charset``, ``limits``) and a frame of the file's bytes; the answer is one JSON
frame: ``{"ok": Converted}`` or ``{"unreadable": reason}``. JSON, never pickle: the server trusts
nothing a worker that parsed hostile bytes says beyond its fields. A worker says
``{"ready": true}`` once its parsers are loaded, so a file's time-out does not count its start. The CPU time of each request is
capped too (``RLIMIT_CPU``, a backstop to the pool's wall-clock time-out: the kernel ends a
worker that spins). After a ``MemoryError`` the worker answers and exits (its heap may be
fragmented); the pool starts another.
"""

from __future__ import annotations

import json
import os
import resource
import struct
import sys
from typing import Any, BinaryIO

HEADER = struct.Struct(">I")
MB = 1_000_000


def read_frame(stream: BinaryIO) -> bytes | None:
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        return None
    (size,) = HEADER.unpack(head)
    data = stream.read(size)
    return data if len(data) == size else None


def write_frame(stream: BinaryIO, data: bytes) -> None:
    stream.write(HEADER.pack(len(data)) + data)
    stream.flush()


def _answer(
    op: str, name: str, data: bytes, limits_dict: dict[str, Any], charset: str | None = None
) -> dict[str, Any]:
    from devkb.sources.formats.convert import convert_in_process, html_page_in_process
    from devkb.sources.formats.limits import ConversionLimits
    from devkb.sources.formats.unreadable import Unreadable

    limits = ConversionLimits.from_dict(limits_dict)
    try:
        if op == "html":
            converted = html_page_in_process(data, limits, charset)
        else:
            converted = convert_in_process(name, data, limits)
    except Unreadable as e:
        return {"unreadable": e.reason}
    return {"ok": converted.to_dict()}


def _cap_cpu(seconds: float) -> None:
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = used.ru_utime + used.ru_stime
    _, hard = resource.getrlimit(resource.RLIMIT_CPU)
    soft = int(spent + seconds) + 2
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _out_of_memory(memory: int) -> str:
    return f"needs more than {memory / MB:,.0f} MB of memory to convert (conversion_memory_mb)"


def _peak_address_space() -> int:
    """The most address space this process has held (``VmPeak``), in bytes; 0 if unknown."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmPeak:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    memory = int(args[0]) if args else 0
    if memory > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    # the protocol gets its own descriptor; anything a library prints goes to stderr
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    stdin = sys.stdin.buffer
    from devkb.sources.formats.convert import html_to_markdown

    try:  # trafilatura sets itself up on its first page (about a second): not on a person's file
        html_to_markdown("<html><body><article><p>Ready to convert.</p></article></body></html>")
    except Exception:
        pass

    write_frame(out, b'{"ready": true}')  # the pool's time per file starts after this

    while True:
        header = read_frame(stdin)
        data = read_frame(stdin)
        if header is None or data is None:
            return 0
        request = json.loads(header)
        limits = request.get("limits", {})
        _cap_cpu(float(limits.get("seconds", 60)))
        fatal = False
        try:
            charset = request.get("charset")
            answer = _answer(
                str(request.get("op")),
                str(request.get("name")),
                data,
                limits,
                str(charset) if charset else None,
            )
        except MemoryError:
            answer = {"unreadable": _out_of_memory(memory)}
            fatal = True
        except RecursionError:
            answer = {"unreadable": "nested too deeply to convert"}
        except Exception as e:  # a parser's bug on hostile bytes is that file's problem, not the server's
            answer = {"unreadable": f"cannot convert: {type(e).__name__}: {e}"[:2000]}
        del data
        if "unreadable" in answer and memory > 0 and _peak_address_space() > 0.9 * memory:
            # a C library out of memory often says something else (libxml2: "unknown error")
            answer = {"unreadable": _out_of_memory(memory)}
            fatal = True
        if fatal:
            answer["retire"] = True
        try:
            write_frame(out, json.dumps(answer).encode())
        except MemoryError:
            write_frame(out, b'{"unreadable": "its text is too large to return (conversion_memory_mb)"}')
            fatal = True
        if fatal:
            return 3


if __name__ == "__main__":
    sys.exit(main())
