"""Confluence storage format → text, and page → SourceDocument (URL keys, hierarchy, links)."""

from __future__ import annotations

from devkb.sources.confluence.convert import page_to_document
from devkb.sources.confluence.storage_format import PageLink, storage_to_text
from devkb.sources.url_keys import url_key

BODY = """<h1>Design</h1><p>Intro&nbsp;text with <a href="/display/PAY/Retry+Policy">the policy</a>.</p>
<h2>Steps</h2><ol><li>First<ul><li>nested</li></ul></li><li>Second</li></ol>
<table><tr><th>Name</th><th>Value</th></tr><tr><td>a|b</td><td>1</td></tr></table>
<ac:structured-macro ac:name="code"><ac:parameter ac:name="language">python</ac:parameter>
<ac:plain-text-body><![CDATA[def f():
    return 1]]></ac:plain-text-body></ac:structured-macro>
<ac:structured-macro ac:name="jira"><ac:parameter ac:name="server">Acme</ac:parameter>
<ac:parameter ac:name="key">PAY-12</ac:parameter></ac:structured-macro>
<p><ac:link><ri:page ri:content-title="Runbook" /><ac:plain-text-link-body><![CDATA[the runbook]]></ac:plain-text-link-body></ac:link></p>"""


def test_storage_format_keeps_structure_readable():
    out = storage_to_text(BODY)
    assert out.text.startswith("# Design\n\nIntro text with the policy.")
    assert "## Steps\n\n1. First\n  - nested\n2. Second" in out.text
    assert "| Name | Value |\n| --- | --- |\n| a\\|b | 1 |" in out.text
    assert "```python\ndef f():\n    return 1\n```" in out.text
    assert "PAY-12" in out.text and "Acme" not in out.text
    assert "the runbook" in out.text
    assert out.links == [PageLink(href="/display/PAY/Retry+Policy"), PageLink(title="Runbook")]


def test_a_body_converted_again_gives_the_same_result_and_a_list_of_its_own():
    """Bodies repeat (versions that changed only the title, the current body for the document and
    its newest version): the conversion is remembered, and a caller changing its links changes
    nobody else's."""
    first = storage_to_text(BODY)
    first.links.append(PageLink(title="added by a caller"))
    again = storage_to_text(BODY)
    assert again.text == first.text
    assert again.links == [PageLink(href="/display/PAY/Retry+Policy"), PageLink(title="Runbook")]
    assert storage_to_text("").text == "" and storage_to_text("").links == []


def page(**over):
    p = {
        "id": "42",
        "type": "page",
        "title": "Idempotency Keys",
        "space": {"key": "PAY", "name": "Payments"},
        "version": {"number": 3, "when": "2026-05-01T10:00:00.000Z", "by": {"displayName": "Marcus Chen"}},
        "ancestors": [{"id": "1", "title": "Home"}, {"id": "7", "title": "Design"}],
        "body": {"storage": {"value": BODY}},
        "_links": {
            "webui": "/display/PAY/Idempotency+Keys",
            "tinyui": "/x/42",
            "base": "https://wiki.example.com",
        },
    }
    p.update(over)
    return p


def test_page_document_metadata_urls_and_references():
    targets = {"Retry Policy": "50", "Runbook": "51"}

    def resolve(link: PageLink, space: str):
        assert space == "PAY"
        return targets.get(link.title) if link.title else targets.get("Retry Policy") if link.href else None

    doc = page_to_document(
        page(), "https://wiki.example.com", resolve, [url_key("https://site.example.org/idem/")]
    )
    assert doc.id == "confluence:page:42" and doc.kind == "page"
    assert doc.url == "https://wiki.example.com/display/PAY/Idempotency+Keys"
    assert doc.updated_at == "2026-05-01T10:00:00+00:00"
    assert doc.metadata["ancestors"] == ["Home", "Design"] and doc.metadata["parent_id"] == "7"
    assert doc.metadata["author"] == "Marcus Chen" and doc.metadata["version"] == 3
    assert doc.metadata["url_paths"] == [
        "/display/PAY/Idempotency Keys",
        "/x/42",
        "/pages/viewpage.action?pageId=42",
        "site.example.org/idem",
    ]
    refs = {(r.from_id, r.to_id, r.kind) for r in doc.references}
    assert refs == {
        ("confluence:page:7", "confluence:page:42", "confluence-parent"),
        ("confluence:page:42", "confluence:page:50", "confluence-link"),
        ("confluence:page:42", "confluence:page:51", "confluence-link"),
    }
    assert all(r.owner_id == doc.id for r in doc.references)
    assert doc.content.startswith(
        "Idempotency Keys\nSpace: Payments · Path: Home > Design > Idempotency Keys"
    )


def test_url_keys_normalise_host_slash_query_and_encoding():
    assert url_key("https://www.Handbook.Example.org/") == "handbook.example.org/"
    assert url_key("http://handbook.example.org") == "handbook.example.org/"
    assert url_key("https://handbook.example.org/techniques/?a=1#top") == "handbook.example.org/techniques"
    assert url_key("/display/ILDH/Access+for+All") == "/display/ILDH/Access for All"
    assert (
        url_key("https://w.example.com/pages/viewpage.action?pageId=7&x=1")
        == "w.example.com/pages/viewpage.action?pageId=7"
    )
