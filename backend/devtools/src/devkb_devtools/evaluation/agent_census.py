"""How much rule machinery the rules planner carries, and how often it reads one question.

- **patterns**: regular expressions in ``devkb/agent`` — every ``re.compile(...)`` and every inline
  ``re.search / match / fullmatch / sub / findall / finditer / split`` whose pattern is written in
  the call (counted from the source's syntax tree, so comments and strings do not count).
- **parses**: with a built answer-evaluation slice (``answer_eval --store-dir DIR``), every
  question of the answer evaluation is asked through the rules path while ``parse_question`` and
  ``read_lookups`` are counted wherever they are bound; calls per question are reported.

    python -m devkb_devtools.evaluation.agent_census                       # patterns only
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
    args = p.parse_args(argv)
    report: dict[str, Any] = {"patterns": count_patterns()}
    if args.store_dir is not None:
        if args.fluid_slice is None:
            p.error("--store-dir needs --fluid-slice (the project keys)")
        report["parses"] = count_parses(args.store_dir, args.fluid_slice)
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
