"""Bad input at the API, in process on the indexed demo workspace.

1. schemathesis generates requests from the app's own OpenAPI document (valid and invalid ones)
   for every operation: never a 5xx, every response matches the documented schema and status.
2. Explicit classes: empty, blank and over-long questions, unknown ``sources``, forged session
   ids, control characters and unusual Unicode, huge ``limit`` values, path traversal."""

from __future__ import annotations

import json
import uuid

import pytest
import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode

from devkb.api.app import create_app
from tests.demo_workspace import make_container

pytestmark = pytest.mark.integration

KEY = "devkb-fuzz-key-0c41d9e2"
MAX_EXAMPLES = 50  # per operation and mode: ~1,200 requests in all, about 20 s


def _app(demo_workspace, embedder, tmp_path_factory, name: str, **config):
    data = demo_workspace.copy_data(tmp_path_factory.mktemp(name) / "data")
    return create_app(
        make_container(data, demo_workspace.sources_file, embedder, **config), start_background=False
    )


@pytest.fixture(scope="module")
def api_schema(demo_workspace, embedder, tmp_path_factory):
    """The app's OpenAPI document, calling the app in process (schemathesis starts its lifespan)."""
    app = _app(demo_workspace, embedder, tmp_path_factory, "fuzz", api_key=KEY)
    config = schemathesis.Config.from_dict({"auth": {"openapi": {"ApiKey": {"api_key": KEY}}}})
    return schemathesis.openapi.from_asgi("/openapi.json", app, config=config)


def excluded(case) -> list:
    """Checks that cannot hold for a case, by design of the protocol rather than of the API:

    - ``/ask/stream`` documents its Server-Sent Events as one string; schemathesis validates each
      event (an object) against it. The events are checked in the streaming tests instead.
    - "invalid data accepted" for query strings: every query value is a string on the wire, so a
      generated ``kinds=true`` "boolean" is a valid kind name. Kept for JSON bodies.
    - "valid data rejected" for ``POST /uploads``: whether a file is accepted depends on its name
      and bytes (a `.pdf` that is not encrypted), which a multipart schema cannot state; a random
      file is rightly 413/415/422. Those answers are tested in ``test_uploads_api.py``.
    - "valid data rejected" for ``/memories``: rules a JSON schema does not state (a subject needs
      its attribute, ``as_of``/``valid_from`` must be dates, ``derived_from`` must name documents
      the writer may read). Those answers are tested in ``tests/integration/memory/test_memories_api.py``.
    """
    out = []
    if case.operation.path == "/uploads" and case.operation.method.upper() == "POST":
        out.append(schemathesis.checks.positive_data_acceptance)
    if case.operation.path.startswith("/memories"):
        out.append(schemathesis.checks.positive_data_acceptance)
    if case.operation.path == "/ask/stream":
        out.append(schemathesis.checks.response_schema_conformance)
    if case.operation.method.upper() == "GET":
        out.append(schemathesis.checks.negative_data_rejection)
    return out


def _checker(operation, mode, tried: list[str]):
    """A Hypothesis test of one operation: generated cases, each called and validated."""

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.explicit, Phase.generate],
    )
    def check(case):
        tried.append(operation.label)
        case.call_and_validate(excluded_checks=excluded(case))

    return check


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=str)
def test_generated_requests_never_fail_and_match_the_schema(api_schema, mode):
    """Every operation, ``MAX_EXAMPLES`` generated requests each (schema-conforming ones, then
    ones that break it): schemathesis's default checks — no 5xx, documented status codes, content
    types and headers, bodies matching their schema, invalid input rejected, the API key enforced."""
    failures: list[str] = []
    tried: list[str] = []
    operations = [result.ok() for result in api_schema.get_all_operations()]
    assert len(operations) >= 11
    for operation in operations:
        check = _checker(operation, mode, tried)
        try:
            check()
        except Unsatisfiable:  # nothing to break (an operation without parameters or body)
            assert mode is GenerationMode.NEGATIVE and not operation.body and not operation.query
        except Exception as e:  # collected: one report for every operation
            failures.append(f"{operation.label}: {e}")
    assert not failures, "\n\n".join(failures)
    print(f"{mode}: {len(tried)} generated requests over {len(set(tried))} operations, no failure")


# -- explicit cases ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client(demo_workspace, embedder, tmp_path_factory):
    app = _app(demo_workspace, embedder, tmp_path_factory, "bad-input")
    with TestClient(app, client=("127.0.0.1", 40000), raise_server_exceptions=False) as c:
        yield c


def ask(client: TestClient, body, **headers):
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return client.post("/ask", content=raw, headers={"content-type": "application/json", **headers})


def assert_error(r, status: int, *words: str) -> None:
    assert r.status_code == status, (r.status_code, r.text)
    detail = r.json()["detail"]
    assert isinstance(detail, str) and detail
    for w in words:
        assert w in detail, detail


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"question": ""},
        {"question": "   "},
        {"question": "\n\t \r\n"},
        {"question": "\x00\x01\x1f\x7f"},
        {"question": None},
        {"question": 42},
        {"question": ["a"]},
        {"question": {"$ne": ""}},
        [],
        "question",
    ],
    ids=repr,
)
def test_missing_empty_or_blank_questions_are_422(client, body):
    assert_error(ask(client, body), 422)


def test_question_length_limit_is_documented_and_enforced(client):
    limit = client.app.state.container.settings().max_question_chars
    assert limit == 2000
    assert ask(client, {"question": "x " * (limit // 2)}).status_code == 200  # exactly the limit
    assert_error(ask(client, {"question": "x" * (limit + 1)}), 422, str(limit))
    assert_error(ask(client, {"question": "x" * 1_000_000}), 422)  # beyond the hard schema cap
    doc = client.get("/openapi.json").json()["components"]["schemas"]["AskRequest"]["properties"]["question"]
    assert "DEVKB_MAX_QUESTION_CHARS" in doc["description"]


@pytest.mark.parametrize(
    "sources",
    [["slack"], ["jira", "slack"], [""], ["JIRA;DROP"], [None], "jira", ["jira"] * 13, [{"type": "jira"}]],
    ids=repr,
)
def test_unknown_or_malformed_sources_are_422(client, sources):
    assert_error(ask(client, {"question": "idempotency keys", "sources": sources}), 422, "sources")


def test_source_names_are_case_insensitive_and_deduplicated(client):
    r = ask(client, {"question": "idempotency keys", "sources": ["JIRA", "jira", "Jira"]})
    assert r.status_code == 200 and {s["type"] for s in r.json()["sources"]} <= {"JIRA"}


@pytest.mark.parametrize(
    "question",
    [
        "what is PAY-12?\u200f\u202e RTL override \u202c",  # RTL marks, bidi override
        "emoji 💳🔁 and ZWJ 👩‍💻 and combining e\u0301",  # astral plane, ZWJ, combining marks
        "null \x00 byte and bell \x07 and escape \x1b[31m",  # control characters
        "\ufeffBOM, \ufffe non-character, \U0010ffff max code point",
        "中文 العربية עברית русский ελληνικά",  # scripts
        "' OR 1=1 -- \"; DROP TABLE documents; MATCH (n) DETACH DELETE n //",
    ],
)
def test_unusual_unicode_and_control_characters_are_answered(client, question):
    r = ask(client, {"question": question})
    assert r.status_code == 200, r.text
    body = r.json()
    assert "\x00" not in body["answer"] and "\x1b" not in body["answer"]


@pytest.mark.parametrize(
    "raw",
    [
        b'{"question": "lone high \\ud800 surrogate"}',
        b'{"question": "lone low \\udfff surrogate"}',
        b'{"question": "reversed pair \\udc00\\ud800"}',
        b'{"question": "ok"',  # truncated JSON
        b'{"question": "ok", "question": ""}',  # duplicate keys: the last one wins
        b"\xef\xbb\xbf" + b'{"question": 1e999}',  # BOM + infinite number
    ],
)
def test_invalid_encodings_and_json_are_422(client, raw):
    assert_error(ask(client, raw), 422)


def test_a_body_that_is_not_utf8_is_the_documented_400(client):
    assert_error(ask(client, b'{"question": "\xff\xfe invalid utf-8"}'), 400)
    assert "400" in client.get("/openapi.json").json()["paths"]["/ask"]["post"]["responses"]


def test_a_stream_rejects_bad_input_before_streaming(client):
    r = client.post("/ask/stream", json={"question": " "})
    assert r.status_code == 422 and r.headers["content-type"].startswith("application/json")


@pytest.mark.parametrize(
    "forged",
    [
        "not-a-uuid",
        "",
        " ",
        "00000000-0000-0000-0000-000000000000",
        str(uuid.uuid1()),  # a UUID, not version 4
        str(uuid.uuid4()),  # well-formed but never issued by this server
        str(uuid.uuid4()) + "; Path=/; HttpOnly",
        "x" * 5000,
        "../../etc/passwd",
        "\u202e" + str(uuid.uuid4()),
    ],
    ids=lambda v: repr(v)[:40],
)
def test_forged_or_malformed_session_ids_get_a_fresh_session(client, forged):
    # a real session with one message in it
    owner = ask(client, {"question": "owner's secret question about ledgers"})
    owned = owner.headers["x-session-id"]
    for where in ("cookie", "header"):
        headers = {"Cookie": f"X-Session-ID={forged}"} if where == "cookie" else {"X-Session-ID": forged}
        try:
            r = client.get("/chat/history", headers=headers)
        except UnicodeEncodeError:  # the HTTP client refuses to send this header value at all
            assert any(ord(c) > 255 for c in forged)
            continue
        assert r.status_code == 200
        issued = r.headers["x-session-id"]
        assert issued not in (forged, owned) and str(uuid.UUID(issued)) == issued
        assert r.json() == {"session_id": issued, "messages": []}
    client.cookies.clear()


def test_a_session_id_cannot_be_guessed_from_another(client):
    first = ask(client, {"question": "first session question"}).headers["x-session-id"]
    client.cookies.clear()
    u = uuid.UUID(first)
    for neighbour in (uuid.UUID(int=u.int + 1), uuid.UUID(int=u.int ^ 1)):
        r = client.get("/chat/history", headers={"X-Session-ID": str(neighbour)})
        assert r.json()["messages"] == []
        client.cookies.clear()
    mine = client.get("/chat/history", headers={"X-Session-ID": first}).json()
    assert [m["role"] for m in mine["messages"]] == ["user", "assistant"]
    client.cookies.clear()


@pytest.mark.parametrize(
    "params",
    [
        {"limit": 10**9},
        {"limit": 2**63},
        {"limit": -1},
        {"limit": 0},
        {"limit": "1e3"},
        {"limit": "NaN"},
        {"types": "slack"},
        {"types": ["jira"] * 4},
    ],
)
def test_graph_rejects_out_of_range_or_unknown_parameters(client, params):
    assert_error(client.get("/graph", params=params), 422)


def test_graph_caps_are_honoured(client):
    assert len(client.get("/graph", params={"limit": 2000}).json()["nodes"]) <= 2000
    many = [f"jira:PAY-{i}" for i in range(200)]
    r = client.get("/graph", params={"around": many, "limit": 5})
    assert r.status_code == 200 and len(r.json()["nodes"]) <= 5
    assert client.get("/graph", params={"around": many + ["x"]}).status_code == 422
    assert client.get("/graph/search", params={"q": "x" * 201}).status_code == 422
    assert client.get("/documents/jira:PAY-12/neighbors", params={"limit": 10**6}).status_code == 422


@pytest.mark.parametrize(
    "path",
    [
        "/documents/..%2F..%2F..%2Fetc%2Fpasswd",
        "/documents/%2e%2e/%2e%2e/etc/passwd",
        "/documents/....//....//etc/passwd",
        "/documents/%00",
        "/documents/jira:PAY-12%00",
        "/documents/..%5c..%5cwindows%5cwin.ini",
        "/documents/" + "a" * 10000,
        "/documents/jira:PAY-12'%20OR%20'1'='1",
        "/documents/%2e%2e%2f%2e%2e%2fgraph.sqlite/neighbors",
    ],
)
def test_document_paths_never_escape_the_store(client, path):
    r = client.get(path)
    assert r.status_code == 404, (path, r.status_code)
    assert r.headers["content-type"].startswith("application/json")
    assert "root:" not in r.text and "SQLite format" not in r.text


@pytest.mark.parametrize(
    "path",
    [
        "/..%2F..%2Fetc%2Fpasswd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/static/..%2F..%2Fgraph.sqlite",
        "/..%2f..%2f..%2fpyproject.toml",
        "/favicon.ico/..%2F..%2F..%2Fsettings.py",
    ],
)
def test_the_web_app_never_serves_files_outside_its_folder(client, path):
    r = client.get(path)
    assert r.status_code in (200, 404, 503)
    assert "root:" not in r.text and "SQLite format" not in r.text and "[project]" not in r.text
    assert "import " not in r.text
