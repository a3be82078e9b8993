"""Questions the tracker's dates and versions answer — releases ("what is the latest release of
FLUID?", "what's the next version of SJRK?", "which versions are there in KETTLE?", "what was fixed
in FLUID 4.7?", "when will 5.0 be released?"), the newest and the oldest ("what was the last issue
created in FLUID?", "which VP issue was closed most recently?", "what is the oldest open issue in
KETTLE?"), the untouched ("which open issues haven't been updated in a year?"), a whole year ("how
many issues were created in FLUID in 2019?") and how long work takes ("how long does it take to
fix a bug in FLUID?") — against the raw Fluid Jira export: every one of its 10,052 issues
indexed, the expected answers worked out here from the raw JSON (``fields.fixVersions``,
``resolution``, ``status``, ``created``, ``updated``, ``resolutiondate`` in UTC), never from the
store the answer reads, with a version order of its own.

The export keeps only the versions' names (no release flags or dates), so "released" is defined
here as the releases kind defines it and states in its answers: most of a version's issues
resolved. The latest release is the highest such version; the next one the lowest version above
it with an issue still open.

Several phrasings per shape, many of them not the ones the kind was written from; split by a
hash of their text into ``tuning`` and ``heldout``. A question scores 1 when the answer names the
expected version (latest, next), the expected number of versions (list), the expected number of
issues (a version's content, a year, the untouched), the expected issue first (the newest by
creation or resolution, the oldest open one — in projects where no other issue shares its moment)
or the expected median of days from created to resolved.

    python -m devkb_devtools.evaluation.dates_eval --fluid ../shared/data/fluid [--split heldout] [-v]
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from devkb_devtools.evaluation.count_eval import (
    DONE_STATUSES,
    FLUID,
    _issues,
    _split,
    build_store,
    stated_count,
    table,
)

PHRASINGS: dict[str, tuple[str, ...]] = {
    "latest": (
        "What is the latest release of {p}?",
        "what's the current version of {p}?",
        "When was the last release of {p}?",
        "Which is the most recent version in {p}?",
        "What is {p}'s latest release?",
        "what's the newest {p} release?",
        "what was the last version we released in {p}",
    ),
    "next": (
        "What is the next release of {p}?",
        "what's the upcoming version in {p}?",
        "What will be the next version of {p}?",
        "which {p} release comes next?",
    ),
    "versions": (
        "Which versions are there in {p}?",
        "list the releases of {p}",
        "what versions does {p} have?",
        "show me all the fix versions in {p}",
    ),
    "fixed in a version": (
        "What was fixed in {p} {v}?",
        "which {p} issues were resolved in {v}?",
        "what issues got fixed in {p} {v}?",
    ),
    "when released": (
        "when was {p} {v} released?",
        "When will {p} {v} be released?",
        "is {p} {v} out yet?",
        "when did {p} {v} ship?",
    ),
    "status of a version": (
        "What's the status of the {p} {v} release?",
        "how is {p} {v} going?",
        "where are we with {p} {v}?",
    ),
    "who works on a version": (
        "Who is working on {p} {v}?",
        "who's assigned to the {p} {v} release?",
    ),
    "what holds a version up": (
        "What is blocking the {p} {v} release?",
        "what's holding up {p} {v}?",
        "what is left before {p} {v} can ship?",
    ),
    "left in a version": (
        "How many issues are left for {p} {v}?",
        "what's remaining in {p} {v}?",
        "how many issues are still outstanding for {p} {v}?",
    ),
    "oldest open": (
        "What is the oldest open issue in {p}?",
        "which is the oldest open {p} issue?",
        "what's the earliest open ticket in {p}?",
        "Show me the oldest open issue in {p}",
    ),
    "open, not updated in a year": (
        "Which open issues in {p} haven't been updated in a year?",
        "what open {p} issues have not been touched for 12 months?",
        "how many open issues in {p} have not been updated in over a year?",
    ),
    "created in a year": (
        "how many issues were created in {p} in {y}?",
        "How many {p} issues were reported during {y}?",
        "how many issues were filed in {p} in {y}?",
    ),
    "time to fix a bug": (
        "How long does it take to fix a bug in {p}?",
        "What's the average time to close a bug in {p}?",
        "how long do {p} bugs usually take to get fixed?",
    ),
    "time to resolve an issue": (
        "what is the median resolution time for {p} issues?",
        "How long does it take to resolve an issue in {p}?",
        "what's the typical time to close an issue in {p}?",
    ),
    "last created": (
        "What was the last issue created in {p}?",
        "which {p} issue was opened most recently?",
        "what's the newest issue reported in {p}?",
        "show me the most recently created issue in {p}",
    ),
    "last resolved": (
        "which {p} issue was closed most recently?",
        "What was the last issue resolved in {p}?",
        "what's the most recently fixed issue in {p}?",
        "which issues in {p} were resolved most recently?",
    ),
    "in a version": (
        "what went into {p} {v}?",
        "What is in release {v} of {p}?",
        "which issues are planned for {p} {v}?",
        "What's in the {p} {v} release?",
    ),
}
_LATEST = re.compile(r"^(\S+?)'s latest release is (.+?): ")
_NEXT = re.compile(r"^(\S+?)'s next release is (.+?)(?: \(after [^)]*\))?: |^(\S+?): no version\b")
_HOLDS = re.compile(r"^\S+ \S+ has (\d+) open issues?, the most urgent first|(nothing holds it up)")
_WHO = re.compile(r"open issues?, assigned to ([^(;,]+?) \(\d+\)|(so nobody is working on it)")
_WHEN = re.compile(r"^\S+ \S+ (?:(is out|was released)|(is not out yet|is not released yet))\b")
_MEDIAN = re.compile(r"\bthe median took (?:([\d,]+) days?|([\d.]+) hours)\b")
_VERSIONS = re.compile(r"^(\S+?) has (\d+) fix versions?\b")
# "The last created of the 90 issues in KETTLE is KETTLE-94: …", "The last created issue in DATA
# is DATA-1: …" (its only issue), "…; the last resolved first: IDI-133: …", "…; it is: BI-1: …"
_FIRST = re.compile(
    r"^The (?:last created|last resolved|oldest)\b.*? is ([A-Z][A-Z0-9]+-\d+):|"
    r"; (?:the last (?:created|resolved) first|the oldest first|it is): ([A-Z][A-Z0-9]+-\d+):"
)


@dataclass
class Question:
    id: str
    shape: str
    question: str
    expected: str
    split: str


@dataclass
class Outcome:
    id: str
    shape: str
    split: str
    question: str
    expected: str
    stated: str | None
    right: bool
    answer: str


def order(name: str) -> tuple[tuple[int, Any], ...]:
    """Numbers compare as numbers ("2.10" after "2.9"), words as words."""
    return tuple((0, int(t)) if t.isdigit() else (1, t.lower()) for t in re.findall(r"\d+|[^\W\d_]+", name))


def versions(fluid: Path) -> dict[str, dict[str, list[bool]]]:
    """Project → fix version → whether each of its issues is resolved."""
    out: dict[str, dict[str, list[bool]]] = defaultdict(lambda: defaultdict(list))
    for issue in _issues(fluid):
        f = issue["fields"]
        done = (
            bool(f.get("resolution")) or str((f.get("status") or {}).get("name", "")).lower() in DONE_STATUSES
        )
        for v in f.get("fixVersions") or []:
            if v.get("name"):
                out[issue["key"].split("-")[0]][v["name"]].append(done)
    return out


def latest_and_next(by_version: dict[str, list[bool]]) -> tuple[str | None, str | None]:
    highest_first = sorted(by_version, key=order, reverse=True)
    latest = next((v for v in highest_first if sum(by_version[v]) * 2 > len(by_version[v])), None)
    above = highest_first[: highest_first.index(latest)] if latest else highest_first
    upcoming = next((v for v in reversed(above) if not all(by_version[v])), None)
    return latest, upcoming


def _utc(value: str | None) -> str:
    """Jira's "2024-12-12T15:18:00.000+0000" as a comparable UTC instant ("" when missing)."""
    if not value:
        return ""
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%f%z").astimezone(UTC).isoformat()


def newest(fluid: Path) -> dict[str, dict[str, str | None]]:
    """Project → {"created": the last created issue's key, "resolved": the last resolved one's},
    None where two issues share the moment (a tie: no single answer to check)."""
    when: dict[str, dict[str, list[tuple[str, str]]]] = defaultdict(lambda: defaultdict(list))
    for issue in _issues(fluid):
        f, p = issue["fields"], issue["key"].split("-")[0]
        when[p]["created"].append((_utc(f.get("created")), issue["key"]))
        done = (
            bool(f.get("resolution")) or str((f.get("status") or {}).get("name", "")).lower() in DONE_STATUSES
        )
        if done and f.get("resolutiondate"):
            when[p]["resolved"].append((_utc(f["resolutiondate"]), issue["key"]))
    out: dict[str, dict[str, str | None]] = {}
    for p, by in when.items():
        out[p] = {}
        for field_name in ("created", "resolved"):
            ranked = sorted(by[field_name], reverse=True)
            unique = len(ranked) == 1 or (len(ranked) > 1 and ranked[0][0] != ranked[1][0])
            out[p][field_name] = ranked[0][1] if ranked and unique else None
    return out


def dated(fluid: Path, today: date) -> dict[str, dict[str, Any]]:
    """Project → the oldest status-Open issue's key (None on a tie), how many status-Open issues
    were last updated over a year before ``today`` (365 days, as the question says), and how many
    issues were created in each year (UTC)."""
    cutoff = (today - timedelta(days=365)).isoformat()
    out: dict[str, dict[str, Any]] = defaultdict(lambda: {"open": [], "stale": 0, "years": defaultdict(int)})
    for issue in _issues(fluid):
        f, p = issue["fields"], issue["key"].split("-")[0]
        created = _utc(f.get("created"))
        out[p]["years"][created[:4]] += 1
        if str((f.get("status") or {}).get("name", "")).lower() == "open":
            out[p]["open"].append((created, issue["key"]))
            if _utc(f.get("updated"))[:10] < cutoff:
                out[p]["stale"] += 1
    for facts in out.values():
        ranked = sorted(facts["open"])
        unique = len(ranked) == 1 or (len(ranked) > 1 and ranked[0][0] != ranked[1][0])
        facts["oldest"] = ranked[0][1] if ranked and unique else None
    return out


def medians(fluid: Path) -> dict[str, dict[str, str]]:
    """Project → {"bug": …, "issue": …}: the median days from created to resolved of its resolved
    bugs / issues, as the answer rounds it ("229" days, "<1" under a day)."""
    days: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for issue in _issues(fluid):
        f, p = issue["fields"], issue["key"].split("-")[0]
        done = (
            bool(f.get("resolution")) or str((f.get("status") or {}).get("name", "")).lower() in DONE_STATUSES
        )
        if not (done and f.get("resolutiondate") and f.get("created")):
            continue
        took = datetime.fromisoformat(_utc(f["resolutiondate"])) - datetime.fromisoformat(_utc(f["created"]))
        d = took.total_seconds() / 86400
        if d < 0:
            continue
        days[p]["issue"].append(d)
        if (f.get("issuetype") or {}).get("name") == "Bug":
            days[p]["bug"].append(d)
    out: dict[str, dict[str, str]] = {}
    for p, by in days.items():
        out[p] = {}
        for what, values in by.items():
            if len(values) >= 5:
                m = statistics.median(values)
                out[p][what] = "<1" if m < 1 else str(round(m))
    return out


def top_assignees(fluid: Path) -> dict[str, dict[str, str | None]]:
    """Project → fix version → who is assigned the most of its unresolved issues ("nobody" when
    none is unresolved; None on a tie or when none of them is assigned)."""
    open_by: dict[str, dict[str, list[str]]] = defaultdict(lambda: defaultdict(list))
    seen: dict[str, set[str]] = defaultdict(set)
    for issue in _issues(fluid):
        f, p = issue["fields"], issue["key"].split("-")[0]
        done = (
            bool(f.get("resolution")) or str((f.get("status") or {}).get("name", "")).lower() in DONE_STATUSES
        )
        for v in f.get("fixVersions") or []:
            if not v.get("name"):
                continue
            seen[p].add(v["name"])
            if not done:
                open_by[p][v["name"]].append(((f.get("assignee") or {}).get("displayName") or "").strip())
    out: dict[str, dict[str, str | None]] = defaultdict(dict)
    for p, names in seen.items():
        for v in names:
            people = Counter(a for a in open_by[p][v] if a)
            if not open_by[p][v]:
                out[p][v] = "nobody"
            elif not people:
                out[p][v] = None
            else:
                ranked = people.most_common(2)
                out[p][v] = ranked[0][0] if len(ranked) == 1 or ranked[0][1] > ranked[1][1] else None
    return out


def questions(fluid: Path, today: date | None = None) -> list[Question]:
    out: list[Question] = []

    def add(shape: str, text: str, expected: str) -> None:
        out.append(Question(f"R{len(out) + 1:03d}", shape, text, expected, _split(text)))

    assignees = top_assignees(fluid)
    for p, by_version in sorted(versions(fluid).items()):
        latest, upcoming = latest_and_next(by_version)
        for text in PHRASINGS["latest"]:
            add("latest", text.format(p=p), f"{p} {latest}")
        for text in PHRASINGS["next"]:
            add("next", text.format(p=p), f"{p} {upcoming}")
        for text in PHRASINGS["versions"]:
            add("versions", text.format(p=p), str(len(by_version)))
        numbered = [v for v in sorted(by_version, key=order) if re.fullmatch(r"\d+(?:\.\d+){1,3}", v)]
        # "2.0.0" is also asked as "2.0" by the count kind: versions that are not both
        plain = [v for v in numbered if not (v.endswith(".0") and v.count(".") >= 2 and v[:-2] in by_version)]
        for i, v in enumerate(plain[-3:]):  # the newest numbered versions, phrasings in turn
            fixed = PHRASINGS["fixed in a version"][i % len(PHRASINGS["fixed in a version"])]
            add("fixed in a version", fixed.format(p=p, v=v), str(sum(by_version[v])))
            went = PHRASINGS["in a version"][i % len(PHRASINGS["in a version"])]
            add("in a version", went.format(p=p, v=v), str(len(by_version[v])))
        for i, v in enumerate(plain[-2:]):  # whether it is out, as the issues say; what is left in it
            is_out = sum(by_version[v]) * 2 > len(by_version[v])
            when = PHRASINGS["when released"][(i + len(p)) % len(PHRASINGS["when released"])]
            add("when released", when.format(p=p, v=v), "out" if is_out else "not out")
            status = PHRASINGS["status of a version"][(i + len(p)) % len(PHRASINGS["status of a version"])]
            add("status of a version", status.format(p=p, v=v), "out" if is_out else "not out")
            who = PHRASINGS["who works on a version"][(i + len(p)) % len(PHRASINGS["who works on a version"])]
            top = assignees[p][v]
            if top is not None:
                add("who works on a version", who.format(p=p, v=v), top)
            holds = PHRASINGS["what holds a version up"][
                (i + len(p)) % len(PHRASINGS["what holds a version up"])
            ]
            add(
                "what holds a version up",
                holds.format(p=p, v=v),
                str(len(by_version[v]) - sum(by_version[v])),
            )
            left = PHRASINGS["left in a version"][(i + len(p)) % len(PHRASINGS["left in a version"])]
            add("left in a version", left.format(p=p, v=v), str(len(by_version[v]) - sum(by_version[v])))
    for p, keys in sorted(newest(fluid).items()):
        for shape, field_name in (("last created", "created"), ("last resolved", "resolved")):
            if keys[field_name]:
                for text in PHRASINGS[shape]:
                    add(shape, text.format(p=p), str(keys[field_name]))
    for p, typical in sorted(medians(fluid).items()):
        for shape, what in (("time to fix a bug", "bug"), ("time to resolve an issue", "issue")):
            if what in typical:
                for text in PHRASINGS[shape]:
                    add(shape, text.format(p=p), typical[what])
    for p, facts in sorted(dated(fluid, today or date.today()).items()):
        if facts["oldest"]:
            for text in PHRASINGS["oldest open"]:
                add("oldest open", text.format(p=p), str(facts["oldest"]))
        if facts["open"]:
            for text in PHRASINGS["open, not updated in a year"]:
                add("open, not updated in a year", text.format(p=p), str(facts["stale"]))
        years = sorted(facts["years"])
        for i, y in enumerate(years[-2:]):  # the project's last two years with issues
            text = PHRASINGS["created in a year"][(i + len(p)) % len(PHRASINGS["created in a year"])]
            add("created in a year", text.format(p=p, y=y), str(facts["years"][y]))
    return out


def stated(shape: str, answer: str) -> str | None:
    """What the answer states for the shape: "FLUID 4.8.0", "FLUID None", a number."""
    if shape == "latest":
        m = _LATEST.match(answer)
        return f"{m.group(1)} {m.group(2)}" if m else None
    if shape == "next":
        m = _NEXT.match(answer)
        if not m:
            return None
        return f"{m.group(1)} {m.group(2)}" if m.group(1) else f"{m.group(3)} None"
    if shape == "versions":
        m = _VERSIONS.match(answer)
        return m.group(2) if m else None
    if shape in ("time to fix a bug", "time to resolve an issue"):
        m = _MEDIAN.search(answer)
        return None if not m else "<1" if m.group(2) else m.group(1).replace(",", "")
    if shape == "what holds a version up":
        m = _HOLDS.search(answer)
        return None if not m else m.group(1) or "0"
    if shape == "who works on a version":
        m = _WHO.search(answer)
        return None if not m else m.group(1) or "nobody"
    if shape == "when released" or shape == "status of a version":
        m = _WHEN.match(answer)
        return None if not m else "out" if m.group(1) else "not out"
    if shape in ("last created", "last resolved", "oldest open"):
        m = _FIRST.search(answer)
        return (m.group(1) or m.group(2)) if m else None
    n = stated_count(answer)
    return None if n is None else str(n)


def evaluate(fluid: Path, splits: Sequence[str], verbose: bool = False) -> tuple[list[Outcome], float]:
    from devkb.agent.ask_service import AskService
    from devkb.agent.hybrid_search import HybridSearch
    from devkb.agent.planner import Planner
    from devkb.agent.tools import Toolbox
    from devkb_devtools.testkit.hashing_embedder import HashingEmbedder

    asked = [q for q in questions(fluid) if q.split in splits]
    with tempfile.TemporaryDirectory(prefix="devkb-dates-eval-") as tmp:
        started = time.perf_counter()
        indexer = build_store(fluid, Path(tmp))
        seconds = time.perf_counter() - started
        try:
            store = indexer.store
            keys = {i["key"].split("-")[0] for i in _issues(fluid)}
            toolbox = Toolbox(store, HybridSearch(store, HashingEmbedder()), lambda: keys)
            ask = AskService(Planner(toolbox, lambda: keys)).ask
            outcomes = []
            for q in asked:
                answer = ask(q.question).answer
                said = stated(q.shape, answer)
                o = Outcome(q.id, q.shape, q.split, q.question, q.expected, said, said == q.expected, answer)
                outcomes.append(o)
                if verbose and not o.right:
                    print(
                        f"- {q.id} {q.question!r}: expected {q.expected}, stated {said}\n    {answer[:300]}"
                    )
        finally:
            indexer.close()
    return outcomes, seconds


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m devkb_devtools.evaluation.dates_eval", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--fluid", type=Path, default=FLUID)
    p.add_argument("--split", action="append", choices=["tuning", "heldout"])
    p.add_argument("-v", "--verbose", action="store_true", help="print every wrong answer")
    p.add_argument("--json", type=Path)
    args = p.parse_args(argv)
    if not (args.fluid / "jira" / "issues.jsonl.gz").is_file():
        print(f"error: no Fluid Jira export at {args.fluid}", file=sys.stderr)
        return 2
    outcomes, seconds = evaluate(args.fluid, args.split or ["tuning", "heldout"], args.verbose)
    print(f"indexed every Fluid issue in {seconds:.0f} s", file=sys.stderr)
    print(table(outcomes, "right"))
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
