"""Mentions of words, not of a document: "which issues mention Apple Pay?" names no issue, page or
commit (no key, no title), so there is no anchor whose edges to follow — the question asks for
every document of the wanted type whose text holds the phrase. The full-text index finds the
candidates; a document counts when its title or one of its chunks holds the phrase's words in
order (case aside; "3-D Secure" matches "3-D secure" and "3 D Secure"), so the list is exact for
what it shows, newest first. Used by the relation kind when a "mentions" question finds no
anchor."""

from __future__ import annotations

from collections.abc import Sequence

from devkb.agent.answer import ToolCall
from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import citation
from devkb.agent.frame.match import tokenize
from devkb.agent.frame.model import Frame
from devkb.agent.kinds.base import Context, document_kind
from devkb.agent.tools import RAGSearch
from devkb.store.models import Document, SourceType

CANDIDATES = 200  # chunks read from the full-text index
AT_LEAST = "at least"  # the outcome's mark for a list the candidates may have cut short
MOST_WORDS = 6  # a longer "phrase" is a sentence, not a name to look for
# the wanted type → the sources it lives in and the kinds of document it is
_TYPES: dict[str | None, tuple[tuple[SourceType, ...], tuple[str, ...]]] = {
    "issue": ((SourceType.JIRA, SourceType.GITHUB), ("issue", "gh-issue")),
    "commit": ((SourceType.GITHUB,), ("commit",)),
    "pull": ((SourceType.GITHUB,), ("pull",)),
    "file": ((SourceType.GITHUB,), ("file",)),
    "page": (tuple(SourceType), ("page", "file", "web-page", "upload")),
}


def asked_phrase(frame: Frame) -> tuple[str, str | None] | None:
    """ "which issues mention Apple Pay in WEB?" → ("Apple Pay", "WEB"): the frame's form
    "mentions" (up to ``MOST_WORDS`` words after "mention", an article dropped, a project after
    them apart); None when the words after "mention" are no short phrase."""
    form = frame.form("mentions")
    if form is None or not form.get("phrase"):
        return None
    return form["phrase"], form.get("project")


def phrase_span(phrase: str, text: str) -> tuple[int, int] | None:
    """Where ``text`` holds the phrase's words in order, anything but a letter or digit between
    them, case aside: its (start, end), or None."""
    words = [t.low for t in tokenize(phrase)]
    if not words or not text or words[0] not in text.lower():
        return None
    toks = tokenize(text)
    n = len(words)
    for i in range(len(toks) - n + 1):
        if all(toks[i + k].low == words[k] for k in range(n)):
            return toks[i].start, toks[i + n - 1].end
    return None


def mentioning(ctx: Context, phrase: str, project: str | None) -> list[EvidenceDoc]:
    """Every document of the wanted type the reader can read whose title or text holds
    ``phrase`` (among the full-text index's best ``CANDIDATES`` chunks for it), newest first,
    each with the sentence that holds it. When the index gave all ``CANDIDATES`` chunks and the
    last fifth of them still held it, more documents may: the outcome says "at least"
    (``composed_kind``)."""
    wanted = ctx.parsed.wanted if ctx.parsed.wanted in _TYPES else None
    sources, kinds = _TYPES.get(wanted, ((), ()))
    types = [t for t in sources if ctx.scope.allows_type(t)] if sources else ctx.scope.allowed_types
    store = ctx.toolbox.graph_query.store
    hits = store.keyword_search(phrase, top_k=CANDIDATES, types=types) if types != [] else []
    found: dict[str, tuple[Document, str]] = {}
    last = -1  # the rank of the last candidate that held the phrase
    for rank, hit in enumerate(hits):
        doc = hit.document
        if doc.id in found or not ctx.scope.allows(doc):
            continue
        if kinds and document_kind(doc.id, doc.metadata) not in kinds:
            continue
        if project and doc.metadata.get("project") != project:
            continue
        passage = _holding(phrase, doc.title) or _holding(phrase, _own_text(hit.chunk.content))
        if passage:
            found[doc.id] = (doc, passage)
            last = rank
    docs = sorted(found.values(), key=lambda dp: dp[0].updated_at, reverse=True)
    listed = [EvidenceDoc(d, (p,), 1.0 / (1 + i), RAGSearch.name) for i, (d, p) in enumerate(docs)]
    if len(hits) >= CANDIDATES and last >= CANDIDATES * 4 // 5:
        ctx.outcome.composed_kind = AT_LEAST  # still finding it among the last candidates: may be cut short
    asked = {"phrase": phrase, "types": [t.value for t in types or []]}
    ctx.scope.record(ToolCall(RAGSearch.name, asked, len(listed)))
    return listed


def _own_text(text: str) -> str:
    """``text`` without its "## Links" sections: a link line names another issue by its title
    ("- relates to SJRK-329: Can't record audio …"), which this document does not say itself."""
    while (start := text.find("## Links\n")) != -1 and (start == 0 or text[start - 1] == "\n"):
        end = text.find("\n## ", start + 1)
        text = text[:start] + (text[end + 1 :] if end != -1 else "")
    return text


def _holding(phrase: str, text: str) -> str:
    """The sentence of ``text`` that holds the phrase ("" when none does)."""
    span = phrase_span(phrase, text or "")
    if span is None:
        return ""
    m_start, m_end = span
    start = max(text.rfind(". ", 0, m_start) + 2, text.rfind("\n", 0, m_start) + 1, 0)
    ends = [i for i in (text.find(". ", m_end), text.find("\n", m_end)) if i != -1]
    end = min(ends) + 1 if ends else len(text)
    return " ".join(text[start:end].split())[:300]


def phrase_list(
    noun: str,
    phrase: str,
    listed: Sequence[EvidenceDoc],
    numbers: dict[str, int],
    shown: int,
    reads_all: bool,
    at_least: bool = False,
) -> str:
    """ "3 issues mention “Apple Pay”: WEB-5: … [1]; …." """
    n = len(listed)
    if not n:
        where = "in the knowledge base" if reads_all else "among the documents you can read"
        return f"No {noun} mentions “{phrase}” {where}."
    items = []
    for d in listed[:shown]:
        cite = citation(d, numbers)
        items.append(f"{d.document.title}{cite}")
    more = f"; and {n - shown} more" if n > shown else ""
    verb = "mentions" if n == 1 else "mention"
    counted = f"at least {n}" if at_least else str(n)
    return f"{counted} {noun}{'s' * (n != 1)} {verb} “{phrase}”: " + "; ".join(items) + more + "."
