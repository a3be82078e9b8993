"""Make the OpenAPI document say what the API really answers on errors.

The app answers every error with ``ErrorResponse`` (``{"detail": "text"}``), 422 included (its
validation handler joins FastAPI's error list into one sentence), so FastAPI's generated
``HTTPValidationError`` schema would be wrong. This module rewrites the generated document once:

- every 422 response → ``ErrorResponse``; ``HTTPValidationError`` / ``ValidationError`` removed;
- every operation with a body → a documented 400 (FastAPI answers 400 when the body cannot be
  decoded at all, e.g. it is not UTF-8; malformed JSON is a 422);
- every operation that takes the API key → a documented 401;
- the admin operations (``ADMIN_OPERATIONS``) → a documented 403 as well;
- ``AskRequest.question`` → ``maxLength`` = the configured ``DEVKB_MAX_QUESTION_CHARS``.

Clients generated from the document (the web app's) and schema-based tests then agree with the
server.
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI

from devkb.api.schemas import ErrorResponse

ADMIN_OPERATIONS = frozenset(
    {
        "syncSource",
        "listUsers",
        "createUser",
        "updateUser",
        "listShared",
        "setShared",
        "permissionSyncStatus",
        "syncPermissions",
    }
)
_REF = "#/components/schemas/ErrorResponse"
_FASTAPI_ERROR_SCHEMAS = ("HTTPValidationError", "ValidationError")
_METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


def _error(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"$ref": _REF}}}}


def patch_error_responses(doc: dict[str, Any], max_question_chars: int | None = None) -> dict[str, Any]:
    """Rewrite ``doc`` (an OpenAPI document) in place as the module docstring says; returns it."""
    schemas = doc.setdefault("components", {}).setdefault("schemas", {})
    question = schemas.get("AskRequest", {}).get("properties", {}).get("question")
    if question is not None and max_question_chars is not None:
        question["maxLength"] = max_question_chars
    schemas.setdefault("ErrorResponse", ErrorResponse.model_json_schema())
    for item in doc.get("paths", {}).values():
        for method in _METHODS:
            op = item.get(method)
            if op is None:
                continue
            responses = op.setdefault("responses", {})
            if "422" in responses:
                responses["422"] = _error("Invalid request: the detail says which field and why.")
            if "requestBody" in op:
                responses.setdefault("400", _error("The body could not be decoded (not UTF-8)."))
            if op.get("security"):
                responses.setdefault("401", _error("Missing or invalid API key (header X-API-Key)."))
            if op.get("operationId") in ADMIN_OPERATIONS:
                responses.setdefault(
                    "403",
                    _error(
                        "Admin action refused: no API key is configured and the client is not on "
                        "loopback, or the request came from another site."
                    ),
                )
    text = json.dumps({k: v for k, v in doc.items() if k != "components"})
    text += json.dumps({k: v for k, v in schemas.items() if k not in _FASTAPI_ERROR_SCHEMAS})
    for name in _FASTAPI_ERROR_SCHEMAS:
        if f'"#/components/schemas/{name}"' not in text:
            schemas.pop(name, None)
    return doc


def install(app: FastAPI, max_question_chars: int | None = None) -> None:
    """Patch ``app``'s generated OpenAPI document the first time it is built."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = patch_error_responses(generate(), max_question_chars)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
