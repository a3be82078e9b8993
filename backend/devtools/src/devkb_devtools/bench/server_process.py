"""``DevkbServer``: ``devkb serve`` in a subprocess on a free 127.0.0.1 port — a real uvicorn
server, extractive answers, no scheduler — waited for until ``/health`` answers and stopped on
exit. The one way benchmarks, the load test and the integration tests start a server."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import Self

import httpx

from devkb.errors import DevkbError

# One ONNX export per checkout, shared by every server the tools start (settings may override).
SHARED_MODEL_CACHE = Path(__file__).resolve().parents[5] / ".cache" / "models"


class ServerStartError(DevkbError):
    """The server exited or did not become healthy in time."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class DevkbServer:
    def __init__(
        self,
        data_dir: Path,
        env: dict[str, str] | None = None,
        index: bool = False,
        timeout: float = 600.0,
        log_path: Path | None = None,
        args: tuple[str, ...] = (),
    ) -> None:
        self.port = free_port()
        self.args = args  # more ``devkb serve`` options (``--workers 2``)
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.data_dir = data_dir
        self.timeout = timeout
        self.index = index
        self.env = {
            "DEVKB_MODEL_CACHE_DIR": str(SHARED_MODEL_CACHE),
            **os.environ,
            "DEVKB_DATA_DIR": str(data_dir),
            "DEVKB_LLM_PROVIDER": "none",
            "DEVKB_SCHEDULER_ENABLED": "false",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            **(env or {}),
        }
        self.log_path = log_path or data_dir / "server.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Self:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "wb")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "devkb",
                "serve",
                "--index" if self.index else "--no-index",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                *self.args,
            ],
            env=self.env,
            stdout=self._log,
            stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + self.timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise ServerStartError(f"devkb serve exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(self.base_url + "/health", timeout=2).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.3)
        self.__exit__(None, None, None)
        raise ServerStartError(f"devkb serve did not become healthy in {self.timeout:.0f} s:\n{self.log()}")

    def __exit__(
        self,
        exc_type: type[BaseException] | None = None,
        exc: BaseException | None = None,
        tb: TracebackType | None = None,
    ) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()

    def log(self) -> str:
        """The log's end, or — after a crash in native code — from the crash's report on (every
        thread's stack, written by ``report_native_crashes``)."""
        text = self.log_path.read_text(errors="replace")
        crash = text.find("Fatal Python error:")
        return text[crash : crash + 20000] if crash >= 0 else text[-5000:]
