"""Conversion under limits: every shape of the hostile corpus (``tests/hostile.py``) is answered
with ``Unreadable`` and a reason a person can act on, within seconds, by the real converters in
the real worker processes — and the pool survives time-outs, memory exhaustion and crashes of its
workers."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from devkb.sources.formats import ConversionLimits, Unreadable, convert_bytes
from devkb.sources.formats.sandbox import ConversionPool
from tests import hostile

DOCUMENTS = Path(__file__).resolve().parents[1] / "data" / "documents"
SECONDS = 10  # each hostile file is answered within this (most take well under a second)

CASES: list[tuple[Callable[[], tuple[str, bytes]], str]] = [
    (hostile.docx_paragraph_bomb, "too large after decompression"),
    (hostile.docx_one_run_bomb, "too large after decompression"),
    (hostile.docx_lying_sizes, "corrupt DOCX archive"),
    (hostile.docx_billion_laughs, "defines a document type or entities"),
    (hostile.docx_external_entity, "defines a document type or entities"),
    (hostile.quadratic_blowup_docx, "defines a document type or entities"),
    (hostile.docx_deep_nesting, "a compression bomb"),
    (lambda: hostile.docx_deep_nesting(1000), "nests too deeply"),
    (hostile.docx_many_entries, "20003 entries in the DOCX archive"),
    (hostile.encrypted_office, "encrypted or legacy Word file"),
    (hostile.truncated_docx, "not a valid DOCX file"),
    (hostile.pdf_page_tree_loop, "corrupt PDF"),
    (hostile.pdf_huge_page_tree, "10,000,000 or more pages"),
    (hostile.pdf_many_pages, "5,001 or more pages"),
    (hostile.pdf_deflate_bomb, "no text in 1 PDF page"),
    (lambda: hostile.truncated_pdf((DOCUMENTS / "zipapp.pdf").read_bytes()), "corrupt PDF"),
    (hostile.polyglot_pdf_zip, "corrupt PDF"),
    (hostile.png_named_md, "wrong type: PNG data (image/png), not a .md file"),
    (lambda: ("image.pdf", hostile.png_bytes()), "wrong type: not a PDF file (PNG data"),
    (lambda: ("image.docx", hostile.png_bytes()), "wrong type: not a DOCX file (PNG data"),
    (hostile.html_deep_nesting, "no main content"),
    (lambda: ("blank.md", b"  \n\n "), "empty file"),
]


@pytest.mark.parametrize(("build", "reason"), CASES)
def test_each_hostile_file_is_refused_with_its_reason_in_seconds(
    build: Callable[[], tuple[str, bytes]], reason: str
) -> None:
    name, data = build()
    started = time.monotonic()
    with pytest.raises(Unreadable) as refused:
        convert_bytes(name, data, 25_000_000)
    assert reason in refused.value.reason
    assert time.monotonic() - started < SECONDS


def test_an_ordinary_docx_and_pdf_still_convert_and_an_embedded_archive_is_never_opened() -> None:
    assert "Restarting the ledger" in convert_bytes(*hostile.ordinary_docx()).text
    name, data = hostile.nested_zip_bomb()  # 100 zips of a 20 MiB zip inside: never unpacked
    assert "Restarting the ledger" in convert_bytes(name, data).text
    assert convert_bytes("zipapp.pdf", (DOCUMENTS / "zipapp.pdf").read_bytes()).metadata["pages"] == 7


def test_text_beyond_the_limit_is_refused_in_every_format() -> None:
    limits = ConversionLimits(max_text_chars=5_000)
    for name, data in [
        ("long.md", b"# Long\n\n" + b"word " * 2_000),
        ("long.docx", hostile.docx(hostile.paragraph("word " * 2_000))),
        ("zipapp.pdf", (DOCUMENTS / "zipapp.pdf").read_bytes()),
    ]:
        with pytest.raises(Unreadable, match="more than 5,000 characters of text"):
            convert_bytes(name, data, limits=limits)


def test_a_conversion_over_its_time_is_killed_and_the_pool_goes_on() -> None:
    pool = ConversionPool(ConversionLimits(seconds=1), workers=1)
    try:
        name, data = hostile.html_slow()  # about 20 s of trafilatura
        started = time.monotonic()
        with pytest.raises(Unreadable, match=r"took longer than 1 s to convert"):
            pool.convert(name, data)
        assert time.monotonic() - started < 3 and pool.killed == 1
        text = pool.convert(*hostile.ordinary_docx()).text
        assert "Restarting the ledger" in text and pool.started == 2
    finally:
        pool.close()


def test_a_conversion_out_of_memory_is_refused_and_the_server_process_is_untouched() -> None:
    pool = ConversionPool(ConversionLimits(memory_bytes=200 * 1024 * 1024, max_text_chars=10**9), workers=1)
    words = " ".join(f"w{i}" for i in range(40))
    big = hostile.docx(hostile.paragraph(f"{words} {n}") for n in range(300_000))  # ~90 MB of XML
    try:
        with pytest.raises(Unreadable, match=r"memory"):
            pool.convert("big.docx", big)
        assert "Restarting the ledger" in pool.convert(*hostile.ordinary_docx()).text
    finally:
        pool.close()


def test_a_worker_that_dies_mid_conversion_is_answered_and_replaced() -> None:
    pool = ConversionPool(ConversionLimits(seconds=20), workers=1)
    try:
        pool.convert(*hostile.ordinary_docx())
        worker = pool._idle[0]
        name, data = hostile.html_slow()
        import threading

        killer = threading.Timer(0.2, lambda: os.kill(worker.proc.pid, signal.SIGKILL))
        killer.start()
        with pytest.raises(Unreadable, match=r"the converter stopped on this file .*signal 9"):
            pool.convert(name, data)
        killer.join()
        assert "Restarting the ledger" in pool.convert(*hostile.ordinary_docx()).text
    finally:
        pool.close()
