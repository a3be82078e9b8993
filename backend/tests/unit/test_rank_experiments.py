"""Issue 62's fourth-round features (devtools): each reads what its name says, from the snapshot."""

from __future__ import annotations

import numpy as np

from devkb.agent.retrieval.lexical import Tokenizer
from devkb.agent.retrieval.snapshot import CorpusSnapshot, DocEntry
from devkb.store.models import Chunk, Document, SourceType
from devkb_devtools.evaluation.rank_experiments import NEW, DocFacts

DIM = 4


def _doc(
    key: str, summary: str, created: str, reporter: str, vector: list[float], **meta: object
) -> DocEntry:
    doc = Document(
        id=f"jira:{key}",
        type=SourceType.JIRA,
        title=f"{key}: {summary}",
        content_hash=key,
        metadata={"key": key, "project": key.split("-")[0], "created": created, "reporter": reporter, **meta},
    )
    v = np.asarray([vector], np.float32)
    v /= np.linalg.norm(v)
    return DocEntry(
        doc, (Chunk(id=f"c-{key}", document_id=doc.id, chunk_index=0, content="x"),), v, ("x",), ("x",)
    )


def _facts() -> tuple[DocFacts, CorpusSnapshot]:
    entries = [
        _doc("CL-10", "[Source] Arrow keys move the robot", "2020-01-01T10:00:00+00:00", "ann", [1, 0, 0, 0]),
        _doc(
            "CL-11", "[Source] Arrow keys on the keyboard", "2020-01-01T10:05:00+00:00", "ann", [1, 0.1, 0, 0]
        ),
        _doc(
            "CL-40",
            "Arrow keys move the robot faster",
            "2020-03-01T10:00:00+00:00",
            "bob",
            [0, 1, 0, 0],
            assignee="ann",
        ),
        _doc("DD-11", "Unrelated", "2020-01-01T10:05:00+00:00", "ann", [0, 0, 1, 0], assignee="bob"),
    ]
    snap = CorpusSnapshot(entries, Tokenizer(), DIM)
    return DocFacts(snap), snap


def test_habit_features_read_time_reporter_number_prefix_and_people():
    facts, snap = _facts()
    q = snap.position["jira:CL-10"]
    docs = np.asarray([snap.position[f"jira:{k}"] for k in ("CL-11", "CL-40", "DD-11")])
    X = facts.features(q, docs, facts.first[q], np.asarray([3.0, 2.0, 1.0]))
    col = {name: X[:, k] for k, name in enumerate(NEW)}
    # five minutes apart, same reporter: close to 1; two months apart or another reporter: ~0
    assert col["rep_hour"][0] > 0.9 and col["rep_hour"][1] < 1e-6
    assert col["any_hour"][2] > 0.9 and col["rep_hour"][2] > 0.9  # DD-11: same reporter, same minute
    # issue numbers one apart in the same project; another project gets nothing
    assert np.isclose(col["key_gap"][0], np.exp(-1 / 3)) and col["key_gap"][2] == 0.0
    # "[source] arrow keys" shared (3 words) and the bracket tag; C-40 shares no leading word
    assert np.isclose(col["prefix"][0], 2.0) and col["prefix"][1] == 0.0
    # the query has no assignee and DD-11's assignee is bob, not ann; CL-40 assigned to ann: crossed
    assert col["cross"][2] == 0.0 and col["cross"][1] == 1.0
    assert col["people"][0] == 1.0 and col["people"][1] == 0.5  # {ann} against {bob, ann}


def test_reverse_rank_is_one_for_a_mutual_nearest_neighbour():
    facts, snap = _facts()
    q = snap.position["jira:CL-10"]
    docs = np.asarray([snap.position[f"jira:{k}"] for k in ("CL-11", "CL-40", "DD-11")])
    X = facts.features(q, docs, facts.first[q], np.asarray([3.0, 2.0, 1.0]))
    rev = X[:, NEW.index("rev_rank")]
    # C-11's nearest neighbour among the candidates and the query is the query itself
    assert rev[0] == 1.0
    # C-40 is closer to C-11 than to the query: one candidate ahead of the query
    assert rev[1] == 0.5
    # hubness-corrected cosine: the nearest document scores highest
    assert np.argmax(X[:, NEW.index("csls")]) == 0
