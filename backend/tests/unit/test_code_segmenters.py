"""Code files split on functions and classes, each section named by its symbol path."""

from __future__ import annotations

from haystack import Document as HsDocument

from devkb.indexing.components.splitter import KindAwareSplitter
from devkb.indexing.splitting.by_kind import default_segmenters, segment_file
from devkb.indexing.splitting.code import split_code_lines, split_python

PY = '''"""Module."""
import os

@cached
def load(path):
    return os.path.exists(path)

class Client(Base):
    timeout = 3

    def get(self, url):
        return url

    async def close(self):
        pass
'''


def test_python_sections_are_symbols():
    assert [s.path for s in split_python(PY)] == ["(module)", "load", "Client", "Client.get", "Client.close"]
    assert split_python(PY)[1].text.startswith("@cached\ndef load")
    assert [s.path for s in split_python("x = 1\ndef broken(:\n")] == [
        "(module)",
        "broken",
    ]  # line scanner fallback


def test_brace_languages_by_declarations():
    js = "var a = 1;\nfluid.x.init = function (that) {\n};\nclass Foo {\n  render(y) {\n    return y;\n  }\n}\n"
    assert [s.path for s in split_code_lines(js)] == ["(module)", "fluid.x.init", "Foo", "Foo.render"]
    go = "package m\n\ntype S struct {\n}\n\nfunc (s *S) Run(n int) error {\n\treturn nil\n}\n"
    assert [s.path for s in split_code_lines(go)] == ["(module)", "S", "S.Run"]


def test_file_segmenter_dispatches_on_extension_and_chunks_carry_the_symbol():
    def file_doc(path: str, text: str) -> HsDocument:
        return HsDocument(
            id=f"github:a/b:file:{path}",
            content=text,
            meta={"kind": "file", "title": path, "metadata": {"path": path}},
        )

    assert [s.path for s in segment_file(file_doc("x.md", "# A\ntext\n## B\nmore"))] == ["A", "A > B"]
    big = PY + "".join(f"\ndef f{i}():\n    return '{'x' * 300}'\n" for i in range(8))
    chunks = KindAwareSplitter(chunk_size=400, chunk_overlap=0, segmenters=default_segmenters()).run(
        [file_doc("src/client.py", big)]
    )["chunks"]
    sections = [c.meta["section"] for c in chunks]
    assert "f3" in sections and all(c.content.startswith("src/client.py") for c in chunks)
