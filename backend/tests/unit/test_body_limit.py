"""``BodyLimit`` (api/app.py): a bounded path's body over its limit is a 413, by its declared
length or as it streams in without one; other paths and bodies within the limit pass."""

from __future__ import annotations

from typing import Any

import anyio

from devkb.api.app import BodyLimit


async def reads_everything(scope: Any, receive: Any, send: Any) -> None:
    body = b""
    while True:
        message = await receive()
        body += message.get("body", b"")
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": str(len(body)).encode()})


def call(path: str, chunks: list[bytes], length: int | None = None) -> int:
    sent: list[dict[str, Any]] = []
    pending = list(chunks)

    async def receive() -> dict[str, Any]:
        chunk = pending.pop(0) if pending else b""
        return {"type": "http.request", "body": chunk, "more_body": bool(pending)}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    headers = [(b"content-length", str(length).encode())] if length is not None else []
    scope = {"type": "http", "path": path, "headers": headers}
    anyio.run(BodyLimit(reads_everything, {"/bounded": 10}), scope, receive, send)
    return int(sent[0]["status"])


def test_body_limit() -> None:
    assert call("/bounded", [b"12345"], 5) == 200
    assert call("/bounded", [b"x" * 11], 11) == 413  # declared too long: not read
    assert call("/bounded", [b"123456", b"789012"]) == 413  # streamed past the limit
    assert call("/bounded", [b"12345", b"12345"]) == 200
    assert call("/elsewhere", [b"x" * 50], 50) == 200
