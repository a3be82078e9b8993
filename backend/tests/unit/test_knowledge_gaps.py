"""Knowledge gaps (agent/knowledge_gaps.py): which answers are gaps, what is kept of the question
(privacy), the topic grouping, retention — on the real embedded store."""

from __future__ import annotations

from devkb.agent.answer import Answer, Citation, Confidence
from devkb.agent.knowledge_gaps import KnowledgeGaps, gap_kind, group_gaps, key_terms
from devkb.store.shared_state import Gap
from devkb.store.sqlite.shared_state import SQLiteSharedState


def answer(status: str, probability: float, *doc_ids: str) -> Answer:
    sources = [Citation(d, d.upper(), f"https://x/{d}", "JIRA", 1.0, "") for d in doc_ids]
    level = "high" if probability >= 0.8 else "medium" if probability >= 0.5 else "low"
    return Answer("…", sources, status=status, confidence=Confidence(probability, level, "why"))  # type: ignore[arg-type]


def g(gid: str, question: str, at: float = 0.0, docs: tuple[str, ...] = ()) -> Gap:
    return Gap(gid, "not_found", question, key_terms(question), None, docs, at)


def test_which_answers_are_gaps():
    assert gap_kind(answer("not_found", 0.9)) == "not_found"
    assert gap_kind(answer("partial", 0.6)) == "low_confidence"
    assert gap_kind(answer("answered", 0.45)) == "low_confidence"
    assert gap_kind(answer("answered", 0.8)) is None
    assert gap_kind(Answer("…", [])) is None  # no confidence, answered: not a gap
    asked_back = answer("not_found", 0.981)
    asked_back.asks_back = True  # "which one do you mean?": the sources were not asked
    assert gap_kind(asked_back) is None


def test_key_terms_are_stemmed_content_words_without_meta_words():
    assert key_terms("Is there a handbook page about rotating the vault keys?") == key_terms(
        "rotating vault key"
    )
    assert "handbook" not in key_terms("the handbook page") and key_terms("the of a") == ()


def test_grouping_joins_questions_sharing_half_their_key_terms():
    gaps = [
        g("a", "How do we rotate the vault keys?", 3.0, ("doc:1",)),
        g("b", "vault key rotation schedule", 2.0, ("doc:1", "doc:2")),
        g("c", "Who approves expense reports?", 1.0),
        g("d", "expense report deadline", 4.0, ("doc:3",)),
        g("e", "kubernetes autoscaling", 0.5),
    ]
    topics = group_gaps(gaps)
    assert [sorted(t.gap_ids) for t in topics] == [["c", "d"], ["a", "b"], ["e"]]  # ties: newest first
    vault = topics[1]
    assert vault.count == 2 and vault.document_ids == ["doc:1", "doc:2"]
    assert vault.questions == ["How do we rotate the vault keys?", "vault key rotation schedule"]
    assert set(vault.terms[:2]) == set(key_terms("vault key"))
    assert group_gaps([]) == []


def test_question_text_is_kept_only_when_the_deployment_keeps_conversations(tmp_path):
    state = SQLiteSharedState(tmp_path / "g.sqlite")
    try:
        private = KnowledgeGaps(lambda: state, "auto", keeps_conversations=False, clock=lambda: 100.0)
        kept = private.record_answer("How do we rotate the vault keys?", answer("not_found", 0.8, "jira:A-1"))
        assert kept is not None and kept.question == "" and kept.terms == key_terms("rotate vault keys")
        assert kept.probability == 0.2 and kept.document_ids == ("jira:A-1",)
        assert private.record_answer("fine", answer("answered", 0.9)) is None

        stored = KnowledgeGaps(lambda: state, "auto", keeps_conversations=True, clock=lambda: 200.0)
        down = stored.record_feedback("Why is PAY-12 closed?", ["jira:PAY-12"])
        assert down is not None and down.question == "Why is PAY-12 closed?" and down.kind == "thumbs_down"
        assert KnowledgeGaps(lambda: state, "terms", True).keep_questions is False
        assert KnowledgeGaps(lambda: state, "off", True).record_feedback("q", []) is None

        topics, total = stored.topics()
        assert total == 2 and len(topics) == 2
        only_down, n = stored.topics(kinds=["thumbs_down"])
        assert n == 1 and only_down[0].questions == ["Why is PAY-12 closed?"]
    finally:
        state.close()


def test_gaps_expire_with_the_conversation_retention(tmp_path):
    state = SQLiteSharedState(tmp_path / "g.sqlite")
    now = [0.0]
    try:
        gaps = KnowledgeGaps(lambda: state, "questions", retention_days=1.0, clock=lambda: now[0])
        gaps.record_feedback("old question", [])
        now[0] = 2 * 86400.0  # two days later, more than an hour after the last expiry
        gaps.record_feedback("new question", [])
        assert [x.question for x in state.gaps()] == ["new question"]
        assert gaps.topics(days=0.5)[1] == 1
    finally:
        state.close()


def test_a_store_failure_never_fails_the_answer(tmp_path, caplog):
    import sqlite3

    from devkb.api.routers.ask import note_gap

    def broken() -> SQLiteSharedState:
        raise sqlite3.OperationalError("unable to open database file")

    note_gap(KnowledgeGaps(broken, "questions"), "How do we rotate the vault keys?", answer("not_found", 0.9))
    assert "could not record a knowledge gap" in caplog.text


def test_identifiers_are_kept_whole_and_function_words_are_never_terms():
    assert key_terms("What happens if it does not retry after a timeout?") == ("retry", "timeout")
    assert key_terms("When did PAY-7 move to Done?") == ("move", "pay-7")
    assert key_terms("Is X-Request-Id required on api/v2 calls?") == (
        "api/v2",
        "call",
        "requir",
        "x-request-id",
    )
    assert key_terms("What does src/payments/retry.py do, e.g. in v2?") == ("src/payments/retry.py", "v2")
    assert key_terms("Why ERR_TIMEOUT.") == ("err_timeout",)
    # an identifier groups the questions that name it, whatever else they say
    topics = group_gaps([g("a", "Why is WEB-7 blocked?", 2.0), g("b", "who owns WEB-7", 1.0)])
    assert [sorted(t.gap_ids) for t in topics] == [["a", "b"]] and topics[0].terms[0] == "web-7"


def test_a_topic_without_key_terms_is_named_by_its_question_or_its_documents(tmp_path):
    from devkb.agent.knowledge_gaps import _label

    [kept] = group_gaps([g("a", "And why?", 1.0, ("jira:PAY-7",))])
    assert kept.terms == [] and _label(kept, {}) == "“And why?”"
    [private] = group_gaps([Gap("b", "not_found", "", key_terms("And why?"), None, ("jira:PAY-7",), 1.0)])
    from devkb.store.models import Document, SourceType

    doc = Document("jira:PAY-7", SourceType.JIRA, "PAY-7: Retry on timeouts")
    assert _label(private, {"jira:PAY-7": doc}) == "near PAY-7: Retry on timeouts"
    assert _label(private, {}) == "(questions without content words)"
