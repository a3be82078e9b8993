"""Fail when the web app's copy of the API schema (frontend/openapi.json) is not the backend's.

The TypeScript client is generated from that file (`cd frontend && npm run api`), so a stale copy
means the web app calls an API that no longer exists. Usage: check_openapi.py PATH/openapi.json
"""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    committed = Path(argv[1])
    from devkb.api.app import create_app

    schema = create_app().openapi()
    # two models of one name in different modules become "devkb__api__x__Name" in the schema, and
    # the web app's `S['Name']` no longer compiles: name every response and request model once
    clashes = sorted(
        {
            name.rsplit("__", 1)[-1]
            for name in schema.get("components", {}).get("schemas", {})
            if "__" in name
        }
    )
    if clashes:
        sys.stderr.write(
            f"two API models share a name: {', '.join(clashes)}; rename one of each\n"
        )
        return 1
    fresh = json.dumps(schema, indent=2, sort_keys=True) + "\n"
    if not committed.is_file() or committed.read_text(encoding="utf-8") != fresh:
        sys.stderr.write(
            f"{committed} is not the backend's current API schema: regenerate it and the client with "
            "`cd frontend && npm run api`, then commit both\n"
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
