"""Question kinds as a registry (one module per kind, the planner walks them in order), the parse
handed to the tools instead of re-read, and the evidence-based status and confidence."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

import devkb.agent.identifiers as identifiers
import devkb.agent.question as question
from devkb.agent.answer import HistoryTurn
from devkb.agent.ask_service import AskService
from devkb.agent.confidence import Signals, exact_confidence, level, signals, topic_probability, topic_status
from devkb.agent.evidence import EvidenceDoc, Scope
from devkb.agent.kinds import KINDS, Context, QuestionKind, Step, kind_of
from devkb.agent.kinds.search import Search
from devkb.agent.kinds.unresolved import refers_to_nothing
from devkb.agent.planner import Planner
from devkb.agent.question import parse_question
from devkb.agent.tools import RAGSearch
from devkb.store.models import Document, Reference, SourceType

KEYS = {"PAY", "FLUID"}
EVAL = Path(__file__).resolve().parents[1] / "eval"


@pytest.fixture
def planner(agent_toolbox):
    return Planner(agent_toolbox, lambda: KEYS)


def test_the_registry_ends_with_search_and_names_each_kind_once():
    names = [k.name for k in KINDS]
    assert len(names) == len(set(names))
    assert isinstance(KINDS[-1], Search)


@pytest.mark.parametrize(
    ("text", "carried", "kind"),
    [
        ("which FLUID tickets got resolved in May 2010?", False, "resolved-in-period"),
        ("what is blocked right now?", False, "blocked"),
        ("is anything waiting on another ticket?", False, "blocked"),
        ("what depends on PAY-1?", False, "relation"),
        ("what is the status of PAY-1?", False, "lookup"),
        ("and its assignee?", True, "carry-over"),
        ("and its assignee?", False, "unresolved-reference"),
        ("and who worked on it?", False, "unresolved-reference"),
        ("and who worked on it?", True, "relation"),
        ("how do I configure it for production?", False, "search"),
        ("what changed in October 2026?", False, "history"),
        ("show me documents from October 2026", False, "period"),
        ("how are refund webhooks retried?", False, "search"),
        ("who is the assignee of the checkout redesign?", False, "field-by-title"),
        ("is the Apple Pay button done?", False, "field-by-title"),
        ("when was the checkout redesign created?", False, "search"),  # a date, not a field value
        ("what is the latest release of PAY?", False, "releases"),
        ("what's the newest FLUID release?", False, "releases"),
        ("which versions are there in PAY?", False, "releases"),
        ("what was fixed in FLUID 4.7?", False, "releases"),  # one version's content: its issues
        ("what's new in 2026.10?", False, "releases"),  # a version, not a digest of changes
        ("what is the latest version of jQuery we use?", False, "search"),  # more than a version
        ("which issues are stale in PAY?", False, "count"),
        ("how do we clean up stale branches?", False, "search"),  # not work items
        ("what happens to abandoned carts?", False, "search"),
        ("why has the docs page not been updated in a year?", False, "search"),  # a topic, not a list
        ("how long does it take to fix a bug in PAY?", False, "durations"),
        ("how long does the build take?", False, "search"),
    ],
)
def test_each_question_finds_its_kind(text, carried, kind):
    assert kind_of(parse_question(text, KEYS, has_context=carried), carried).name == kind


def test_a_kind_is_one_class_added_to_the_registry(planner, agent_toolbox):
    """A new kind plugs in without touching the planner: recognised from the parse, it runs its
    own tools and composes its own answer."""

    class Greeting(QuestionKind):
        name = "greeting"

        def matches(self, parsed, carried):
            return parsed.has(("hello",))

        def plan(self, parsed, carried):
            return [Step(RAGSearch.name, "greeting")]

        def run(self, ctx: Context) -> None:
            ctx.toolbox.rag_search.run(ctx.scope, "webhook")
            ctx.took(self.plan(ctx.parsed, False)[0])

        def compose(self, out, docs):
            return f"Hello; {len(docs)} documents."

        def assess(self, out, docs):  # a greeting needs no evidence
            return "answered", exact_confidence("a greeting")

    custom = Planner(agent_toolbox, lambda: KEYS, kinds=(Greeting(), *KINDS))
    assert [s.reason for s in custom.plan("hello there")] == [
        "greeting",
        "drop documents sharing no keyword with the question",
    ]
    answer = AskService(custom).ask("hello there")
    assert answer.answer.startswith("Hello; ")
    assert [s.tool for s in planner.plan("hello there")] == ["RAGSearch", "FilterDocs"]


def _count(monkeypatch, module: Any, name: str) -> list[int]:
    calls = [0]
    original: Callable[..., Any] = getattr(module, name)

    def counted(*a: Any, **k: Any) -> Any:
        calls[0] += 1
        return original(*a, **k)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_one_question_is_read_once(planner, monkeypatch):
    """The parse is handed to GraphQuery: the identifiers are read off the question once."""
    import devkb.agent.tools.graph_query as graph_query

    lookups = _count(monkeypatch, identifiers, "read_lookups")
    monkeypatch.setattr(question, "read_lookups", identifiers.read_lookups)
    monkeypatch.setattr(graph_query, "read_lookups", identifiers.read_lookups)
    AskService(planner).ask("What depends on PAY-1?")
    assert lookups[0] == 1


def _doc(title: str, text: str) -> EvidenceDoc:
    return EvidenceDoc(
        Document(f"confluence:{title}", SourceType.CONFLUENCE, title, text, "u", "2024-03-02T00:00:00Z"),
        (text,),
    )


def test_signals_come_from_the_evidence_not_the_wording():
    docs = [
        _doc("Retries", "Webhook deliveries are retried with exponential backoff."),
        _doc("Other", "Nothing."),
    ]
    covered = signals("how are webhook deliveries retried?", docs)
    assert covered.all == 1.0 and covered.missing == () and covered.agree == 1
    missing = signals("how do we configure kubernetes autoscaling?", docs)
    assert set(missing.missing) >= {"kubernete", "autoscal"} or "kubernetes" in " ".join(missing.missing)
    assert topic_probability(covered) > 0.5 > topic_probability(missing)
    assert topic_status(topic_probability(missing)) == "not_found"


def test_asking_for_a_summary_is_not_part_of_the_topic():
    """ "Summarize the onboarding page" is about onboarding: no source says "summarize", and the
    answer was "does not say" with the onboarding guide listed as related (seen in the demo)."""
    docs = [
        _doc(
            "Engineer Onboarding Guide", "Your first week: accounts, the on-call rota and the payments repo."
        )
    ]
    for asked in (
        "Summarize the onboarding page",
        "give me a summary of the onboarding guide",
        "an overview of onboarding, please",
        "tldr of the onboarding guide",
    ):
        held = signals(asked, docs)
        assert held.missing == () and held.all == 1.0, (asked, held)
    assert signals("summarize the parental leave policy", docs).missing != ()


def test_which_code_a_change_touched_is_not_part_of_the_topic():
    """ "Which pull requests touched the webhook code?" is about webhooks: no pull request says
    "touched" or "code", and the answer was "does not say" with the webhook pull requests listed
    as related (seen in the demo)."""
    docs = [_doc("Pull request #2", "This pull request verifies the signature header on every webhook.")]
    for asked in ("Which pull requests touched the webhook code?", "what pull request touches webhook code"):
        held = signals(asked, docs)
        assert held.missing == () and held.all == 1.0, (asked, held)
    assert signals("which pull requests touched the ledger code?", docs).missing != ()


def test_levels_and_statuses_follow_the_probability():
    assert [level(p) for p in (0.9, 0.6, 0.2)] == ["high", "medium", "low"]
    assert topic_status(0.9) == "answered" and topic_status(0.01) == "not_found"
    assert topic_probability(Signals(3, 1.0, 1.0, (), 3)) > topic_probability(
        Signals(3, 0.33, 0.33, ("a", "b"), 0)
    )


def test_answers_carry_a_status_and_a_confidence(planner):
    service = AskService(planner)
    exact = service.ask("What is the status of PAY-1?")
    assert exact.status == "answered" and exact.confidence is not None and exact.confidence.level == "high"
    assert "PAY-1" in exact.confidence.reason
    unknown = service.ask("What is the status of PAY-99999?")
    assert unknown.status == "not_found" and unknown.sources == []
    topic = service.ask("What is our parental leave policy?")
    assert topic.status == "not_found", topic.answer
    assert topic.answer.startswith("The knowledge base does not say.")
    assert topic.confidence is not None and "parental" in topic.confidence.reason
    scope = Scope.for_sources(None)
    assert planner.execute(scope, "What is our parental leave policy?").kind.name == "search"


@pytest.mark.parametrize(
    "text",
    ["and who worked on it?", "what is its status?", "when did it change?", "which commits touched them?"],
)
def test_a_reference_with_nothing_earlier_asks_which_document_is_meant(planner, text):
    """No earlier turn: the reference names nothing, so no tool runs and no passage is offered as
    an answer; the answer says what it refers to and asks which document is meant."""
    answer = AskService(planner).ask(text)
    assert answer.status == "not_found" and answer.sources == [] and answer.tool_calls == []
    reference = parse_question(text, KEYS).reference
    assert answer.answer.startswith(f"“{reference}” refers to something said earlier")
    assert "Which one do you mean?" in answer.answer
    assert answer.confidence is not None and "nothing earlier names a document" in answer.confidence.reason


def test_no_evaluation_question_is_taken_for_an_unresolved_reference():
    """The rule stays narrow: of the evaluation's questions (written from the raw data, none a
    follow-up; ten with "it" in the text), none is recognised as a reference with nothing
    of its own, though the questions of the defect are. The follow-up files' questions (those
    with a ``previous`` turn) are follow-ups by design and left out."""
    rows = [
        json.loads(line)
        for path in sorted(EVAL.glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    texts = [r["question"] for r in rows if r.get("question") and not r.get("previous")]
    keys = {m.upper() for t in texts for m in re.findall(r"\b([A-Za-z]+)-\d+\b", t)}
    parsed = [parse_question(t, keys) for t in texts]
    assert len(parsed) > 500 and sum(p.reference is not None for p in parsed) >= 10  # "it" as text
    assert [p.text for p in parsed if refers_to_nothing(p)] == []
    assert refers_to_nothing(parse_question("and who worked on it?", keys))


def test_the_same_follow_up_after_a_turn_carries_over_its_documents(planner):
    history = [
        HistoryTurn("user", "What is PAY-1 about?"),
        HistoryTurn("assistant", "Refund webhooks fail [1].", ("jira:PAY-1",)),
    ]
    answer = AskService(planner).ask("what is its status?", history=history)
    assert answer.status == "answered" and answer.document_ids[0] == "jira:PAY-1"
    assert answer.tool_calls[0].arguments["document_ids"] == ["jira:PAY-1"]
    # an earlier turn that left no document gives the reference nothing to mean either
    empty = [HistoryTurn("user", "hello"), HistoryTurn("assistant", "The knowledge base does not say.")]
    assert AskService(planner).ask("what is its status?", history=empty).status == "not_found"


def test_who_to_ask_names_people_from_the_documents_with_citations(planner):
    from devkb.agent.kinds.who_to_ask import rank_people

    scope = Scope.for_sources(None)
    out = planner.execute(scope, "Who knows about webhook retries?")
    assert out.kind.name == "who-to-ask"
    docs = out.sources(scope.selection, 8)
    ranked = rank_people(docs, "webhook retries")
    answer = AskService(planner).ask("Who knows about webhook retries?")
    if ranked:
        assert answer.answer.startswith("People who worked on this"), answer.answer
        assert ranked[0][0] in answer.answer and "[" in answer.answer
        assert " changed of " not in answer.answer  # "commented on or changed PAY-1": a verb, no "of"
    assert (
        kind_of(parse_question("who owns PAY-1?", KEYS), False).name == "lookup"
    )  # a named issue: its field


@pytest.mark.parametrize(
    "text",
    [
        "who is working on refund webhooks?",
        "Who's working on refund webhooks?",
        "who worked on refund webhooks?",
    ],
)
def test_who_is_working_on_a_topic_names_its_people(planner, text):
    from devkb.agent.kinds.who_to_ask import topic

    parsed = parse_question(text, KEYS)
    assert kind_of(parsed, False).name == "who-to-ask"
    assert topic(parsed).split()[-2:] == ["refund", "webhooks"] and "work" not in topic(parsed)
    answer = AskService(planner).ask(text)
    assert answer.answer.startswith("People who worked on this, most involved first: Ada Lovelace"), (
        answer.answer
    )
    # a named issue's people are its fields, as before
    assert kind_of(parse_question("who is working on PAY-1?", KEYS), False).name != "who-to-ask"


def test_a_comparison_cites_each_point_to_its_side(planner):
    answer = AskService(planner).ask("What is the difference between PAY-1 and PAY-2?")
    assert [s.document_id for s in answer.sources[:2]] == ["jira:PAY-1", "jira:PAY-2"] or {
        s.document_id for s in answer.sources[:2]
    } == {"jira:PAY-1", "jira:PAY-2"}
    assert answer.answer.startswith("Comparing ") and "[1]" in answer.answer and "[2]" in answer.answer
    assert "Different: " in answer.answer or "Alike: " in answer.answer
    assert answer.status == "answered"
    one = AskService(planner).ask("compare PAY-1 and PAY-99999")
    assert "PAY-99999 was not found" in one.answer and "nothing to compare" in one.answer
    assert "Only one of the two was found" in one.answer
    neither = AskService(planner).ask("compare PAY-88888 and PAY-99999")
    assert "Neither was found, so there is nothing to compare." in neither.answer
    assert kind_of(parse_question("what depends on PAY-1?", KEYS), False).name == "relation"


def test_an_exact_answer_citing_part_of_a_longer_list_is_less_sure():
    from devkb.agent.confidence import EXACT_RIGHT, exact_probability

    whole = exact_probability("graph_list", 8, 8)
    assert whole == round(EXACT_RIGHT["graph_list"], 3)
    assert exact_probability("graph_list", 8, 11) == round(EXACT_RIGHT["graph_list"] * 8 / 11, 3)
    cut = exact_confidence("11 listed from the graph", kind="graph_list", shown=8, total=11)
    assert cut.probability < whole and "(8 of 11 cited)" in cut.reason
    assert exact_probability("no-such-kind") == round(min(EXACT_RIGHT.values()), 3)


def test_hyphenated_words_in_a_source_hold_their_parts():
    from devkb.agent.confidence import text_words

    doc = _doc("Scrub bar", "Style the scrub bar according to high-fidelity mock-ups.")
    assert signals("style the scrub bar according to high fidelity mock ups", [doc]).missing == ()
    assert {"high", "fidelity"} <= text_words("high-fidelity")


def test_who_to_ask_adds_up_one_persons_roles_and_decays_slowly():
    from devkb.agent.kinds.who_to_ask import HALF_LIFE_YEARS, rank_people

    def issue(key: str, when: str, assignee: str, reporter: str, text: str) -> EvidenceDoc:
        meta = {"assignee": assignee, "reporter": reporter}
        return EvidenceDoc(
            Document(
                f"jira:{key}", SourceType.JIRA, f"{key}: {text}", "u", f"{when}T00:00:00Z", metadata=meta
            ),
            (text,),
        )

    # the issue about the topic, filed and fixed by Ann four years before a neighbour's issue that
    # only touches it: the newer neighbour does not outrank her
    docs = [
        issue("VP-1", "2013-01-01", "Ann", "Ann", "scrub bar style"),
        issue("VP-2", "2017-01-01", "Bob", "Cy", "the scrub bar"),
    ]
    ranked = rank_people(docs, "scrub bar style")
    assert ranked[0][0] == "Ann" and [r for r, _, _ in ranked[0][2]] == ["assignee", "reporter"]
    assert HALF_LIFE_YEARS >= 3


def test_who_to_ask_counts_a_github_login_as_the_person_it_abbreviates():
    """GitHub names a pull request's author by login, Jira and commits by full name: "mchen" is
    Marcus Chen, once, with the roles of both; a login that fits two names stays on its own."""
    from devkb.agent.kinds.who_to_ask import OTHER_ROLE, _did, handles, logins_of, rank_people

    assert _did(OTHER_ROLE, "PAY-1") == "commented on or changed PAY-1"
    assert _did("assignee", "PAY-5") == "assignee of PAY-5"

    def doc(doc_id: str, source: SourceType, meta: dict[str, object]) -> EvidenceDoc:
        return EvidenceDoc(
            Document(
                doc_id, source, f"{doc_id}: webhook retries", "u", "2026-05-01T00:00:00Z", metadata=meta
            ),
            ("webhook retries",),
        )

    docs = [
        doc("jira:PAY-7", SourceType.JIRA, {"assignee": "Marcus Chen", "reporter": "Priya Raman"}),
        doc(
            "github:acme/payments:pull:12", SourceType.GITHUB, {"author": "mchen", "people": ["mchen", "pr"]}
        ),
        doc("github:acme/payments:commit:abc", SourceType.GITHUB, {"author": "Priya Raman"}),
    ]
    ranked = rank_people(docs, "webhook retries")
    names = [p for p, _, _ in ranked]
    assert names[0] == "Marcus Chen (mchen)" and "mchen" not in names and "Marcus Chen" not in names
    assert [(role, n) for role, _, n in ranked[0][2]] == [("assignee", 1), ("author", 2)]
    assert "pr" in names  # two letters: no full name's handle, so not merged into Priya Raman
    assert {"mchen", "marcus.chen", "marcuschen", "chenm"} <= handles("Marcus Chen")
    assert handles("Marcus") == set() and handles("Zoë Ödegaard") >= {"zodegaard"}
    # ambiguous: Marcus Chen and Mei Chen both abbreviate to mchen
    assert logins_of(["mchen", "Marcus Chen", "Mei Chen"]) == {}
    assert logins_of(["mchen", "marcus.chen", "Marcus Chen"]) == {
        "mchen": "Marcus Chen",
        "marcus.chen": "Marcus Chen",
    }
    both = rank_people(
        [*docs, doc("github:acme/payments:pull:13", SourceType.GITHUB, {"author": "marcus.chen"})]
    )
    assert [p for p, _, _ in both].count("Marcus Chen (mchen, marcus.chen)") == 1


ONBOARDING = (
    "Engineer Onboarding Guide\nSpace: Payments Engineering · Path: Home > Engineer Onboarding Guide\n\n"
    "Welcome! This is your first week on the payments team.\n\n## Day 1\n\n"
    "1. Get access: GitHub team acme/payments, Jira projects PAY and WEB.\n2. Set up the repository:\n\n"
    "```bash\ngit clone git@github.com:acme/payments-service.git\npytest\n```\n\n## Reading list\n\n"
    "1. Payments Architecture Overview\n2. Idempotency Keys Design\n\n## Retries\n\n"
    "| Condition | Retry? |\n| --- | --- |\n| timeout | yes |\n\nRetry only with a key."
)


def test_asking_for_a_summary_of_a_page_quotes_its_outline_not_other_sources():
    """ "Summarize the onboarding page" answered with sentences of other pages (seen in the demo):
    now the page's opening, then each heading with its first sentence; code and tables left out."""
    from devkb.agent.extractive import compose_answer, outline

    page = EvidenceDoc(
        Document(
            "confluence:1", SourceType.CONFLUENCE, "Engineer Onboarding Guide", "u", "2026-09-01T00:00:00Z"
        ),
        (ONBOARDING,),
    )
    other = _doc("Payments Engineering Home", "Engineer Onboarding Guide: your first week. Oncall rota.")
    text = outline(page, 1)
    assert text is not None and text.startswith("Welcome! This is your first week on the payments team.")
    assert "Day 1: Get access: GitHub team acme/payments" in text
    assert "Reading list: Payments Architecture Overview; Idempotency Keys Design." in text
    assert "Retries: Retry only with a key." in text and "git clone" not in text and "timeout" not in text
    for asked in ("Summarize the onboarding page", "give me an overview of the onboarding guide"):
        answer = compose_answer(parse_question(asked, set()), [page, other])
        assert answer.startswith("The page “Engineer Onboarding Guide” [1]: Welcome!"), answer
        assert "[2]" not in answer
    # one part only (no headings): the page's opening sentences instead
    flat = EvidenceDoc(
        page.document,
        ("Engineer Onboarding Guide\n\nRules for retrying calls to the provider. Owner: Daniel Okafor.",),
    )
    assert outline(flat, 1) is None
    assert "Rules for retrying calls to the provider." in compose_answer(
        parse_question("summarize the onboarding page", set()), [flat]
    )


def test_an_answer_names_a_repository_file_by_its_path_not_its_blob_sha():
    """ "What is docs/webhooks.md about?" began "794ebd8: …" — the blob's sha, which no one quotes."""
    from devkb.agent.extractive import identifier

    def doc(doc_id: str, meta: dict[str, object], title: str = "t") -> EvidenceDoc:
        return EvidenceDoc(
            Document(doc_id, SourceType.GITHUB, title, "u", "2026-01-01T00:00:00Z", metadata=meta), ()
        )

    assert identifier(
        doc("github:r:file:docs/webhooks.md", {"sha": "794ebd8aa", "path": "docs/webhooks.md"})
    ) == ("docs/webhooks.md")
    assert identifier(doc("github:r:commit:65fd988", {"sha": "65fd988bbb"})) == "65fd988"
    assert identifier(doc("jira:PAY-1", {"key": "PAY-1", "path": "x"})) == "PAY-1"
    assert identifier(doc("web:h/p", {"path": "/library/os.html"})) == "/library/os.html"  # as before
    assert identifier(doc("confluence:1", {}, "Onboarding")) == "Onboarding"


def test_a_relation_question_may_name_its_issue_by_title(planner):
    # no key: the search finds PAY-2 by its title, the relation is read with the title's words as
    # its anchor, and the answer says what it took for what
    a = AskService(planner).ask("What is related to the idempotency keys for webhook handlers?")
    assert a.answer.startswith("“idempotency keys for webhook handlers” taken as PAY-2: Idempotency keys")
    assert "PAY-2 is linked to 1 issue: PAY-1: Refund webhooks fail after provider timeout" in a.answer
    assert [c.document_id for c in a.sources] == ["jira:PAY-1", "jira:PAY-2"]
    assert a.status == "answered"
    # the direction comes from where the title stands: nothing depends on PAY-2 by a "depends on" link
    none = AskService(planner).ask("What depends on the idempotency keys for webhook handlers?")
    assert "No issue depends on PAY-2 in the knowledge base." in none.answer
    # a title that only shares a word or two with the question is not taken for an anchor
    loose = AskService(planner).ask("What is related to webhook retries?")
    assert "taken as" not in loose.answer


def test_which_changes_fixed_an_issue_named_by_a_few_title_words(planner):
    # "which PRs fixed the double payment bug?" answered the bug's status ("fixed" asks for one);
    # the changes that fixed it are a relation, its issue named by a few of its title's words
    a = AskService(planner).ask("which pull requests fixed the refund webhook timeout bug?")
    assert a.answer.startswith("“refund webhook timeout” taken as PAY-1: Refund webhooks fail"), a.answer
    assert "PR #7: Retry refund webhooks" in a.answer
    assert kind_of(parse_question("which PRs fixed the double payment bug?", KEYS), False).name == "relation"


def test_a_field_question_may_name_its_issue_by_title(planner):
    # "who is the assignee of the checkout redesign?" quoted passages: the search finds PAY-2 by
    # its title (a plural in the title matches the question's singular), the answer gives its field
    # and says what it took for what; the issue is cited first
    ask = AskService(planner).ask
    a = ask("Who is the assignee of the idempotency key for webhook handlers?")
    assert a.answer.startswith("“idempotency key for webhook handlers” taken as PAY-2: Idempotency keys")
    assert "PAY-2: assignee Alan Turing [1]." in a.answer
    assert a.sources[0].document_id == "jira:PAY-2"
    status = ask("is the refund webhooks fail after provider timeout bug done?")
    assert "PAY-1: status Open [1]." in status.answer
    # one word of a title names the search's first document, trusted at most "medium"
    loose = ask("who is the assignee of the refund work?")
    assert "taken as" in loose.answer and loose.confidence is not None
    assert loose.confidence.level == "medium" and "named by one word of its title" in loose.confidence.reason
    # words that name no title among the first documents name none
    assert "taken as" not in ask("who is the assignee of the kubernetes upgrade?").answer


def test_of_several_titles_the_question_names_the_one_it_says_most_of():
    from devkb.agent.kinds.titles import named_in_question
    from devkb.agent.question import field_words

    def doc(doc_id: str, title: str, kind: SourceType = SourceType.JIRA) -> EvidenceDoc:
        return EvidenceDoc(Document(doc_id, kind, title, "", "u", "2026-01-01T00:00:00Z"), ())

    def named(text: str, docs: list[EvidenceDoc]) -> str | None:
        found = named_in_question(parse_question(text, KEYS), docs, field_words(text))
        return found[0].id if found else None

    policy = [
        doc("jira:PAY-9", "PAY-9: Define the retry policy for outbound PSP calls"),
        doc("confluence:1", "PSP Retry Policy", SourceType.CONFLUENCE),
    ]
    assert named("who wrote the PSP retry policy?", policy) == "confluence:1"  # all of its title
    uploader = [
        doc("jira:FLUID-2030", "FLUID-2030: Uploader IE 7 Flash 9 error"),
        doc(
            "jira:FLUID-1731",
            "FLUID-1731: Uploader 2: An ActionScript error occurs when uploading files, using IE7",
        ),
    ]
    assert named("who reported the uploader ActionScript error in IE7?", uploader) == "jira:FLUID-1731"
    # one word names the search's first document only, when its title holds the word
    assert named("who reported the uploader bug?", uploader) == "jira:FLUID-2030"
    assert named("who reported the actionscript bug?", uploader) is None


def test_when_an_issue_without_a_changelog_was_closed_is_its_resolution_date():
    from devkb.agent.extractive import field_facts

    meta = {
        "key": "WEB-8",
        "status": "Closed",
        "resolution": "Fixed",
        "resolved": "2026-05-22T11:00:00+00:00",
    }
    doc = EvidenceDoc(
        Document("jira:WEB-8", SourceType.JIRA, "WEB-8: Spinner", "", "u", "", metadata=meta), ()
    )
    fact = field_facts(parse_question("when was the spinner bug closed?", KEYS), 1, doc)
    assert fact is not None and fact.startswith("WEB-8: resolved on 2026-05-22 11:00; status Closed"), fact
    # "when was it created?" asks for the day it was created, shown as a day and a time, not when
    # it was resolved (the demo walk: "WEB-3: resolved on …; created 2026-04-15T10:00:00+00:00")
    meta["created"] = "2026-05-01T09:30:00+00:00"
    created = field_facts(parse_question("when was WEB-8 created?", KEYS), 1, doc)
    assert created == "WEB-8: created 2026-05-01 09:30 [1].", created


def test_a_product_version_in_a_title_is_not_a_page_version():
    # "the payments API v2 migration" was read as version 2 of a page: "I found no page with that title"
    assert (
        kind_of(parse_question("is the payments API v2 migration done?", KEYS), False).name
        == "field-by-title"
    )
    assert kind_of(parse_question("what did v3 of the retry policy page say?", KEYS), False).name == "history"


def test_title_words_compare_by_stem_and_runs_skip_stop_words():
    from devkb.agent.kinds.titles import longest_run, stem

    assert stem("charges") == stem("charge") and stem("recalibrating") == stem("recalibrate")
    words = ("who", "reported", "the", "double", "charge", "incident")
    assert longest_run(words, {"postmortem", "double", "charge"}) == (("double", "charge"), 2)
    assert longest_run(("keys", "for", "the", "webhook"), {"keys", "webhook"}) == (
        ("keys", "for", "the", "webhook"),
        2,
    )


def _ask_over(tmp_path: Path, embedder: Any, docs: list[Any]) -> tuple[Callable[..., Any], Any]:
    """Extractive answers over ``docs`` (issues of PAY) in a fresh embedded store; and the store,
    for the test to close."""
    from devkb.agent.hybrid_search import HybridSearch
    from devkb.agent.tools import Toolbox
    from devkb.indexing.references.context import LinkContext
    from devkb_devtools.testkit import build_indexer

    indexer = build_indexer(tmp_path, embedder, [], link_context=LinkContext(project_keys={"PAY"}))
    indexer.pipeline.run(docs, "jira")
    toolbox = Toolbox(indexer.store, HybridSearch(indexer.store, embedder), lambda: {"PAY"})
    return AskService(Planner(toolbox, lambda: {"PAY"})).ask, indexer.store


def test_open_issues_count_the_status_open_and_name_the_other_unresolved_ones(tmp_path, embedder):
    """ "What are the open bugs in WEB?" answered from a passage, and "how many open …" counted the
    status Open only, silent about the bug in progress that people mean by open too."""
    from tests.agent_corpus import _jira

    docs = [
        _jira("PAY-1", "Refund webhooks fail", "Timeouts.", status="Open"),
        _jira("PAY-2", "Ledger drift", "Totals drift.", status="In Progress"),
        _jira("PAY-3", "Old bug", "Gone.", status="Closed"),
    ]
    ask, store = _ask_over(tmp_path, embedder, docs)
    for text in (
        "what are the open bugs in PAY?",
        "how many open bugs are in PAY?",
        "what open bugs are there?",
    ):
        a = ask(text)
        assert a.answer.startswith("There is 1 issue"), (text, a.answer)
        assert a.answer.endswith(
            " Not counted: 1 more issue is unresolved in another status: PAY-2 (In Progress)."
        ), a.answer
        assert [c.document_id for c in a.sources] == ["jira:PAY-1"]  # the count's list only
    # a closed count says nothing more; "the issues with X" is a topic, not a list
    assert "Not counted" not in ask("how many closed bugs are in PAY?").answer
    assert kind_of(parse_question("what are the issues with refund webhooks?", KEYS), False).name != "count"
    store.close()


def test_issues_we_closed_are_every_resolved_one_not_the_status_closed_alone(tmp_path, embedder):
    """ "How many bugs did we close in WEB?" counted every bug of the project, the one in progress
    too: the verb was no field. Closing as something done is any resolution (Closed, Resolved,
    Done); "how many bugs are closed" stays the status Closed."""
    from tests.agent_corpus import _jira

    docs = [
        _jira("PAY-1", "Refund webhooks fail", "Timeouts.", status="Open"),
        _jira("PAY-2", "Ledger drift", "Totals drift.", status="In Progress"),
        _jira("PAY-3", "Old bug", "Gone.", status="Closed"),
        _jira("PAY-4", "Rounding bug", "Cents.", status="Resolved"),
    ]
    ask, store = _ask_over(tmp_path, embedder, docs)
    for text in (
        "how many bugs did we close in PAY?",
        "which bugs were fixed in PAY?",
        "how many PAY bugs have been resolved?",
        "what bugs did the team fix in PAY?",
    ):
        a = ask(text)
        assert a.answer.startswith("There are 2 issues in PAY (type Bug, closed or resolved)"), (
            text,
            a.answer,
        )
        assert {c.document_id for c in a.sources} == {"jira:PAY-3", "jira:PAY-4"}, text
    assert ask("how many bugs are closed in PAY?").answer.startswith("There is 1 issue in PAY (status Closed")
    store.close()


def test_a_count_reads_a_priority_and_completes_an_assignees_first_name(tmp_path, embedder):
    """ "What are the high priority bugs?" counted every bug; "which bugs are assigned to Hannah?"
    counted none (no one is called just Hannah)."""
    from tests.agent_corpus import _jira

    docs = [
        _jira("PAY-1", "Refund webhooks fail", "Timeouts.", assignee="Hannah Weber"),
        _jira("PAY-2", "Ledger drift", "Totals drift.", assignee="Hannah Weber"),
        _jira("PAY-3", "Old bug", "Gone.", assignee="Marcus Chen"),
    ]
    docs[0].metadata["priority"] = "Critical"
    docs[2].metadata["priority"] = "High"
    ask, store = _ask_over(tmp_path, embedder, docs)
    high = ask("what are the high priority bugs?")
    assert high.answer.startswith(
        "There are 2 issues (type Bug, priority Highest or High or Blocker or Critical)"
    )
    assert {c.document_id for c in high.sources} == {"jira:PAY-1", "jira:PAY-3"}
    assert ask("how many critical issues are in PAY?").answer.startswith(
        "There is 1 issue in PAY (priority Critical)"
    )
    hannah = ask("which bugs are assigned to Hannah?")
    assert hannah.answer.startswith("There are 2 issues (type Bug, assigned to Hannah Weber)"), hannah.answer
    theirs = ask("show me Hannah's open issues")  # hers: the assignee
    assert theirs.answer.startswith("There are 2 issues (status Open, assigned to Hannah Weber)"), (
        theirs.answer
    )
    # "did we close" is every resolved one; "did Ada close" is no count of them all
    assert kind_of(parse_question("which issues did Ada close?", KEYS), False).name != "count"
    store.close()


def test_a_count_of_unassigned_issues_and_of_pull_requests_waiting_for_review(tmp_path, embedder):
    """ "Which issues have no assignee?" quoted a passage that named no assignee, "which pull
    requests are waiting for review?" passages about reviews."""
    from devkb.sources.base import SourceDocument
    from tests.agent_corpus import _jira

    def pull(number: int, state: str, approved: list[str]) -> SourceDocument:
        meta: dict[str, Any] = {"repository": "acme/pay", "number": number, "author": "ada", "state": state}
        if approved:
            meta["approved_by"] = approved
        return SourceDocument(
            id=f"github:acme/pay:pull:{number}",
            type=SourceType.GITHUB,
            kind="pull",
            title=f"PR #{number}: change {number}",
            url=f"https://github.com/acme/pay/pull/{number}",
            updated_at=f"2024-05-0{number}T10:00:00+00:00",
            content=f"PR #{number}: change {number}\nState: {state}",
            metadata=meta,
        )

    docs = [
        _jira("PAY-1", "Refund webhooks fail", "Timeouts.", assignee=""),
        _jira("PAY-2", "Ledger drift", "Totals drift.", status="In Progress", assignee=""),
        _jira("PAY-3", "Old bug", "Gone.", status="Closed", assignee=""),
        _jira("PAY-4", "Taken", "Mine.", assignee="Marcus Chen"),
        pull(1, "open", []),
        pull(2, "open", ["grace"]),
        pull(3, "closed", []),
    ]
    for d in docs[:3]:
        del d.metadata["assignee"]
    ask, store = _ask_over(tmp_path, embedder, docs)
    for text in ("which issues have no assignee?", "what issues in PAY are not assigned to anyone?"):
        nobody = ask(text)  # still unresolved: work nobody owns, not the closed PAY-3
        assert "2 issues" in nobody.answer and "nobody assigned" in nobody.answer, (text, nobody.answer)
        assert {c.document_id for c in nobody.sources} == {"jira:PAY-1", "jira:PAY-2"}
    assert ask("how many closed issues are unassigned?").answer.startswith(
        "There is 1 issue (status Closed, nobody assigned)"
    )
    for text in ("which pull requests are waiting for review?", "what PRs need a review?"):
        waiting = ask(text)
        assert waiting.answer.startswith("There is 1 pull request (state open, not approved by anyone)"), (
            text,
            waiting.answer,
        )
        assert [c.document_id for c in waiting.sources] == ["github:acme/pay:pull:1"]
    store.close()


def test_which_issues_a_person_closed_comes_from_the_issues_history(tmp_path, embedder):
    """ "Which issues did Priya close?" quoted changelog lines that named her; the issues she moved
    to a done status are in their history (not their assignee)."""
    from devkb.sources.jira.convert import transition_versions
    from tests.agent_corpus import _jira

    def moved(doc: Any, *rows: tuple[str, str, str, str]) -> None:
        changes = [{"at": at, "by": by, "field": "status", "from": a, "to": b} for at, by, a, b in rows]
        doc.versions = transition_versions(doc.id, changes)
        doc.metadata["people"] = sorted({doc.metadata["assignee"], *(r[1] for r in rows)})

    docs = [
        _jira(
            "PAY-1",
            "Refund webhooks fail",
            "Priya Raman reviewed it.",
            status="Closed",
            assignee="Marcus Chen",
        ),
        _jira("PAY-2", "Ledger drift", "Totals drift.", status="Done", assignee="Priya Raman"),
        _jira("PAY-3", "Old bug", "Reopened by Priya Raman.", status="In Progress", assignee="Ada Lovelace"),
    ]
    moved(docs[0], ("2024-05-01T10:00:00+00:00", "Priya Raman", "In Review", "Closed"))
    moved(docs[1], ("2024-05-02T10:00:00+00:00", "Marcus Chen", "In Progress", "Done"))  # hers, closed by him
    moved(
        docs[2],
        ("2024-04-01T10:00:00+00:00", "Priya Raman", "Open", "Resolved"),
        ("2024-04-03T10:00:00+00:00", "Priya Raman", "Resolved", "In Progress"),
    )
    ask, store = _ask_over(tmp_path, embedder, docs)
    for text in ("which issues did Priya close?", "issues closed by Priya Raman", "what has Priya resolved?"):
        closed = ask(text)
        assert closed.answer.startswith("Priya Raman closed 2 issues (moved to Closed, Resolved or Done)"), (
            text,
            closed.answer,
        )
        assert [c.document_id for c in closed.sources] == ["jira:PAY-1", "jira:PAY-3"]
        assert "(Closed on 2024-05-01)" in closed.answer and "(Resolved on 2024-04-01)" in closed.answer
    nobody = ask("which issues did Ada close?")
    assert nobody.answer == "Ada Lovelace moved no issue to Closed, Resolved or Done in the documents.", (
        nobody.answer
    )
    # with another condition the conditions executor reads the same history (it said "could not
    # apply: mover" and listed every closed issue)
    in_pay = ask("how many PAY issues did Priya close?")
    assert in_pay.understood is not None and in_pay.understood.unapplied == [], in_pay.understood
    assert in_pay.answer.startswith("There are 2 issues in PAY (moved by Priya Raman)"), in_pay.answer
    assert {c.document_id for c in in_pay.sources} == {"jira:PAY-1", "jira:PAY-3"}
    store.close()


def test_who_closed_an_issue_without_recorded_history_is_not_known_not_no_one(tmp_path, embedder):
    """A closed issue whose status history was never recorded is not "not closed by Priya": the
    answer names it as not known, and is not sure (issue 61: history that says what it lacks)."""
    from devkb.sources.jira.convert import transition_versions
    from tests.agent_corpus import _jira

    closed = _jira("PAY-1", "Refund webhooks fail", "Fixed.", status="Closed", assignee="Priya Raman")
    changes = [
        {
            "at": "2024-05-01T10:00:00+00:00",
            "by": "Priya Raman",
            "field": "status",
            "from": "Open",
            "to": "Closed",
        }
    ]
    closed.versions = transition_versions(closed.id, changes)
    unrecorded = _jira("PAY-2", "Ledger drift", "Totals drift.", status="Done", assignee="Priya Raman")
    for d in (closed, unrecorded):
        d.metadata["people"] = ["Priya Raman"]
    ask, store = _ask_over(tmp_path, embedder, [closed, unrecorded])
    for text in ("which issues did Priya close?", "how many PAY issues did Priya close?"):
        a = ask(text)
        assert "PAY-1" in a.answer and "status history" in a.answer and "PAY-2" in a.answer, (text, a.answer)
        assert "so who closed it is not known: PAY-2" in a.answer, (text, a.answer)
        assert a.confidence.level != "high", (text, a.confidence)
        assert [c.document_id for c in a.sources] == ["jira:PAY-1"], (text, a.sources)
    store.close()


def test_rankings_by_person_and_by_comments_come_from_every_document_with_the_fields(tmp_path, embedder):
    """ "Who reported the most bugs?" quoted a passage that said "most"; "which issues have the most
    comments?" the passage of one issue."""
    from tests.agent_corpus import _jira

    docs = [
        _jira("PAY-1", "Refund webhooks fail", "Timeouts.", assignee="Marcus Chen"),
        _jira("PAY-2", "Ledger drift", "Totals drift.", status="Closed", assignee="Marcus Chen"),
        _jira("PAY-3", "Old bug", "Gone.", status="Closed", assignee="Hannah Weber"),
        _jira("PAY-4", "Slow page", "Slow.", assignee="Hannah Weber"),
    ]
    for d, reporter, comments in zip(
        docs, ["Grace Lee", "Grace Lee", "Tomás Silva", "Grace Lee"], [2, 0, 7, 1], strict=True
    ):
        d.metadata["reporter"], d.metadata["comment_count"] = reporter, comments
    ask, store = _ask_over(tmp_path, embedder, docs)
    reported = ask("who reported the most bugs?")
    assert reported.answer.startswith("Grace Lee reported the most issues (type Bug): 3 of 4"), (
        reported.answer
    )
    assert reported.answer.endswith("; then Tomás Silva (1).")
    assert {c.document_id for c in reported.sources} == {"jira:PAY-1", "jira:PAY-2", "jira:PAY-4"}
    tie = ask("who has the most issues in PAY?")  # the assignee; two at the top are both named
    assert tie.answer.startswith("Hannah Weber has the most issues in PAY: 2 of 4"), tie.answer
    assert "as many as Marcus Chen" in tie.answer
    fixed = ask("who fixed the most issues in PAY?")  # the assignee of the resolved ones
    assert fixed.answer.startswith(
        "Hannah Weber resolved the most issues in PAY (the assignee of the resolved ones): 1 of 2"
    ), fixed.answer
    talked = ask("which issues have the most comments?")
    assert talked.answer.startswith(
        "The issues with the most comments (of 4): PAY-3: Old bug (7 comments) [1]; "
    ), talked.answer
    assert [c.document_id for c in talked.sources][:3] == ["jira:PAY-3", "jira:PAY-1", "jira:PAY-4"]
    assert "PAY-2" not in talked.answer  # no comment: not among the most commented
    store.close()


def test_what_a_person_reported_and_the_newest_one_of_a_type(tmp_path, embedder):
    """ "Which bugs did Grace report?" and "which PRs did Marcus open?" quoted passages that named
    them; "what is the most recent issue in PAY?" said the knowledge base does not say."""
    from tests.agent_corpus import _jira

    docs = [
        _jira("PAY-1", "Refund webhooks fail", "Grace Lee saw it.", assignee="Marcus Chen"),
        _jira("PAY-2", "Ledger drift", "Totals drift.", assignee="Marcus Chen"),
        _jira("PAY-3", "Old task", "Gone.", status="Closed", assignee="Hannah Weber"),
    ]
    docs[2].metadata["issue_type"] = "Task"
    for d, reporter, day in zip(
        docs, ["Grace Lee", "Tomás Silva", "Grace Lee"], ["01", "03", "02"], strict=True
    ):
        d.metadata["reporter"], d.updated_at = reporter, f"2024-05-{day}T10:00:00+00:00"
    ask, store = _ask_over(tmp_path, embedder, docs)
    issues = ask("which issues did Grace report?")
    assert issues.answer.startswith(
        "Grace Lee reported 2 issues; the newest first: PAY-3: Old task (Closed) [1]; "
    ), issues.answer
    bugs = ask("which bugs did Grace report?")  # the type the noun names
    assert bugs.answer.startswith("Grace Lee reported 1 bug; the newest first: PAY-1: "), bugs.answer
    newest = ask("what is the most recent issue in PAY?")
    assert newest.answer.startswith(
        "The newest of the 3 issues in PAY is PAY-2: Ledger drift (Open, updated 2024-05-03) [1]."
    ), newest.answer
    store.close()


def test_a_count_reads_a_fix_version_and_when_issues_were_created(tmp_path, embedder):
    """ "What did we ship in 2.1?" quoted a passage; "how many bugs were reported in March 2024?"
    counted every bug, whenever it was created."""
    from tests.agent_corpus import _jira

    docs = [
        _jira("PAY-1", "Refund webhooks fail", "Timeouts.", status="Closed"),
        _jira("PAY-2", "Ledger drift", "Totals drift.", status="Open"),
        _jira("PAY-3", "Old bug", "Gone.", status="Closed"),
    ]
    docs[2].metadata["fix_version"] = ["2.0"]
    for doc, created in zip(docs, ("2024-03-02", "2024-03-30", "2024-04-01"), strict=True):
        doc.metadata["created"] = f"{created}T10:00:00+00:00"
    ask, store = _ask_over(tmp_path, embedder, docs)
    release = ask("which issues are in release 2.1.0?")
    assert release.answer.startswith("There are 2 issues (fix version 2.1.0 or 2.1)"), release.answer
    shipped = ask("what did we ship in 2.1?")  # shipped: resolved too
    assert shipped.answer.startswith("There is 1 issue (fix version 2.1, closed or resolved)"), shipped.answer
    march = ask("how many bugs were reported in March 2024?")
    assert march.answer.startswith("There are 2 issues (type Bug, created 2024-03-01 to 2024-03-31)"), (
        march.answer
    )
    assert {c.document_id for c in march.sources} == {"jira:PAY-1", "jira:PAY-2"}
    store.close()


def test_which_issues_mention_words_lists_every_one_that_holds_them(tmp_path, embedder):
    """ "Which issues mention Apple Pay?" names no document: the relation took the search's first
    hit as its anchor and listed that one's neighbours. Now every issue whose text holds the words
    in order, case and hyphens aside, and "not found" when none does."""
    from devkb.agent.kinds.mentions import _own_text, asked_phrase
    from tests.agent_corpus import _jira

    docs = [
        _jira("PAY-1", "Refund webhooks fail", "Apple Pay refunds time out.", status="Open"),
        _jira("PAY-2", "Ledger drift", "Totals drift for apple-pay captures. Nothing else.", status="Closed"),
        _jira("PAY-3", "Pay with an apple", "Pay buttons and apple icons.", status="Open"),
        _jira("PAY-4", "Wallet rollout", "Ship wallets.", status="Open"),
        _jira(
            "PAY-5",
            "Wallet icons",
            "Icons.",
            links=[
                Reference(
                    "jira:PAY-5", "jira:PAY-4", "jira-issuelink", "PAY-5 relates to PAY-4", "jira:PAY-5"
                )
            ],
        ),
    ]
    ask, store = _ask_over(tmp_path, embedder, docs)
    a = ask("which issues mention Apple Pay?")
    assert a.answer.startswith("2 issues mention “Apple Pay”: "), a.answer
    assert {c.document_id for c in a.sources} == {"jira:PAY-1", "jira:PAY-2"}
    assert a.status == "answered"
    # a title that holds the words names its document: what refers to it follows, not counted
    rollout = ask("which issues mention the wallet rollout?")
    assert rollout.answer.startswith("1 issue mentions “wallet rollout”: PAY-4: Wallet rollout [1]."), (
        rollout.answer
    )
    assert "Linked to PAY-4 [1]: PAY-5: Wallet icons [2]." in rollout.answer
    none = ask("which issues mention Google Pay?")
    assert none.status == "not_found" and none.sources == [], none.answer
    from devkb.agent.frame import extract

    def phrase(text: str) -> tuple[str, str | None] | None:
        return asked_phrase(extract(parse_question(text, KEYS)))

    assert phrase("are there any tickets that reference the 3-D Secure flow in WEB?") == (
        "3-D Secure flow",
        "WEB",
    )
    assert phrase("which issues mention that the refund webhook fails with a timeout after retries?") is None
    # a "who" question about an issue that mentions something asks for a person, not a list
    who = ask("who opened the issue about refund webhooks that mention apple pay?")
    assert "mention “" not in who.answer, who.answer
    # a link line names another issue by its title: not a mention by this one
    links = "Apple Pay.\n## Links\n- relates to PAY-9: Apple Pay\n## Comments\nok"
    assert _own_text(links) == "Apple Pay.\n## Comments\nok"
    store.close()


def test_what_a_person_worked_on_lists_their_issues_not_passages_naming_them(tmp_path, embedder):
    """ "What did Priya work on?" quoted changelog lines that named her. Now the issues assigned to
    the person (the full name completed from a first name when one person fits), what they wrote,
    and for "is … working on" only what is still going on; two people who fit are asked back."""
    from tests.agent_corpus import _jira

    docs = [
        _jira("PAY-1", "Refund webhooks fail", "Timeouts.", status="Open", assignee="Ada Lovelace"),
        _jira("PAY-2", "Ledger drift", "Totals drift.", status="Closed", assignee="Ada Lovelace"),
        _jira("PAY-3", "Old bug", "Gone.", status="Open", assignee="Ada Byron"),
        _jira("PAY-4", "Rounding", "Cents.", status="Open", assignee="Linus Pauling"),
    ]
    ask, store = _ask_over(tmp_path, embedder, docs)
    did = ask("what did Ada Lovelace work on?")
    assert did.answer.startswith("Ada Lovelace worked on 2 issues; the newest first: "), did.answer
    assert {c.document_id for c in did.sources} == {"jira:PAY-1", "jira:PAY-2"}
    assert [t.tool for t in did.tool_calls] == ["GraphQuery"]
    now = ask("what is Ada Lovelace working on?")
    assert now.answer.startswith("Ada Lovelace is working on 1 issue; "), now.answer
    assert [c.document_id for c in now.sources] == ["jira:PAY-1"]
    assert ask("What has Ada Lovelace worked on?").answer == did.answer  # the verbs in any case
    first = ask("what did Linus work on?")  # a first name that fits one person
    assert first.answer.startswith("Linus Pauling worked on 1 issue"), first.answer
    two = ask("what did Ada work on?")
    assert two.status == "not_found" and "Ada Byron" in two.answer and "Ada Lovelace" in two.answer
    assert ask("what did Nobody work on?").status == "not_found"
    # a thing, not a person: "what does the webhook do?" is no person's work
    assert kind_of(parse_question("what does Meridian do?", KEYS), False).name != "person-work"
    assert kind_of(parse_question("show me Sofia's work", KEYS), False).name == "person-work"
    assert kind_of(parse_question("show me Sofia's open issues", KEYS), False).name == "count"
    store.close()


def test_who_should_i_talk_to_is_who_to_ask():
    for text in ("who should I talk to about the ledger?", "who do I ask about idempotency keys?"):
        assert kind_of(parse_question(text, KEYS), False).name == "who-to-ask", text


def test_how_many_counts_every_document_with_the_fields_asked(planner):
    ask = AskService(planner).ask
    every = ask("How many issues are in PAY?")
    assert every.answer.startswith("There are 3 issues in PAY; the newest first: ")
    assert [t.tool for t in every.tool_calls] == ["GraphQuery"]
    assert every.status == "answered" and every.confidence is not None and every.confidence.level == "high"
    # a status and a type narrow the count, and the answer says by what
    open_bugs = ask("how many open bugs are there in PAY?")
    assert open_bugs.answer.startswith(
        "There are 2 issues in PAY (status Open, type Bug); the newest first: "
    )
    assert {c.document_id for c in open_bugs.sources} == {"jira:PAY-1", "jira:PAY-3"}
    # "assigned to <Name>" without a project counts that person's issues
    ada = ask("Which open issues are assigned to Ada Lovelace?")
    assert ada.answer.startswith("There is 1 issue (status Open, assigned to Ada Lovelace); it is: PAY-1: ")
    nobody = ask("how many issues are assigned to Nobody Here?")
    assert nobody.answer == "There are no issues (assigned to Nobody Here)." and nobody.sources == []
    # other types are counted as the question names them
    assert ask("how many commits are there?").answer.startswith("There is 1 commit; it is: ")
    # "recent" / "latest N": the same list, newest first, N of them named
    latest = ask("show me the latest 2 issues")
    assert latest.answer.startswith("There are 3 issues; the newest first: ") and latest.answer.endswith(
        "; and 1 more."
    ), latest.answer
    assert len(latest.sources) == 2  # the two named, not the whole list
    assert kind_of(parse_question("show me recent commits", KEYS), False).name == "count"
    # "which … are open": every one in that state; a pull request's state is its own field
    assert ask("what PRs are open?").answer == "There are no pull requests (state open)."
    merged = ask("which pull requests are merged?")
    assert merged.answer.startswith(
        "There is 1 pull request (state merged); it is: PR #7: Retry refund webhooks"
    )
    assert ask("list the closed pull requests").answer.startswith(
        "There is 1 pull request (state closed or merged)"
    )
    # "still open" is unresolved in any status (the understood conditions say so), not the status Open
    assert ask("which bugs are still open?").answer.startswith("There are 2 issues (type Bug, unresolved)")
    # a count that is not of documents is not this kind
    assert kind_of(parse_question("how many story points is a typical ticket?", KEYS), False).name != "count"
    # every issue type the lookups know is a counted noun, in the plural
    for text in (
        "how many new features does PAY have?",
        "the number of PAY sub-tasks",
        "how many epics are open?",
    ):
        assert kind_of(parse_question(text, KEYS), False).name == "count", text
    assert kind_of(parse_question("how many issues depend on PAY-1?", KEYS), False).name == "relation"


def test_releases_are_read_off_the_fix_versions_of_every_issue(tmp_path, embedder):
    """ "What is the latest release of PAY?" quoted a passage that said "latest release"; "what was
    fixed in PAY 2.1?" listed the project's newest issues whatever their version. Versions are
    ordered by their numbers (2.10 after 2.9); a version with most of its issues resolved is out,
    one straggler left open does not hold it back; the next is the lowest above it still open."""
    from tests.agent_corpus import _jira

    layout = [  # key, fix version, status, resolved
        ("PAY-1", "2.9", "Closed", "2024-03-02"),
        ("PAY-2", "2.9", "Closed", "2024-03-09"),
        ("PAY-3", "2.10", "Closed", "2024-04-20"),
        ("PAY-4", "2.10", "Resolved", "2024-04-28"),
        ("PAY-5", "2.10", "In Progress", ""),  # a straggler: 2.10 is still out
        ("PAY-6", "3.0", "Open", ""),
        ("PAY-7", "3.0", "Closed", "2024-05-01"),
        ("PAY-8", "3.1", "Open", ""),
    ]
    docs = []
    for key, version, status, resolved in layout:
        d = _jira(key, f"Change {key[4:]}", "Details.", status=status)
        d.metadata["fix_version"] = [version]
        if resolved:
            d.metadata["resolved"] = f"{resolved}T12:00:00+00:00"
            d.metadata["resolution"] = "Fixed"
        docs.append(d)
    ask, store = _ask_over(tmp_path, embedder, docs)
    for text in (
        "What is the latest release of PAY?",
        "what's the current version?",
        "When was the last release?",
    ):
        a = ask(text)
        assert a.answer.startswith(
            "PAY's latest release is 2.10: 3 issues, 2 resolved, 1 still open, the last resolved on 2024-04-28"
        ), (text, a.answer)
        assert "Above it, not released yet: 3.0 (1 of 2 open), 3.1 (1 of 1 open)." in a.answer, a.answer
        assert [c.document_id for c in a.sources] == ["jira:PAY-4", "jira:PAY-3", "jira:PAY-5"], text
        assert a.status == "answered" and a.confidence.level == "high"
    following = ask("What is the next release of PAY?")
    assert following.answer.startswith(
        "PAY's next release is 3.0 (after 2.10): 2 issues, 1 resolved, 1 still open"
    ), following.answer
    listed = ask("Which versions are there in PAY?").answer
    assert listed.startswith(
        "PAY has 4 fix versions, the highest first: 3.1 (1 issue, not resolved yet), 3.0 ("
    ), listed
    assert listed.index("2.10 (") < listed.index(
        "2.9 (2 issues, all resolved, the last resolved on 2024-03-09)"
    )
    fixed = ask("What was fixed in PAY 2.9?")  # one version's content: the count kind's list
    assert fixed.answer.startswith("There are 2 issues in PAY (fix version 2.9, closed or resolved)"), (
        fixed.answer
    )
    assert {c.document_id for c in fixed.sources} == {"jira:PAY-1", "jira:PAY-2"}
    went = ask("what went into release 2.10?")
    assert {c.document_id for c in went.sources} == {"jira:PAY-3", "jira:PAY-4", "jira:PAY-5"}, went.answer
    assert kind_of(parse_question("how do I upgrade to the latest release?", KEYS), False).name != "releases"
    # not a project of the tracker: a search, not versions
    assert kind_of(parse_question("What is the latest version of jQuery?", KEYS), False).name == "releases"
    other = ask("What is the latest version of jQuery?")
    assert "release" not in other.answer.split(":")[0], other.answer
    assert all(t.tool != "GraphQuery" for t in other.tool_calls), other.tool_calls
    store.close()


def test_the_newest_is_by_creation_or_resolution_when_the_question_says_so(tmp_path, embedder):
    """ "What was the last issue created in PAY?" listed the project's issues by their last update
    (the last created one seventh); "which issues were updated most recently?" and "which issues
    were recently closed?" quoted passages that said "recently"."""
    from tests.agent_corpus import _jira

    layout = [  # key, status, created, resolved, updated
        ("PAY-1", "Open", "2024-05-20", "", "2024-05-21"),  # the last created
        ("PAY-2", "Closed", "2024-01-02", "2024-04-30", "2024-06-01"),  # the last resolved, updated last
        ("PAY-3", "Closed", "2024-02-02", "2024-03-01", "2024-06-02"),
        ("PAY-4", "In Progress", "2024-03-03", "", "2024-05-01"),
    ]
    docs = []
    for key, status, created, resolved, updated in layout:
        d = _jira(key, f"Change {key[4:]}", "Details.", status=status)
        d.metadata["created"] = f"{created}T09:00:00+00:00"
        if resolved:
            d.metadata["resolved"] = f"{resolved}T09:00:00+00:00"
            d.metadata["resolution"] = "Fixed"
        d.updated_at = f"{updated}T09:00:00+00:00"
        docs.append(d)
    ask, store = _ask_over(tmp_path, embedder, docs)
    created = ask("What was the last issue created in PAY?")
    assert created.answer.startswith(
        "The last created of the 4 issues in PAY is PAY-1: Change 1 (Open, created 2024-05-20) [1]."
    ), created.answer
    assert [c.document_id for c in created.sources] == ["jira:PAY-1"]
    closed = ask("which issues were recently closed in PAY?")
    assert closed.answer.startswith(
        "There are 2 issues in PAY (closed or resolved); the last resolved first: "
        "PAY-2: Change 2 (Closed, resolved 2024-04-30) [1]; PAY-3: Change 3 (Closed, resolved 2024-03-01) [2]"
    ), closed.answer
    one = ask("which bug was closed most recently?")
    assert one.answer.startswith("The last resolved of the 2 issues"), one.answer
    assert [c.document_id for c in one.sources] == ["jira:PAY-2"]
    updated = ask("Which issues were updated most recently?")
    assert updated.answer.startswith(
        "There are 4 issues; the newest first: PAY-3: Change 3 (Closed) [1]; PAY-2"
    ), updated.answer
    reported = ask("what are the newest bugs reported in PAY?")
    assert [c.document_id for c in reported.sources][:2] == ["jira:PAY-1", "jira:PAY-4"], reported.answer
    store.close()


def test_where_the_tracker_says_which_versions_are_released_the_answer_uses_it(tmp_path, embedder):
    """Jira's versions carry ``released`` and ``releaseDate`` (the Version schema of Jira's REST
    API); the converter keeps them and the releases kind takes them over its reading of the
    issues: 2.1 has every issue resolved but is not released, 2.0 was, on 2024-04-02."""
    from devkb.sources.jira.convert import issue_to_document

    def issue(n: int, versions: list[dict[str, Any]], resolved: str | None) -> dict[str, Any]:
        return {
            "key": f"PAY-{n}",
            "fields": {
                "summary": f"Change {n}",
                "project": {"key": "PAY", "name": "Payments Platform"},
                "issuetype": {"name": "Bug"},
                "status": {"name": "Closed" if resolved else "Open"},
                "resolution": {"name": "Fixed"} if resolved else None,
                "resolutiondate": f"{resolved}T10:00:00.000+0000" if resolved else None,
                "created": "2024-01-05T10:00:00.000+0000",
                "updated": "2024-05-01T10:00:00.000+0000",
                "fixVersions": versions,
            },
        }

    shipped = {"id": "1", "name": "2.0", "released": True, "releaseDate": "2024-04-02"}
    pending = {"id": "2", "name": "2.1", "released": False, "releaseDate": "2024-06-30"}
    raw = [issue(1, [shipped], "2024-03-30"), issue(2, [shipped], None), issue(3, [pending], "2024-04-20")]
    docs = [issue_to_document(i, "https://jira.example") for i in raw]
    assert docs[0].metadata["fix_version_release"] == [
        {"name": "2.0", "released": True, "date": "2024-04-02"}
    ]
    ask, store = _ask_over(tmp_path, embedder, docs)
    latest = ask("What is the latest release of PAY?").answer
    assert latest.startswith(
        "PAY's latest release is 2.0: released on 2024-04-02, 2 issues, 1 resolved, 1 still open"
    ), latest
    assert (
        "Above it, not released yet: 2.1 (0 of 1 open)." in latest and "read off the issues" not in latest
    ), latest
    following = ask("what's the next version of PAY?").answer
    assert following.startswith(
        "PAY's next release is 2.1 (after 2.0): planned for 2024-06-30, 1 issue, resolved"
    ), following
    store.close()


def test_when_a_named_version_was_released_and_what_is_left_in_it(tmp_path, embedder):
    """ "When will 3.0 be released?" and "how many issues are left for PAY 3.0?" — the second counted
    every issue of the project, the first quoted a passage that said "released"."""
    from tests.agent_corpus import _jira

    docs = []
    for key, version, status in [
        ("PAY-1", "3.0", "Closed"),
        ("PAY-2", "3.0", "Open"),
        ("PAY-3", "3.0", "In Progress"),
    ]:
        d = _jira(key, f"Change {key[4:]}", "Details.", status=status)
        d.metadata["fix_version"] = [version]
        if status == "Closed":
            d.metadata["resolved"], d.metadata["resolution"] = "2024-04-01T10:00:00+00:00", "Fixed"
        docs.append(d)
    docs.append(_jira("PAY-4", "Other", "Details."))  # no version: not counted
    ask, store = _ask_over(tmp_path, embedder, docs)
    when = ask("when will 3.0 be released?").answer
    assert when.startswith(
        "PAY 3.0 is not out yet, as far as its issues say: 3 issues, 1 resolved, 2 still open, "
        "the last resolved on 2024-04-01"
    ), when
    left = ask("How many issues are left for PAY 3.0?").answer
    assert left.startswith("There are 2 issues in PAY (fix version 3.0, unresolved)"), left
    assert ask("which bugs are open in 3.0?").answer.startswith(
        "There is 1 issue (status Open, type Bug, fix version 3.0)"
    )
    status = ask("What's the status of the PAY 3.0 release?").answer
    assert status.startswith("PAY 3.0 is not out yet, as far as its issues say: 3 issues"), status
    who = ask("Who is working on PAY 3.0?").answer
    assert who.startswith("PAY 3.0 has 2 open issues, assigned to Ada Lovelace (2) [1] [2]."), who

    store.close()


def test_the_oldest_the_untouched_and_a_whole_year(tmp_path, embedder, monkeypatch):
    """ "What is the oldest open bug in PAY?" listed the newest; "which open issues haven't been
    updated in a year?" every open one; "how many bugs were reported in 2023?" read no period."""
    import devkb.agent.kinds.count as count
    from tests.agent_corpus import _jira

    monkeypatch.setattr(count, "today_local", lambda: date(2024, 6, 1))
    layout = [  # key, status, created, updated
        ("PAY-1", "Open", "2021-03-01", "2024-05-01"),  # the oldest open, but touched last month
        ("PAY-2", "Open", "2022-07-01", "2022-08-01"),  # untouched for over a year
        ("PAY-3", "Closed", "2020-01-01", "2020-02-01"),  # older, but closed
        ("PAY-4", "Open", "2023-02-02", "2023-03-03"),  # untouched for over a year, created in 2023
    ]
    docs = []
    for key, status, created, updated in layout:
        d = _jira(key, f"Change {key[4:]}", "Details.", status=status)
        d.metadata["created"] = f"{created}T09:00:00+00:00"
        d.updated_at = f"{updated}T09:00:00+00:00"
        docs.append(d)
    ask, store = _ask_over(tmp_path, embedder, docs)
    oldest = ask("What is the oldest open bug in PAY?").answer
    assert oldest.startswith(
        "The oldest of the 3 issues in PAY (status Open, type Bug) is PAY-1: Change 1 (Open, created 2021-03-01) [1]."
    ), oldest
    stale = ask("Which open issues in PAY haven't been updated in a year?").answer
    assert stale.startswith(
        "There are 2 issues in PAY (status Open, not updated since 2023-06-02); the longest untouched first: "
        "PAY-2: Change 2 (Open, last updated 2022-08-01) [1]; PAY-4: Change 4 (Open, last updated 2023-03-03) [2]."
    ), stale
    year = ask("how many bugs were reported in PAY in 2023?").answer
    assert year.startswith("There is 1 issue in PAY (type Bug, created 2023-01-01 to 2023-12-31)"), year
    store.close()


def test_a_year_is_a_period_but_a_version_or_a_day_is_not():
    assert parse_question("how many bugs were reported in 2023?", KEYS).time_from == "2023-01-01"
    assert parse_question("which PRs were merged during 2019?", KEYS).time_to == "2019-12-31T23:59:59"
    assert parse_question("what did we ship in 2026.6?", KEYS).time_from is None
    assert parse_question("what happened in 2023-05-04?", KEYS).time_from != "2023-01-01"


def test_pull_requests_merged_in_a_year_are_counted_by_their_merge_day(tmp_path, embedder):
    """ "How many pull requests were merged in 2023?" counted every merged pull request."""
    from devkb.sources.base import SourceDocument

    def pull(n: int, merged: str | None) -> SourceDocument:
        meta = {
            "kind": "pull",
            "number": n,
            "repository": "acme/pay",
            "state": "merged" if merged else "open",
        }
        if merged:
            meta["merged"] = f"{merged}T12:00:00+00:00"
        return SourceDocument(
            id=f"github:acme/pay:pull:{n}",
            type=SourceType.GITHUB,
            kind="pull",
            title=f"PR #{n}: Change {n}",
            url=f"https://github.example/acme/pay/pull/{n}",
            updated_at="2024-05-01T10:00:00+00:00",
            content=f"PR #{n}: Change {n}",
            metadata=meta,
        )

    ask, store = _ask_over(tmp_path, embedder, [pull(1, "2022-12-31"), pull(2, "2023-06-01"), pull(3, None)])
    answer = ask("How many pull requests were merged in 2023?").answer
    assert answer.startswith("There is 1 pull request (state merged, merged 2023-01-01 to 2023-12-31)"), (
        answer
    )
    store.close()


def test_how_long_work_takes_is_read_off_every_resolved_issue(tmp_path, embedder):
    """ "What's the average time to close a bug in PAY?" quoted bug descriptions."""
    from tests.agent_corpus import _jira

    docs = []
    for n, days in enumerate([1, 3, 10, 40, None], 1):  # the last one is still open
        d = _jira(f"PAY-{n}", f"Change {n}", "Details.", status="Closed" if days else "Open")
        d.metadata["created"] = "2024-01-01T00:00:00+00:00"
        if days:
            d.metadata["resolved"] = f"{date(2024, 1, 1) + timedelta(days=days)}T00:00:00+00:00"
            d.metadata["resolution"] = "Fixed"
        docs.append(d)
    ask, store = _ask_over(tmp_path, embedder, docs)
    for text in (
        "What's the average time to close a bug in PAY?",
        "how long does it take to fix a bug in PAY?",
    ):
        a = ask(text)
        assert a.answer.startswith(
            "Of the 4 resolved issues in PAY (type Bug), the median took 6 days from created to resolved [1] "
            "(mean 14 days); half took between 2 days and 32 days; the longest, PAY-4, took 40 days [3]."
        ), a.answer
        assert [c.document_id for c in a.sources] == ["jira:PAY-3", "jira:PAY-1", "jira:PAY-4"]
    assert kind_of(parse_question("how long does the build take?", KEYS), False).name != "durations"
    assert (
        kind_of(parse_question("what is the average time between deployments?", KEYS), False).name
        != "durations"
    )
    store.close()


def test_how_long_one_named_issue_took_or_has_been_open():
    from devkb.agent.extractive import field_facts
    from tests.agent_corpus import _jira

    done = _jira("PAY-1", "Refund webhooks fail", "Timeouts.", status="Closed")
    done.metadata |= {"created": "2024-01-01T09:00:00+00:00", "resolved": "2024-02-11T09:00:00+00:00"}
    doc = Document(
        id=done.id,
        type=done.type,
        title=done.title,
        url=done.url,
        updated_at=done.updated_at,
        metadata=done.metadata,
    )
    parsed = parse_question("How long did it take to resolve PAY-1?", KEYS)
    assert "took" in parsed.fields
    facts = field_facts(parsed, 1, EvidenceDoc(doc, ()))
    assert facts is not None and "took 41 days (created 2024-01-01, resolved 2024-02-11)" in facts, facts
    assert "took" in parse_question("how long has PAY-2 been open?", KEYS).fields
    assert "took" not in parse_question("how long does a mortgage application take to approve?", KEYS).fields


def test_what_holds_a_release_up_is_its_open_issues_most_urgent_first(tmp_path, embedder):
    """ "What is blocking the 3.0 release?" quoted passages that said "blocking" and "release"."""
    from tests.agent_corpus import _jira

    wait = Reference("jira:PAY-2", "jira:PAY-9", "jira-issuelink", "PAY-2 depends on PAY-9", "jira:PAY-2")
    docs = [
        _jira("PAY-1", "Cosmetic fix", "Details.", status="Open"),
        _jira("PAY-2", "Ledger drift", "Details.", status="In Progress", links=[wait]),
        _jira("PAY-3", "Done already", "Details.", status="Closed"),
        _jira("PAY-9", "Upstream API", "Details.", status="Open"),  # no version: not counted
    ]
    for d, version, priority in zip(
        docs, ["3.0", "3.0", "3.0", None], ["Minor", "Blocker", "Major", "Major"], strict=True
    ):
        d.metadata["fix_version"] = [version] if version else []
        d.metadata["priority"] = priority
    docs[2].metadata["resolution"] = "Fixed"
    ask, store = _ask_over(tmp_path, embedder, docs)
    a = ask("What is blocking the PAY 3.0 release?").answer
    assert a.startswith(
        "PAY 3.0 has 2 open issues, the most urgent first: PAY-2: Ledger drift (Blocker, In Progress) [1]; "
        "PAY-1: Cosmetic fix (Minor, Open) [2]. Waiting on other unresolved issues: PAY-2 waits on PAY-9."
    ), a
    store.close()
