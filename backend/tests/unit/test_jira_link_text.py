"""Which issue links an issue's text may name (``sources/jira/convert.link_shown``)."""

from __future__ import annotations

from devkb.sources.jira.convert import issue_to_document, link_shown


def test_a_link_is_named_only_when_every_reader_of_the_issue_may_browse_the_other():
    secured = {"PAY-18": "10100", "PAY-90": "10100"}
    assert link_shown("PAY-3", None, "PAY-12", secured)  # same project, no level
    assert not link_shown("WEB-3", None, "PAY-13", secured)  # another project: other readers
    assert not link_shown("PAY-3", None, "PAY-18", secured)  # a level PAY-3's readers need not pass
    assert link_shown("PAY-19", "10100", "PAY-18", secured)  # the same level as the issue's own
    assert not link_shown("PAY-19", "10200", "PAY-18", secured)
    assert link_shown("PAY-18", "10100", "PAY-3", secured)  # fewer gates than the issue's own


def _issue(key: str, links: list[dict]) -> dict:
    return {"key": key, "fields": {"summary": f"{key} summary", "issuelinks": links}}


def test_the_text_names_the_links_it_may_and_keeps_every_edge():
    link_type = {"name": "Relates", "outward": "relates to", "inward": "relates to"}
    issue = _issue(
        "PAY-3",
        [
            {
                "type": link_type,
                "outwardIssue": {"key": "PAY-12", "fields": {"summary": "Idempotency store"}},
            },
            {
                "type": link_type,
                "outwardIssue": {"key": "PAY-18", "fields": {"summary": "Card numbers logged"}},
            },
            {"type": link_type, "inwardIssue": {"key": "WEB-12", "fields": {"summary": "BIN to analytics"}}},
        ],
    )
    doc = issue_to_document(issue, "https://jira.example", secured={"PAY-18": "10100"})
    assert "relates to PAY-12: Idempotency store" in doc.content
    assert "PAY-18" not in doc.content and "Card numbers logged" not in doc.content
    assert "WEB-12" not in doc.content and "BIN to analytics" not in doc.content
    ends = {(r.from_id, r.to_id) for r in doc.references if r.kind == "jira-issuelink"}
    assert ends == {
        ("jira:PAY-3", "jira:PAY-12"),
        ("jira:PAY-3", "jira:PAY-18"),
        ("jira:WEB-12", "jira:PAY-3"),
    }


def test_a_linked_issue_jira_no_longer_knows_does_not_stop_the_others_being_read_again(caplog):
    """The issues linked to a changed one are read again in one query; when Jira refuses it (a key
    deleted meanwhile), each is read on its own and the unknown one is skipped with a warning."""
    from devkb.errors import PermanentSourceError
    from devkb.sources.jira import JiraLoader, JiraLoaderConfig

    class Jira(JiraLoader):
        def _issues_by_key(self, keys, scoped=False):
            if "PAY-99" in keys:
                raise PermanentSourceError("Jira search failed: HTTPError: Bad Request")
            return [_issue(k, []) for k in keys]

    loader = Jira(JiraLoaderConfig(name="jira", url="https://jira.example", deployment="datacenter"))
    batches = list(loader._refresh_linked({"PAY-1", "PAY-99", "PAY-2"}, {"PAY-2": None}, None))
    assert [d.id for b in batches for d in b.documents] == ["jira:PAY-1"]
    assert "linked issue PAY-99 not read again" in caplog.text
