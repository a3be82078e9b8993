"""Conversation recall on the public LoCoMo benchmark (snap-research/LoCoMo, ``data/locomo10.json``:
ten long two-person conversations, each with its questions), told and asked exactly as an outside
harness would: a real ``devkb serve`` on an empty store, one sample's sessions sent over MCP
``remember_conversation`` (a session per ``session_N``, dated by its ``session_N_date_time`` as
written, "1:56 pm on 8 May, 2023"; a turn per dialogue line with its speaker), then each question
put over MCP ``ask``.

A turn that shares a photo has its caption appended as LoCoMo's own baselines do ("… and shared
a photo of a dog walking past a wall"); ``--no-captions`` leaves the words alone.

Scores, per category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial):

- **contains gold**: the answer holds the gold answer once both are normalised (case,
  punctuation, articles "a an the"); a gold day is also found written another way ("7 May 2023",
  "May 7, 2023", "2023-05-07"), and a gold "the Saturday before 25 May 2023" is also found as the
  day it names (20 May 2023);
- **F1**: LoCoMo's token F1 (normalised, Porter-stemmed tokens; category 1 by comma-separated
  parts, category 3 on the gold's first ";" part) — devkb quotes whole turns, so its precision,
  and with it F1, is low by construction;
- category 5 (the answer is not in the conversation): right when ``ask`` says ``not_found``.

The data is CC BY-NC and not in the repository; download ``data/locomo10.json`` from
github.com/snap-research/LoCoMo and pass its path.

    python -m devkb_devtools.evaluation.locomo_eval --locomo PATH [--sample N] [--categories 1,2,3,4,5]
        [--no-captions] [--json OUT] [--misses]
"""

from __future__ import annotations

import argparse
import json
import re
import string
import sys
import tempfile
import time
from collections import Counter, defaultdict
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import anyio
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from nltk.stem import PorterStemmer

from devkb_devtools.bench.server_process import DevkbServer
from devkb_devtools.evaluation.conversation_eval import KEY, _payload

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
MONTHS = [
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
]  # fmt: skip
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_M = "|".join(MONTHS)
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})\s+({_M}),?\s+(\d{{4}})\b")
_MONTH_DAY_YEAR = re.compile(rf"\b({_M})\s+(\d{{1,2}}),?\s+(\d{{4}})\b")
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_WEEKDAY_BEFORE = re.compile(rf"\b({'|'.join(WEEKDAYS)})\s+before\s+(\d{{1,2}})\s+({_M}),?\s+(\d{{4}})\b")
_STEM = PorterStemmer()


# -- the data ---------------------------------------------------------------------------------
def load(path: Path) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
    return data


def sessions_of(sample: dict[str, Any], captions: bool = True) -> list[dict[str, Any]]:
    """The sample's sessions as ``remember_conversation`` takes them, oldest first: the date as
    LoCoMo writes it, one turn per dialogue line (its photo's caption appended if asked)."""
    conv = sample["conversation"]
    numbers = sorted(int(k.split("_")[1]) for k, v in conv.items() if re.fullmatch(r"session_\d+", k) and v)
    out = []
    for n in numbers:
        turns = []
        for t in conv[f"session_{n}"]:
            text = t["text"].strip()
            if captions and t.get("blip_caption"):
                text = f"{text} (and shared {t['blip_caption']})" if text else f"shared {t['blip_caption']}"
            if text:
                turns.append({"speaker": t["speaker"], "text": text})
        out.append({"date": conv[f"session_{n}_date_time"], "title": "", "turns": turns})
    return out


def gold_of(q: dict[str, Any]) -> str:
    return str(q.get("answer", q.get("adversarial_answer", "")))


# -- scoring ----------------------------------------------------------------------------------
def normalise(text: str) -> str:
    text = text.lower().replace("\u2019", "'")
    text = "".join(" " if ch in string.punctuation or ch in "“”‘’–—" else ch for ch in text)
    return " ".join(w for w in text.split() if w not in ("a", "an", "the"))


def days_in(text: str) -> set[date]:
    """Every day written in the text, however written: 7 May 2023, May 7, 2023, 2023-05-07."""
    low = text.lower()
    found: set[date] = set()
    for d, m, y in _DAY_MONTH_YEAR.findall(low):
        found |= _day(int(y), MONTHS.index(m) + 1, int(d))
    for m, d, y in _MONTH_DAY_YEAR.findall(low):
        found |= _day(int(y), MONTHS.index(m) + 1, int(d))
    for y, m, d in _ISO.findall(low):
        found |= _day(int(y), int(m), int(d))
    return found


def _day(y: int, m: int, d: int) -> set[date]:
    try:
        return {date(y, m, d)}
    except ValueError:
        return set()


def gold_days(gold: str) -> set[date]:
    """The day a gold answer names: a date ("7 May 2023"), or "the Saturday before 25 May 2023"
    resolved (20 May 2023). A week, a weekend or a month names no one day."""
    low = gold.lower()
    named = _WEEKDAY_BEFORE.search(low)
    if named:
        wd, d, m, y = named.groups()
        anchor = _day(int(y), MONTHS.index(m) + 1, int(d))
        if anchor:
            day = next(iter(anchor))
            back = (day.weekday() - WEEKDAYS.index(wd) - 1) % 7 + 1
            return {day - timedelta(days=back)}
    if re.search(r"\b(week|weekend|weekends)\b", low):
        return set()
    return days_in(gold)


def contains_gold(answer: str, gold: str) -> bool:
    if normalise(gold) and normalise(gold) in normalise(answer):
        return True
    wanted = gold_days(gold)
    return bool(wanted) and wanted <= days_in(answer)


def _tokens(text: str) -> list[str]:
    return [_STEM.stem(w) for w in normalise(text).split()]


def f1(prediction: str, gold: str) -> float:
    p, g = _tokens(prediction), _tokens(gold)
    common = sum((Counter(p) & Counter(g)).values())
    if not common:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def locomo_f1(prediction: str, gold: str, category: int) -> float:
    """LoCoMo's F1: multi-hop gold by comma-separated parts (each its best part of the answer),
    open-domain gold on its first ";" part."""
    if category == 1:
        parts = [p for p in prediction.split(",") if p.strip()] or [prediction]
        golds = [g for g in gold.split(",") if g.strip()]
        return sum(max(f1(p, g) for p in parts) for g in golds) / len(golds) if golds else 0.0
    if category == 3:
        gold = gold.split(";")[0]
    return f1(prediction, gold)


def score(q: dict[str, Any], answer: dict[str, Any]) -> tuple[bool, float]:
    text, category = str(answer.get("answer") or ""), int(q["category"])
    if category == 5:
        right = answer.get("status") == "not_found"
        return right, float(right)
    gold = gold_of(q)
    return contains_gold(text, gold), locomo_f1(text, gold, category)


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by[r["category"]].append(r)

    def part(rs: list[dict[str, Any]]) -> dict[str, Any]:
        n = len(rs)
        return {
            "n": n,
            "contains": round(sum(r["right"] for r in rs) / n, 3) if n else 0.0,
            "f1": round(sum(r["f1"] for r in rs) / n, 3) if n else 0.0,
        }

    answerable = [r for r in rows if r["category"] != 5]
    return {
        "by_category": {f"{c} {CATEGORIES[c]}": part(by[c]) for c in sorted(by)},
        "categories_1_4": part(answerable),
        "all": part(rows),
    }


# -- the run ----------------------------------------------------------------------------------
async def run_sample(
    url: str, sample: dict[str, Any], categories: set[int], captions: bool
) -> dict[str, Any]:
    sessions = sessions_of(sample, captions)
    sid = sample.get("sample_id", "sample")
    headers = {"Authorization": f"Bearer {KEY}"}
    rows = []
    async with (
        httpx.AsyncClient(headers=headers, timeout=httpx.Timeout(120, read=1800)) as http,
        streamable_http_client(url, http_client=http) as (read, write, _),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        started = time.perf_counter()
        told = _payload(
            await session.call_tool("remember_conversation", {"title": f"LoCoMo {sid}", "sessions": sessions})
        )
        ingest_s = time.perf_counter() - started
        asked = time.perf_counter()
        for i, q in enumerate(sample["qa"]):
            if int(q["category"]) not in categories:
                continue
            answer = _payload(await session.call_tool("ask", {"question": q["question"]}))
            right, f = score(q, answer)
            rows.append(
                {
                    "i": i,
                    "category": int(q["category"]),
                    "question": q["question"],
                    "gold": gold_of(q),
                    "evidence": q.get("evidence", []),
                    "right": right,
                    "f1": round(f, 4),
                    "status": answer.get("status"),
                    "answer": answer.get("answer"),
                }
            )
    return {
        "sample": sid,
        "told": {k: told[k] for k in ("conversation", "sessions", "turns", "written")},
        "ingest_s": round(ingest_s, 1),
        "ask_s": round(time.perf_counter() - asked, 1),
        "rows": rows,
        "summary": summary(rows),
    }


def evaluate(
    path: Path, sample: int, categories: set[int], captions: bool = True, data_dir: Path | None = None
) -> dict[str, Any]:
    """Start ``devkb serve`` on an empty store, tell it sample ``sample`` (1-based) over MCP and
    ask its questions over MCP."""
    samples = load(path)
    if not 1 <= sample <= len(samples):
        raise SystemExit(f"--sample {sample}: the file holds {len(samples)} samples")
    with tempfile.TemporaryDirectory(prefix="devkb-locomo-") as tmp:
        root = data_dir or Path(tmp)
        root.mkdir(parents=True, exist_ok=True)
        sources = root / "sources.yaml"
        sources.write_text("sources: []\n", encoding="utf-8")
        env = {
            "DEVKB_SOURCES_FILE": str(sources),
            "DEVKB_API_KEY": KEY,
            "DEVKB_RELATED_SEARCH_MAX_DOCUMENTS": "0",
        }
        with DevkbServer(root / "data", env=env) as server:
            return anyio.run(run_sample, server.base_url + "/mcp", samples[sample - 1], categories, captions)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--locomo", type=Path, required=True, help="locomo10.json (or a file of its samples)")
    ap.add_argument("--sample", type=int, default=1, help="which sample, 1-based (default 1)")
    ap.add_argument("--categories", default="1,2,3,4,5", help="e.g. 1,2,3,4 (default all five)")
    ap.add_argument("--no-captions", action="store_true", help="do not append the photos' captions")
    ap.add_argument("--json", type=Path, help="write every answer here")
    ap.add_argument("--misses", action="store_true", help="print the questions answered wrong")
    args = ap.parse_args(argv)
    categories = {int(c) for c in args.categories.split(",") if c.strip()}
    out = evaluate(args.locomo, args.sample, categories, not args.no_captions)
    s = out["summary"]
    print(
        f"LoCoMo {out['sample']}: {out['told']['turns']} turns in {out['told']['sessions']} sessions, "
        f"told in {out['ingest_s']} s; {len(out['rows'])} questions asked in {out['ask_s']} s"
    )
    print(f"{'category':<16}{'n':>5}{'contains':>10}{'F1':>8}")
    for name, p in [*s["by_category"].items(), ("1-4", s["categories_1_4"]), ("all", s["all"])]:
        print(f"{name:<16}{p['n']:>5}{p['contains']:>10.3f}{p['f1']:>8.3f}")
    if args.misses:
        for r in out["rows"]:
            if not r["right"]:
                print(f"  MISS [{r['category']}] {r['question']}  gold={r['gold']!r}")
                print(f"       -> {r['status']}: {str(r['answer'])[:400]!r}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
