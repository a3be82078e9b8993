"""An Ollama server on loopback that replays scripted model turns.

It speaks Ollama's HTTP API as the real server does, so the real ``ollama`` client (and the
``OllamaChatGenerator`` built on it) runs unmodified against it:

- ``GET /api/tags`` — the installed models; ``GET /api/version``; ``GET /`` "Ollama is running".
- ``POST /api/chat`` — the next scripted turn: text and/or tool calls. With ``"stream": true``
  (Ollama's default) the reply is NDJSON over chunked transfer: one line per text piece, one line
  per tool call (``message.tool_calls`` with one call, ``content`` ""), then a final line with
  ``done: true``, ``done_reason`` and the timing/count fields. Otherwise one JSON object.
  An unknown model is a 404 ``{"error": ...}``; an exhausted script a 500 ``{"error": ...}``.
- ``POST /api/embed`` (and the older ``/api/embeddings``) — deterministic unit vectors derived
  from the text, so equal texts embed equally.

A turn is a ``ModelTurn`` or a function of the request body returning one, which lets a test
answer from what the agent actually sent (e.g. cite the documents a tool returned). Every
request is recorded in ``requests`` for assertions.

    with OllamaEmulator() as ollama:
        ollama.script(ModelTurn.call("GraphQuery", question="status of FLUID-5327"),
                      ModelTurn.say("FLUID-5327 is closed [1]."))
        generator = OllamaChatGenerator(model=ollama.model, url=ollama.url)
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import numpy as np

DEFAULT_MODEL = "qwen2.5:3b"
VERSION = "0.12.6"
_PIECE = re.compile(r"\s*\S+\s*|\s+")


@dataclass(frozen=True)
class ToolCallSpec:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ModelTurn:
    """What the model "says" in one /api/chat call."""

    content: str = ""
    tool_calls: tuple[ToolCallSpec, ...] = ()
    thinking: str = ""
    status: int = 200  # anything else: an error reply with ``error`` as its message
    error: str = ""

    @classmethod
    def say(cls, text: str) -> ModelTurn:
        return cls(content=text)

    @classmethod
    def call(cls, tool: str, **arguments: Any) -> ModelTurn:
        return cls(tool_calls=(ToolCallSpec(tool, arguments),))

    @classmethod
    def calls(cls, *calls: tuple[str, dict[str, Any]], content: str = "") -> ModelTurn:
        return cls(content=content, tool_calls=tuple(ToolCallSpec(n, a) for n, a in calls))

    @classmethod
    def fail(cls, status: int = 500, error: str = "llama runner process has terminated") -> ModelTurn:
        return cls(status=status, error=error)


TurnSource = ModelTurn | Callable[[dict[str, Any]], ModelTurn]


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: dict[str, Any]


class OllamaEmulator:
    def __init__(
        self,
        models: Iterable[str] = (DEFAULT_MODEL,),
        embed_dimension: int = 384,
        token_delay: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
    ) -> None:
        self.models = list(models)
        self.embed_dimension = embed_dimension
        self.token_delay = token_delay
        self._turns: deque[TurnSource] = deque()
        self._lock = threading.Lock()
        self.requests: list[RecordedRequest] = []
        self._server = ThreadingHTTPServer((host, port), _handler_for(self))
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    # -- lifecycle ----------------------------------------------------------------------------
    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def model(self) -> str:
        return self.models[0]

    def start(self) -> Self:
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._server.serve_forever, name="ollama-emulator", daemon=True
            )
            self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- script -------------------------------------------------------------------------------
    def script(self, *turns: TurnSource) -> None:
        with self._lock:
            self._turns.extend(turns)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._turns)

    @property
    def chat_requests(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r.body for r in self.requests if r.path == "/api/chat"]

    def _next_turn(self, body: dict[str, Any]) -> ModelTurn | None:
        with self._lock:
            source = self._turns.popleft() if self._turns else None
        if source is None:
            return None
        return source(body) if callable(source) else source

    def _record(self, method: str, path: str, body: dict[str, Any]) -> None:
        with self._lock:
            self.requests.append(RecordedRequest(method, path, body))

    # -- replies ------------------------------------------------------------------------------
    def tags(self) -> dict[str, Any]:
        return {"models": [_model_entry(m) for m in self.models]}

    def embed(self, texts: list[str]) -> list[list[float]]:
        out = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "big")
            v = np.random.default_rng(seed).standard_normal(self.embed_dimension)
            out.append((v / np.linalg.norm(v)).round(8).tolist())
        return out


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _model_entry(name: str) -> dict[str, Any]:
    family = name.split(":")[0].rstrip("0123456789.") or name
    return {
        "name": name,
        "model": name,
        "modified_at": "2025-10-01T12:00:00.000000000Z",
        "size": 1929912432,
        "digest": hashlib.sha256(name.encode()).hexdigest(),
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": family,
            "families": [family],
            "parameter_size": "3.1B",
            "quantization_level": "Q4_K_M",
        },
    }


def _final_fields(body: dict[str, Any], turn: ModelTurn) -> dict[str, Any]:
    prompt_tokens = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
    eval_tokens = max(1, len(turn.content.split()) + 8 * len(turn.tool_calls))
    return {
        "done": True,
        "done_reason": "stop",
        "total_duration": 1_200_000_000,
        "load_duration": 20_000_000,
        "prompt_eval_count": prompt_tokens,
        "prompt_eval_duration": 300_000_000,
        "eval_count": eval_tokens,
        "eval_duration": 800_000_000,
    }


def _tool_call(i: int, call: ToolCallSpec) -> dict[str, Any]:
    return {"function": {"index": i, "name": call.name, "arguments": call.arguments}}


def _handler_for(emulator: OllamaEmulator) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "ollama-emulator"

        def log_message(self, *args: Any) -> None:  # quiet
            pass

        # -- plumbing -------------------------------------------------------------------
        def _body(self) -> dict[str, Any] | None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if not raw:
                return {}
            try:
                data = json.loads(raw)
            except ValueError:
                return None
            return data if isinstance(data, dict) else None

        def _json(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _text(self, status: int, text: str) -> None:
            data = text.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)

        def _chunk(self, obj: dict[str, Any]) -> None:
            line = json.dumps(obj).encode() + b"\n"
            self.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
            self.wfile.flush()

        # -- routes ---------------------------------------------------------------------
        def do_HEAD(self) -> None:
            self._text(200, "Ollama is running") if self.path == "/" else self._text(
                404, "404 page not found"
            )

        def do_GET(self) -> None:
            emulator._record("GET", self.path, {})
            if self.path == "/":
                self._text(200, "Ollama is running")
            elif self.path == "/api/tags":
                self._json(200, emulator.tags())
            elif self.path == "/api/version":
                self._json(200, {"version": VERSION})
            else:
                self._text(404, "404 page not found")

        def do_POST(self) -> None:
            body = self._body()
            emulator._record("POST", self.path, body or {})
            if body is None:
                self._json(400, {"error": "invalid JSON in request body"})
                return
            if self.path == "/api/chat":
                self._chat(body)
            elif self.path in ("/api/embed", "/api/embeddings"):
                self._embed(body)
            elif self.path == "/api/show":
                name = body.get("model") or body.get("name")
                if name not in emulator.models:
                    self._json(404, {"error": f"model '{name}' not found"})
                else:
                    self._json(
                        200,
                        {"details": _model_entry(name)["details"], "capabilities": ["completion", "tools"]},
                    )
            else:
                self._text(404, "404 page not found")

        def _model_ok(self, body: dict[str, Any]) -> bool:
            model = body.get("model")
            if model in emulator.models:
                return True
            self._json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return False

        def _embed(self, body: dict[str, Any]) -> None:
            if not self._model_ok(body):
                return
            if self.path == "/api/embeddings":
                self._json(200, {"embedding": emulator.embed([str(body.get("prompt", ""))])[0]})
                return
            raw = body.get("input", "")
            texts = [raw] if isinstance(raw, str) else [str(t) for t in raw]
            self._json(
                200,
                {
                    "model": body["model"],
                    "embeddings": emulator.embed(texts),
                    "total_duration": 14_000_000,
                    "load_duration": 1_000_000,
                    "prompt_eval_count": sum(len(t.split()) for t in texts),
                },
            )

        def _chat(self, body: dict[str, Any]) -> None:
            if not self._model_ok(body):
                return
            turn = emulator._next_turn(body)
            if turn is None:
                self._json(500, {"error": "ollama emulator: no scripted turn left"})
                return
            if turn.status != 200:
                self._json(turn.status, {"error": turn.error or "error"})
                return
            model = body["model"]
            calls = [_tool_call(i, c) for i, c in enumerate(turn.tool_calls)]
            if body.get("stream", True) is False:
                message: dict[str, Any] = {"role": "assistant", "content": turn.content}
                if turn.thinking:
                    message["thinking"] = turn.thinking
                if calls:
                    message["tool_calls"] = calls
                self._json(
                    200,
                    {"model": model, "created_at": _now(), "message": message, **_final_fields(body, turn)},
                )
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/x-ndjson")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            if turn.thinking:
                self._chunk(
                    {
                        "model": model,
                        "created_at": _now(),
                        "message": {"role": "assistant", "content": "", "thinking": turn.thinking},
                        "done": False,
                    }
                )
            for piece in _PIECE.findall(turn.content):
                if emulator.token_delay:
                    time.sleep(emulator.token_delay)
                self._chunk(
                    {
                        "model": model,
                        "created_at": _now(),
                        "message": {"role": "assistant", "content": piece},
                        "done": False,
                    }
                )
            for call in calls:  # one tool call per line, as Ollama streams them
                self._chunk(
                    {
                        "model": model,
                        "created_at": _now(),
                        "message": {"role": "assistant", "content": "", "tool_calls": [call]},
                        "done": False,
                    }
                )
            self._chunk(
                {
                    "model": model,
                    "created_at": _now(),
                    "message": {"role": "assistant", "content": ""},
                    **_final_fields(body, turn),
                }
            )
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    return Handler
