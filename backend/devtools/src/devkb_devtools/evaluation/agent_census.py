"""How much rule machinery the rules planner carries, and how often it reads one question.

- **patterns**: regular expressions in ``devkb/agent`` — every ``re.compile(...)`` and every inline
  ``re.search / match / fullmatch / sub / findall / finditer / split`` whose pattern is written in
  the call (counted from the source's syntax tree, so comments and strings do not count).
- **parses**: with a built answer-evaluation slice (``answer_eval --store-dir DIR``), every
  question of the answer evaluation is asked through the rules path while ``parse_question`` and
  ``read_lookups`` are counted wherever they are bound; calls per question are reported.

- **kinds**: the gate over ``devkb/agent/kinds`` (``--check``, run by ``scripts/lint.sh``): no
  module there imports ``re`` (or ``regex``) or calls a pattern borrowed from another module
  (``STATUS.findall(…)``), and none reads the raw question text. *Raw text* is the ``text`` of the
  parsed question or of its frame (``parsed.text``, ``ctx.parsed.text``, ``out.frame.text``,
  ``question.text``): a kind recognises itself from the frame's shape, slots and forms and the
  parse's fields (identifiers, relation, wanted type, words), never by reading the sentence
  again. The text may only be handed on whole where the sentence itself is the input: a search
  tool's ``run`` (the question is the query), the record of a tool call (``ToolCall``), the
  evidence measures that compare the question with the sources (``assess_topic``,
  ``focused_sentences``, ``mentions_without``) and the memory service's search (``recall``,
  ``topic``). ``KNOWN_RAW_READS`` lists the reads left, each with why; the gate fails on any
  other, and on an entry that no longer occurs (so the list only shrinks).

    python -m devkb_devtools.evaluation.agent_census                       # patterns and the kinds' gate
    python -m devkb_devtools.evaluation.agent_census --check               # fail on a kinds violation
    python -m devkb_devtools.evaluation.agent_census --store-dir /tmp/s --fluid-slice ../shared/data/fluid
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import devkb.agent

AGENT_DIR = Path(devkb.agent.__file__).resolve().parent
_INLINE = {"search", "match", "fullmatch", "sub", "subn", "findall", "finditer", "split"}


def count_patterns(root: Path = AGENT_DIR) -> dict[str, Any]:
    compiled: Counter[str] = Counter()
    inline: Counter[str] = Counter()
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = str(path.relative_to(root))
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if not (isinstance(node.func.value, ast.Name) and node.func.value.id == "re"):
                continue
            if node.func.attr == "compile":
                compiled[rel] += 1
            elif node.func.attr in _INLINE and node.args and _literal(node.args[0]):
                inline[rel] += 1
    return {
        "compiled": sum(compiled.values()),
        "inline": sum(inline.values()),
        "total": sum(compiled.values()) + sum(inline.values()),
        "by_file": {f: compiled[f] + inline[f] for f in sorted(set(compiled) | set(inline))},
    }


# where the raw question text may be handed on whole (the callee's name): see the module's docstring
TEXT_SINKS = frozenset(
    {"run", "ToolCall", "assess_topic", "focused_sentences", "mentions_without", "recall", "topic"}
)
# the raw-text reads left in agent/kinds: (module, callee or "=" for a bare read) → why
KNOWN_RAW_READS: dict[tuple[str, str], str] = {
    ("relation.py", "relation_named"): "the relation read again with a title's words as its anchor "
    "(agent/question.py's parser; the run is known only after the search)",
    ("remember.py", "_strip_team"): "the statement to remember is the memory's content, stored as said",
    ("remember.py", "="): "the statement to remember is the memory's content, stored as said",
    ("remember.py", "remembers"): "its ``matches`` asks the frame's own test again (the route table "
    "sends a statement to remember by the frame's shape; the registry never reaches it)",
}
_HOLDERS = frozenset({"parsed", "frame", "question"})
_PATTERN_CALLS = frozenset({"search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split"})


def _holds_question(node: ast.expr) -> bool:
    """``parsed``, ``frame``, ``question``, ``ctx.parsed``, ``out.frame``, …"""
    if isinstance(node, ast.Name):
        return node.id in _HOLDERS
    return isinstance(node, ast.Attribute) and node.attr in _HOLDERS


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def kinds_violations(kinds_dir: Path | None = None) -> tuple[list[str], list[tuple[str, str]]]:
    """What breaks the kinds' gate (``re`` imported, a borrowed pattern called, the raw question
    text read), one line each, and the known raw-text reads found (``KNOWN_RAW_READS``)."""
    kinds_dir = kinds_dir or AGENT_DIR / "kinds"
    out: list[str] = []
    known: list[tuple[str, str]] = []
    for path in sorted(kinds_dir.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        name = path.name
        parents: dict[ast.AST, ast.AST] = {c: n for n in ast.walk(tree) for c in ast.iter_child_nodes(n)}
        imported: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    if a.name in ("re", "regex"):
                        out.append(f"{name}:{node.lineno}: imports {a.name}")
            elif isinstance(node, ast.ImportFrom):
                if node.module in ("re", "regex"):
                    out.append(f"{name}:{node.lineno}: imports from {node.module}")
                imported |= {a.asname or a.name for a in node.names}
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in _PATTERN_CALLS
                and isinstance(node.func.value, ast.Name)
                and node.func.value.id in imported
                and node.func.value.id.isupper()
            ):
                out.append(f"{name}:{node.lineno}: calls the pattern {node.func.value.id}.{node.func.attr}")
            if not (isinstance(node, ast.Attribute) and node.attr == "text" and _holds_question(node.value)):
                continue
            # handed on whole: the nearest call around it (through literals) is a sink
            up = parents.get(node)
            while isinstance(up, (ast.Dict, ast.List, ast.Tuple, ast.keyword, ast.BoolOp, ast.IfExp)):
                up = parents.get(up)
            callee = (
                _callee(up) if isinstance(up, ast.Call) and node is not getattr(up, "func", None) else "="
            )
            if callee in TEXT_SINKS:
                continue
            if (name, callee) in KNOWN_RAW_READS:
                known.append((name, callee))
                continue
            where = f"passed to {callee}()" if callee != "=" else "read"
            out.append(f"{name}:{node.lineno}: the raw question text {where} ({ast.unparse(node)})")
    found = set(known)
    if kinds_dir == AGENT_DIR / "kinds":
        out += [
            f"{m}: {c!r} no longer reads the raw text: delete it from KNOWN_RAW_READS"
            for m, c in sorted(set(KNOWN_RAW_READS) - found)
        ]
    return out, sorted(found)


def _literal(node: ast.expr) -> bool:
    return isinstance(node, (ast.Constant, ast.JoinedStr)) or (
        isinstance(node, ast.BinOp) and (_literal(node.left) or _literal(node.right))
    )


def _count_calls(names: Sequence[tuple[str, str]]) -> tuple[Counter[str], Callable[[], None]]:
    """Wrap each ``module.function`` wherever a ``devkb`` module has it bound; return the counter
    and an undo."""
    counts: Counter[str] = Counter()
    undo: list[tuple[Any, str, Any]] = []
    for module_name, fn_name in names:
        original = getattr(sys.modules[module_name], fn_name)

        def wrapped(*a: Any, _o: Any = original, _n: str = fn_name, **k: Any) -> Any:
            counts[_n] += 1
            return _o(*a, **k)

        for mod_name, mod in list(sys.modules.items()):
            if mod_name.startswith("devkb") and mod is not None:
                for attr, value in list(vars(mod).items()):
                    if value is original:
                        undo.append((mod, attr, value))
                        setattr(mod, attr, wrapped)

    def restore() -> None:
        for mod, attr, value in undo:
            setattr(mod, attr, value)

    return counts, restore


def count_parses(store_dir: Path, fluid_dir: Path) -> dict[str, Any]:
    from dependency_injector import providers

    import devkb.agent.ask_service
    import devkb.agent.planner  # noqa: F401
    from devkb.agent.ask_service import AskService
    from devkb.config.settings import Settings
    from devkb.container import Container, prepare_store, shutdown
    from devkb_devtools.evaluation.answer_eval import SPLITS, load_questions
    from devkb_devtools.evaluation.fluid_slice import fluid_project_keys

    if not any(store_dir.glob("*")):
        raise SystemExit(f"{store_dir} holds no slice: build it with answer_eval --store-dir first")
    container = Container()
    container.settings.override(providers.Object(Settings(data_dir=store_dir, store="sqlite")))
    prepare_store(container)
    keys = fluid_project_keys(fluid_dir)
    container.project_keys.override(providers.Object(lambda: keys))
    service = AskService(container.planner())
    counts, restore = _count_calls(
        [("devkb.agent.question", "parse_question"), ("devkb.agent.identifiers", "read_lookups")]
    )
    per_question: list[dict[str, int]] = []
    try:
        for q in load_questions(list(SPLITS)):
            before = dict(counts)
            service.ask(q.question)
            per_question.append({k: counts[k] - before.get(k, 0) for k in counts})
    finally:
        restore()
        shutdown(container)
    n = len(per_question)
    out: dict[str, Any] = {"questions": n}
    for name in ("parse_question", "read_lookups"):
        xs = [p.get(name, 0) for p in per_question]
        out[name] = {"mean": round(sum(xs) / n, 2), "max": max(xs), "min": min(xs)}
    return out


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m devkb_devtools.evaluation.agent_census", description=__doc__)
    p.add_argument("--store-dir", type=Path, help="a slice built by answer_eval --store-dir")
    p.add_argument("--fluid-slice", type=Path, metavar="FLUID_DIR")
    p.add_argument("--check", action="store_true", help="exit 1 when a module of agent/kinds breaks the gate")
    p.add_argument("--kinds-dir", type=Path, help="the kinds folder to check (default: the product's)")
    args = p.parse_args(argv)
    if args.check:
        broken, known = kinds_violations(args.kinds_dir)
        for line in broken:
            print(line, file=sys.stderr)
        print(f"agent/kinds: {len(broken)} violation(s), {len(known)} known raw-text read(s) left")
        return 1 if broken else 0
    broken, known = kinds_violations()
    report: dict[str, Any] = {
        "patterns": count_patterns(),
        "kinds": {"violations": broken, "known_raw_reads": [f"{m}: {c}" for m, c in known]},
    }
    if args.store_dir is not None:
        if args.fluid_slice is None:
            p.error("--store-dir needs --fluid-slice (the project keys)")
        report["parses"] = count_parses(args.store_dir, args.fluid_slice)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
