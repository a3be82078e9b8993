"""Counts and lists by field ("how many open bugs are in FLUID?", "which issues are assigned to
Justin Obara?") against the raw Fluid Jira export — every one of its 10,052 issues indexed, and
the expected count worked out here from the raw JSON (``fields.status.name``,
``fields.issuetype.name``, ``fields.assignee.displayName``, the key's project), never from the
store the answer reads.

The questions are generated from the raw data, several phrasings per shape (a project; a project
and a status; a project and a type; all three; an assignee), and split by a hash of their text into
``tuning`` and ``heldout`` (the count kind was not tuned on either; both are reported). A question
scores 1 when the answer states the expected count ("There are 412 issues …", "There is 1 issue …",
"There are no issues …").

    python -m devkb_devtools.evaluation.count_eval --fluid ../shared/data/fluid [--split heldout] [-v] [--json OUT]
"""

from __future__ import annotations

import argparse
import calendar
import gzip
import hashlib
import json
import random
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

FLUID = Path(__file__).resolve().parents[6] / "shared" / "data" / "fluid"
JIRA_URL = "https://issues.fluidproject.org"
# the words the count kind reads a status and a type from (agent/identifiers.py), and how a
# question names them
STATUS_WORDS = {"Open": "open", "Closed": "closed", "Resolved": "resolved", "Reopened": "reopened"}
TYPE_WORDS = {"Bug": "bugs", "Task": "tasks", "Improvement": "improvements", "New Feature": "new features"}
_COUNT = re.compile(r"^There (?:is|are) (no|at least \d+|\d+) ", re.IGNORECASE)
# a person's work (agent/kinds/person_work.py): "Justin Obara worked on 12 issues; …"
_WORKED = re.compile(r"^[^;]*? (?:worked|is working) on (\d+) issues?[;.]")
# which issues mention words (agent/kinds/mentions.py): "3 issues mention “x y”: …"
_MENTIONS = re.compile(r"^(?:at least )?(\d+) issues? mentions? “|^No issue mentions “")
_NO_WORK = re.compile(r"^[^;.]*? has no (?:unresolved )?issue assigned")
# a ranking (agent/kinds/ranking.py): "Justin Obara reported the most issues in FLUID: 312 of 1,200 [1]…",
# "The issues in FLUID with the most comments (of 800): FLUID-1: … (14 comments) [1]; …"
# what a person reported (person_work.py): "Grace Lee reported 6 issues; …", "… reported no issue"
_REPORTED = re.compile(
    r"^[^;]*? reported (\d+) (?:issue|bug|task|story|improvement|new feature)s?;|^[^;.]*? reported (no) "
)
_RANKED = re.compile(
    r"^[^:]*? the most [^:]*: (\d+) of \d+|^The [^:]* with the most comments[^:]*: .*? \((\d+) comments?\)|^None of the (\d*)"
)
# how a question names a priority, and the priorities it means (agent/kinds/count.py)
PRIORITY_WORDS = [
    ("critical", ["Critical"]),
    ("blocker", ["Blocker"]),
    ("high priority", ["Highest", "High", "Blocker", "Critical"]),
    ("low priority", ["Low", "Lowest", "Minor", "Trivial"]),
]
# resolved in any way: a resolution, or one of these statuses (agent/kinds/relation.is_resolved)
DONE_STATUSES = ("closed", "resolved", "done")


@dataclass
class CountQuestion:
    id: str
    shape: str
    question: str
    expected: int
    split: str


@dataclass
class Outcome:
    id: str
    shape: str
    split: str
    question: str
    expected: int
    stated: int | None
    right: bool
    answer: str


def _issues(fluid: Path) -> Iterator[dict[str, Any]]:
    """Raw issues of a Fluid-shaped directory (jira/issues.jsonl.gz) or of a plain JSONL file
    (the demo workspace's jira/issues.jsonl)."""
    if fluid.is_file():
        with open(fluid, encoding="utf-8") as plain:
            yield from (json.loads(line) for line in plain if line.strip())
        return
    with gzip.open(fluid / "jira" / "issues.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def _split(text: str) -> str:
    return "heldout" if int(hashlib.sha256(text.encode()).hexdigest(), 16) % 2 else "tuning"


def questions(fluid: Path, per_shape: int = 24, seed: int = 5) -> list[CountQuestion]:
    """Count questions with their expected answers, from the raw issues."""
    project: Counter[str] = Counter()
    project_status: Counter[tuple[str, str]] = Counter()
    project_type: Counter[tuple[str, str]] = Counter()
    project_status_type: Counter[tuple[str, str, str]] = Counter()
    assignee: Counter[str] = Counter()
    assignee_open: Counter[str] = Counter()
    project_type_done: Counter[tuple[str, str]] = Counter()
    project_priority: Counter[tuple[str, str]] = Counter()
    project_version: Counter[tuple[str, str]] = Counter()
    project_month: Counter[tuple[str, str]] = Counter()
    project_unassigned: Counter[str] = Counter()  # nobody assigned and not done
    reported_in: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)  # (project, type) → reporters
    reported: Counter[str] = Counter()  # everyone's reported issues
    assigned_in: dict[str, Counter[str]] = defaultdict(Counter)  # project → assignees
    most_comments: Counter[str] = Counter()  # project → the most comments one issue has
    everyone: set[str] = set()  # everyone named on an issue: a first name fits one of them or several
    for issue in _issues(fluid):
        f = issue["fields"]
        p = issue["key"].split("-")[0]
        status, kind = f["status"]["name"], f["issuetype"]["name"]
        project[p] += 1
        project_status[p, status] += 1
        project_type[p, kind] += 1
        project_status_type[p, status, kind] += 1
        name = (f.get("assignee") or {}).get("displayName")
        done = bool(f.get("resolution")) or status.lower() in DONE_STATUSES
        if name:
            assignee[name] += 1
            assignee_open[name] += not done
        project_type_done[p, kind] += done
        project_unassigned[p] += not name and not done
        reporter = ((f.get("reporter") or {}).get("displayName") or "").strip()
        if reporter:
            reported_in[p, kind][reporter] += 1
            reported[reporter] += 1
        if name:
            assigned_in[p][name.strip()] += 1
        comments = len((f.get("comment") or {}).get("comments") or [])
        most_comments[p] = max(most_comments[p], comments)
        everyone.update(_people(issue))
        project_priority[p, (f.get("priority") or {}).get("name") or ""] += 1
        for version in {v["name"] for v in f.get("fixVersions") or []}:
            project_version[p, version] += 1
        created = _utc_month(f.get("created"))
        if created:
            project_month[p, created] += 1
    rng = random.Random(seed)
    out: list[CountQuestion] = []

    def add(shape: str, phrasings: Sequence[str], expected: int) -> None:
        text = phrasings[len(out) % len(phrasings)]
        out.append(CountQuestion(f"C{len(out) + 1:03d}", shape, text, expected, _split(text)))

    for p in sorted(project):
        add(
            "project",
            [
                f"How many issues are in {p}?",
                f"how many {p} issues are there?",
                f"What's the number of issues in {p}?",
            ],
            project[p],
        )
    pairs = sorted(k for k in project_status if k[1] in STATUS_WORDS)
    for p, s in rng.sample(pairs, min(per_shape, len(pairs))):
        w = STATUS_WORDS[s]
        add(
            "project+status",
            [
                f"How many {w} issues are in {p}?",
                f"how many {p} issues are {w}?",
                f"number of {w} tickets in {p}",
            ],
            project_status[p, s],
        )
    types = sorted(k for k in project_type if k[1] in TYPE_WORDS)
    for p, t in rng.sample(types, min(per_shape, len(types))):
        w = TYPE_WORDS[t]
        add(
            "project+type",
            [f"How many {w} does {p} have?", f"how many {w} are there in {p}?", f"the number of {p} {w}"],
            project_type[p, t],
        )
    triples = sorted(k for k in project_status_type if k[1] in STATUS_WORDS and k[2] in TYPE_WORDS)
    for p, s, t in rng.sample(triples, min(per_shape, len(triples))):
        sw, tw = STATUS_WORDS[s], TYPE_WORDS[t]
        add(
            "project+status+type",
            [f"How many {sw} {tw} are there in {p}?", f"how many {sw} {p} {tw} are there?"],
            project_status_type[p, s, t],
        )
    people = sorted(n for n in assignee if re.fullmatch(r"[A-Z][\w'’.-]*(?: [A-Z][\w'’.-]*){1,3}", n))
    for name in rng.sample(people, min(per_shape, len(people))):
        add(
            "assignee",
            [f"Which issues are assigned to {name}?", f"how many issues are assigned to {name}?"],
            assignee[name],
        )
    for p, t in rng.sample(types, min(per_shape, len(types))):  # the types asked as closed
        w = TYPE_WORDS[t]
        add(
            "closed (project+type)",
            [
                f"How many {w} did we close in {p}?",
                f"how many {p} {w} were fixed?",
                f"which {w} got resolved in {p}?",
            ],
            project_type_done[p, t],
        )
    firsts = Counter(n.split()[0] for n in everyone if " " in n)
    unique = sorted(
        n for n in assignee if " " in n and firsts[n.split()[0]] == 1 and n.split()[0][:1].isupper()
    )
    for name in rng.sample(unique, min(per_shape, len(unique))):
        first = name.split()[0]
        if len(out) % 2:
            add(
                "person's work (first name)",
                [f"what did {first} work on?", f"What has {first} worked on?"],
                assignee[name],
            )
        else:
            add("person's work now (first name)", [f"what is {first} working on?"], assignee_open[name])
    # a priority ("critical", "blocker", and "high priority": Highest, High, Blocker or Critical)
    for p in rng.sample(sorted(project), min(per_shape, len(project))):
        word, names = rng.choice(PRIORITY_WORDS)
        add(
            "priority",
            [f"how many {word} issues are there in {p}?", f"what are the {word} issues in {p}?"],
            sum(project_priority[p, n] for n in names),
        )
    versions = sorted(k for k in project_version if re.fullmatch(r"\d+(?:\.\d+){1,3}", k[1]))
    for p, v in rng.sample(versions, min(per_shape, len(versions))):
        add(
            "fix version",
            [f"which {p} issues are in release {v}?", f"how many issues in {p} have fix version {v}?"],
            project_version[p, v],
        )
    months = sorted(project_month)
    for p, month in rng.sample(months, min(per_shape, len(months))):
        name = f"{calendar.month_name[int(month[5:])]} {month[:4]}"
        add(
            "created in a month",
            [
                f"how many {p} issues were reported in {name}?",
                f"how many issues were created in {p} in {name}?",
            ],
            project_month[p, month],
        )
    for phrase, n in _phrases(fluid, rng, per_shape):
        add(
            "mentions",
            [f"which issues mention {phrase}?", f"are there any issues that reference {phrase}?"],
            n,
        )
    # after the shapes above, so their samples stay the ones they were
    for p in rng.sample(sorted(project), min(per_shape, len(project))):
        add(
            "unassigned",
            [
                f"which {p} issues are unassigned?",
                f"how many issues in {p} have no assignee?",
                f"what issues in {p} are not assigned to anyone?",
            ],
            project_unassigned[p],
        )
    # rankings, after the shapes above (their samples stay as they were): the top count is the
    # figure (a tie at the top names several people, the count is the same)
    for p, t in rng.sample(types, min(per_shape, len(types))):
        w = TYPE_WORDS[t]
        add(
            "who reported the most",
            [f"who reported the most {w} in {p}?", f"Who filed the most {p} {w}?"],
            max(reported_in[p, t].values(), default=0),
        )
    for p in rng.sample(sorted(project), min(per_shape, len(project))):
        add(
            "who has the most issues",
            [f"who has the most issues in {p}?", f"who is assigned the most {p} issues?"],
            max(assigned_in[p].values(), default=0),
        )
    for p in rng.sample(sorted(project), min(per_shape, len(project))):
        add(
            "the most comments",
            [f"which {p} issues have the most comments?", f"what are the most commented issues in {p}?"],
            most_comments[p],
        )
    # what a person reported: people whose first name no one else named on any issue has
    reporters = sorted(
        n for n in reported if " " in n and firsts[n.split()[0]] == 1 and n.split()[0][:1].isupper()
    )
    for name in rng.sample(reporters, min(per_shape, len(reporters))):
        first = name.split()[0]
        add(
            "reported by a person (first name)",
            [f"which issues did {first} report?", f"what issues has {first} filed?"],
            reported[name],
        )
    return out


_STOP = frozenset(
    "the and for with from that this when into have should does will when then than there their "
    "also only some more must need make used using user users able work works file files page".split()
)


def _raw_text(issue: dict[str, Any]) -> str:
    f = issue["fields"]
    comments = [c.get("body") or "" for c in (f.get("comment") or {}).get("comments", [])]
    return "\n".join([f.get("summary") or "", f.get("description") or "", *comments])


def _phrases(fluid: Path, rng: random.Random, most: int) -> list[tuple[str, int]]:
    """Two-word phrases from issue summaries that 2 to 25 issues' own text (summary, description,
    comments) holds in order (anything but letters and digits between the words, case aside),
    with that number of issues: what "which issues mention X?" should list."""
    texts = [_raw_text(i) for i in _issues(fluid)]
    summaries = [i["fields"].get("summary") or "" for i in _issues(fluid)]
    pairs: set[tuple[str, str]] = set()
    for summary in summaries:
        words = re.findall(r"[A-Za-z]+", summary)
        for a, b in zip(words, words[1:], strict=False):
            if len(a) >= 4 and len(b) >= 4 and a.lower() not in _STOP and b.lower() not in _STOP:
                pairs.add((a.lower(), b.lower()))
    out: list[tuple[str, int]] = []
    for a, b in rng.sample(sorted(pairs), min(len(pairs), most * 12)):
        pattern = re.compile(rf"(?<!\w){a}\W+{b}(?!\w)", re.IGNORECASE)
        n = sum(1 for t in texts if pattern.search(t))
        if 2 <= n <= 25:
            out.append((f"{a} {b}", n))
        if len(out) == most:
            break
    return out


def _utc_month(value: str | None) -> str:
    """ "2018-04-30T23:22:33.903-0400" → "2018-05" (the month in UTC, as the store keeps times)."""
    if not value:
        return ""
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%f%z").astimezone(UTC).strftime("%Y-%m")


def _people(issue: dict[str, Any]) -> set[str]:
    """Everyone the raw issue names: assignee, reporter, commenters, who changed it."""
    f = issue["fields"]
    named = [(f.get(k) or {}).get("displayName") for k in ("assignee", "reporter", "creator")]
    named += [
        (c.get("author") or {}).get("displayName") for c in (f.get("comment") or {}).get("comments", [])
    ]
    named += [
        (h.get("author") or {}).get("displayName")
        for h in (issue.get("changelog") or {}).get("histories", [])
    ]
    return {n.strip() for n in named if n}


def stated_count(answer: str) -> int | None:
    m = _COUNT.match(answer)
    if not m:
        mentions = _MENTIONS.match(answer)
        if mentions:
            return int(mentions.group(1) or 0)
        by = _REPORTED.match(answer)
        if by:
            return 0 if by.group(2) else int(by.group(1))
        ranked = _RANKED.match(answer)
        if ranked:
            return int(ranked.group(1) or ranked.group(2) or 0)
        worked = _WORKED.match(answer)
        if worked:
            return int(worked.group(1))
        return 0 if _NO_WORK.match(answer) else None
    said = m.group(1).lower()
    return 0 if said == "no" else int(said.removeprefix("at least "))


def build_store(fluid: Path, data_dir: Path) -> Any:
    """Every raw issue through the product's Jira converter and pipeline into an embedded store
    (the test kit's feature-hashing embedder: a count reads fields, not vectors)."""
    from devkb.sources.jira.convert import issue_to_document
    from devkb_devtools.testkit import build_indexer
    from devkb_devtools.testkit.hashing_embedder import HashingEmbedder

    indexer = build_indexer(data_dir, HashingEmbedder(), [])
    batch: list[Any] = []
    for issue in _issues(fluid):
        batch.append(issue_to_document(issue, JIRA_URL))
        if len(batch) == 256:
            indexer.pipeline.run(batch, "jira")
            batch = []
    if batch:
        indexer.pipeline.run(batch, "jira")
    return indexer


def evaluate(fluid: Path, splits: Sequence[str], verbose: bool = False) -> tuple[list[Outcome], float]:
    from devkb.agent.ask_service import AskService
    from devkb.agent.hybrid_search import HybridSearch
    from devkb.agent.planner import Planner
    from devkb.agent.tools import Toolbox
    from devkb_devtools.testkit.hashing_embedder import HashingEmbedder

    asked = [q for q in questions(fluid) if q.split in splits]
    with tempfile.TemporaryDirectory(prefix="devkb-count-eval-") as tmp:
        started = time.perf_counter()
        indexer = build_store(fluid, Path(tmp))
        seconds = time.perf_counter() - started
        try:
            store = indexer.store
            keys = {k.split("-")[0] for k in _keys(fluid)}
            toolbox = Toolbox(store, HybridSearch(store, HashingEmbedder()), lambda: keys)
            ask = AskService(Planner(toolbox, lambda: keys)).ask
            outcomes = []
            for q in asked:
                answer = ask(q.question).answer
                stated = stated_count(answer)
                o = Outcome(
                    q.id, q.shape, q.split, q.question, q.expected, stated, stated == q.expected, answer
                )
                outcomes.append(o)
                if verbose and not o.right:
                    print(
                        f"- {q.id} {q.question!r}: expected {q.expected}, stated {stated}\n    {answer[:300]}"
                    )
        finally:
            indexer.close()
    return outcomes, seconds


def _keys(fluid: Path) -> list[str]:
    return [i["key"] for i in _issues(fluid)]


def table(outcomes: Sequence[Any], right: str = "count right") -> str:
    """The share right per split and shape (any outcomes with ``split``, ``shape`` and ``right``)."""
    rows = [f"| split | shape | questions | {right} |", "|---|---|---:|---:|"]
    for split in ("tuning", "heldout"):
        mine = [o for o in outcomes if o.split == split]
        if not mine:
            continue
        for shape in dict.fromkeys(o.shape for o in mine):
            group = [o for o in mine if o.shape == shape]
            rows.append(
                f"| {split} | {shape} | {len(group)} | {sum(o.right for o in group) / len(group):.3f} |"
            )
        rows.append(f"| {split} | all | {len(mine)} | {sum(o.right for o in mine) / len(mine):.3f} |")
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m devkb_devtools.evaluation.count_eval", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--fluid", type=Path, default=FLUID)
    p.add_argument("--split", action="append", choices=["tuning", "heldout"])
    p.add_argument("-v", "--verbose", action="store_true", help="print every wrong count")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    if not (args.fluid / "jira" / "issues.jsonl.gz").is_file():
        print(f"error: no Fluid Jira export at {args.fluid}", file=sys.stderr)
        return 2
    outcomes, seconds = evaluate(args.fluid, args.split or ["tuning", "heldout"], args.verbose)
    print(f"indexed every Fluid issue in {seconds:.0f} s", file=sys.stderr)
    print(table(outcomes))
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=2) + "\n")
    wrong = [o for o in outcomes if not o.right]
    return 1 if wrong and len(wrong) / len(outcomes) > 0.05 else 0


if __name__ == "__main__":
    raise SystemExit(main())
