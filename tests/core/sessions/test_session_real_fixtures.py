"""The reader on the 139 real DSH logs in ../shared/fixtures, whenever that folder is beside the repo.

The folder ships with the development workspace (and CI), not with the repository; set
``DSH_REAL_FIXTURES=0`` to leave these out.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[3]
FIXTURES = REPO.parent / "shared" / "fixtures" / "dsh-sessions"

pytestmark = [
    pytest.mark.real_fixtures,
    pytest.mark.skipif(
        os.environ.get("DSH_REAL_FIXTURES") == "0" or not FIXTURES.is_dir(),
        reason="the real DSH logs live in ../shared/fixtures, which is not beside this checkout",
    ),
]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("try_real_sessions", REPO / "scripts" / "try_real_sessions.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_real_log_reads_cleanly() -> None:
    report = _script().run(FIXTURES)
    assert report["files"] == 139
    assert report["read_cleanly"] == 139
    assert report["unreadable"] == 0 and report["evidence_failures"] == 0
    assert report["summary_mismatches"] == 0
    # the fixture README's census
    assert report["subagent"] == 23
    assert report["no_cwd"] == 3
    assert report["top_level_listed_by_default"] == 116
    # DSH's rules on real v0 logs: every one is v0; only the two seedLength forks have an inherited
    # cut (untagged end-seed markers cut nothing); no reader warnings.
    assert report["format:v0"] == 139 and report["sessions_with_inherited_cut"] == 2
    assert report["sessions_with_warnings"] == 0
    assert report["human_turns"] == 139 and report["assistant_texts"] == 145


def test_offline_consolidation_of_every_real_log() -> None:
    counts = _script().consolidate_offline(FIXTURES)
    assert counts.get("failed", 0) == 0
    assert sum(n for k, n in counts.items() if k.startswith("consolidated:")) == 139
    assert counts["records_committed"] >= 2  # the two "remember this fact for later" sessions
