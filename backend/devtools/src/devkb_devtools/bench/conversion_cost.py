"""What converting in a worker process costs per file: each document converted in this process
(``convert_in_process``, as before the workers) and through the conversion pool
(``convert_bytes``: the bytes through a pipe, the text back as JSON), alternating, ``--repeats``
times; and what starting a worker costs (once per pool, again after a time-out or every
``MAX_TASKS`` files).

    python -m devkb_devtools.bench.conversion_cost [--repeats 30] [--json OUT]

The documents are the test suite's real ones (a 7-page PDF of the Python manual, its HTML) and
a DOCX written with python-docx (200 paragraphs, headings, a table). Wall time of the calling
thread; the machine is shared, so medians and the spread are reported.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from devkb.sources.formats import ConversionLimits, convert_bytes
from devkb.sources.formats.convert import convert_in_process
from devkb.sources.formats.sandbox import ConversionPool, conversion_pool

DOCUMENTS = Path(__file__).resolve().parents[4] / "tests" / "data" / "documents"


def _docx() -> bytes:
    import docx

    d = docx.Document()
    d.add_heading("Ledger runbook", 0)
    for n in range(200):
        if n % 20 == 0:
            d.add_heading(f"Section {n // 20}", 1)
        d.add_paragraph(f"Paragraph {n}: drain the queue, stop the writer, then run the ledger check.")
    table = d.add_table(rows=5, cols=3)
    for row in table.rows:
        for cell in row.cells:
            cell.text = "cell"
    out = io.BytesIO()
    d.save(out)
    return out.getvalue()


def documents() -> list[tuple[str, bytes]]:
    html = (DOCUMENTS / "guide" / "secrets.html").read_bytes()
    return [
        ("zipapp.pdf", (DOCUMENTS / "zipapp.pdf").read_bytes()),
        ("runbook.docx", _docx()),
        ("page.html", html),
        ("notes.md", (DOCUMENTS / "notes.md").read_bytes()),
    ]


def _ms(samples: list[float]) -> dict[str, float]:
    return {
        "median_ms": round(statistics.median(samples) * 1000, 2),
        "min_ms": round(min(samples) * 1000, 2),
        "max_ms": round(max(samples) * 1000, 2),
    }


def measure(repeats: int) -> dict[str, Any]:
    limits = ConversionLimits()
    started = time.perf_counter()
    pool = ConversionPool(limits, workers=1)
    pool.convert("warm.md", b"# warm\n")  # text is converted here: start a worker with a real format
    pool.convert(*documents()[0])
    start_seconds = time.perf_counter() - started
    pool.close()
    rows = []
    conversion_pool()  # the process's pool, warmed below
    for name, data in documents():
        convert_bytes(name, data)
        here, there = [], []
        for _ in range(repeats):
            t = time.perf_counter()
            convert_in_process(name, data, limits)
            here.append(time.perf_counter() - t)
            t = time.perf_counter()
            convert_bytes(name, data)
            there.append(time.perf_counter() - t)
        overhead = [b - a for a, b in zip(here, there, strict=True)]
        rows.append(
            {
                "file": name,
                "bytes": len(data),
                "in_process": _ms(here),
                "worker": _ms(there),
                "overhead_median_ms": round(statistics.median(overhead) * 1000, 2),
            }
        )
    return {"repeats": repeats, "worker_start_and_first_pdf_seconds": round(start_seconds, 2), "files": rows}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    result = measure(args.repeats)
    for row in result["files"]:
        print(
            f"{row['file']:14} {row['bytes'] / 1000:8.1f} kB  in process {row['in_process']['median_ms']:8.2f} ms"
            f"  in a worker {row['worker']['median_ms']:8.2f} ms  overhead {row['overhead_median_ms']:6.2f} ms"
        )
    print(f"a worker's start (and its first PDF): {result['worker_start_and_first_pdf_seconds']} s")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
