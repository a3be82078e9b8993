"""The emulators' response-shape lookup (``VendorShapes.schema``) walks a tree of path segments;
it must find what trying every template of the vendor's description in turn finds."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from devkb_devtools.emulators.vendor_check import OCTOKIT, description_available
from devkb_devtools.emulators.vendor_shapes import VendorShapes

METHODS = ("GET", "POST", "PATCH", "PUT", "DELETE")
DESCRIPTIONS = ("api.github.com.deref.json", "ghes-3.19.deref.json")


class _Scan:
    """The lookup as it was: every template as a regular expression, the most literal first."""

    def __init__(self, spec: dict[str, Any]) -> None:
        self.routes = []
        for template in spec["paths"]:
            pattern = re.compile("^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$")
            self.routes.append((pattern, len(re.sub(r"\{[^}]+\}", "", template)), template))
        self.routes.sort(key=lambda r: -r[1])

    def template(self, path: str) -> str | None:
        return next((template for pattern, _, template in self.routes if pattern.match(path)), None)


def _schema(item: dict[str, Any] | None, method: str) -> dict[str, Any] | None:
    operation = (item or {}).get(method.lower())
    if not isinstance(operation, dict):
        return None
    response = operation.get("responses", {}).get("200") or {}
    found = ((response.get("content") or {}).get("application/json") or {}).get("schema")
    return found if isinstance(found, dict) else None


def _paths(templates: list[str]) -> list[str]:
    """Each template with its parameters filled three ways (one of them a literal segment's text,
    so a parameter and a literal route compete), and paths that match no template."""
    out = []
    for template in templates:
        for fill in ("x1", "comments", "v1.2.3"):
            out.append(re.sub(r"\{[^}]+\}", fill, template))
    return [*out, "/", "", "/repos", "/repos/a/b/c/d/e/f/g/h", "/nothing/here", "/repos//b"]


@pytest.mark.parametrize("name", DESCRIPTIONS)
def test_the_segment_tree_finds_what_the_scan_found(name: str) -> None:
    if not description_available("github"):
        pytest.skip("npm @octokit/openapi is not installed (make setup)")
    deref = Path(OCTOKIT / name)
    spec = json.loads(deref.read_text(encoding="utf-8"))
    shapes = VendorShapes(deref)
    paths = _paths(list(spec["paths"]))
    assert len(paths) > 1000
    scan = _Scan(spec)
    differ = [(path, t) for path in paths if (t := shapes.template(path)) != scan.template(path)]
    assert differ == []
    found = 0
    for path in paths[::7]:
        template = scan.template(path)
        item = None if template is None else spec["paths"][template]
        for method in METHODS:
            schema = shapes.schema(method, path, 200)
            assert schema == _schema(item, method)
            found += schema is not None
    assert found > 100  # the lookup finds schemas, not only agreeing Nones


def test_mixed_segments_and_the_most_literal_template(tmp_path: Path) -> None:
    spec = {
        "paths": {
            "/files/{name}.{ext}": {"get": _returns("mixed")},
            "/files/{name}": {"get": _returns("param")},
            "/files/readme": {"get": _returns("literal")},
            "/a/{b}/c": {"get": _returns("abc")},
        }
    }
    deref = tmp_path / "spec.json"
    deref.write_text(json.dumps(spec), encoding="utf-8")
    shapes = VendorShapes(deref)
    assert _title(shapes.schema("GET", "/files/readme", 200)) == "literal"
    assert _title(shapes.schema("GET", "/files/notes.md", 200)) == "mixed"
    assert _title(shapes.schema("GET", "/files/notes", 200)) == "param"
    assert _title(shapes.schema("GET", "/a/z/c", 200)) == "abc"
    assert shapes.schema("GET", "/a//c", 200) is None  # a parameter is never empty
    assert shapes.schema("POST", "/files/readme", 200) is None
    assert shapes.schema("GET", "/files", 200) is None
    for path in ("/files/readme", "/files/notes.md", "/files/notes", "/a/z/c", "/a//c", "/files"):
        assert shapes.template(path) == _Scan(spec).template(path)


def _returns(title: str) -> dict[str, Any]:
    return {"responses": {"200": {"content": {"application/json": {"schema": {"title": title}}}}}}


def _title(schema: dict[str, Any] | None) -> str | None:
    return None if schema is None else schema["title"]
