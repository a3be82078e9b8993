"""Conversation recall through MCP, on real conversations: the comment threads of Fluid Jira issues
(the data package's ``jira/issues.jsonl.gz``), one session per issue and day, one turn per comment
(speaker = the comment author, time = when it was written), told to a real ``devkb serve`` over
its MCP endpoint (``remember_conversation``) and asked about over MCP (``ask``).

The questions (``backend/tests/data/memory/conversations*.json``) were written from the raw
threads: a phrase a person said, who said it, when, what was said after something, and questions
the conversation does not answer. A question is right when the answer holds every expected item
(case-insensitive; ``a|b`` either), or — for a question the conversation does not answer — when
the answer says nothing was found (status ``not_found``). The same questions are also put to
``recall`` (the memory search): right when one of its first three turns holds every item.

    python -m devkb_devtools.evaluation.conversation_eval [--part tuning|heldout|all] [--json OUT]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from devkb_devtools.bench.server_process import DevkbServer
from devkb_devtools.evaluation.corpus import DEFAULT_FLUID_DIR, REPO_ROOT

DATA = REPO_ROOT / "backend" / "tests" / "data" / "memory"
PARTS = {
    "tuning": DATA / "conversations.json",
    "heldout": DATA / "conversations_heldout.json",
    "heldout2": DATA / "conversations_heldout2.json",
}
KEY = "conversation-eval-key-0123456789"


def load_issues(keys: list[str], fluid_dir: Path = DEFAULT_FLUID_DIR) -> dict[str, dict[str, Any]]:
    wanted = set(keys)
    found: dict[str, dict[str, Any]] = {}
    with gzip.open(fluid_dir / "jira" / "issues.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            if wanted <= found.keys():
                break
            row = json.loads(line)
            if row["key"] in wanted:
                found[row["key"]] = row
    missing = wanted - found.keys()
    if missing:
        raise SystemExit(f"issues not in the corpus: {sorted(missing)}")
    return found


def sessions_of(keys: list[str], fluid_dir: Path = DEFAULT_FLUID_DIR) -> list[dict[str, Any]]:
    """The issues' comment threads as sessions, oldest first: one per issue and day (its title the
    issue's key and summary), one turn per comment."""
    issues = load_issues(keys, fluid_dir)
    days: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for key in keys:
        for c in issues[key]["fields"]["comment"]["comments"]:
            body = (c.get("body") or "").strip()
            if body:
                days[(key, c["created"][:10])].append(c)
    out = []
    for (key, _), comments in days.items():
        comments.sort(key=lambda c: c["created"])
        out.append(
            {
                "date": _iso(comments[0]["created"]),
                "title": f"{key}: {issues[key]['fields']['summary'].strip()}",
                "turns": [
                    {
                        "speaker": c["author"]["displayName"],
                        "text": c["body"].strip(),
                        "time": _iso(c["created"]),
                    }
                    for c in comments
                ],
            }
        )
    out.sort(key=lambda s: str(s["date"]))
    return out


def sessions_between(
    people: list[str], since: str, until: str, fluid_dir: Path = DEFAULT_FLUID_DIR
) -> list[dict[str, Any]]:
    """What ``people`` said to one another in ``[since, until)``: every comment of theirs on an
    issue where all of them commented, one untitled session per day (as a chat between two people
    reads: no issue named), oldest first."""
    days: dict[str, list[dict[str, Any]]] = defaultdict(list)
    with gzip.open(fluid_dir / "jira" / "issues.jsonl.gz", "rt", encoding="utf-8") as f:
        for line in f:
            comments = json.loads(line)["fields"]["comment"]["comments"]
            if not set(people) <= {c["author"]["displayName"] for c in comments}:
                continue
            for c in comments:
                body = (c.get("body") or "").strip()
                if body and c["author"]["displayName"] in people and since <= c["created"][:10] < until:
                    days[c["created"][:10]].append(c)
    out = []
    for _, comments in sorted(days.items()):
        comments.sort(key=lambda c: c["created"])
        out.append(
            {
                "date": _iso(comments[0]["created"]),
                "turns": [
                    {
                        "speaker": c["author"]["displayName"],
                        "text": c["body"].strip(),
                        "time": _iso(c["created"]),
                    }
                    for c in comments
                ],
            }
        )
    return out


def conversation_of(spec: dict[str, Any], fluid_dir: Path = DEFAULT_FLUID_DIR) -> list[dict[str, Any]]:
    if "issues" in spec:
        return sessions_of(spec["issues"], fluid_dir)
    return sessions_between(spec["people"], spec["since"], spec["until"], fluid_dir)


def _iso(jira_time: str) -> str:
    """``2010-11-25T08:28:00.000-0500`` → ``2010-11-25T08:28:00-05:00``."""
    head, zone = jira_time[:19], jira_time[-5:]
    return f"{head}{zone[:3]}:{zone[3:]}"


def holds(text: str, expected: str) -> bool:
    flat = " ".join(text.split()).casefold()
    return any(" ".join(alt.split()).casefold() in flat for alt in expected.split("|"))


def right(question: dict[str, Any], answer: dict[str, Any]) -> bool:
    if question.get("none"):
        return bool(answer.get("status") == "not_found")
    return all(holds(str(answer.get("answer", "")), e) for e in question["expect"])


def recalled(question: dict[str, Any], memories: list[dict[str, Any]]) -> bool:
    if question.get("none"):
        return True  # recall ranks; it does not say "nothing" (scored on ask only)
    return any(
        all(holds(str(m.get("said") or m.get("text")), e) for e in question["expect"]) for m in memories[:3]
    )


def _payload(result: Any) -> dict[str, Any]:
    if result.isError:
        raise RuntimeError(" ".join(getattr(c, "text", "") for c in result.content))
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def run_part(url: str, spec: dict[str, Any], fluid_dir: Path) -> dict[str, Any]:
    sessions = conversation_of(spec["conversation"], fluid_dir)
    rows = []
    headers = {"Authorization": f"Bearer {KEY}"}
    async with (
        httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(120, read=900)) as http,
        streamable_http_client(url, http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        started = time.perf_counter()
        told = _payload(
            await session.call_tool(
                "remember_conversation", {"title": spec["conversation"]["title"], "sessions": sessions}
            )
        )
        ingest_s = time.perf_counter() - started
        for q in spec["questions"]:
            answer = _payload(await session.call_tool("ask", {"question": q["question"]}))
            memories = _payload(await session.call_tool("recall", {"query": q["question"], "limit": 5}))
            rows.append(
                {
                    "id": q["id"],
                    "type": q["type"],
                    "question": q["question"],
                    "right": right(q, answer),
                    "recall_top3": recalled(q, memories["memories"]),
                    "status": answer.get("status"),
                    "answer": answer.get("answer"),
                }
            )
    return {
        "told": {k: told[k] for k in ("conversation", "sessions", "turns", "written")},
        "ingest_s": ingest_s,
        "rows": rows,
    }


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_type: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows:
        by_type[r["type"]]["n"] += 1
        by_type[r["type"]]["right"] += int(r["right"])
    n = len(rows)
    return {
        "questions": n,
        "right": sum(r["right"] for r in rows),
        "accuracy": round(sum(r["right"] for r in rows) / n, 3) if n else 0.0,
        "recall_top3": round(sum(r["recall_top3"] for r in rows) / n, 3) if n else 0.0,
        "by_type": {t: f"{c['right']}/{c['n']}" for t, c in sorted(by_type.items())},
    }


def evaluate(
    parts: list[str], fluid_dir: Path = DEFAULT_FLUID_DIR, data_dir: Path | None = None
) -> dict[str, Any]:
    """Start ``devkb serve`` on an empty store (no sources), tell it each part's conversation over
    MCP and ask its questions over MCP; returns each part's rows and summary."""
    with tempfile.TemporaryDirectory(prefix="devkb-conv-") as tmp:
        root = data_dir or Path(tmp)
        sources = root / "sources.yaml"
        root.mkdir(parents=True, exist_ok=True)
        sources.write_text("sources: []\n", encoding="utf-8")
        env = {
            "DEVKB_SOURCES_FILE": str(sources),
            "DEVKB_API_KEY": KEY,
            "DEVKB_RELATED_SEARCH_MAX_DOCUMENTS": "0",
        }
        out: dict[str, Any] = {}
        with DevkbServer(root / "data", env=env) as server:
            for part in parts:
                spec = json.loads(PARTS[part].read_text(encoding="utf-8"))
                result = anyio.run(run_part, server.base_url + "/mcp", spec, fluid_dir)
                out[part] = {**result, "summary": summary(result["rows"])}
        return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=[*PARTS, "all"], default="all")
    ap.add_argument("--json", type=Path, help="write every answer here")
    ap.add_argument("--fluid-dir", type=Path, default=DEFAULT_FLUID_DIR)
    args = ap.parse_args(argv)
    parts = list(PARTS) if args.part == "all" else [args.part]
    out = evaluate(parts, args.fluid_dir)
    for part, result in out.items():
        s = result["summary"]
        print(
            f"{part}: {s['right']}/{s['questions']} = {s['accuracy']:.3f} (recall top-3 {s['recall_top3']:.3f}); "
            f"{result['told']['turns']} turns in {result['told']['sessions']} sessions, "
            f"told in {result['ingest_s']:.1f} s; by type {s['by_type']}"
        )
        for r in result["rows"]:
            if not r["right"]:
                print(f"  MISS {r['id']} [{r['type']}] {r['question']}\n       -> {str(r['answer'])[:300]!r}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
