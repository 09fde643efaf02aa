"""Issue 27: switching roots A → B → A reopens A warm (its records are not parsed again), with the
parse caches of the last few roots kept by an object the app owns and hands from window to window."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from core.models import PutOp
from core.store.fs import FileStore
from gui.dialogs import ScriptedDialogs
from gui.main_window import MainWindow
from gui.root_caches import RootCaches
from tests.gui.conftest import make_ctx, record, seed_workspace

pytestmark = pytest.mark.usefixtures("fresh_prefs")


def _root(tmp_path: Path, name: str, count: int) -> Path:
    root = tmp_path / name
    seed_workspace(
        FileStore(root), tmp_path / "projects" / name, [record(f"{name}-{i}", f"note {i}") for i in range(count)]
    )
    return root


def _records_shown(window: MainWindow) -> int:
    return int(window.tabs["workspace"].records.model.rowCount())


def _switch(window: MainWindow, root: Path, qtbot: Any) -> MainWindow:
    window.switch_root(root)
    qtbot.waitUntil(lambda: window.successor is not None)
    new = window.successor
    assert new is not None and Path(new.ctx.root) == root
    return new


def _parsed(window: MainWindow) -> int:
    assert isinstance(window.ctx.store, FileStore)
    return window.ctx.store.caches.parsed


def test_switching_back_to_a_root_parses_none_of_its_records_again(
    dialogs: ScriptedDialogs, tmp_path: Path, opened: list[MainWindow], qtbot: Any
) -> None:
    a, b = _root(tmp_path, "alpha", 30), _root(tmp_path, "beta", 5)
    first = MainWindow(make_ctx(a, dialogs, tmp_path), watch=False)
    qtbot.addWidget(first)
    first.show()
    qtbot.waitUntil(lambda: _records_shown(first) == 30)
    assert _parsed(first) == 30  # a cold open parses every record of the workspace shown

    on_b = _switch(first, b, qtbot)
    qtbot.waitUntil(lambda: _records_shown(on_b) == 5)
    assert _parsed(on_b) == 5  # another root: its own caches, cold

    # While the window is on B, a record of A changes on disk: the warm reopen must see it.
    store = FileStore(a)
    ws = store.list_workspaces()[0]
    snap = store.read_workspace(ws.key)
    store.commit(ws.key, [PutOp(record=record("alpha-7", "changed while away"))], snap.revision)

    back = _switch(on_b, a, qtbot)
    qtbot.waitUntil(lambda: _records_shown(back) == 30)
    assert _parsed(back) == 30 + 1  # only the record changed while away was parsed again
    shown = back.ctx.store.read_workspace(ws.key).get("alpha-7")
    assert shown is not None and shown.record is not None and shown.record.description == "changed while away"
    assert _parsed(back) == 31


def test_a_root_opened_without_the_registry_opens_cold(
    dialogs: ScriptedDialogs, tmp_path: Path, opened: list[MainWindow], qtbot: Any
) -> None:
    """The control: a fresh registry (what a new process has) parses A again on the way back."""
    a, b = _root(tmp_path, "alpha", 30), _root(tmp_path, "beta", 5)
    first = MainWindow(make_ctx(a, dialogs, tmp_path), watch=False)
    qtbot.addWidget(first)
    first.show()
    qtbot.waitUntil(lambda: _records_shown(first) == 30)
    on_b = _switch(first, b, qtbot)
    on_b.ctx.root_caches = RootCaches()  # forgets A
    back = _switch(on_b, a, qtbot)
    qtbot.waitUntil(lambda: _records_shown(back) == 30)
    assert _parsed(back) == 30


def test_the_registry_keeps_the_last_three_roots(tmp_path: Path) -> None:
    registry = RootCaches()
    roots = [tmp_path / n for n in ("a", "b", "c", "d")]
    kept = {r: registry.for_root(r) for r in roots[:3]}
    assert registry.for_root(roots[0]) is kept[roots[0]]  # a is now the most recent
    registry.for_root(roots[3])  # d pushes out the least recently used: b
    assert registry.roots() == [str(roots[2]), str(roots[0]), str(roots[3])]
    assert registry.for_root(roots[1]) is not kept[roots[1]]  # b opens cold again
