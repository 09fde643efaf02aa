"""The problems check of a big root runs in a child process (its own interpreter lock); these
run the real child on a small root by lowering the size threshold."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from core.store.fs import FileStore
from gui import check_process
from gui.check_process import check_root
from gui.tasks import CancelledError, CancelToken, JobControl
from tests.gui.conftest import record, seed_workspace


def _control(token: CancelToken | None = None) -> JobControl:
    return JobControl(token or CancelToken(), lambda *_a: None)


def _root_with_problems(root: Path, tmp_path: Path) -> FileStore:
    store = FileStore(root)
    snap = seed_workspace(store, tmp_path / "projects" / "alpha", [record("build-steps", "How to build", "project")])
    (root / "workspaces" / snap.key / "broken.md").write_text("---\nname: Broken Name\n---\nx\n", encoding="utf-8")
    return store


def test_a_big_root_is_checked_in_a_child_with_the_same_findings(memory_root: Path, tmp_path: Path) -> None:
    store = _root_with_problems(memory_root, tmp_path)
    in_process = store.inspect.check()
    assert any(p.path.endswith("broken.md") for p in in_process)
    child = check_process.check_in_child(memory_root, _control())
    assert child == in_process
    assert check_root(store, check_process.CHILD_MIN_BYTES, control=_control()) == in_process


def test_a_child_that_gives_no_answer_falls_back_to_the_in_process_check(
    memory_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _root_with_problems(memory_root, tmp_path)
    monkeypatch.setattr(check_process, "_CHILD", "raise SystemExit(3)")
    assert check_process.check_in_child(memory_root, _control()) is None
    assert check_root(store, check_process.CHILD_MIN_BYTES, control=_control()) == store.inspect.check()


def test_cancelling_the_check_kills_the_child(
    memory_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = _root_with_problems(memory_root, tmp_path)
    monkeypatch.setattr(check_process, "_CHILD", "import time; time.sleep(60)")
    token = CancelToken()
    threading.Timer(0.5, token.cancel).start()
    t0 = time.monotonic()
    with pytest.raises(CancelledError):
        check_root(store, check_process.CHILD_MIN_BYTES, control=_control(token))
    assert time.monotonic() - t0 < 10  # not the child's 60 s


def test_a_small_root_is_checked_in_process(memory_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _root_with_problems(memory_root, tmp_path)

    def no_child(*_a: Any, **_k: Any) -> None:
        raise AssertionError("a small root must not start a child")

    monkeypatch.setattr(check_process.subprocess, "Popen", no_child)
    assert check_root(store, 1000, control=_control()) == store.inspect.check()
