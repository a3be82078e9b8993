"""Writes the history evaluation's questions from the RAW data — the demo's Jira changelogs
(``demo/data/jira/issues.jsonl``) and pages, the Fluid handbook's page versions
(``confluence/versions.jsonl.gz``) and the Fluid documentation repository's commits
(``github/infusion-docs/commits.jsonl.gz``) — with expected values computed here by a replay of
those records, never by devkb. Several phrasings per kind; each subject (issue, page, month) goes
to one split only (``dev`` ≈ a third, ``heldout`` the rest), so held-out questions name things
the dev questions never did.

    python -m devkb_devtools.evaluation.history_questions [--fluid ../shared/data/fluid] [--out tests/eval]
"""

from __future__ import annotations

import argparse
import calendar
import gzip
import hashlib
import json
from collections import defaultdict
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
DEMO = HERE.parents[1] / "demo" / "data"
FLUID = HERE.parents[6] / "shared" / "data" / "fluid"
OUT = HERE.parents[4] / "tests" / "eval"
TODAY = "2026-11-25"
FIELDS = {
    "status": "status",
    "assignee": "assignee",
    "resolution": "resolution",
    "fix version": "fix version",
}
MAIN_HEAD = "9cd86409bf54f3acd158a882f45ff41d649e34c3"  # the package's snapshot of main (README)


def _when(value: str) -> datetime:
    v = value.replace("Z", "+00:00")
    if len(v) > 5 and v[-5] in "+-" and v[-3] != ":":
        v = v[:-2] + ":" + v[-2:]
    return datetime.fromisoformat(v).astimezone(UTC)


def _split(subject: str) -> str:
    return "dev" if int(hashlib.sha256(subject.encode()).hexdigest(), 16) % 3 == 0 else "heldout"


def _the(title: str) -> str:
    """ "the <title>", unless the title starts with its own "The"."""
    return title if title.lower().startswith("the ") else f"the {title}"


def _jsonl(path: Path) -> list[dict[str, Any]]:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _q(kind: str, subject: str, question: str, expect: list[str], document: str, how: str) -> dict[str, Any]:
    return {
        "kind": kind,
        "split": _split(subject),
        "today": TODAY,
        "question": question,
        "expect": expect,
        "document": document,
        "derived_from": how,
    }


# -- Jira: replay of each changelog -------------------------------------------------------------
def changelog_items(issue: dict[str, Any]) -> list[tuple[datetime, str, str, str, str]]:
    """(when, author, field, from, to) of the changelog items devkb keeps (status, assignee,
    resolution, fix version), oldest first."""
    rows = []
    for h in (issue.get("changelog") or {}).get("histories") or []:
        for item in h.get("items") or []:
            field = str(item.get("field", "")).lower()
            if field in FIELDS:
                rows.append(
                    (
                        _when(h["created"]),
                        h["author"]["displayName"],
                        field,
                        item.get("fromString") or "",
                        item.get("toString") or "",
                    )
                )
    return sorted(rows, key=lambda r: r[0])


def current_values(issue: dict[str, Any]) -> dict[str, list[str]]:
    f = issue["fields"]
    return {
        "status": [f["status"]["name"]] if f.get("status") else [],
        "assignee": [f["assignee"]["displayName"]] if f.get("assignee") else [],
        "resolution": [f["resolution"]["name"]] if f.get("resolution") else [],
        "fix version": [v["name"] for v in f.get("fixVersions") or []],
    }


def replay(issue: dict[str, Any], before: datetime) -> dict[str, list[str]]:
    """Each field's value just before ``before``: from the start (the first item's "from", or the
    current value for a field never changed) forward through the items before it."""
    items = changelog_items(issue)
    now = current_values(issue)
    state: dict[str, list[str]] = {}
    for field in FIELDS:
        mine = [r for r in items if r[2] == field]
        if not mine:
            state[field] = now[field]
            continue
        if field == "fix version":
            start = [v for v in now[field] if v not in {r[4] for r in mine}] + [r[3] for r in mine if r[3]]
        else:
            start = [mine[0][3]] if mine[0][3] else []
        value = list(start)
        for when, _by, _f, old, new in mine:
            if when >= before:
                break
            if field == "fix version":
                value = [v for v in value if v != old] + ([new] if new else [])
            else:
                value = [new] if new else []
        state[field] = value
    return state


def jira_questions(demo: Path) -> list[dict[str, Any]]:
    out = []
    templates = [
        ("status", "What was the status of {key} on {d:%Y-%m-%d}?"),
        ("assignee", "Who was {key} assigned to on {d:%B %d, %Y}?"),
        ("resolution", "What was the resolution of {key} as of {d:%d %B %Y}?"),
        ("fix version", "Which fix version did {key} have on {d:%Y-%m-%d}?"),
        ("status", "What state was {key} in on {d:%b %d, %Y}?"),
        ("assignee", "Who was the assignee of {key} on {d:%Y-%m-%d}?"),
    ]
    t = 0
    for issue in _jsonl(demo / "jira" / "issues.jsonl"):
        items = changelog_items(issue)
        if not items:
            continue
        key, doc = issue["key"], f"jira:{issue['key']}"
        created = _when(issue["fields"]["created"])
        days = sorted({r[0].date() for r in items})
        probes = set(days)
        probes.add(days[0] - timedelta(days=1))
        for a, b in zip(days, days[1:], strict=False):
            if (b - a).days > 2:
                probes.add(a + (b - a) / 2)
        for day in sorted(probes):
            end = datetime.combine(day, datetime.min.time(), UTC) + timedelta(days=1)
            if end <= created:
                continue
            state = replay(issue, end)
            for _ in range(2):
                field, template = templates[t % len(templates)]
                t += 1
                value = state[field]
                shown = ", ".join(value) if value else ("unresolved" if field == "resolution" else "none")
                out.append(
                    _q(
                        "state",
                        key,
                        template.format(key=key, d=day),
                        [shown],
                        doc,
                        f"replay of {key}'s changelog to the end of {day} (UTC)",
                    )
                )
        firsts: dict[tuple[str, str], tuple[datetime, str, str]] = {}
        for when, by, field, _old, new in items:
            if field in ("status", "resolution") and new and (field, new) not in firsts:
                firsts[(field, new)] = (when, by, new)
        phrasing = [
            "When did {key} first move to {to}, and who moved it?",
            "Who moved {key} to {to}, and when?",
            "When did {key} reach {to}?",
        ]
        for i, ((field, new), (when, by, _)) in enumerate(sorted(firsts.items(), key=lambda kv: kv[1][0])):
            text = phrasing[i % len(phrasing)].format(key=key, to=new)
            if field == "resolution" and i % 2:
                text = f"When was {key} resolved, and by whom?"
            out.append(
                _q(
                    "first",
                    key,
                    text,
                    [when.date().isoformat(), by],
                    doc,
                    f"first {field} item to {new} in {key}'s changelog",
                )
            )
            out.append(
                _q(
                    "first",
                    key,
                    f"Who first set {key} to {new}?".replace("Who first set", "Who moved"),
                    [by],
                    doc,
                    f"first {field} item to {new} in {key}'s changelog",
                )
            )
        out.append(
            _q(
                "timeline",
                key,
                f"Show the history of {key}",
                [f"{len(items)} dated changes", items[0][0].date().isoformat()],
                doc,
                f"{len(items)} kept items of {key}'s changelog",
            )
        )
    return out


# -- Confluence: the handbook's versions -----------------------------------------------------
def page_questions(fluid: Path) -> list[dict[str, Any]]:
    by_page: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for v in _jsonl(fluid / "confluence" / "versions.jsonl.gz"):
        by_page[v["id"]].append(v)
    titles = {p["id"]: p["title"] for p in _jsonl(fluid / "confluence" / "pages.jsonl.gz")}
    out = []
    chosen = [
        pid
        for pid in sorted(by_page)
        if len(by_page[pid]) >= 4 and len(titles[pid].split()) >= 2 and '"' not in titles[pid]
    ][::3]
    for n, pid in enumerate(chosen[:14]):
        versions = sorted(by_page[pid], key=lambda v: v["version"]["number"])
        title, doc = titles[pid], f"confluence:page:{pid}"
        current = versions[-1]["version"]["number"]
        v2 = versions[1]["version"]
        asks = [
            f'What did the "{title}" page say at version {v2["number"]}?',
            f"What did version {v2['number']} of {_the(title)} page say?",
        ]
        out.append(
            _q(
                "page_at",
                title,
                asks[n % 2],
                [v2["by"]["displayName"], _when(v2["when"]).date().isoformat()],
                doc,
                f"version {v2['number']} of page {pid} in versions.jsonl.gz",
            )
        )
        # a day well inside a version's lifetime (by date)
        dated = sorted(versions, key=lambda v: _when(v["version"]["when"]))
        for a, b in zip(dated, dated[1:], strict=False):
            start, end = _when(a["version"]["when"]), _when(b["version"]["when"])
            if (end - start).days >= 4:
                day = (start + (end - start) / 2).date()
                cut = datetime.combine(day, datetime.min.time(), UTC) + timedelta(days=1)
                said = max(
                    (v for v in versions if _when(v["version"]["when"]) < cut),
                    key=lambda v: (_when(v["version"]["when"]), v["version"]["number"]),
                )
                form = [
                    f'What did "{title}" say on {day:%B %d, %Y}?',
                    f"What did {_the(title)} page say on {day:%Y-%m-%d}?",
                ]
                out.append(
                    _q(
                        "page_at",
                        title,
                        form[n % 2],
                        [f"version {said['version']['number']}", said["version"]["by"]["displayName"]],
                        doc,
                        f"latest version of page {pid} saved before the end of {day}",
                    )
                )
                break
        first = versions[0]["version"]
        diff_forms = [
            f'How does version {first["number"]} of "{title}" differ from today?',
            f"Compare version {first['number']} of {_the(title)} page with the current one",
        ]
        out.append(
            _q(
                "page_at",
                title,
                diff_forms[n % 2],
                [f"version {first['number']}", f"version {current}"],
                doc,
                f"page {pid}: version {first['number']} and the newest, {current}",
            )
        )
        firsts, lasts = _when(dated[0]["version"]["when"]).date(), _when(dated[-1]["version"]["when"]).date()
        tl = [f'How has the "{title}" page evolved?', f"Show the history of {_the(title)} page"]
        out.append(
            _q(
                "timeline",
                title,
                tl[n % 2],
                [f"{len(versions)} dated changes", firsts.isoformat(), lasts.isoformat()],
                doc,
                f"{len(versions)} versions of page {pid}",
            )
        )
    # digests of the space by month (UTC months)
    per_month: dict[tuple[int, int], list[tuple[datetime, str]]] = defaultdict(list)
    for pid, versions in by_page.items():
        for v in versions:
            w = _when(v["version"]["when"])
            per_month[(w.year, w.month)].append((w, pid))
    months = sorted(per_month)
    for i, (year, month) in enumerate(months[::4][:10]):
        edits = sorted(per_month[(year, month)], reverse=True)
        newest_pid = edits[0][1]
        last = calendar.monthrange(year, month)[1]
        forms = [
            f"What changed in the ILDH space in {calendar.month_name[month]} {year}?",
            f"What happened in space ILDH between {year}-{month:02d}-01 and {year}-{month:02d}-{last}?",
            f"Which changes were made in the ILDH space from {calendar.month_abbr[month]} 1, {year} to {calendar.month_abbr[month]} {last}, {year}?",
        ]
        out.append(
            _q(
                "digest",
                f"ILDH {year}-{month}",
                forms[i % 3],
                [f"{len(edits)} page edit", titles[newest_pid]],
                f"confluence:page:{newest_pid}",
                f"{len(edits)} versions dated {year}-{month:02d}",
            )
        )
    # an empty window: a month without edits between two active ones
    all_edits = sorted(w for w, _ in (e for es in per_month.values() for e in es))
    for early, late in zip(all_edits, all_edits[1:], strict=False):
        if (late - early).days > 120:
            quiet = (early + timedelta(days=45)).date().replace(day=1)
            if (quiet.year, quiet.month) in per_month:
                continue
            latest = max(w for w in all_edits if w < datetime(quiet.year, quiet.month, 1, tzinfo=UTC))
            pid = next(p for w, p in per_month[(latest.year, latest.month)] if w == latest)
            out.append(
                _q(
                    "digest",
                    f"ILDH quiet {quiet}",
                    f"What changed in the ILDH space in {calendar.month_name[quiet.month]} {quiet.year}?",
                    ["Nothing changed", latest.date().isoformat()],
                    f"confluence:page:{pid}",
                    "no version in that month; the latest before it",
                )
            )
            if (
                len([q for q in out if "quiet" in q["derived_from"] or q["expect"][0] == "Nothing changed"])
                >= 3
            ):
                break
    return out


# -- GitHub: commits on main by month -----------------------------------------------------------
def commit_questions(fluid: Path) -> list[dict[str, Any]]:
    commits = {c["sha"]: c for c in _jsonl(fluid / "github" / "infusion-docs" / "commits.jsonl.gz")}
    on_main: set[str] = set()
    stack = [MAIN_HEAD]
    while stack:
        sha = stack.pop()
        if sha in on_main or sha not in commits:
            continue
        on_main.add(sha)
        stack.extend(p["sha"] for p in commits[sha].get("parents") or [])
    per_month: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for c in commits.values():
        w = _when(c["commit"]["committer"]["date"])
        per_month[(w.year, w.month)].append(c)
    # months whose every commit is on main (a commit only on another branch may or may not be indexed)
    clean = [m for m in sorted(per_month) if all(c["sha"] in on_main for c in per_month[m])]
    out = []
    repo = "fluid-project/infusion-docs"
    for i, (year, month) in enumerate(clean[::5][:10]):
        cs = sorted(per_month[(year, month)], key=lambda c: c["commit"]["committer"]["date"], reverse=True)
        newest = cs[0]
        last = calendar.monthrange(year, month)[1]
        forms = [
            f"What changed in the {repo} repository in {calendar.month_name[month]} {year}?",
            f"What was committed to the {repo} repo between {year}-{month:02d}-01 and {year}-{month:02d}-{last}?",
            f"What changed in repo {repo} during {calendar.month_name[month]} {year}?",
        ]
        out.append(
            _q(
                "digest",
                f"{repo} {year}-{month}",
                forms[i % 3],
                [f"{len(cs)} commit", newest["sha"][:7]],
                f"github:{repo}:commit:{newest['sha']}",
                f"{len(cs)} commits on main committed in {year}-{month:02d}",
            )
        )
    return out


def demo_digests(demo: Path) -> list[dict[str, Any]]:
    issues = _jsonl(demo / "jira" / "issues.jsonl")
    pages = _jsonl(demo / "confluence" / "pages.jsonl")
    out = []
    windows = [
        ("What changed in PAY between 2026-05-01 and 2026-05-10?", date(2026, 5, 1), date(2026, 5, 11)),
        ("What changed in the PAY project last quarter?", date(2026, 7, 1), date(2026, 10, 1)),
        ("What happened in PAY last month?", date(2026, 10, 1), date(2026, 11, 1)),
        ("Which changes were made in PAY in April 2026?", date(2026, 4, 1), date(2026, 5, 1)),
        ("What changed in PAY from 2026-09-20 to 2026-09-30?", date(2026, 9, 20), date(2026, 10, 1)),
    ]
    for text, start, end in windows:
        lo, hi = (
            datetime.combine(start, datetime.min.time(), UTC),
            datetime.combine(end, datetime.min.time(), UTC),
        )
        moves = [
            (r[0], i["key"])
            for i in issues
            if i["fields"]["project"]["key"] == "PAY"
            for r in changelog_items(i)
            if lo <= r[0] < hi
        ]
        edits = [
            (_when(p["version"]["when"]), p["id"])
            for p in pages
            if p["space"]["key"] == "PAY" and lo <= _when(p["version"]["when"]) < hi
        ]
        expect = []
        if moves:
            expect.append(f"{len(moves)} issue field change")
        if edits:
            expect.append(f"{len(edits)} page edit")
        newest = max([(w, f"jira:{k}") for w, k in moves] + [(w, f"confluence:page:{p}") for w, p in edits])
        out.append(
            _q(
                "digest",
                f"PAY {start}",
                text,
                expect,
                newest[1],
                "demo changelog items and page versions of PAY in the window",
            )
        )
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fluid", type=Path, default=FLUID)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    questions = (
        jira_questions(DEMO) + demo_digests(DEMO) + page_questions(args.fluid) + commit_questions(args.fluid)
    )
    for split in ("dev", "heldout"):
        rows = [q for q in questions if q["split"] == split]
        path = args.out / f"history_{split}.jsonl"
        path.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in rows))
        counts: dict[str, int] = defaultdict(int)
        for q in rows:
            counts[q["kind"]] += 1
        print(f"{path}: {len(rows)} questions {dict(sorted(counts.items()))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
