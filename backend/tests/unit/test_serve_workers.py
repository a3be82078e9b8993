"""``devkb serve --workers N``: settings that fail fast without shared sessions, and each worker's
own name in leases and sync runs."""

from __future__ import annotations

import os

import pytest
from pydantic import ValidationError

from devkb.api.app import app_from_environment
from devkb.config.settings import Settings


def test_several_workers_need_sessions_in_the_store(tmp_path):
    with pytest.raises(ValidationError, match="DEVKB_CHAT_MEMORY=store"):
        Settings(data_dir=tmp_path, workers=2)
    assert Settings(data_dir=tmp_path, workers=2, chat_memory="store").workers == 2
    assert Settings(data_dir=tmp_path).workers == 1  # one process stays the default


def test_each_worker_gets_its_own_instance_id(tmp_path, monkeypatch):
    monkeypatch.setenv("DEVKB_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DEVKB_INSTANCE_ID", "host-a")
    app = app_from_environment()
    assert os.environ["DEVKB_INSTANCE_ID"] == f"host-a/{os.getpid()}"
    assert app.state.container.settings().instance_id == f"host-a/{os.getpid()}"
