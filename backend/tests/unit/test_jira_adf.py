"""Atlassian Document Format → text (the loader) and text → ADF (the Cloud emulator), on documents
that validate against Atlassian's ADF JSON schema (npm ``@atlaskit/adf-schema``, installed under
``tools/vendor-apis``). A document the schema rejects fails the test before its text is checked."""

from __future__ import annotations

import pytest

from devkb.sources.jira.adf import adf_to_text
from devkb.sources.jira.convert import rich_text
from devkb_devtools.emulators.adf_writer import text_to_adf
from devkb_devtools.emulators.vendor_check import ADF_SCHEMA, adf_problems

needs_schema = pytest.mark.skipif(
    not ADF_SCHEMA.is_file(), reason=f"the ADF schema is not installed ({ADF_SCHEMA}); run make setup"
)


def text(value: str, marks: list[dict] | None = None) -> dict:
    node: dict = {"type": "text", "text": value}
    if marks:
        node["marks"] = marks
    return node


def para(*inline: dict) -> dict:
    return {"type": "paragraph", "content": list(inline)}


RICH = {
    "type": "doc",
    "version": 1,
    "content": [
        {"type": "heading", "attrs": {"level": 2}, "content": [text("Root cause")]},
        para(
            text("Refunds double-charged when "),
            {"type": "mention", "attrs": {"id": "5b10ac8d82e05b22cc7d4ef5", "text": "@Ada Lovelace"}},
            text(" retried "),
            text(
                "the webhook",
                [{"type": "link", "attrs": {"href": "https://github.com/acme/payments/pull/7"}}],
            ),
            text(" — see "),
            {"type": "inlineCard", "attrs": {"url": "https://acme.atlassian.net/browse/PAY-12"}},
            text("."),
        ),
        {
            "type": "bulletList",
            "content": [
                {"type": "listItem", "content": [para(text("idempotency keys"))]},
                {
                    "type": "listItem",
                    "content": [
                        para(text("retries")),
                        {
                            "type": "orderedList",
                            "content": [{"type": "listItem", "content": [para(text("backoff"))]}],
                        },
                    ],
                },
            ],
        },
        {"type": "codeBlock", "attrs": {"language": "python"}, "content": [text("charge(key=idem)")]},
        {
            "type": "table",
            "content": [
                {
                    "type": "tableRow",
                    "content": [
                        {"type": "tableHeader", "content": [para(text("Step"))]},
                        {"type": "tableHeader", "content": [para(text("Owner"))]},
                    ],
                },
                {
                    "type": "tableRow",
                    "content": [
                        {"type": "tableCell", "content": [para(text("Deploy fix"))]},
                        {"type": "tableCell", "content": [para(text("Grace"))]},
                    ],
                },
            ],
        },
        {"type": "blockCard", "attrs": {"url": "https://wiki.acme.test/display/PAY/Runbook"}},
        para(
            text("Due "),
            {"type": "date", "attrs": {"timestamp": "1776211200000"}},
            {"type": "hardBreak"},
            text("done"),
        ),
    ],
}


@needs_schema
def test_the_example_is_valid_adf() -> None:
    assert adf_problems(RICH) == []


@needs_schema
def test_the_schema_rejects_a_malformed_document() -> None:
    assert adf_problems(
        {"type": "doc", "version": 1, "content": [{"type": "paragraph", "content": [{"type": "text"}]}]}
    )
    assert adf_problems({"type": "doc", "content": "not a list"})


def test_adf_becomes_readable_text_that_keeps_structure_people_and_urls() -> None:
    out = adf_to_text(RICH)
    assert out.startswith("## Root cause")
    assert "@Ada Lovelace" in out
    assert "the webhook <https://github.com/acme/payments/pull/7>" in out
    assert "https://acme.atlassian.net/browse/PAY-12" in out  # inline cards keep their URL (a reference)
    assert "- idempotency keys\n- retries\n  1. backoff" in out
    assert "```python\ncharge(key=idem)\n```" in out
    assert "| Step | Owner |\n| Deploy fix | Grace |" in out
    assert "https://wiki.acme.test/display/PAY/Runbook" in out
    assert "Due 2026-04-15\ndone" in out


def test_odd_input_never_raises() -> None:
    for value in (
        None,
        "plain",
        {"type": "doc", "content": [None, 3, {"type": "unknownNode", "content": [text("x")]}]},
    ):
        assert isinstance(adf_to_text(value), str)
    assert (
        adf_to_text({"type": "doc", "content": [{"type": "unknownNode", "content": [text("kept")]}]})
        == "kept"
    )


RECORDED = [
    "Steps:\n1. open https://example.org/a?b=c.\n2. click\n\n\n  h2. Heading\n{code}x = 1{code}\ttrailing  \n",
    "[link|http://issues.fluidproject.org/browse/FLUID-1] and https://github.com/fluid-project/infusion/pull/12",
    "\u00e9t\u00e9 \u2028 line\r\nwindows\rmac",
    " ",
]


@pytest.mark.parametrize("recorded", RECORDED)
def test_the_emulators_adf_is_valid_and_reads_back_as_the_data_center_text(recorded: str) -> None:
    document = text_to_adf(recorded)
    if ADF_SCHEMA.is_file():
        assert adf_problems(document) == []
    assert rich_text(document) == rich_text(recorded)
