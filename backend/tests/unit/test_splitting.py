from haystack import Document as HsDocument

from devkb.indexing.components.splitter import KindAwareSplitter
from devkb.indexing.splitting.sections import split_markdown_sections


def test_sections_follow_headings_and_ignore_fences():
    text = "# A\nintro\n## B\nbody b\n```\n# not a heading\n```\n# C\nc text"
    secs = split_markdown_sections(text)
    assert [s.path for s in secs] == ["A", "A > B", "C"]
    assert "# not a heading" in secs[1].text


def test_splitter_packs_small_sections_and_splits_long_ones():
    long_para = " ".join(f"Sentence number {i} talks about retries." for i in range(200))
    doc = HsDocument(
        id="d1", content=f"# Intro\nshort\n## Details\n{long_para}", meta={"title": "Doc One", "kind": "page"}
    )
    chunks = KindAwareSplitter(chunk_size=500, chunk_overlap=50).run([doc])["chunks"]
    assert len(chunks) > 5
    assert all(len(c.content) <= 500 * 1.5 + 40 for c in chunks)
    assert [c.meta["chunk_index"] for c in chunks] == list(range(len(chunks)))
    assert all(c.content.startswith("Doc One") for c in chunks)
    assert chunks[-1].meta["section"] == "Intro > Details"
    assert len({c.id for c in chunks}) == len(chunks)
