"""Fixtures for the other-stores tests: a tmp HOME and DSH_HOME holding one store of every kind."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from sources_support import World, build_world

from core.cli.main import main


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    w = build_world(tmp_path)
    monkeypatch.setenv("HOME", str(w.home))
    monkeypatch.setenv("DSH_HOME", str(w.dsh_home))
    monkeypatch.delenv("DSH_MEMORY_ROOT", raising=False)
    return w


def run_cli(*argv: str) -> tuple[int, Any]:
    """Run ``dsh-memory --json ARGV`` in-process; returns (exit code, parsed JSON)."""
    out, err = io.StringIO(), io.StringIO()
    code = main(["--json", *argv], stdout=out, stderr=err)
    return code, json.loads(out.getvalue())


@pytest.fixture
def cli() -> Any:
    return run_cli
