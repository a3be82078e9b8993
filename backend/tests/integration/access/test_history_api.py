"""History through the API as each reader may see it (docs/history.md): a document's versions,
one version with its diff to the current one, and the changes in a date range; a document the
reader may not read is a 404, like a missing one, and its changes are not listed."""

from __future__ import annotations

import pytest

from tests.accounts_app import accounts_client, signed_in

pytestmark = pytest.mark.integration
ADMIN, CAROL = "alice@acme.example", "carol@acme.example"  # carol reads Jira WEB only


def test_history_versions_and_changes_follow_the_document_permissions(demo_workspace, embedder, tmp_path):
    client = accounts_client(demo_workspace, embedder, tmp_path / "d")
    try:
        signed_in(client, ADMIN)
        history = client.get("/documents/jira:PAY-12/history").json()
        moves = [(v["field"], v["to_value"], v["author"]) for v in history["versions"]]
        assert ("status", "Closed", "Priya Raman") in moves and len(moves) == 6
        one = client.get("/documents/jira:PAY-12/versions/2", params={"kind": "transition"}).json()
        assert one["version"]["to_value"] == "In Progress" and one["diff_to_current"] == ""
        page = client.get("/documents/confluence:page:2000004/history").json()
        # the demo keeps versions 9, 10 and 11 of the PSP Retry Policy page (docs/history.md)
        assert [v["kind"] for v in page["versions"]] == ["page", "page", "page"]
        changes = client.get("/changes", params={"start": "2026-01-01", "end": "2026-12-31"}).json()
        assert {"jira:PAY-12", "confluence:page:2000009"} <= {c["document"]["id"] for c in changes}
        assert client.get("/changes", params={"start": "2026-05-10", "end": "2026-05-01"}).json() == []
        assert client.get("/changes", params={"start": "2026-05-10", "end": "9999-12-31"}).status_code == 200
        assert client.get("/changes", params={"start": "2026-05-10", "end": "soon"}).status_code == 422
        assert (
            client.get("/documents/jira:PAY-12/versions/99", params={"kind": "transition"}).status_code == 404
        )
        client.post("/auth/logout")

        signed_in(client, CAROL)
        hidden = client.get("/documents/jira:PAY-12/history")
        missing = client.get("/documents/jira:PAY-99999/history")
        assert hidden.status_code == missing.status_code == 404
        assert hidden.json()["detail"].replace("PAY-12", "X") == missing.json()["detail"].replace(
            "PAY-99999", "X"
        )
        assert (
            client.get("/documents/jira:PAY-12/versions/2", params={"kind": "transition"}).status_code == 404
        )
        seen = {
            c["document"]["id"]
            for c in client.get("/changes", params={"start": "2026-01-01", "end": "2026-12-31"}).json()
        }
        assert not any(i.startswith(("jira:PAY-", "confluence:")) for i in seen), seen  # admin saw them above
    finally:
        client.__exit__(None, None, None)


def test_what_changed_counts_creation_and_comments_as_the_reader_may_see_them(
    demo_workspace, embedder, tmp_path
):
    """Issue 61, item 2: carol (Jira WEB only) had an empty year; creation and comments count."""
    client = accounts_client(demo_workspace, embedder, tmp_path / "d")
    year = {"start": "2026-01-01", "end": "2026-12-31"}
    try:
        signed_in(client, ADMIN)
        seen = client.get("/changes", params=year).json()
        assert {"version", "created", "comment"} <= {c["event"] for c in seen}
        assert any(c["event"] == "comment" and c["document"]["id"].startswith("jira:PAY-") for c in seen)
        client.post("/auth/logout")

        signed_in(client, CAROL)
        changes = client.get("/changes", params=year).json()
        events = {(c["event"], c["document"]["id"]) for c in changes}
        # the WEB issues have no recorded transitions: before, this list was empty
        assert ("created", "jira:WEB-7") in events and ("comment", "jira:WEB-7") in events
        assert len([e for e in events if e[0] == "created"]) == 11
        assert all(c["document"]["id"].startswith("jira:WEB-") for c in changes)  # nothing of PAY
        assert [c["at"] for c in changes] == sorted((c["at"] for c in changes), reverse=True)
        first = changes[0]
        assert (first["event"], first["at"], first["author"], first["version"]) == (
            "comment",
            "2026-10-06T12:00:00+00:00",
            "Hannah Weber",
            None,
        )
        # a range and a source narrow it; one day holds exactly that day's
        day = client.get(
            "/changes", params={"start": "2026-10-03", "end": "2026-10-03", "source": "jira"}
        ).json()
        assert [(c["event"], c["author"]) for c in day] == [("created", "Tomás Silva")]
    finally:
        client.__exit__(None, None, None)
