"""Write the API's OpenAPI schema to a file (the front end generates its client from it):
``python -m devkb.api.openapi_dump OUT.json``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from devkb.api.app import create_app


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path("openapi.json")
    schema = create_app().openapi()
    out.write_text(json.dumps(schema, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    sys.stdout.write(f"wrote {out} ({len(schema['paths'])} paths)\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
