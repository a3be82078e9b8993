"""Source code → sections on function and class boundaries, each named by its symbol path.

Python is parsed with ``ast`` (classes, their methods, top-level functions; what lies between
them is ``(module)``). Other languages use a line scanner: a section starts at a line that
declares a function, method, class or type (JavaScript/TypeScript, Java/Kotlin/C#, Go, Ruby,
Rust, PHP), and a declaration indented under a class-like one gets ``Class.member`` as its path.
Text that does not parse keeps a single section. Sections longer than a chunk are split further
by the packer, under the same path.
"""

from __future__ import annotations

import ast
import re

from devkb.indexing.splitting.sections import Section

MODULE = "(module)"

_DECLARATIONS = [
    # JavaScript / TypeScript
    re.compile(
        r"^(?P<i>\s*)(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?P<c>class|interface|enum)\s+(?P<n>[\w$]+)"
    ),
    re.compile(r"^(?P<i>\s*)(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(?P<n>[\w$]+)\s*\("),
    re.compile(
        r"^(?P<i>\s*)(?:export\s+)?(?:const|let|var)\s+(?P<n>[\w$]+)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[\w$]+\s*=>)"
    ),
    re.compile(r"^(?P<i>\s*)(?P<n>[\w$][\w$.]*)\s*=\s*(?:async\s+)?function\b"),  # fluid.x.y = function (...)
    re.compile(
        r"^(?P<i>\s*)(?:(?:public|private|protected|static|async|override|readonly|get|set)\s+)*"
        r"(?P<n>(?!if\b|for\b|while\b|switch\b|catch\b|return\b|function\b)[\w$]+)\s*\([^;{}]*\)\s*(?::\s*[\w<>\[\], .|?]+)?\s*\{\s*$"
    ),
    # Java / Kotlin / C#
    re.compile(
        r"^(?P<i>\s*)(?:(?:public|private|protected|internal|static|final|abstract|sealed|data|open|partial)\s+)*"
        r"(?P<c>class|interface|enum|record|object|struct)\s+(?P<n>\w+)"
    ),
    re.compile(
        r"^(?P<i>\s*)(?:(?:public|private|protected|internal|static|final|abstract|synchronized|override|suspend|virtual|async)\s+)+"
        r"(?:fun\s+)?[\w<>\[\],.? ]*?\b(?P<n>\w+)\s*\("
    ),
    # Go
    re.compile(r"^(?P<i>)func\s+(?:\(\s*\w+\s+\*?(?P<r>\w+)[^)]*\)\s*)?(?P<n>\w+)\s*[\[(]"),
    re.compile(r"^(?P<i>)type\s+(?P<n>\w+)\s+(?P<c>struct|interface)\b"),
    # Ruby, Rust, PHP
    re.compile(r"^(?P<i>\s*)(?P<c>class|module)\s+(?P<n>[\w:]+)"),
    re.compile(r"^(?P<i>\s*)def\s+(?:self\.)?(?P<n>[\w?!]+)"),
    re.compile(r"^(?P<i>\s*)(?:pub(?:\([\w ]+\))?\s+)?(?:async\s+)?fn\s+(?P<n>\w+)"),
    re.compile(
        r"^(?P<i>\s*)(?:pub(?:\([\w ]+\))?\s+)?(?P<c>struct|enum|trait|impl)\s+(?:<[^>]*>\s*)?(?P<n>\w+)"
    ),
    re.compile(
        r"^(?P<i>\s*)(?:(?:public|private|protected|static|abstract|final)\s+)*function\s+(?P<n>\w+)\s*\("
    ),
]


def split_python(text: str) -> list[Section]:
    """Sections of a Python module: ``Class``, ``Class.method``, ``function``, ``(module)``."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return split_code_lines(text)
    lines = text.splitlines()
    spans: list[tuple[int, int, str]] = []  # (first line, last line, path), 0-based inclusive

    def start_of(node: ast.AST) -> int:
        decorators = getattr(node, "decorator_list", [])
        first = int(getattr(node, "lineno", 1))
        return min([first, *(int(d.lineno) for d in decorators)]) - 1

    def end_of(node: ast.stmt) -> int:
        return node.end_lineno if node.end_lineno is not None else node.lineno

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            spans.append((start_of(node), end_of(node) - 1, node.name))
        elif isinstance(node, ast.ClassDef):
            members = [
                n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            ]
            head_end = (start_of(members[0]) - 1) if members else end_of(node) - 1
            spans.append((start_of(node), head_end, node.name))
            for m in members:
                spans.append((start_of(m), end_of(m) - 1, f"{node.name}.{m.name}"))
            if members and end_of(members[-1]) < end_of(node):
                spans.append((end_of(members[-1]), end_of(node) - 1, node.name))
    return _sections_from_spans(lines, spans)


def _sections_from_spans(lines: list[str], spans: list[tuple[int, int, str]]) -> list[Section]:
    sections: list[Section] = []
    cursor = 0
    for first, last, path in sorted(spans):
        if first > cursor:
            _add(sections, MODULE, lines[cursor:first])
        _add(sections, path, lines[max(first, cursor) : last + 1])
        cursor = max(cursor, last + 1)
    _add(sections, MODULE, lines[cursor:])
    return sections or ([Section("", "\n".join(lines).strip())] if any(s.strip() for s in lines) else [])


def _add(sections: list[Section], path: str, lines: list[str]) -> None:
    body = "\n".join(lines).strip("\n")
    if body.strip():
        sections.append(Section(path, body))


def _declaration(line: str) -> tuple[int, str, bool] | None:
    """``(indent, name, is_container)`` when ``line`` declares a symbol."""
    for pattern in _DECLARATIONS:
        m = pattern.match(line)
        if m:
            groups = m.groupdict()
            name = m.group("n")
            if groups.get("r"):
                name = f"{groups['r']}.{name}"
            return len(m.group("i").expandtabs(4)), name, bool(groups.get("c"))
    return None


def split_code_lines(text: str) -> list[Section]:
    """Sections of code in a brace or ``end`` language, found line by line."""
    lines = text.splitlines()
    sections: list[Section] = []
    containers: list[tuple[int, str]] = []  # enclosing class-like declarations (indent, name)
    path, buf = MODULE, []
    for line in lines:
        found = (
            _declaration(line)
            if line.strip() and not line.lstrip().startswith(("//", "#", "*", "/*"))
            else None
        )
        if found is None:
            buf.append(line)
            continue
        indent, name, container = found
        while containers and containers[-1][0] >= indent:
            containers.pop()
        new_path = ".".join([*(n for _, n in containers), name])
        _add(sections, path, buf)
        path, buf = new_path, [line]
        if container:
            containers.append((indent, name))
    _add(sections, path, buf)
    return sections or ([Section("", text.strip())] if text.strip() else [])
