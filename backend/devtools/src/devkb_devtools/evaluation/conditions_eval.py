"""Combined conditions: questions that mix two or three of a person in a role (assignee,
reporter), a period (created or resolved in a month, quarter or year), a project, an issue type,
a status, a priority and a fix version — every pair of them, several phrasings each — asked of
every raw Fluid Jira issue indexed, the expected count worked out here from the raw JSON
(``fields.assignee.displayName``, ``fields.created`` in UTC, ``fields.fixVersions[].name``, …),
never from the store the answer reads.

A question scores 1 when the answer states the expected count; an answer that counts or lists
under fewer conditions than asked is a **silent drop** when it also does not say which condition
it could not apply (the count it states differs from the gold count and no "could not apply" is
said). Questions are split by a hash of their text into ``tuning`` and ``heldout``; the held-out
phrasings (``HELDOUT_PHRASINGS``) are never used while tuning.

    python -m devkb_devtools.evaluation.conditions_eval [--fluid DIR] [--split heldout] [-v] [--json OUT]

``--bank`` asks the phrasing bank instead (:mod:`devkb_devtools.evaluation.conditions_bank`: the
conditions as people type them in chat, split by template, ``pair`` naming the template).
"""

from __future__ import annotations

import argparse
import calendar
import hashlib
import itertools
import json
import random
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from devkb_devtools.evaluation.conditions_bank import HELDOUT as BANK_HELDOUT
from devkb_devtools.evaluation.conditions_bank import TUNING as BANK_TUNING
from devkb_devtools.evaluation.conditions_bank import Template
from devkb_devtools.evaluation.count_eval import FLUID, _issues, build_store, stated_count

# the demo workspace's Jira (the same REST shape, plain JSONL): a second corpus, `--demo`
DEMO_JIRA = Path(__file__).resolve().parents[1] / "demo" / "data" / "jira" / "issues.jsonl"

SLOTS = ("person", "period", "scope", "type", "state", "priority", "version")
TYPE_PLURAL = {"Bug": "bugs", "Task": "tasks", "Improvement": "improvements", "New Feature": "new features"}
STATUS_ADJ = {"Open": "open", "Closed": "closed", "Resolved": "resolved", "Reopened": "reopened"}
PRIORITY_ADJ = {"Blocker": "blocker", "Critical": "critical", "Major": "major", "Minor": "minor"}


@dataclass(frozen=True)
class Issue:
    key: str
    project: str
    type: str
    status: str
    priority: str
    versions: tuple[str, ...]
    assignee: str
    reporter: str
    created: datetime
    resolved: datetime | None
    project_name: str = ""


@dataclass(frozen=True)
class Question:
    id: str
    pair: str
    split: str
    question: str
    expected: int


@dataclass
class Outcome:
    id: str
    pair: str
    split: str
    question: str
    expected: int
    stated: int | None
    right: bool
    silent_drop: bool
    answer: str


def _when(value: str | None) -> datetime | None:
    if not value:
        return None
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%f%z").astimezone(UTC)


def raw_issues(fluid: Path) -> list[Issue]:
    out = []
    for i in _issues(fluid):
        f = i["fields"]
        created = _when(f.get("created"))
        if created is None:
            continue
        out.append(
            Issue(
                key=i["key"],
                project=i["key"].split("-")[0],
                type=(f.get("issuetype") or {}).get("name") or "",
                status=(f.get("status") or {}).get("name") or "",
                priority=(f.get("priority") or {}).get("name") or "",
                versions=tuple(v["name"] for v in f.get("fixVersions") or [] if v.get("name")),
                assignee=(f.get("assignee") or {}).get("displayName") or "",
                reporter=(f.get("reporter") or {}).get("displayName") or "",
                created=created,
                resolved=_when(f.get("resolutiondate")),
                project_name=(f.get("project") or {}).get("name") or "",
            )
        )
    return out


# -- conditions: each a (test on a raw issue, its phrase parts) ------------------------------------
@dataclass(frozen=True)
class Cond:
    slot: str
    test: Callable[..., bool]
    adj: str = ""  # before the noun ("open", "critical")
    noun: str = ""  # the noun itself ("bugs")
    tail: tuple[str, ...] = ()  # after the noun, one per phrasing ("assigned to X", "in PROJ")
    verb: str = ""  # "did X report" phrasing for a person


def _period_conds(issues: Sequence[Issue], rnd: random.Random) -> list[Cond]:
    out = []
    years = sorted({i.created.year for i in issues})
    for year in rnd.sample(years, min(4, len(years))):
        out.append(
            Cond("period", lambda i, y=year: i.created.year == y, tail=(f"created in {year}", f"in {year}"))
        )
        out.append(
            Cond(
                "period",
                lambda i, y=year: i.resolved is not None and i.resolved.year == y,
                tail=(f"resolved in {year}", f"closed in {year}"),
            )
        )
        m = rnd.randint(1, 12)
        name = calendar.month_name[m]
        out.append(
            Cond(
                "period",
                lambda i, y=year, m=m: (i.created.year, i.created.month) == (y, m),
                tail=(f"created in {name} {year}", f"filed in {name} {year}"),
            )
        )
        q = rnd.randint(1, 4)
        out.append(
            Cond(
                "period",
                lambda i, y=year, q=q: i.created.year == y and (i.created.month - 1) // 3 + 1 == q,
                tail=(f"created in Q{q} {year}", f"opened in Q{q} {year}"),
            )
        )
    return out


def conditions(issues: Sequence[Issue], rnd: random.Random) -> dict[str, list[Cond]]:
    projects = [p for p, _ in _common(i.project for i in issues)[:8]]
    people = [p for p, _ in _common(i.assignee for i in issues if i.assignee)[:12]]
    reporters = [p for p, _ in _common(i.reporter for i in issues if i.reporter)[:12]]
    versions = [
        v for v, _ in _common(v for i in issues for v in i.versions if v[:1].isdigit() and "." in v)[:10]
    ]
    out: dict[str, list[Cond]] = {s: [] for s in SLOTS}
    for p in projects:
        out["scope"].append(
            Cond("scope", lambda i, p=p: i.project == p, tail=(f"in {p}", f"in the {p} project"))
        )
    for t, plural in TYPE_PLURAL.items():
        out["type"].append(Cond("type", lambda i, t=t: i.type == t, noun=plural))
    for s, adj in STATUS_ADJ.items():
        out["state"].append(Cond("state", lambda i, s=s: i.status == s, adj=adj, tail=(f"with status {s}",)))
    for pr, adj in PRIORITY_ADJ.items():
        out["priority"].append(
            Cond("priority", lambda i, pr=pr: i.priority == pr, adj=adj, tail=(f"with priority {pr}",))
        )
    for v in versions:
        out["version"].append(
            Cond("version", lambda i, v=v: v in i.versions, tail=(f"with fix version {v}", f"fixed in {v}"))
        )
    for name in people:
        out["person"].append(
            Cond("person", lambda i, n=name: i.assignee == n, tail=(f"assigned to {name}",), verb="assignee")
        )
    for name in reporters:
        out["person"].append(
            Cond(
                "person",
                lambda i, n=name: i.reporter == n,
                tail=(f"reported by {name}", f"filed by {name}"),
                verb=f"did {name} report",
            )
        )
    out["period"] = _period_conds(issues, rnd)
    return out


def _common(values: Iterator[str] | Any) -> list[tuple[str, int]]:
    counts: dict[str, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))


# the phrasings: tuning ones, and held-out ones never used while tuning
def _phrase(conds: Sequence[Cond], style: int) -> str:
    adjs = " ".join(c.adj for c in conds if c.adj and not (style % 2 and c.tail))
    tails = [c.tail[style % len(c.tail)] for c in conds if c.tail and not (c.adj and not style % 2)]
    noun = next((c.noun for c in conds if c.noun), "issues")
    head = f"{adjs} {noun}".strip()
    rest = " ".join(tails)
    reporter = next((c for c in conds if c.verb.startswith("did ")), None)
    openers = [
        f"How many {head} {rest}?",
        f"What is the number of {head} {rest}?",
        f"Count the {head} {rest}.",
        f"How many {head} are there {rest}?",
    ]
    if reporter is not None and style in (2, 3):
        others = [c.tail[0] for c in conds if c.tail and c is not reporter and not (c.adj and not style % 2)]
        return f"How many {head} {reporter.verb} {' '.join(others)}?".replace("  ", " ")
    return " ".join(openers[style % len(openers)].split()).replace(" ?", "?").replace(" .", ".")


TUNING_PHRASINGS = (0, 1)
HELDOUT_PHRASINGS = (2, 3)


def questions(fluid: Path = FLUID, per_pair: int = 13, seed: int = 58) -> list[Question]:
    issues = raw_issues(fluid)
    rnd = random.Random(seed)
    conds = conditions(issues, rnd)
    out: list[Question] = []
    combos: list[tuple[str, ...]] = list(itertools.combinations(SLOTS, 2))
    combos += [("scope", "type", "period"), ("scope", "state", "person"), ("scope", "priority", "state"),
               ("version", "person", "type"), ("scope", "type", "state")]  # fmt: skip
    for combo in combos:
        made = 0
        tries = 0
        while made < per_pair and tries < 400:
            tries += 1
            picked = [rnd.choice(conds[s]) for s in combo]
            if sum(1 for c in picked if c.adj) > 2:
                continue
            expected = sum(1 for i in issues if all(c.test(i) for c in picked))
            if expected == 0 and rnd.random() < 0.8:
                continue  # mostly questions with an answer, some with none
            style = rnd.choice(TUNING_PHRASINGS + HELDOUT_PHRASINGS)
            text = _phrase(picked, style)
            split = "heldout" if style in HELDOUT_PHRASINGS else "tuning"
            qid = "c" + hashlib.sha1(text.encode()).hexdigest()[:8]
            if any(q.id == qid for q in out):
                continue
            out.append(Question(qid, "+".join(combo), split, text, expected))
            made += 1
    return out


# -- the phrasing bank (conditions_bank.py): templates as people type them, split by template ------
def _still_open(i: Issue) -> bool:
    return i.resolved is None and i.status not in ("Done", "Closed", "Resolved")


def _field_is(name: str, value: str) -> Callable[[Issue], bool]:
    return lambda i: bool(getattr(i, name) == value)


def _has_version(v: str) -> Callable[[Issue], bool]:
    return lambda i: v in i.versions


def _created(year: int, month: int = 0, quarter: int = 0) -> Callable[[Issue], bool]:
    def test(i: Issue) -> bool:
        c = i.created
        return (
            c.year == year
            and (not month or c.month == month)
            and (not quarter or (c.month - 1) // 3 + 1 == quarter)
        )

    return test


def _resolved(year: int) -> Callable[[Issue], bool]:
    return lambda i: i.resolved is not None and i.resolved.year == year


def _all(tests: Sequence[Callable[[Issue], bool]]) -> Callable[[Issue], bool]:
    return lambda i: all(test(i) for test in tests)


def _fill(
    t: Template, issues: Sequence[Issue], rnd: random.Random, anchor: Issue | None
) -> tuple[str, Callable[[Issue], bool]] | None:
    """One question from a template: each placeholder drawn at random from the same pools the
    pairs use, or taken from one raw issue (``anchor``, so that most questions have an answer),
    with the test its words mean on a raw issue; None when the anchor has no such value."""
    projects = [p for p, _ in _common(i.project for i in issues)[:8]]
    names = {i.project: i.project_name for i in issues if i.project_name}
    people = [p for p, _ in _common(i.assignee for i in issues if i.assignee)[:12]]
    reporters = [p for p, _ in _common(i.reporter for i in issues if i.reporter)[:12]]
    versions = [
        v for v, _ in _common(v for i in issues for v in i.versions if v[:1].isdigit() and "." in v)[:10]
    ]
    years = sorted({i.created.year for i in issues})
    a = anchor
    tests: list[Callable[[Issue], bool]] = [_still_open] if t.still_open else []
    values: dict[str, str] = {}
    for field in ("assignee", "reporter", "proj", "pname", "types", "status", "Status", "prio", "version",
                  "year", "ryear", "month", "q", "noun"):  # fmt: skip
        if "{" + field + "}" not in t.text:
            continue
        if field == "assignee":
            n = a.assignee if a else rnd.choice(people)
            values[field] = n
            tests.append(_field_is("assignee", n))
        elif field == "reporter":
            n = a.reporter if a else rnd.choice(reporters)
            values[field] = n
            tests.append(_field_is("reporter", n))
        elif field in ("proj", "pname"):
            p = a.project if a else rnd.choice([p for p in projects if field == "proj" or names.get(p)])
            values[field] = p if field == "proj" else names.get(p, "")
            tests.append(_field_is("project", p))
        elif field == "types":
            ty = a.type if a else rnd.choice(list(TYPE_PLURAL))
            values[field] = TYPE_PLURAL.get(ty, "")
            tests.append(_field_is("type", ty))
        elif field in ("status", "Status"):
            st = a.status if a else rnd.choice(list(STATUS_ADJ))
            values[field] = (STATUS_ADJ.get(st, "") if field == "status" else st) if st in STATUS_ADJ else ""
            tests.append(_field_is("status", st))
        elif field == "prio":
            pr = a.priority if a else rnd.choice(list(PRIORITY_ADJ))
            values[field] = PRIORITY_ADJ.get(pr, "")
            tests.append(_field_is("priority", pr))
        elif field == "version":
            v = rnd.choice(a.versions) if a and a.versions else "" if a else rnd.choice(versions)
            values[field] = v if v[:1].isdigit() and "." in v else ""
            tests.append(_has_version(v))
        elif field == "year":
            y = a.created.year if a else rnd.choice(years)
            values[field] = str(y)
            tests.append(_created(y))
        elif field == "ryear":
            r = a.resolved.year if a and a.resolved else 0 if a else rnd.choice(years)
            values[field] = str(r) if r else ""
            tests.append(_resolved(r))
        elif field == "month":
            y, m = (a.created.year, a.created.month) if a else (rnd.choice(years), rnd.randint(1, 12))
            values[field] = f"{calendar.month_name[m]} {y}"
            tests.append(_created(y, month=m))
        elif field == "q":
            y, q = (
                (a.created.year, (a.created.month - 1) // 3 + 1)
                if a
                else (rnd.choice(years), rnd.randint(1, 4))
            )
            values[field] = f"Q{q} {y}"
            tests.append(_created(y, quarter=q))
        elif field == "noun":
            values[field] = rnd.choice(("tickets", "issues", "items"))
        if not values.get(field, "x"):
            return None
    if a is not None and not all(test(a) for test in tests):
        return None
    text = t.text.format(**values)
    return (text.lower() if t.lower else text), _all(tests)


def bank_questions(fluid: Path = FLUID, per_template: int = 6, seed: int = 58) -> list[Question]:
    """``per_template`` questions from each template of the bank (conditions_bank.py), mostly
    ones with an answer; the split is the template's."""
    issues = raw_issues(fluid)
    rnd = random.Random(seed)
    out: list[Question] = []
    for split, templates in (("tuning", BANK_TUNING), ("heldout", BANK_HELDOUT)):
        for n, t in enumerate(templates):
            made = tries = 0
            while made < per_template and tries < 400:
                tries += 1
                # most questions from one raw issue's values (an answer of at least 1), some free
                filled = _fill(t, issues, rnd, rnd.choice(issues) if rnd.random() < 0.85 else None)
                if filled is None:
                    continue
                text, test = filled
                expected = sum(1 for i in issues if test(i))
                qid = "b" + hashlib.sha1(text.encode()).hexdigest()[:8]
                if any(q.id == qid for q in out):
                    continue
                out.append(Question(qid, f"{split[0]}{n:02d}", split, text, expected))
                made += 1
    return out


def evaluate(
    fluid: Path, splits: Sequence[str], verbose: bool = False, seed: int = 58, bank: bool = False
) -> tuple[list[Outcome], float]:
    from devkb.agent.ask_service import AskService
    from devkb.agent.hybrid_search import HybridSearch
    from devkb.agent.planner import Planner
    from devkb.agent.tools import Toolbox
    from devkb_devtools.testkit.hashing_embedder import HashingEmbedder

    made = bank_questions(fluid, seed=seed) if bank else questions(fluid, seed=seed)
    asked = [q for q in made if q.split in splits]
    with tempfile.TemporaryDirectory(prefix="devkb-conditions-eval-") as tmp:
        started = time.perf_counter()
        indexer = build_store(fluid, Path(tmp))
        seconds = time.perf_counter() - started
        try:
            store = indexer.store
            keys = {i.project for i in raw_issues(fluid)}
            toolbox = Toolbox(store, HybridSearch(store, HashingEmbedder()), lambda: keys)
            ask = AskService(Planner(toolbox, lambda: keys)).ask
            outcomes = [score(q, ask(q.question).answer) for q in asked]
        finally:
            indexer.close()
    if verbose:
        for o in outcomes:
            if not o.right:
                print(
                    f"- {o.id} [{o.pair}] {o.question!r}: expected {o.expected}, stated {o.stated}\n    {o.answer[:240]}"
                )
    return outcomes, seconds


def score(q: Question, answer: str) -> Outcome:
    stated = stated_count(answer)
    if stated is None and answer.startswith("No issue "):
        stated = 0  # "No issue in INFRA was resolved from … to …" (resolved-in-period)
    first = answer.split(" ", 3)
    if stated is None and len(first) > 3 and first[0].isdigit() and first[1] in ("issue", "issues"):
        stated = int(first[0])  # "190 issues were resolved from … to … in VP: …" (resolved-in-period)
    said_unapplied = "could not apply" in answer or "could not answer" in answer
    right = stated == q.expected and not said_unapplied
    silent = not right and not said_unapplied and stated is not None
    return Outcome(q.id, q.pair, q.split, q.question, q.expected, stated, right, silent, answer)


def table(outcomes: Sequence[Outcome]) -> str:
    rows = ["| split | pair | questions | right | silent drops |", "|---|---|---:|---:|---:|"]
    for split in ("tuning", "heldout"):
        mine = [o for o in outcomes if o.split == split]
        if not mine:
            continue
        for pair in dict.fromkeys(o.pair for o in mine):
            g = [o for o in mine if o.pair == pair]
            rows.append(
                f"| {split} | {pair} | {len(g)} | {sum(o.right for o in g) / len(g):.2f} | {sum(o.silent_drop for o in g)} |"
            )
        rows.append(
            f"| {split} | **all** | {len(mine)} | {sum(o.right for o in mine) / len(mine):.3f} | "
            f"{sum(o.silent_drop for o in mine)} |"
        )
    return "\n".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m devkb_devtools.evaluation.conditions_eval", description=__doc__.split("\n\n")[0]
    )
    p.add_argument("--fluid", type=Path, default=FLUID)
    p.add_argument("--split", action="append", choices=["tuning", "heldout"])
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--json", type=Path)
    p.add_argument("--seed", type=int, default=58, help="another seed draws other values (a fresh set)")
    p.add_argument("--demo", action="store_true", help="the demo workspace's Jira instead of Fluid's")
    p.add_argument(
        "--bank", action="store_true", help="the phrasing bank (conditions_bank.py) instead of the pairs"
    )
    args = p.parse_args(argv)
    if args.demo:
        args.fluid = DEMO_JIRA
    elif not (args.fluid / "jira" / "issues.jsonl.gz").is_file():
        print(f"error: no Fluid Jira export at {args.fluid}", file=sys.stderr)
        return 2
    outcomes, seconds = evaluate(
        args.fluid, args.split or ["tuning", "heldout"], args.verbose, args.seed, args.bank
    )
    print(f"indexed every issue in {seconds:.0f} s; {len(outcomes)} questions", file=sys.stderr)
    print(table(outcomes))
    if args.json:
        args.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
