"""The leak matrix: every demo user × every document × every endpoint that can show a document.

The demo workspace's sources say who may read what (``devkb_devtools/demo/README.md``): PAY (Jira, the
wiki, the code) is for the payments group — bob, dave, alice —, WEB for everybody, and the
security-level issues and the restricted wiki pages for dave (and alice, the admin, who reads
everything). The oracle below reads those rules off the recorded vendor data (issue
``fields.security``, page restrictions and ancestors, repository collaborators), not off devkb.

Uploads: bob uploads a document (private to him), carol uploads one that alice (the admin) then
shares with every member; the oracle is who uploaded what and what was shared.

For each user, a response leaks when any JSON string in it is the id of a document the user may
not read, or when it contains the title of a restricted document; counts must be the user's own.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import McpError

from devkb_devtools.demo.workspace import DEMO_DATA
from tests.accounts_app import accounts_client, signed_in

pytestmark = pytest.mark.integration

USERS = ("alice@acme.example", "bob@acme.example", "carol@acme.example", "dave@acme.example")
QUESTIONS = (
    "What happened in the card data exposure incident postmortem?",
    "What are the fraud rule thresholds?",
    "What is PAY-12 about?",
    "What is blocked?",
    "Which pull request fixed the webhook retries?",
    "Who worked on PAY-12?",
    "How many open bugs are there in PAY?",
    "How many issues are there?",  # a count over everything: the reader's own
    "What PRs are open?",
    "What's blocking the checkout redesign?",  # a relation whose anchor is named by title
    "Who is working on the ledger?",
    "What did Aisha work on?",  # a person's work: she wrote restricted pages and the exposure postmortem
    "Which issues mention card data?",  # the issues holding the words: the reader's own
    "How many bugs did we close in PAY?",
    "Who reported the most bugs?",  # a ranking: counts over the reader's own documents only
    "Which issues have the most comments?",
    "Which issues have no assignee?",
    "Which issues did Priya close?",  # a person's closes, from the history of the issues the reader reads
    "What did the onboarding page say in October?",  # a page at the end of a month
    "What changed in the WEB project last month?",
    "Show me the onboarding handbook",
    "What does the payments service README say about deployment?",
    "How do I create an executable zip archive from a directory of Python code?",  # bob's upload
    "How do I generate a secure random URL-safe text token?",  # carol's shared upload
)
DOCUMENTS = Path(__file__).resolve().parents[2] / "data" / "documents"


# -- the oracle: the demo's recorded vendor data --------------------------------------------------------
def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _members(perms: dict[str, Any], users: list[str], groups: list[str], key: str) -> set[str]:
    """E-mails of the named users and of the named groups' members (``key``: the user-name field)."""
    email = {u[key]: u.get("emailAddress") or u.get("email") for u in perms["users"]}
    names = set(users) | {m for g in groups for m in perms["groups"].get(g, [])}
    return {email[n] for n in names if email.get(n)}


def readers_by_document() -> dict[str, set[str]]:
    """Document id → the e-mails its source lets read it (admins aside), from the recorded data."""
    out: dict[str, set[str]] = {}
    jira = json.loads((DEMO_DATA / "jira" / "permissions.json").read_text())
    levels = {lv["id"]: lv for scheme in jira["security_schemes"] for lv in scheme["levels"]}
    for issue in _jsonl(DEMO_DATA / "jira" / "issues.jsonl"):
        project = jira["projects"][issue["key"].split("-")[0]]
        allowed = _members(jira, project["users"], project["groups"], "name")
        security = (issue.get("fields") or {}).get("security")
        if security:
            level = levels[str(security["id"])]
            allowed &= _members(jira, level["users"], level["groups"], "name")
        out[f"jira:{issue['key']}"] = allowed
    wiki = json.loads((DEMO_DATA / "confluence" / "permissions.json").read_text())
    pages = {str(p["id"]): p for p in _jsonl(DEMO_DATA / "confluence" / "pages.jsonl")}
    for pid, page in pages.items():
        space = wiki["spaces"][(page.get("space") or {}).get("key", "PAY")]
        allowed = _members(wiki, space["users"], space["groups"], "username")
        chain = [page] + [pages[str(a["id"])] for a in page.get("ancestors") or [] if str(a["id"]) in pages]
        for p in chain:
            own = p.get("_restrictions") or {}
            if own.get("users") or own.get("groups"):
                allowed &= _members(
                    wiki,
                    [u["username"] for u in own.get("users") or []],
                    [g["name"] for g in own.get("groups") or []],
                    "username",
                )
        out[f"confluence:page:{pid}"] = allowed
    repo_dir = DEMO_DATA / "github" / "payments-service"
    repo = json.loads((repo_dir / "repo.json").read_text())
    collaborators = json.loads((repo_dir / "permissions.json").read_text())["collaborators"]
    out["github:*"] = {c["email"] for c in collaborators} if repo.get("private") else {"*"}
    return out


def visible_to(email: str, all_ids: set[str], uploads: dict[str, set[str]]) -> set[str]:
    if email == "alice@acme.example":  # the admin
        return set(all_ids)
    readers = {**readers_by_document(), **uploads}
    out = set()
    for doc_id in all_ids:
        if doc_id.startswith("github:"):
            allowed = readers["github:*"]
        else:  # a comment or attachment document follows its issue or page
            base = (
                doc_id
                if doc_id in readers
                else next((k for k in readers if doc_id.startswith(k + ":")), None)
            )
            assert base is not None, f"the oracle does not know {doc_id}"
            allowed = readers[base]
        if email in allowed or "*" in allowed:
            out.add(doc_id)
    return out


def authored_text(visible: set[str], client: TestClient, uploads: dict[str, set[str]]) -> str:
    """What the authors of the documents ``visible`` holds wrote, lower-cased, from the recorded
    vendor data: an issue's fields without its links (Jira fills their summaries in for the caller),
    a page without its ancestors and children, every file of a readable repository; uploads as
    stored (the files are the uploaders' own)."""
    parts = []
    for issue in _jsonl(DEMO_DATA / "jira" / "issues.jsonl"):
        if f"jira:{issue['key']}" in visible:
            fields = {k: v for k, v in (issue.get("fields") or {}).items() if k != "issuelinks"}
            parts.append(json.dumps({**issue, "fields": fields}, ensure_ascii=False))
    for page in _jsonl(DEMO_DATA / "confluence" / "pages.jsonl"):
        if f"confluence:page:{page['id']}" in visible:
            own = {k: v for k, v in page.items() if k not in ("ancestors", "children")}
            parts.append(json.dumps(own, ensure_ascii=False))
    if any(i.startswith("github:") for i in visible):
        tree = DEMO_DATA / "github" / "payments-service"
        parts += [p.read_text(errors="replace") for p in sorted(tree.rglob("*")) if p.is_file()]
    store = client.app.state.container.store()
    for doc_id in set(uploads) & visible:
        parts += [c.content for c in store.get_document(doc_id).chunks]
    return " ".join(parts).lower()


# -- the scan -------------------------------------------------------------------------------------------
def strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [*strings(k), *strings(v)]]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


class Scanner:
    def __init__(self, email: str, all_ids: set[str], visible: set[str], hidden_titles: list[str]) -> None:
        self.email, self.all_ids, self.visible = email, all_ids, visible
        self.hidden = all_ids - visible
        self.hidden_titles = hidden_titles
        self.leaks: list[str] = []
        self.checked = 0

    def scan(self, what: str, body: Any, raw: str, asked: str = "") -> None:
        """``asked``: an id the request itself named — echoing it back ("no document X") reveals
        nothing, as long as a hidden document and a missing one are answered alike."""
        self.checked += 1
        if asked:
            raw = raw.replace(asked, "")
        for s in strings(body):
            if s.startswith(("{", "[")):  # a tool's JSON result inside an MCP text block
                try:
                    inner = json.loads(s)
                except ValueError:
                    inner = None
                if inner is not None:
                    self.scan(what, inner, "", asked)
                    self.checked -= 1
            if asked and asked in s:
                s = s.replace(asked, "")
            if s in self.hidden:
                self.leaks.append(f"{what}: id {s}")
        low = raw.lower()
        for title in self.hidden_titles:
            if title.lower() in low:
                self.leaks.append(f"{what}: title {title!r}")

    def response(self, what: str, r: Any, asked: str = "") -> Any:
        try:
            body = r.json()
        except ValueError:
            body = [
                json.loads(line[5:])
                for line in r.text.splitlines()
                if line.startswith("data:") and line[5:].strip().startswith(("{", "["))
            ]
        self.scan(what, body, r.text, asked)
        return body


def mcp(client: TestClient, token: str, method: str, params: dict[str, Any]) -> Any:
    r = client.post(
        "/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": method, "params": params},
        headers={
            "Authorization": f"Bearer {token}",
            "Accept": "application/json, text/event-stream",
            "Host": "127.0.0.1:8000",  # the SDK guards loopback servers against DNS rebinding
        },
    )
    return r


async def stdio_calls(
    workspace: Any,
    data_dir: Path,
    email: str,
    calls: list[tuple[str, dict[str, Any]]],
    hidden: list[str],
    visible: set[str],
    sc: Scanner,
) -> None:
    """The same tool calls and resource reads over stdio, with the official SDK's client."""
    from tests.integration.test_mcp import server_env

    args = ["-m", "devkb", "mcp", "--as", email]
    env = server_env(workspace, data_dir)
    params = StdioServerParameters(command=sys.executable, args=args, env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            raw = result.model_dump_json()
            if name in ("search", "ask") and "exposure" in str(arguments):
                assert ("jira:PAY-90" in raw) == ("jira:PAY-90" in visible), (email, name, "stdio")
            asked = str(arguments.get("document_id", ""))
            sc.scan(f"mcp stdio {name} {arguments}", json.loads(raw), raw, asked)
        for doc_id in hidden:
            try:
                read_back = await session.read_resource(f"devkb://document/{doc_id}")  # type: ignore[arg-type]
                raw = read_back.model_dump_json()
            except McpError as e:  # a hidden document reads as a missing one
                raw = json.dumps({"error": str(e)})
            sc.scan(f"mcp stdio resource {doc_id}", json.loads(raw), raw, doc_id)


@pytest.fixture(scope="module")
def world(demo_workspace, embedder, tmp_path_factory):
    client = accounts_client(demo_workspace, embedder, tmp_path_factory.mktemp("leak") / "data")
    uploads = {}
    for email, name in (("bob@acme.example", "zipapp.pdf"), ("carol@acme.example", "secrets.docx")):
        signed_in(client, email)
        r = client.post("/uploads", files={"file": (name, (DOCUMENTS / name).read_bytes())})
        assert r.status_code == 201, r.text
        uploads[r.json()["document_id"]] = {email}
        client.cookies.clear()
    carols = next(i for i, who in uploads.items() if who == {"carol@acme.example"})
    signed_in(client, "alice@acme.example")
    r = client.post("/admin/shared", json={"document_ids": [carols], "shared": True})
    assert r.status_code == 200, r.text
    uploads[carols] = {"*"}
    client.cookies.clear()
    store = client.app.state.container.store()
    all_ids = store.document_ids()
    assert set(uploads) <= all_ids
    docs = {d.id: d for d in store.get_documents(sorted(all_ids))}
    yield client, all_ids, docs, uploads
    client.__exit__(None, None, None)


@pytest.mark.parametrize("email", USERS)
def test_permission_leak_matrix(world, demo_workspace, email):
    client, all_ids, docs, uploads = world
    visible = visible_to(email, all_ids, uploads)
    hidden = all_ids - visible
    # restricted titles that no readable document's authors wrote (else the reader may see them
    # legitimately), from the recorded data — not from devkb's text, where a title devkb itself
    # copied into a readable document (a link line, a breadcrumb) would hide its own leak
    readable_text = authored_text(visible, client, uploads) + " ".join(docs[i].title for i in visible).lower()
    titles = [
        docs[i].title
        for i in hidden
        if len(docs[i].title) > 12 and docs[i].title.lower() not in readable_text
    ]
    sc = Scanner(email, all_ids, visible, titles)
    client.cookies.clear()
    signed_in(client, email)

    # every document: readable exactly when the oracle says so (no more, and no less)
    opened = set()
    for doc_id in sorted(all_ids):
        r = client.get(f"/documents/{doc_id}")
        assert r.status_code in (200, 404), (doc_id, r.status_code)
        if r.status_code == 200:
            opened.add(doc_id)
        sc.response(f"GET /documents/{doc_id}", r, asked=doc_id)
        if r.status_code == 404:  # hidden and missing documents are answered alike
            assert r.json()["detail"] == f"no document with id {doc_id!r}", r.text
        if r.status_code == 200:
            sc.response(
                f"neighbors {doc_id}", client.get(f"/documents/{doc_id}/neighbors", params={"limit": 1000})
            )
    assert opened == visible, (sorted(opened - visible), sorted(visible - opened))
    # an upload's file ("Open in Upload"): served exactly when its document is readable
    for doc_id in sorted(uploads):
        r = client.get(f"/uploads/{doc_id.removeprefix('upload:')}")
        assert r.status_code == (200 if doc_id in visible else 404), (email, doc_id, r.status_code)

    # graph pages, around every kind of document, and the title search
    graph = sc.response("GET /graph", client.get("/graph", params={"limit": 2000}))
    assert {n["id"] for n in graph["nodes"]} == visible
    for doc_id in sorted(all_ids)[::7]:
        sc.response(f"graph around {doc_id}", client.get("/graph", params={"around": doc_id}), asked=doc_id)
    for term in {w for i in hidden for w in docs[i].title.split() if len(w) > 4} | {
        "PAY",
        "WEB",
        "fraud",
        "incident",
    }:
        sc.response(f"graph search {term}", client.get("/graph/search", params={"q": term}))

    # counts are the reader's own
    stats = sc.response("GET /stats", client.get("/stats"))
    assert stats["documents"] == len(visible)
    if email != "alice@acme.example":
        sources = sc.response("GET /sources", client.get("/sources"))
        assert all(s["counts"] == {} and s["last_run"] is None for s in sources)

    # answers, their citations and the stream
    for q in QUESTIONS:
        body = sc.response(f"ask {q}", client.post("/ask", json={"question": q}))
        assert {s["document_id"] for s in body["sources"]} <= visible
    streamed = client.post("/ask/stream", json={"question": QUESTIONS[0]})
    sc.response("ask/stream", streamed)
    # and no less: whoever may read the incident postmortem gets it, on every path (a path that
    # lost the reader would read nothing — closed, but wrong)
    first = client.post("/ask", json={"question": QUESTIONS[0]}).json()
    cited = {s["document_id"] for s in first["sources"]}
    assert ("jira:PAY-90" in cited) == ("jira:PAY-90" in visible), (email, cited)
    assert ("jira:PAY-90" in streamed.text) == ("jira:PAY-90" in visible), email
    sc.response("chat history", client.get("/chat/history"))

    # MCP with the user's own token
    token = client.post("/auth/tokens", json={"name": "leak-matrix"}).json()["token"]
    calls = [
        ("search", {"query": "card data exposure incident postmortem"}),
        ("search", {"query": "fraud rule thresholds"}),
        ("search", {"query": "executable zip archive python code"}),
        ("find", {"source": "upload", "limit": 25}),
        ("search", {"query": "webhook retries", "project": "PAY"}),
        ("find", {"limit": 25}),
        ("find", {"source": "confluence", "limit": 25}),
        ("what_changed", {"since": "2000-01-01", "limit": 25}),
        ("ask", {"question": QUESTIONS[0]}),
        ("list_sources", {}),
    ]
    calls += [("get_document", {"document_id": i}) for i in sorted(all_ids)[::5]]
    calls += [("neighbors", {"document_id": i}) for i in sorted(all_ids)[::9]]
    for name, args in calls:
        r = mcp(client, token, "tools/call", {"name": name, "arguments": args})
        assert r.status_code == 200, (name, r.status_code, r.text[:300])
        if name in ("search", "ask") and "exposure" in str(args):
            assert ("jira:PAY-90" in r.text) == ("jira:PAY-90" in visible), (email, name)
        sc.response(f"mcp {name} {args}", r, asked=str(args.get("document_id", "")))
    for doc_id in sorted(hidden)[:10]:
        r = mcp(client, token, "resources/read", {"uri": f"devkb://document/{doc_id}"})
        sc.response(f"mcp resource {doc_id}", r, asked=doc_id)

    # MCP over stdio, as ``devkb mcp --as EMAIL`` serves it to a coding agent on the same data
    data_dir = client.app.state.container.settings().data_dir
    anyio.run(stdio_calls, demo_workspace, data_dir, email, calls, sorted(hidden)[:10], visible, sc)

    assert sc.checked > len(all_ids)
    print(
        f"{email}: {len(visible)}/{len(all_ids)} documents readable, {sc.checked} responses scanned, {len(sc.leaks)} leaks"
    )
    assert not sc.leaks, "\n".join(sc.leaks[:40])


# -- issue links: Jira shows a reader only the links to issues they may browse ----------------------------
def _issue_links() -> list[tuple[str, str, str]]:
    """(issue, linked issue, its summary) for every link in the recorded issues."""
    out = []
    for issue in _jsonl(DEMO_DATA / "jira" / "issues.jsonl"):
        for link in (issue.get("fields") or {}).get("issuelinks") or []:
            other = link.get("outwardIssue") or link.get("inwardIssue")
            out.append((issue["key"], other["key"], other["fields"]["summary"]))
    return out


@pytest.mark.parametrize("email", USERS)
def test_issue_links_name_only_issues_the_reader_may_browse(world, email):
    """A readable issue that links to one the reader may not browse (another project, a security
    level) must not show that issue's key or summary: not in the document, its passages in
    answers, or its neighbours; a link between two issues the reader may read is still there."""
    client, all_ids, _docs, uploads = world
    visible = visible_to(email, all_ids, uploads)
    client.cookies.clear()
    signed_in(client, email)
    hidden_links = shown_links = 0
    for key, other, summary in _issue_links():
        if f"jira:{key}" not in visible:
            continue
        doc = client.get(f"/documents/jira:{key}")
        assert doc.status_code == 200, doc.text
        neighbors = client.get(f"/documents/jira:{key}/neighbors", params={"limit": 1000}).text
        if f"jira:{other}" in visible:
            shown_links += 1
            assert f"jira:{other}" in neighbors, (email, key, other)
            continue
        hidden_links += 1
        assert summary not in doc.text and f"{other}:" not in doc.text, (email, key, other)
        assert f"jira:{other}" not in neighbors and summary not in neighbors, (email, key, other)
    if email == "carol@acme.example":  # reads WEB only; WEB-3 links to PAY-13 (the double charge)
        assert hidden_links >= 5, hidden_links
        answer = client.post(
            "/ask", json={"question": "What caused customers to be charged twice on 2026-04-14?"}
        ).text
        assert "Customers double-charged during Meridian latency spike" not in answer
        assert "PAY-13" not in answer
    if email == "bob@acme.example":  # reads PAY and WEB, not the security-level issues
        assert hidden_links >= 2 and shown_links >= 10, (hidden_links, shown_links)
