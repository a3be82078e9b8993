"""The hostile corpus against a real ``devkb serve`` on 127.0.0.1, its memory watched from outside.

Every upload — the three DOCX files of the report (500 MiB of paragraphs, 3 GiB in one text run,
nested and external entities), the corpus of ``tests/hostile.py``, bad names, hundreds of tiny
files sent by several people at once while questions are asked — is answered with 201 or a 4xx
with its reason within ``ANSWER_SECONDS``; the server's resident memory stays within
``SERVER_GROWTH`` of what it held after its first ordinary conversion (each conversion worker is
held to ``DEVKB_CONVERSION_MEMORY_MB`` by the kernel); nothing indexed is lost; the server
answers questions throughout, after a restart, and after the next ordinary upload — also when a
bomb stored by an earlier release sits in the uploads directory (quarantined once, never read
again). A watchdog kills the server above ``HARD_LIMIT`` so a regression cannot take the machine.
Memory is read from ``/proc/<pid>/status`` (VmRSS), the kernel's own figure.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest

from devkb.sources.uploads import UploadStore
from devkb_devtools.bench.server_process import DevkbServer
from tests import hostile

pytestmark = [pytest.mark.integration]

MB = 1_000_000
SERVER_GROWTH = 300 * MB  # the stated bound: the server's RSS over its level after a first conversion
WORKER_MEMORY_MB = 512  # each conversion worker's address space (the default is 1024)
HARD_LIMIT = 4_000 * MB  # the watchdog's: far above the bound, far below the machine
ANSWER_SECONDS = 30.0  # every upload answered within this (most in well under a second)
QUESTION = "How do I restart the ledger writer?"
LEDGER = b"# Ledger runbook\n\nTo restart the ledger writer, drain the queue, then run the ledger check.\n"


def rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 0


def children(pid: int) -> list[int]:
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        out.append(int(entry))
            except (OSError, ValueError, IndexError):
                continue
    return out


class Watch:
    """Samples the server's RSS and its children's every 0.1 s; kills it over ``HARD_LIMIT``."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.server_peak = 0
        self.worker_peak = 0
        self.killed = False
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        ticks = 0
        kids: list[int] = []
        while not self._stop.wait(0.1):
            server = rss(self.pid)
            self.server_peak = max(self.server_peak, server)
            if ticks % 5 == 0:
                kids = children(self.pid)
            ticks += 1
            self.worker_peak = max([self.worker_peak, *(rss(k) for k in kids)])
            if server > HARD_LIMIT:
                self.killed = True
                os.kill(self.pid, 9)

    def reset(self) -> None:
        self.server_peak = rss(self.pid)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()


def corpus() -> list[tuple[tuple[str, bytes], int, str]]:
    return [
        (hostile.reported_docx_500mib_paragraphs(), 422, "too large after decompression"),
        (hostile.reported_docx_3gib_one_run(), 422, "too large after decompression"),
        (hostile.reported_docx_entities(), 422, "defines a document type or entities"),
        (hostile.docx_lying_sizes(), 422, "corrupt DOCX archive"),
        (hostile.docx_billion_laughs(), 422, "defines a document type or entities"),
        (hostile.quadratic_blowup_docx(), 422, "defines a document type or entities"),
        (hostile.docx_deep_nesting(), 422, "compression bomb"),
        (hostile.docx_deep_nesting(1000), 422, "nests too deeply"),
        (hostile.docx_many_entries(), 422, "entries in the DOCX archive"),
        (hostile.nested_zip_bomb(), 201, ""),  # embedded archives are never opened: its text is indexed
        (hostile.encrypted_office(), 422, "encrypted or legacy Word file"),
        (hostile.truncated_docx(), 422, "not a valid DOCX file"),
        (hostile.pdf_page_tree_loop(), 422, "corrupt PDF"),
        (hostile.pdf_huge_page_tree(), 422, "or more pages in the PDF"),
        (hostile.pdf_many_pages(), 422, "or more pages in the PDF"),
        (hostile.pdf_deflate_bomb(), 422, "no text in 1 PDF page"),
        (hostile.polyglot_pdf_zip(), 422, "corrupt PDF"),
        (hostile.png_named_md(), 422, "wrong type: PNG data"),
        (("image.pdf", hostile.png_bytes()), 422, "wrong type: not a PDF file"),
        (hostile.html_deep_nesting(), 422, "no main content"),
        # 2.8 MB: a page whose conversion outgrows its limits (1.4 MB took 23 s on a loaded CI
        # machine and under 5 s on a quiet one; 7 MB outgrows the worker's memory first): the
        # worker is stopped by its time or its memory limit, whichever comes first
        (hostile.html_slow(40_000), 422, "to convert"),
        (("empty.md", b""), 422, "empty file"),
        (("../../etc/passwd.md", LEDGER), 422, "has path parts"),
        (("x" * 297 + ".md", LEDGER), 422, "at most 255"),
        (("tool.exe", b"MZ\x90\x00"), 415, ".exe is not accepted"),
        (("big.txt", b"x" * 26_000_000), 413, "over the upload limit"),
    ]


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    files = tmp_path / "files"
    files.mkdir()
    (files / "ledger.md").write_bytes(LEDGER)
    sources = tmp_path / "sources.yaml"
    sources.write_text(f"sources:\n  - name: handbook\n    type: files\n    path: {files}\n")
    env = {
        "DEVKB_SOURCES_FILE": str(sources),
        "DEVKB_CONVERSION_MEMORY_MB": str(WORKER_MEMORY_MB),
        "DEVKB_CONVERSION_SECONDS": "5",
        "DEVKB_ACCESS_LOG": "false",
    }
    yield tmp_path / "data", env


def _ask(client: httpx.Client) -> float:
    started = time.monotonic()
    r = client.post("/ask", json={"question": QUESTION})
    assert r.status_code == 200, r.text
    assert r.json()["sources"][0]["document_id"] == "files:handbook:ledger.md", r.json()["sources"][:2]
    return time.monotonic() - started


def _upload(client: httpx.Client, name: str, data: bytes) -> tuple[httpx.Response, float]:
    started = time.monotonic()
    r = client.post("/uploads", files={"file": (name, data)})
    return r, time.monotonic() - started


def test_the_hostile_corpus_against_a_real_server(workspace: tuple[Path, dict[str, str]]) -> None:
    data, env = workspace
    cases = corpus()
    accepted: list[str] = []
    with (
        DevkbServer(data, env=env, index=True) as server,
        httpx.Client(base_url=server.base_url, timeout=120) as client,
    ):
        assert server.proc is not None
        watch = Watch(server.proc.pid)
        try:
            _ask(client)
            first, _ = _upload(client, *hostile.ordinary_docx())  # starts a conversion worker
            assert first.status_code == 201, first.text
            accepted.append(first.json()["document_id"])
            idle = [_ask(client) for _ in range(5)]
            watch.reset()
            floor = watch.server_peak

            slowest = 0.0
            for (name, body), status, reason in cases:
                r, took = _upload(client, name, body)
                assert r.status_code == status, (name, r.status_code, r.text[:300])
                assert reason in r.text, (name, r.text[:300])
                assert took < ANSWER_SECONDS, (name, took)
                slowest = max(slowest, took)
                if status == 201:
                    accepted.append(r.json()["document_id"])
            _ask(client)

            # several people's tiny files at once, ordinary questions answered meanwhile
            busy: list[float] = []
            done = threading.Event()

            def asking() -> None:
                with httpx.Client(base_url=server.base_url, timeout=120) as c:
                    while not done.is_set():
                        busy.append(_ask(c))

            def tiny(i: int) -> Any:
                with httpx.Client(base_url=server.base_url, timeout=120) as c:
                    return _upload(c, f"note-{i}.md", f"# Note {i}\n\nTiny note number {i}.\n".encode())[0]

            asker = threading.Thread(target=asking)
            asker.start()
            with ThreadPoolExecutor(4) as pool:
                replies = list(pool.map(tiny, range(200)))
            done.set()
            asker.join()
            assert all(r.status_code == 201 for r in replies), [
                r.text for r in replies if r.status_code != 201
            ][:3]
            accepted += [r.json()["document_id"] for r in replies]

            growth = watch.server_peak - floor
            assert not watch.killed
            assert growth < SERVER_GROWTH, f"the server grew by {growth / MB:.0f} MB"
            assert watch.worker_peak < WORKER_MEMORY_MB * 1024 * 1024
            for doc in ["files:handbook:ledger.md", *accepted[:3], accepted[-1]]:
                assert client.get(f"/documents/{doc}").status_code == 200, doc
            print(
                f"\nhostile corpus: {len(cases)} files, slowest answer {slowest:.2f} s; server RSS after "
                f"the first conversion {floor / MB:.0f} MB, peak growth {growth / MB:.0f} MB (bound "
                f"{SERVER_GROWTH / MB:.0f}); worker peak {watch.worker_peak / MB:.0f} MB; /ask idle median "
                f"{statistics.median(idle) * 1000:.0f} ms, during 200 uploads by 4 clients p95 "
                f"{statistics.quantiles(busy, n=20)[-1] * 1000 if len(busy) >= 2 else 0:.0f} ms ({len(busy)} asked)"
            )
        finally:
            watch.stop()

    # an earlier release stored a bomb: the restart and the next ordinary upload quarantine it once
    store = UploadStore(data / "uploads")
    stored = store.save(*hostile.reported_docx_500mib_paragraphs(), uploader="operator")
    for restart in range(2):
        with (
            DevkbServer(data, env=env) as server,
            httpx.Client(base_url=server.base_url, timeout=120) as client,
        ):
            assert server.proc is not None
            watch = Watch(server.proc.pid)
            try:
                _ask(client)
                for doc in ["files:handbook:ledger.md", accepted[0], accepted[-1]]:
                    assert client.get(f"/documents/{doc}").status_code == 200, doc
                r, took = _upload(client, f"after-restart-{restart}.md", LEDGER.replace(b"Ledger", b"Queue"))
                assert r.status_code == 201 and took < ANSWER_SECONDS, r.text
                _ask(client)
                assert not watch.killed
            finally:
                watch.stop()
        quarantined = store.quarantined()
        assert "too large after decompression" in quarantined[stored.id]
        if restart == 0:
            noted = (data / "uploads" / f"{stored.id}.quarantine.json").stat().st_mtime_ns
    assert (data / "uploads" / f"{stored.id}.quarantine.json").stat().st_mtime_ns == noted  # not read again
