"""What an answer says about a document the question names and the search did not find, told
apart as far as the reader may know: left out by the source filter (the reader may read it: say
so, and which source to turn on), not in the knowledge base (a reader of everything), not among
the documents the reader can read (anyone else — the same words whether the document is hidden or
does not exist, so the answer never confirms a hidden document)."""

from __future__ import annotations

import pytest

from tests.accounts_app import accounts_client, signed_in

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def client(demo_workspace, embedder, tmp_path_factory):
    c = accounts_client(demo_workspace, embedder, tmp_path_factory.mktemp("not-found") / "data")
    yield c
    c.__exit__(None, None, None)


def ask(client, email: str, question: str, sources: list[str] | None = None) -> dict:
    client.cookies.clear()
    signed_in(client, email)
    body: dict = {"question": question}
    if sources is not None:
        body["sources"] = sources
    r = client.post("/ask", json=body)
    assert r.status_code == 200, r.text
    return r.json()


def test_filtered_out_says_which_source_to_turn_on(client):
    out = ask(client, "alice@acme.example", "What is PAY-12 about?", ["confluence", "github"])
    assert out["answer"].startswith("PAY-12 is in Jira, which this search leaves out: turn Jira on")
    assert "not found" not in out["answer"]
    assert out["filtered_out"] == ["JIRA"]
    assert out["sources"] == []
    # the status stays "not found" (for this search); the confidence says why, without "no document"
    assert out["status"] == "not_found"
    assert out["confidence"]["reason"] == "PAY-12 left out by the source filter"
    # and a member who may read PAY is told the same
    assert ask(client, "bob@acme.example", "What is PAY-12 about?", ["github"])["filtered_out"] == ["JIRA"]


def test_not_found_for_a_reader_of_everything(client):
    out = ask(client, "alice@acme.example", "What is PAY-999 about?")
    assert out["answer"].startswith("PAY-999 was not found in the knowledge base.")
    assert out["filtered_out"] == [] and out["sources"] == []
    assert out["status"] == "not_found"
    assert out["confidence"]["reason"] == "no document has the key PAY-999"


def test_not_readable_reads_as_not_found_among_what_the_reader_can_read(client):
    hidden = ask(client, "carol@acme.example", "What is PAY-12 about?")
    missing = ask(client, "carol@acme.example", "What is PAY-999 about?")
    assert hidden["answer"].startswith("PAY-12 was not found among the documents you can read.")
    assert missing["answer"].startswith("PAY-999 was not found among the documents you can read.")
    # hidden and missing are answered alike: the same words, no sources, nothing to turn on
    assert hidden["answer"].replace("PAY-12", "X") == missing["answer"].replace("PAY-999", "X")
    assert hidden["sources"] == missing["sources"] == []
    assert hidden["filtered_out"] == missing["filtered_out"] == []
    # status and confidence alike too: the reason speaks of what carol can read, never of a hidden key
    assert hidden["status"] == missing["status"] == "not_found"
    assert hidden["confidence"]["reason"] == "no document you can read has the key PAY-12"
    assert hidden["confidence"]["reason"].replace("PAY-12", "X") == missing["confidence"]["reason"].replace(
        "PAY-999", "X"
    )
    assert hidden["confidence"]["level"] == missing["confidence"]["level"]
    # with Jira filtered off, a document carol may not read is still "not found", never "in Jira"
    filtered = ask(client, "carol@acme.example", "What is PAY-12 about?", ["confluence"])
    assert filtered["answer"].startswith("PAY-12 was not found among the documents you can read.")
    assert filtered["filtered_out"] == []
    # a WEB issue carol may read, filtered off: she is told where it is
    web = ask(client, "carol@acme.example", "What is WEB-7 about?", ["confluence"])
    assert web["answer"].startswith("WEB-7 is in Jira, which this search leaves out")
    assert web["filtered_out"] == ["JIRA"]


def test_what_changed_in_an_issue_the_reader_cannot_read_is_not_found_alike(client):
    # a history question (what changed in a period) about a hidden issue says the issue is not
    # among carol's documents — not "nothing changed in the knowledge base" — in the words it uses
    # for an issue that does not exist
    hidden = ask(client, "carol@acme.example", "What changed in PAY-12 last week?")
    missing = ask(client, "carol@acme.example", "What changed in PAY-999 last week?")
    assert hidden["answer"] == "I found no issue PAY-12 you can read."
    assert hidden["answer"].replace("PAY-12", "X") == missing["answer"].replace("PAY-999", "X")
    assert hidden["status"] == missing["status"] == "not_found"
    assert hidden["sources"] == missing["sources"] == []
    assert hidden["confidence"]["reason"] == missing["confidence"]["reason"]
    # bob, who reads PAY, is told what changed (or that nothing did), from PAY-12's own record
    bob = ask(client, "bob@acme.example", "What changed in PAY-12 last week?")
    assert bob["status"] == "answered" and "PAY-12" in bob["answer"]


def test_a_count_counts_only_what_the_reader_can_read(client):
    # carol reads WEB, not PAY: a count over PAY is "no issues … that you can read", in the words
    # a project that does not exist gets, and a count over everything is her WEB issues alone
    hidden = ask(client, "carol@acme.example", "How many issues are in PAY?")
    missing = ask(client, "carol@acme.example", "How many issues are in NOPE?")
    assert hidden["answer"] == "There are no issues in PAY that you can read."
    assert hidden["answer"].replace("PAY", "X") == missing["answer"].replace("NOPE", "X")
    assert hidden["sources"] == [] and hidden["status"] == "answered"
    everything = ask(client, "carol@acme.example", "How many issues are there?")
    assert everything["answer"].startswith("There are 11 issues that you can read; the newest first: WEB-")
    assert all(s["document_id"].startswith("jira:WEB-") for s in everything["sources"])
    # bob reads PAY: his count names PAY's issues
    bob = ask(client, "bob@acme.example", "How many issues are in PAY?")
    assert bob["answer"].startswith("There are ") and "PAY-" in bob["answer"]
