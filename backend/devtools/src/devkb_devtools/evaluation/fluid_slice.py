"""A small, real slice of the Fluid corpus for evaluating the agent without indexing all of it.

The full corpus (10k issues) takes ~15 minutes to embed on two CPU cores; the slice holds every
document the evaluation questions name or expect (their gold), the documents one reference hop
from the ones they name, and seeded random distractors from each source — a few hundred
documents, embedded by the real embedder into the real store through the real
``IndexingPipeline`` and the sources' own converters.

Cross-source references (issue keys in commits, URLs of pages in issues, ...) are taken from
the corpus's ground truth (``eval/edges.jsonl.gz``) so the slice measures the agent, not the
reference extractor; Jira issue links come from the Jira converter as in a real sync.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from devkb.indexing.embedders.base import TextEmbedder
from devkb.indexing.references.context import LinkContext
from devkb.sources.base import SourceDocument
from devkb.sources.confluence.convert import page_to_document
from devkb.sources.github.convert import commit_to_document, file_to_document, pull_to_document
from devkb.sources.jira.convert import issue_to_document
from devkb.store.models import Reference
from devkb.store.protocol import GraphStore
from devkb.store.sqlite import SQLiteGraphStore
from devkb_devtools.testkit import build_indexer

REPO = "fluid-project/infusion-docs"
JIRA_URL = "https://fluidproject.atlassian.net"
CONFLUENCE_URL = "https://wiki.fluidproject.org"
_KEY = re.compile(r"\b[A-Z][A-Z0-9]+-\d+\b")
_SHA = re.compile(r"\b[0-9a-f]{40}\b")
_PULL = re.compile(r"#(\d+)")
_PATH = re.compile(r"\bsrc/\S+?\.md\b")
_QUOTED = re.compile(r"\"([^\"]+)\"")


def to_devkb_id(eval_id: str) -> str:
    """``github:commit:<sha>`` (the corpus's notation) → ``github:<owner>/<repo>:commit:<sha>``."""
    if eval_id.startswith("github:") and not eval_id.startswith(f"github:{REPO}:"):
        return f"github:{REPO}:{eval_id[len('github:') :]}"
    return eval_id


@dataclass
class SliceStats:
    documents: int
    chunks: int
    by_type: dict[str, int]


def _jsonl(path: Path) -> Iterator[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def anchors_of(question: str, page_ids_by_title: dict[str, str]) -> set[str]:
    """Document ids a question names (issue keys, SHAs, pull numbers, paths, quoted titles)."""
    out = {f"jira:{k}" for k in _KEY.findall(question)}
    out |= {to_devkb_id(f"github:commit:{s}") for s in _SHA.findall(question)}
    out |= {to_devkb_id(f"github:pull:{n}") for n in _PULL.findall(question)}
    out |= {to_devkb_id(f"github:file:{p}") for p in _PATH.findall(question)}
    out |= {page_ids_by_title[t.lower()] for t in _QUOTED.findall(question) if t.lower() in page_ids_by_title}
    return out


def select_ids(
    fluid: Path, questions: Iterable[dict[str, Any]], distractors: int = 200, seed: int = 7
) -> set[str]:
    pages = {f"confluence:page:{p['id']}": p for p in _jsonl(fluid / "confluence/pages.jsonl.gz")}
    titles = {p["title"].lower(): i for i, p in pages.items()}
    neighbours: dict[str, set[str]] = defaultdict(set)
    for e in _jsonl(fluid / "eval/edges.jsonl.gz"):
        a, b = to_devkb_id(e["from"]), to_devkb_id(e["to"])
        neighbours[a].add(b)
        neighbours[b].add(a)
    wanted: set[str] = set()
    for q in questions:
        named = anchors_of(q["question"], titles)
        wanted |= named | set(q.get("gold", []))
        for a in named:
            wanted |= neighbours.get(a, set())
    rng = random.Random(seed)
    keys = sorted(i["key"] for i in _jsonl(fluid / "jira/issues.jsonl.gz"))
    wanted |= {f"jira:{k}" for k in rng.sample(keys, distractors)}
    shas = sorted(c["sha"] for c in _jsonl(fluid / "github/infusion-docs/commits.jsonl.gz"))
    wanted |= {to_devkb_id(f"github:commit:{s}") for s in rng.sample(shas, distractors // 5)}
    pulls = sorted(p["number"] for p in _jsonl(fluid / "github/infusion-docs/pulls.jsonl.gz"))
    wanted |= {to_devkb_id(f"github:pull:{n}") for n in rng.sample(pulls, distractors // 10)}
    small_pages = sorted(i for i, pg in pages.items() if len(pg["body"]["storage"]["value"]) < 6000)
    wanted |= set(rng.sample(small_pages, min(len(small_pages), distractors // 10)))
    tree = fluid / "github/infusion-docs/tree"
    small = sorted(str(p.relative_to(tree)) for p in tree.rglob("*.md") if p.stat().st_size < 8000)
    wanted |= {to_devkb_id(f"github:file:{p}") for p in rng.sample(small, min(len(small), distractors // 20))}
    return wanted


def load_documents(fluid: Path, ids: set[str]) -> list[SourceDocument]:
    """The selected documents through the sources' converters, with ground-truth cross-source edges."""
    docs: list[SourceDocument] = []
    for issue in _jsonl(fluid / "jira/issues.jsonl.gz"):
        if f"jira:{issue['key']}" in ids:
            docs.append(issue_to_document(issue, JIRA_URL))
    for commit in _jsonl(fluid / "github/infusion-docs/commits.jsonl.gz"):
        if to_devkb_id(f"github:commit:{commit['sha']}") in ids:
            docs.append(commit_to_document(REPO, commit))
    for pull in _jsonl(fluid / "github/infusion-docs/pulls.jsonl.gz"):
        if to_devkb_id(f"github:pull:{pull['number']}") in ids:
            docs.append(pull_to_document(REPO, pull))
    tree = fluid / "github/infusion-docs/tree"
    for doc_id in sorted(ids):
        prefix = to_devkb_id("github:file:")
        if doc_id.startswith(prefix):
            path = doc_id[len(prefix) :]
            text = (tree / path).read_text(encoding="utf-8")
            docs.append(file_to_document(REPO, path, text, "", "https://github.com", "main"))
    for page in _jsonl(fluid / "confluence/pages.jsonl.gz"):
        if f"confluence:page:{page['id']}" in ids:
            docs.append(page_to_document(page, CONFLUENCE_URL))
    edges: dict[str, list[Reference]] = defaultdict(list)
    for e in _jsonl(fluid / "eval/edges.jsonl.gz"):
        if e["kind"] == "jira-issuelink":
            continue  # the Jira converter produces these itself
        a, b = to_devkb_id(e["from"]), to_devkb_id(e["to"])
        if a in ids and b in ids:
            edges[a].append(Reference(a, b, e["kind"], e.get("title") or e["kind"], a))
    for d in docs:
        d.references = d.references + edges.get(d.id, [])
    return docs


def build_slice(
    fluid: Path,
    questions: Iterable[dict[str, Any]],
    store: GraphStore,
    embedder: TextEmbedder,
    distractors: int = 200,
    seed: int = 7,
    batch: int = 64,
) -> SliceStats:
    """Index the slice into ``store`` (which must be empty or hold an earlier slice)."""
    ids = select_ids(fluid, list(questions), distractors, seed)
    docs = load_documents(fluid, ids)
    projects = {p["key"] for p in json.loads((fluid / "jira/projects.json").read_text(encoding="utf-8"))}
    ctx = LinkContext(project_keys=projects, github_repos={REPO})
    if not isinstance(store, SQLiteGraphStore) or store.path.name != "graph.sqlite":
        raise ValueError("the Fluid slice is built into an embedded store (DATA_DIR/graph.sqlite)")
    store.ensure_schema(embedder.model_name, embedder.dimension)
    pipeline = build_indexer(store.path.parent, embedder, [], link_context=ctx, embed_batch_size=32).pipeline
    by_source: dict[str, list[SourceDocument]] = defaultdict(list)
    for d in docs:
        by_source[d.type.value.lower()].append(d)
    for source, items in by_source.items():
        for i in range(0, len(items), batch):
            pipeline.run(items[i : i + batch], source)
    s = store.stats()
    return SliceStats(s.documents, s.chunks, s.documents_by_type)


def fluid_project_keys(fluid: Path) -> set[str]:
    return {p["key"] for p in json.loads((fluid / "jira/projects.json").read_text(encoding="utf-8"))}
