"""Build the demo workspace under ``data/`` from the content modules in ``content/``.

    python -m devkb_devtools.demo.build_demo_data            # (re)write data/ and README.md, then validate
    python -m devkb_devtools.demo.build_demo_data --check    # validate that data/ is up to date, write nothing
    python backend/devtools/src/devkb_devtools/demo/build_demo_data.py  # works without installing the package

The output is deterministic: the same sources give byte-identical files. Git objects (blob, tree and
commit shas) are computed exactly as git computes them, so every ``sha`` in the GitHub files is real.
Expected cross-reference edges are derived from the written records with the rules of
``../shared/data/fluid/README.md`` (section ``eval/``), so they cannot drift from the data.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a plain script: make ``devkb`` importable from src/
    _backend = Path(__file__).resolve().parents[4]  # backend/: the product and the devtools sources
    sys.path[:0] = [str(_backend / "src"), str(_backend / "devtools" / "src")]
    __package__ = "devkb_devtools.demo"

from .builder.confluence import build_confluence, build_page_versions
from .builder.edges import compute_edges
from .builder.github import (
    build_commits,
    build_history,
    build_issues,
    build_pulls,
    build_repo_json,
    build_tree_json,
    file_content,
)
from .builder.jira import build_jira
from .builder.permissions import confluence_permissions, jira_permissions, repo_permissions
from .builder.readme import readme
from .builder.validate import validate
from .content import repo_history
from .content.common import GITHUB_REPO, JIRA_BASE, REPO_DIR, SPACE_KEY, WIKI_BASE
from .content.questions import questions as build_questions

DEMO_DIR = Path(__file__).resolve().parent
DATA_DIR = DEMO_DIR / "data"


def dumps_line(obj: Any) -> str:
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    for ch in ("\u2028", "\u2029", "\u0085"):
        text = text.replace(ch, f"\\u{ord(ch):04x}")
    return text + "\n"


def jsonl(rows: Iterable[Any]) -> bytes:
    return "".join(dumps_line(r) for r in rows).encode()


def pretty(obj: Any) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, indent=2) + "\n").encode()


def manifest(head_sha, issues, link_rows, commits, pulls, files, pages, edges) -> dict[str, Any]:
    """Like the fluid ``manifest.json``; the emulators read ``sources.github.commit`` as HEAD."""
    by_kind: dict[str, int] = {}
    for e in edges:
        by_kind[e["kind"]] = by_kind.get(e["kind"], 0) + 1
    return {
        "sources": {
            "jira": {"projects": sorted({i["fields"]["project"]["key"] for i in issues}), "url": JIRA_BASE},
            "github": {"repo": GITHUB_REPO, "commit": head_sha, "branch": "main"},
            "confluence": {"space": SPACE_KEY, "url": WIKI_BASE},
        },
        "counts": {
            "jira_issues": len(issues),
            "jira_links": len(link_rows),
            "github_commits": len(commits),
            "github_pulls": len(pulls),
            "github_tree_files": len(files),
            "confluence_pages": len(pages),
            "expected_edges": len(edges),
            "expected_edges_by_kind": dict(sorted(by_kind.items())),
        },
    }


def build() -> dict[str, bytes]:
    """Every output file (path relative to ``demo/``) and its bytes."""
    states, shas, trees = build_history()
    head = repo_history.MAIN_HEAD
    files = {p: file_content(p, fl) for p, fl in sorted(states[head].items())}
    commits = build_commits(states, shas, trees)
    pulls = build_pulls(shas)
    projects, issues, link_rows = build_jira(shas)
    space, pages = build_confluence(shas)
    edges = compute_edges(issues, link_rows, commits, pulls, files, pages)
    questions = build_questions(shas)

    out: dict[str, bytes] = {
        "data/jira/projects.json": pretty(projects),
        "data/jira/issues.jsonl": jsonl(issues),
        "data/jira/permissions.json": pretty(jira_permissions()),
        "data/confluence/space.json": pretty(space),
        "data/confluence/pages.jsonl": jsonl(pages),
        "data/confluence/versions.jsonl": jsonl(build_page_versions(pages)),
        "data/confluence/permissions.json": pretty(confluence_permissions()),
        f"data/{REPO_DIR}/repo.json": pretty(build_repo_json(commits)),
        f"data/{REPO_DIR}/tree.json": pretty(build_tree_json(files, trees[head])),
        f"data/{REPO_DIR}/commits.jsonl": jsonl(commits),
        f"data/{REPO_DIR}/pulls.jsonl": jsonl(pulls),
        f"data/{REPO_DIR}/issues.jsonl": jsonl(build_issues()),
        f"data/{REPO_DIR}/permissions.json": pretty(repo_permissions()),
        "data/expected_edges.jsonl": jsonl(edges),
        "data/questions.jsonl": jsonl(questions),
        "data/manifest.json": pretty(
            manifest(shas[head], issues, link_rows, commits, pulls, files, pages, edges)
        ),
    }
    for path, content in files.items():
        out[f"data/{REPO_DIR}/tree/{path}"] = content
    out["README.md"] = readme(issues, link_rows, pages, commits, pulls, files, edges, questions).encode()
    return out


def write(out: dict[str, bytes]) -> None:
    if DATA_DIR.exists():
        shutil.rmtree(DATA_DIR)
    for rel, content in out.items():
        path = DEMO_DIR / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)


def check_on_disk(out: dict[str, bytes], demo_dir: Path = DEMO_DIR) -> list[str]:
    errors = []
    on_disk = {str(p.relative_to(demo_dir)) for p in (demo_dir / "data").rglob("*") if p.is_file()}
    expected = {k for k in out if k.startswith("data/")}
    for extra in sorted(on_disk - expected):
        errors.append(f"unexpected file {extra}")
    for rel, content in out.items():
        path = demo_dir / rel
        if not path.exists() or path.read_bytes() != content:
            errors.append(f"stale or missing: {rel}")
    return errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="validate data/ on disk, write nothing")
    parser.add_argument(
        "--dir",
        type=Path,
        default=DEMO_DIR,
        help="with --check: the folder holding data/ (default: the package's)",
    )
    args = parser.parse_args(argv)
    out = build()
    errors = validate(out)
    if args.check:
        errors += check_on_disk(out, args.dir)
    else:
        write(out)
    for e in errors:
        print("ERROR:", e, file=sys.stderr)
    if not errors:
        size = sum(len(v) for k, v in out.items() if k.startswith("data/"))
        print(f"{'checked' if args.check else 'wrote'} {len(out)} files, data/ {size} bytes: OK")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
