"""A ``devkb serve`` process that dies in native code leaves every thread's Python stack in its
log: the crash can be traced to the call that made it (``report_native_crashes``)."""

from __future__ import annotations

import os
import signal

import httpx
import pytest

from devkb_devtools.bench.server_process import DevkbServer

pytestmark = pytest.mark.integration


def test_a_segmentation_fault_writes_every_threads_stack_to_the_servers_log(demo_workspace, tmp_path):
    data = demo_workspace.copy_data(tmp_path / "data")
    env = {
        "DEVKB_SOURCES_FILE": str(demo_workspace.sources_file),
        "DEVKB_EMBEDDER": "local",  # the model the demo data was indexed with
        "PYTHONFAULTHANDLER": "",  # the product turns it on, not the environment
    }
    with DevkbServer(data, env=env) as server:
        r = httpx.post(server.base_url + "/ask", json={"question": "What is PAY-12 about?"}, timeout=120)
        assert r.status_code == 200, r.text
        assert server.proc is not None
        os.kill(server.proc.pid, signal.SIGSEGV)  # what a library's bad pointer would raise
        assert server.proc.wait(timeout=60) == -signal.SIGSEGV
        log = server.log_path.read_text(errors="replace")
    assert "Fatal Python error: Segmentation fault" in log, log[-3000:]
    stacks = log.split("Fatal Python error: Segmentation fault", 1)[1]
    assert stacks.count("(most recent call first)") >= 2, stacks  # the other threads too
    assert "uvicorn" in stacks and "File " in stacks, stacks
