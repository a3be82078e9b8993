"""Each Jira changelog of the demo replayed from the raw records (``devkb_devtools.evaluation.
history_questions.replay``, which reads the recorded issues and never devkb) against the state
devkb answers from its stored transitions, at every transition instant and at the end of every
transition day: they agree on status, assignee, resolution and fix version (1.00). The Fluid
archive carries no changelogs (asserted, so the test notices when one appears)."""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime, timedelta

import pytest

from devkb.agent.history.compose import value_at
from devkb.sources.jira import JiraLoader, JiraLoaderConfig
from devkb.store.models import SourceType
from devkb_devtools.demo.workspace import DEMO_DATA
from devkb_devtools.emulators import Dataset, EmulatorSuite
from devkb_devtools.evaluation.history_questions import FIELDS, changelog_items, replay
from tests.hashing_embedder import HashingEmbedder
from tests.support import build_indexer

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("deployment", ["datacenter", "cloud"])
def test_stored_state_equals_the_replayed_changelog_on_every_transition(tmp_path, deployment):
    raw = [json.loads(line) for line in (DEMO_DATA / "jira" / "issues.jsonl").read_text().splitlines()]
    with_changes = [i for i in raw if changelog_items(i)]
    assert with_changes
    with EmulatorSuite(Dataset.load(DEMO_DATA), jira_deployment=deployment) as suite:
        config = JiraLoaderConfig(name="jira", url=suite.jira_url, projects=["PAY", "WEB"], backoff=0.05)
        indexer = build_indexer(tmp_path, HashingEmbedder(), [JiraLoader(config)])
        try:
            assert indexer.runs.run("jira").state == "succeeded"
            checked = agreed = 0
            for issue in with_changes:
                found = indexer.store.get_document(f"jira:{issue['key']}")
                assert found is not None
                transitions = indexer.store.versions(found.document.id, ["transition"])
                assert len(transitions) == len(changelog_items(issue))
                moments = set()
                for when, *_ in changelog_items(issue):
                    day_end = datetime.combine(when.date(), datetime.min.time(), UTC) + timedelta(days=1)
                    moments |= {when, when + timedelta(seconds=1), day_end}
                for moment in sorted(moments):
                    expected = replay(issue, moment)
                    for field in FIELDS:
                        got, _ = value_at(found.document, transitions, field, moment.isoformat())
                        checked += 1
                        agreed += sorted(got) == sorted(expected[field])
            assert checked > 0 and agreed == checked, f"{agreed}/{checked}"
        finally:
            indexer.close()


def test_the_fluid_archive_has_no_changelogs(fluid_dir):
    with gzip.open(fluid_dir / "jira" / "issues.jsonl.gz", "rt", encoding="utf-8") as f:
        assert not any(json.loads(line).get("changelog") for line in f)


def test_the_ask_service_answers_history_questions_from_versions(tmp_path):
    from devkb.agent.ask_service import AskService
    from devkb.agent.hybrid_search import HybridSearch
    from devkb.agent.planner import Planner
    from devkb.agent.tools import Toolbox

    with EmulatorSuite(Dataset.load(DEMO_DATA)) as suite:
        config = JiraLoaderConfig(name="jira", url=suite.jira_url, projects=["PAY", "WEB"], backoff=0.05)
        indexer = build_indexer(tmp_path, HashingEmbedder(), [JiraLoader(config)])
        try:
            assert indexer.runs.run("jira").state == "succeeded"
            store = indexer.store
            toolbox = Toolbox(store, HybridSearch(store, HashingEmbedder()), lambda: {"PAY", "WEB"})
            ask = AskService(Planner(toolbox, lambda: {"PAY", "WEB"})).ask
            got = ask("When did PAY-12 first move to In Review, and who moved it?")
            assert "2026-05-06 16:20 UTC, moved by Marcus Chen" in got.answer, got.answer
            assert [c.document_id for c in got.sources] == ["jira:PAY-12"]
            assert [t.tool for t in got.tool_calls] == ["History"]
            state = ask("What was the status of PAY-12 on April 20, 2026?")
            assert "status In Progress" in state.answer, state.answer
            missing = ask("What was the status of PAY-999 on April 20, 2026?")
            assert (
                missing.answer == "I found no issue PAY-999 you can read." and missing.status == "not_found"
            )
            # a month without a day: the issue as it stood at the end of that month
            april = ask("Who was PAY-12 assigned to in April 2026?")
            assert april.answer.startswith(
                "At the end of April 2026, PAY-12 had assignee Marcus Chen (since 2026-04-16, set by Priya Raman)"
            ), april.answer
            # an issue with no recorded changelog: when it moved is not known (not "never"), with
            # today's state and its resolution date, the record closest to "when"; capped confidence
            closed = ask("When was PAY-7 closed?")
            assert closed.answer == (
                "No changelog is recorded for PAY-7, so when it moved to Closed is not known; "
                "its status is Closed now and was resolved (Fixed) on 2026-02-19 09:00 UTC [1]."
            ), closed.answer
            assert closed.confidence.level != "high" and "record is incomplete" in closed.confidence.reason
            open_ = ask("When did PAY-27 move to Done?")
            assert open_.answer == (
                "No changelog is recorded for PAY-27, so whether and when it moved to Done is not known; "
                "its status is Open now [1]."
            ), open_.answer
            # what changed in an issue that is not there: the issue is not found, not "nothing changed"
            gone = ask("What changed in PAY-999 last week?")
            assert (gone.answer, gone.status, gone.sources) == (
                "I found no issue PAY-999 you can read.",
                "not_found",
                [],
            )
            # a history question about sources the question excludes goes to the planner
            assert (
                ask("What was the status of PAY-12 on 2026-04-20?", sources=[SourceType.GITHUB])
                .tool_calls[0]
                .tool
                != "History"
            )
            # not a history question: the planner answers as before
            assert all(t.tool != "History" for t in ask("What is PAY-12 about?").tool_calls)
        finally:
            indexer.close()


def test_graph_query_filters_by_change_window_and_past_values(tmp_path):
    from devkb.agent.evidence import Scope
    from devkb.agent.tools.graph_query import GraphQuery
    from devkb.errors import InvalidQueryError

    with EmulatorSuite(Dataset.load(DEMO_DATA)) as suite:
        config = JiraLoaderConfig(name="jira", url=suite.jira_url, projects=["PAY", "WEB"], backoff=0.05)
        indexer = build_indexer(tmp_path, HashingEmbedder(), [JiraLoader(config)])
        try:
            assert indexer.runs.run("jira").state == "succeeded"
            gq = GraphQuery(indexer.store, lambda: {"PAY", "WEB"})

            def ids(**kw):
                return [d.id for d in gq.run(Scope(), **kw)]

            assert ids(changed_from="2026-05-01", changed_to="2026-05-10") == ["jira:PAY-12"]
            assert ids(changed_from="2026-09-01") == ["jira:PAY-20"]
            assert ids(fields={"project": "PAY"}, changed_from="2026-04-01", changed_to="2026-04-30") == [
                "jira:PAY-13",
                "jira:PAY-12",
            ]
            # PAY-12 was In Progress on 2026-04-20 (Closed today); PAY-13 was Closed that evening
            in_progress = ids(fields={"project": "PAY", "status": "In Progress"}, as_of="2026-04-20")
            assert "jira:PAY-12" in in_progress and "jira:PAY-13" not in in_progress
            assert "jira:PAY-12" not in ids(fields={"project": "PAY", "status": "In Progress"})
            with pytest.raises(InvalidQueryError):
                ids(changed_from="last week")
        finally:
            indexer.close()


def test_the_demo_pages_older_versions_are_synced_and_the_version_diff_answers(tmp_path):
    """The demo workspace keeps older versions of the PSP Retry Policy page (9 and 10; 1–8 were
    never captured), so the app's version diff and "what did it say in March" have something to
    show; the versions are the raw records' (confluence/versions.jsonl)."""
    from devkb.agent.history import answer, recognise
    from devkb.agent.question import parse_question
    from devkb.config.sources_file import SourceConfig
    from devkb.sources.registry import build_loader

    raw = [
        json.loads(line) for line in (DEMO_DATA / "confluence" / "versions.jsonl").read_text().splitlines()
    ]
    with EmulatorSuite(Dataset.load(DEMO_DATA)) as suite:
        cfg = SourceConfig(name="wiki", type="confluence", url=suite.confluence_url, spaces=["PAY"])
        indexer = build_indexer(tmp_path, HashingEmbedder(), [build_loader(cfg)])
        try:
            assert indexer.runs.run("wiki").state == "succeeded"
            store = indexer.store
            page = "confluence:page:2000004"
            stored = store.versions(page, ["page"])
            assert [v.seq for v in stored] == [9, 10, 11]
            for v, r in zip(stored[:2], raw, strict=True):
                assert (v.valid_from[:19], v.message) == (r["version"]["when"][:19], r["version"]["message"])
            today = datetime(2026, 11, 25, tzinfo=UTC).date()
            intent = recognise(
                parse_question("What did the PSP Retry Policy page say in March?", ["PAY"], today=today),
                today,
            )
            assert intent is not None
            found = answer(intent, store, today)
            assert found.text.startswith(
                "“PSP Retry Policy” at the end of March 2026 was at version 9, saved 2026-03-02 by Daniel Okafor"
            ), found.text
            assert "Compared with today's version 11" in found.text and not found.unrecorded
            assert [d.document.url.rsplit("=", 1)[-1] for d in found.evidence[:1]] == ["9"]
            early = recognise(
                parse_question("What did the PSP Retry Policy page say in January?", ["PAY"], today=today),
                today,
            )
            assert early is not None
            before = answer(early, store, today)
            assert "is not recorded: the oldest stored version is 9" in before.text and before.unrecorded
        finally:
            indexer.close()
