"""The sentence choice's meaning (agent/meaning.py) and reading further in the found documents
(agent/further.py): a sentence of a later source that says it wins over one of the first source
that only shares words, when the embedder says it is closer in meaning; a document's other chunks,
nearest first, when no retrieved sentence holds what the question asks."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from devkb.agent.evidence import EvidenceDoc
from devkb.agent.extractive import MEANING_CANDIDATES, focused_sentences, scored_sentences
from devkb.agent.focus import question_focus
from devkb.agent.further import FurtherReading
from devkb.agent.meaning import SentenceMeaning
from devkb.agent.question import parse_question
from devkb.store.models import Chunk, Document, DocumentWithChunks, SourceType

QUESTION = "Why do we forward the idempotency key to Meridian?"
WORDY = "The idempotency key is sent to Meridian as a header since release 2026.6.0."
SAYS = "We forward the key to Meridian so that our own retries cannot create a second charge there."


class Axes:
    """A test embedder: each text's vector is set by hand (the meaning a model would give), every
    other text gets an axis of its own; rows L2-normalised. Counts the texts it embeds."""

    def __init__(self, vectors: dict[str, Sequence[float]]) -> None:
        self.vectors = {t: np.asarray(v, dtype=np.float32) for t, v in vectors.items()}
        self.embedded: list[str] = []

    def __call__(self, texts: Sequence[str]) -> np.ndarray:
        self.embedded += texts
        rows = []
        for t in texts:
            v = self.vectors.get(t)
            if v is None:
                v = np.zeros(8, dtype=np.float32)
                v[4 + hash(t) % 4] = 1.0
            rows.append(v / np.linalg.norm(v))
        return np.stack(rows)


def why():
    f = question_focus(parse_question(QUESTION, {"PAY"}))
    assert f is not None and f.name == "reason"
    return f


def embedder() -> Axes:
    return Axes(
        {
            QUESTION: [1, 1, 0, 0, 0, 0, 0, 0],
            SAYS: [1, 0.9, 0, 0, 0, 0, 0, 0],
            WORDY: [0, 0.3, 1, 0, 0, 0, 0, 0],
        }
    )


def test_cosines_are_rounded_and_sentence_vectors_remembered() -> None:
    embed = embedder()
    meaning = SentenceMeaning(embed)
    first = meaning.similarities(QUESTION, [SAYS, WORDY])
    assert first[0] > 0.95 and first[1] < 0.3
    assert all(round(c, 3) == c for c in first)
    assert meaning.similarities(QUESTION, [WORDY, SAYS]) == first[::-1]
    assert embed.embedded.count(SAYS) == 1 and embed.embedded.count(QUESTION) == 1  # remembered
    assert meaning.similarities(QUESTION, []) == []


def test_a_later_source_that_says_it_wins_by_its_meaning() -> None:
    # source [1] shares more of the question's words and holds a cue ("since"); source [2] says why
    passages = [(1, WORDY), (2, SAYS), (3, "Meridian maintenance windows are on Tuesdays at 02:00 UTC.")]
    assert focused_sentences(QUESTION, passages, why()) == [(1, WORDY)]  # words alone
    chosen = focused_sentences(QUESTION, passages, why(), meaning=SentenceMeaning(embedder()))
    assert chosen[0] == (2, SAYS)
    scored = scored_sentences(QUESTION, passages, why(), meaning=SentenceMeaning(embedder()))
    assert {c.s: c.similarity for c in scored}[SAYS] > 0.9


def test_meaning_is_scored_for_a_bounded_set_of_candidates() -> None:
    many = [(1, f"We forward the idempotency key to Meridian because of case {i}.") for i in range(60)]
    embed = Axes({})
    scored = scored_sentences(QUESTION, many, why(), meaning=SentenceMeaning(embed))
    assert len(scored) == 60
    assert len(set(embed.embedded) - {QUESTION}) == MEANING_CANDIDATES
    # only those the meaning could make the best: a sentence far behind by words is not embedded,
    # and a single candidate is not embedded at all
    far = [(1, WORDY), (5, "The key is forwarded so that retries are safe, see the design notes.")]
    embed = Axes({})
    scored = scored_sentences(QUESTION, far, why(), meaning=SentenceMeaning(embed))
    assert len(scored) == 2 and embed.embedded == []


class Store:
    def __init__(self, found: DocumentWithChunks | None) -> None:
        self.found = found

    def get_document(self, document_id: str) -> DocumentWithChunks | None:
        return self.found


def manual(n: int) -> DocumentWithChunks:
    doc = Document("files:manual", SourceType.FILES, "Manual")
    return DocumentWithChunks(doc, [Chunk(f"c{i}", doc.id, i, f"chunk {i} text") for i in range(n)])


def test_reading_further_takes_the_nearest_chunks_in_document_order() -> None:
    found = manual(10)
    doc = EvidenceDoc(found.document, ("chunk 5 text", "chunk 2 text"))
    other = EvidenceDoc(Document("files:other", SourceType.FILES, "Other"), ("x",))
    [wide, same] = FurtherReading(Store(found), documents=1, more=3).widened([doc, other])
    assert wide.passages == ("chunk 5 text", "chunk 2 text", "chunk 1 text", "chunk 3 text", "chunk 4 text")
    assert same is other  # beyond the documents read further
    everything = FurtherReading(Store(found), more=50).widened([doc])[0]
    assert len(everything.passages) == 10


def test_nothing_further_for_a_document_the_reader_may_not_read_or_passages_that_are_no_chunk() -> None:
    found = manual(4)
    doc = EvidenceDoc(found.document, ("chunk 1 text",))
    assert FurtherReading(Store(None)).widened([doc]) == [doc]
    rendered = EvidenceDoc(found.document, ("a memory's rendering",))
    assert FurtherReading(Store(found)).widened([rendered]) == [rendered]
