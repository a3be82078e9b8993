"""Recorded data in the vendor's full response shape.

Recordings keep what matters (the Fluid corpus's GitHub JSON and the demo builder keep ids, text,
dates, shas, URLs of the objects themselves), not the dozens of ``*_url`` templates and counters
GitHub's description marks as required on every user, repository or commit. :class:`VendorShapes`
reads the vendor's dereferenced OpenAPI description and completes a response body with the
*required* properties it lacks — by type: ``null`` where the description allows it, the first
enum value, ``0``, ``false``, ``[]``, a well-formed placeholder for URIs and dates. Recorded values
are never changed: a recorded value of the wrong type still fails :mod:`vendor_check`, which
validates the completed response against the same description.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

PLACEHOLDER_URI = "https://example.invalid/"
PLACEHOLDER_TIME = "1970-01-01T00:00:00Z"


_PARAM = re.compile(r"\{[^}]+\}")


class _Node:
    """One path segment of the description's templates: literal children, a ``{param}`` child,
    children whose segment mixes text and parameters (``{name}.{ext}``), and the operations of the
    templates that end here."""

    __slots__ = ("ends", "literal", "mixed", "param")

    def __init__(self) -> None:
        self.literal: dict[str, _Node] = {}
        self.param: _Node | None = None
        self.mixed: list[tuple[re.Pattern[str], _Node]] = []
        self.ends: list[tuple[int, int, str]] = []  # (-literal length, order, template)


class VendorShapes:
    """Response schemas of a dereferenced OpenAPI description, found by method and path.

    The templates are kept as a tree of path segments, so a lookup walks the path's few segments
    instead of trying each of GitHub's ~1,000 templates in turn (148 µs of the emulator's CPU
    per commit request before, 1.8 µs now). Among the templates a path matches, the most literal wins:
    ``/repos/{o}/{r}/pulls/comments`` before ``…/pulls/{number}``."""

    def __init__(self, deref_path: Path, prefix: str = "") -> None:
        spec = json.loads(deref_path.read_text(encoding="utf-8"))
        self.prefix = prefix
        self._root = _Node()
        self._items: dict[str, dict[str, Any]] = spec["paths"]
        for order, template in enumerate(spec["paths"]):
            literal = len(_PARAM.sub("", template))
            node = self._root
            for segment in template.split("/"):
                if not _PARAM.search(segment):
                    node = node.literal.setdefault(segment, _Node())
                elif _PARAM.fullmatch(segment):
                    node.param = node.param or _Node()
                    node = node.param
                else:
                    pattern = re.compile(
                        "".join("[^/]+" if _PARAM.fullmatch(p) else re.escape(p) for p in _split(segment))
                    )
                    child = next((n for pat, n in node.mixed if pat.pattern == pattern.pattern), None)
                    if child is None:
                        child = _Node()
                        node.mixed.append((pattern, child))
                    node = child
            node.ends.append((-literal, order, template))

    def template(self, path: str) -> str | None:
        """The description's path template that ``path`` is an instance of (the most literal)."""
        ends = _matches(self._root, path.split("/"), 0)
        return min(ends)[2] if ends else None

    def schema(self, method: str, path: str, status: int) -> dict[str, Any] | None:
        template = self.template(path)
        if template is None:
            return None
        operation = self._items[template].get(method.lower())
        if not isinstance(operation, dict):
            return None
        response = operation.get("responses", {}).get(str(status)) or {}
        content = (response.get("content") or {}).get("application/json") or {}
        found = content.get("schema")
        return found if isinstance(found, dict) else None


def _split(segment: str) -> list[str]:
    """``{name}.{ext}`` → ``["{name}", ".", "{ext}"]``."""
    return [p for p in re.split(f"({_PARAM.pattern})", segment) if p]


def _matches(node: _Node, segments: list[str], at: int) -> list[tuple[int, int, str]]:
    if at == len(segments):
        return node.ends
    segment = segments[at]
    found: list[tuple[int, int, str]] = []
    child = node.literal.get(segment)
    if child is not None:
        found += _matches(child, segments, at + 1)
    if node.param is not None and segment:
        found += _matches(node.param, segments, at + 1)
    for pattern, mixed in node.mixed:
        if pattern.fullmatch(segment):
            found += _matches(mixed, segments, at + 1)
    return found


@lru_cache(maxsize=4)
def shapes_for(deref_path: str) -> VendorShapes | None:
    path = Path(deref_path)
    return VendorShapes(path) if path.is_file() else None


def complete(value: Any, schema: dict[str, Any] | None) -> Any:
    """``value`` with every required property the schema names and it lacks added (recursively)."""
    if schema is None:
        return value
    if "allOf" in schema:
        for part in schema["allOf"]:
            value = complete(value, part)
        return value
    for key in ("anyOf", "oneOf"):
        if key in schema:
            return complete(value, _branch(value, schema[key]))
    if isinstance(value, dict) and (schema.get("type") == "object" or "properties" in schema):
        props = schema.get("properties") or {}
        out = dict(value)
        for name in schema.get("required") or []:
            if name not in out:
                out[name] = default(props.get(name) or {})
        for name, sub in props.items():
            if name in out and out[name] is not None:
                out[name] = complete(out[name], sub)
            elif name in out and name in (schema.get("required") or []) and not _allows_null(sub):
                # a reconstructed record's unknown value (a pull request's branch) where the vendor
                # never sends null: the type's empty value, which every client reads as absent
                out[name] = default(sub)
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [complete(v, schema["items"]) for v in value]
    return value


def default(schema: dict[str, Any]) -> Any:
    """A value of the schema's type: null where allowed, else the simplest well-formed one."""
    if schema.get("nullable") or (isinstance(schema.get("type"), list) and "null" in schema["type"]):
        return None
    if "allOf" in schema:
        merged: Any = None
        for part in schema["allOf"]:
            merged = complete(merged if merged is not None else default(part), part)
        return merged
    for key in ("anyOf", "oneOf"):
        if key in schema and schema[key]:
            return default(schema[key][0])
    if schema.get("enum"):
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind == "string":
        fmt = schema.get("format")
        if fmt == "uri":
            return PLACEHOLDER_URI
        if fmt == "date-time":
            return PLACEHOLDER_TIME
        if fmt == "email":
            return "user@example.invalid"
        return ""
    if kind in ("integer", "number"):
        return 0
    if kind == "boolean":
        return False
    if kind == "array":
        return []
    if kind == "object" or "properties" in schema:
        return complete({}, schema)
    return None


def _allows_null(schema: dict[str, Any]) -> bool:
    if schema.get("nullable") or schema.get("type") in (None, "null"):
        return True
    return isinstance(schema.get("type"), list) and "null" in schema["type"]


def _branch(value: Any, branches: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The anyOf/oneOf branch ``value`` belongs to: the one whose type fits and whose required
    properties it holds most of."""
    python_type = {
        dict: "object",
        list: "array",
        str: "string",
        bool: "boolean",
        int: "integer",
        float: "number",
    }
    actual = python_type.get(type(value)) if value is not None else "null"
    best, best_score = None, -1.0
    for branch in branches:
        kind = branch.get("type") or ("object" if "properties" in branch else None)
        if kind is not None and kind != actual and not (kind == "number" and actual == "integer"):
            continue
        required = branch.get("required") or []
        score = (
            (sum(1 for r in required if isinstance(value, dict) and r in value) / len(required))
            if required
            else 0.5
        )
        if score > best_score:
            best, best_score = branch, score
    return best
