"""The cross-source reference rules on small documents, with a hand-made link context."""

from __future__ import annotations

from devkb.indexing.references.context import LinkContext
from devkb.indexing.references.extractor import ReferenceExtractor
from devkb.sources.base import SourceDocument
from devkb.store.models import SourceType

REPO = "acme/pay"


def ctx() -> LinkContext:
    return LinkContext(
        project_keys={"PAY", "FLOE"},
        github_repos={REPO},
        github_hosts={"github.com"},
        doc_sites=[("https://docs.example.org/pay/{version}/", REPO, "docs/{page}.md")],
        repo_files={REPO: {"docs/retry.md", "src/new/place.md"}},
        repo_renames={REPO: {"place.md": {"old/place.md"}, "old/place.md": {"src/new/place.md"}}},
        confluence_hosts={"wiki.example.com"},
        confluence_titles={
            "idempotency keys design": "confluence:page:3",
            "metadata": "confluence:page:9",
            "what is the approach?": "confluence:page:4",
        },
        confluence_urls={
            "/display/PAY/Idempotency Keys Design": "confluence:page:3",
            "site.example.org/": "confluence:page:1",
            "site.example.org/InclusiveEPUB3.html": "confluence:page:5",
            "site.example.org/techniques": "confluence:page:6",
        },
    )


def doc(type_: SourceType, kind: str, doc_id: str, **texts: str) -> SourceDocument:
    return SourceDocument(
        id=doc_id,
        type=type_,
        kind=kind,
        title=doc_id,
        url="",
        updated_at="",
        content="",
        reference_text=texts,
    )


def edges(d: SourceDocument) -> set[tuple[str, str, str, str]]:
    return {(r.from_id, r.to_id, r.kind, r.evidence) for r in ReferenceExtractor().extract(d, ctx())}


def test_keys_in_github_and_confluence_documents_point_the_right_way():
    c = doc(
        SourceType.GITHUB,
        "commit",
        f"github:{REPO}:commit:abc",
        message="PAY-1: fix (see UTF-8, XPAY-2, FLOE-240-2)",
    )
    assert edges(c) == {
        ("jira:PAY-1", c.id, "jira-key-in-commit-message", "PAY-1"),
        ("jira:FLOE-240", c.id, "jira-key-in-commit-message", "FLOE-240"),
    }
    f = doc(SourceType.GITHUB, "file", f"github:{REPO}:file:a.md", content="Tracked in PAY-7 and PAY-7.")
    assert edges(f) == {(f.id, "jira:PAY-7", "jira-key-in-doc", "PAY-7")}
    p = doc(SourceType.CONFLUENCE, "page", "confluence:page:2", body="text", links="https://x/browse/PAY-3")
    assert edges(p) == {(p.id, "jira:PAY-3", "jira-key-in-confluence-page", "PAY-3")}
    pr = doc(SourceType.GITHUB, "pull", f"github:{REPO}:pull:4", title="x", head_ref="PAY-9-branch", body="")
    assert edges(pr) == {("jira:PAY-9", pr.id, "jira-key-in-pull-request", "PAY-9")}


def test_github_urls_in_jira_text():
    i = doc(
        SourceType.JIRA,
        "issue",
        "jira:PAY-5",
        description=(
            "PR https://github.com/Acme/Pay/pull/12/files, commit github.com/acme/pay/commit/"
            + "A" * 40
            + ". "
            "Docs: https://docs.example.org/pay/2.0/retry.html#top and "
            "https://github.com/acme/pay/blob/main/place.md. Other repo: https://github.com/acme/other/pull/1"
        ),
    )
    assert {(t, k) for _, t, k, _ in edges(i)} == {
        (f"github:{REPO}:pull:12", "jira-mentions-pull-request-url"),
        (f"github:{REPO}:commit:{'a' * 40}", "jira-mentions-commit-url"),
        (f"github:{REPO}:file:docs/retry.md", "jira-mentions-doc-url"),
        (f"github:{REPO}:file:src/new/place.md", "jira-mentions-doc-url"),  # followed two renames
    }


def test_confluence_urls_and_titles_in_jira_text():
    i = doc(
        SourceType.JIRA,
        "issue",
        "jira:PAY-6",
        summary="Idempotency keys design review",  # starts with a capital: counts
        description=(
            "see idempotency Keys Design (lower-case start: no), What is the Approach? and Metadata; "
            "https://wiki.example.com/display/PAY/Idempotency+Keys+Design, http://www.site.example.org, "
            "http://site.example.org/index.php?title=Inclusive_EPUB_3, https://site.example.org/techniques/."
        ),
    )
    got = {(t, k, e) for _, t, k, e in edges(i)}
    assert got == {
        ("confluence:page:3", "jira-mentions-confluence-title", "Idempotency keys design"),
        ("confluence:page:4", "jira-mentions-confluence-title", "What is the Approach?"),
        (
            "confluence:page:3",
            "jira-mentions-confluence-url",
            "https://wiki.example.com/display/PAY/Idempotency+Keys+Design",
        ),
        ("confluence:page:1", "jira-mentions-confluence-url", "http://www.site.example.org"),
        (
            "confluence:page:5",
            "jira-mentions-confluence-url",
            "http://site.example.org/index.php?title=Inclusive_EPUB_3",
        ),
        ("confluence:page:6", "jira-mentions-confluence-url", "https://site.example.org/techniques/"),
    }


def test_title_mentions_in_one_pass_keep_word_bounds_and_the_first_mention():
    c = ctx()
    c.confluence_titles["idempotency keys design notes"] = "confluence:page:7"
    i = doc(
        SourceType.JIRA,
        "issue",
        "jira:PAY-7",
        description=(
            "XIdempotency keys design (inside a word: no); Idempotency keys designs (longer word: no); "
            "Idempotency Keys Design Notes, then IDEMPOTENCY KEYS DESIGN later"
        ),
        comment="İstanbul: Idempotency keys design",  # a letter whose lower case is longer
    )
    got = {(r.to_id, r.evidence) for r in ReferenceExtractor().extract(i, c) if r.kind.endswith("title")}
    # both titles start at the same word; the first mention of each page is its evidence
    assert got == {
        ("confluence:page:3", "Idempotency Keys Design"),
        ("confluence:page:7", "Idempotency Keys Design Notes"),
    }
    only_turkish = doc(SourceType.JIRA, "issue", "jira:PAY-8", comment="İstanbul: Idempotency keys design")
    got = {
        (r.to_id, r.evidence)
        for r in ReferenceExtractor().extract(only_turkish, c)
        if r.kind.endswith("title")
    }
    assert got == {("confluence:page:3", "Idempotency keys design")}


def test_signature_changes_only_with_what_the_source_type_depends_on():
    ex, c = ReferenceExtractor(), ctx()
    jira, github = ex.signature(c, SourceType.JIRA), ex.signature(c, SourceType.GITHUB)
    c.confluence_titles["new page title here"] = "confluence:page:99"
    assert ex.signature(c, SourceType.JIRA) != jira
    assert ex.signature(c, SourceType.GITHUB) == github
    c.project_keys.add("WEB")
    assert ex.signature(c, SourceType.GITHUB) != github
