"""Resync: a second sync with nothing changed (goal ≤ 30 s on the whole corpus) and with a share
of the documents changed (goal: time proportional to the change).

Each repeat times, in order: a sync with nothing changed; for each share (1%, 5%), a sync after
editing that share of the documents through the emulators (``update_issue``, ``update_page``,
``add_commit``), followed by an untimed settling sync (Jira's ``updated >=`` cursor has minute
precision, so the next sync fetches the just-changed issues once more and skips them by hash).

The workspace is the one the ingest benchmark left open — the whole Fluid corpus in the default
and full modes — with the real embedder, so changed chunks are re-embedded by the model.
"""

from __future__ import annotations

import logging
from typing import Any

from devkb_devtools.bench.measure import Summary
from devkb_devtools.bench.options import BenchOptions
from devkb_devtools.bench.workspace import Workspace, change_documents

log = logging.getLogger(__name__)
NO_CHANGE_GOAL_S = 30.0


def measure(ws: Workspace, opts: BenchOptions, label: str) -> dict[str, Any]:
    """The resync protocol on an indexed, open workspace."""
    stats = ws.store.stats()
    rows: list[dict[str, Any]] = []
    for r in range(opts.resync_repeats):
        row: dict[str, Any] = {"repeat": r}
        nochange = ws.sync_all()
        row["no_change"] = {
            "seconds": nochange.seconds,
            "documents_indexed": nochange.documents_indexed,
            "chunks_embedded": nochange.chunks_embedded,
            "per_source_seconds": nochange.per_source_seconds,
        }
        for share in opts.change_shares:
            edited = change_documents(
                ws, share, tag=f"{label}-{r}-{share}", seed=1000 * r + int(share * 1000)
            )
            figures = ws.sync_all()
            ws.sync_all()  # settle (see the module docstring)
            row[f"{share:.0%}"] = {
                "edited": edited,
                "seconds": figures.seconds,
                "documents_indexed": figures.documents_indexed,
                "chunks_embedded": figures.chunks_embedded,
                "seconds_over_no_change": figures.seconds - nochange.seconds,
            }
        log.info(
            "resync %s %d: %s", label, r, {k: round(v["seconds"], 2) for k, v in row.items() if k != "repeat"}
        )
        rows.append(row)
    summary: dict[str, Any] = {
        "no_change_seconds": Summary.of([x["no_change"]["seconds"] for x in rows], "s").to_json(),
    }
    for share in opts.change_shares:
        key = f"{share:.0%}"
        summary[key] = {
            "seconds": Summary.of([x[key]["seconds"] for x in rows], "s").to_json(),
            "documents_indexed": Summary.of([x[key]["documents_indexed"] for x in rows]).to_json(),
            "chunks_embedded": Summary.of([x[key]["chunks_embedded"] for x in rows]).to_json(),
            "ms_per_changed_document": Summary.of(
                [1000 * x[key]["seconds_over_no_change"] / max(1, x[key]["documents_indexed"]) for x in rows],
                "ms",
            ).to_json(),
        }
    if len(opts.change_shares) >= 2:
        lo, hi = (f"{s:.0%}" for s in opts.change_shares[:2])
        # same-run ratio of the extra time over an unchanged sync, against the ratio of documents changed
        summary["proportionality"] = {
            "shares": [lo, hi],
            "extra_time_ratio": Summary.of(extra).to_json()
            if (
                extra := [
                    x[hi]["seconds_over_no_change"] / x[lo]["seconds_over_no_change"]
                    for x in rows
                    if x[lo]["seconds_over_no_change"] > 0
                ]
            )
            else None,  # None: the smaller change cost no measurable time
            "documents_ratio": Summary.of(
                [x[hi]["documents_indexed"] / max(1, x[lo]["documents_indexed"]) for x in rows]
            ).to_json(),
            "chunks_embedded_ratio": Summary.of(
                [x[hi]["chunks_embedded"] / max(1, x[lo]["chunks_embedded"]) for x in rows]
            ).to_json(),
        }
    return {
        "label": label,
        "documents": stats.documents,
        "chunks": stats.chunks,
        "embedder": ws.embedder.model_name,
        "summary": summary,
        "runs": rows,
    }


def run(opts: BenchOptions, ws: Workspace) -> dict[str, Any]:
    measured = [measure(ws, opts, f"{ws.corpus.name}, {ws.embedder.model_name}")]
    biggest = max(measured, key=lambda m: m["documents"])
    no_change = biggest["summary"]["no_change_seconds"]["median"]
    goals = [
        {
            "goal": f"resync with nothing changed ({biggest['label']}: {biggest['documents']:,} documents)",
            "target": f"≤ {NO_CHANGE_GOAL_S:.0f} s",
            "measured": no_change,
            "met": no_change <= NO_CHANGE_GOAL_S,
        }
    ]
    for m in [biggest]:  # small changes of a small store are too few documents to judge
        prop = m["summary"].get("proportionality")
        if not prop or prop["extra_time_ratio"] is None:
            continue
        docs, time_ratio = prop["documents_ratio"]["median"], prop["extra_time_ratio"]["median"]
        goals.append(
            {
                "goal": f"resync time proportional to the change ({m['label']}): extra time over an unchanged "
                f"sync, {prop['shares'][1]} vs {prop['shares'][0]} changed",
                "target": f"documents ratio {docs:.1f}, within ×2",
                "measured": time_ratio,
                "met": docs / 2 <= time_ratio <= docs * 2,
            }
        )
    return {"workspaces": measured, "goals": goals}
