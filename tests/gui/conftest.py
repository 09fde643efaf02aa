"""Fixtures for GUI tests: an AppContext over a real FileStore in tmp_path, scripted dialogs, demo roots.

Every test gets a synchronous task runner (work runs inline, callbacks fire before ``submit``
returns) and :class:`ScriptedDialogs` (push the answers the test expects to be asked for; an
unexpected dialog fails the test, and answers left unconsumed fail it at teardown). A test that
leaves a thread or a thread-pool job running fails.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QThreadPool

from core.models import PutOp, Record, RecordType, WorkspaceSnapshot
from core.store.api import MemoryStore
from gui import main_window as mw
from gui.context import AppContext
from gui.dialogs import ScriptedDialogs
from gui.main_window import MainWindow
from gui.tasks import SyncTaskRunner

# Qt warnings fail tests (qt_log_level_fail = WARNING); these are harmless and expected here:
QT_LOG_IGNORE = (
    # The offscreen platform can't forward size hints when a top-level window is shown.
    "This plugin does not support propagateSizeHints",
)
_GUI_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _GUI_DIR in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.qt_log_ignore(*QT_LOG_IGNORE))
            # watchdog (inotify) warns from its own thread when a watched folder is re-created
            # quickly and then re-registers it; with warnings-as-errors that would kill the
            # observer thread, which never happens outside tests.
            item.add_marker(pytest.mark.filterwarnings("ignore:Callback with id:RuntimeWarning"))


@pytest.fixture(autouse=True)
def _no_dangling_threads() -> Iterator[None]:
    """Fail a test that leaves a Python thread (e.g. a watchdog observer) or a pool job running."""
    before = set(threading.enumerate())
    yield
    QThreadPool.globalInstance().waitForDone(5000)
    deadline = time.monotonic() + 5
    # Qt pool threads that ran Python code show up as threading._DummyThread objects, which
    # Python never removes and which can't be joined; the pool itself was waited for above.
    extra = [
        t
        for t in threading.enumerate()
        if t not in before and t.is_alive() and not isinstance(t, threading._DummyThread)
    ]
    while extra and time.monotonic() < deadline:
        for t in extra:
            t.join(timeout=0.1)
        extra = [t for t in extra if t.is_alive()]
    assert not extra, f"threads left running: {[t.name for t in extra]}"


@pytest.fixture
def fresh_prefs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The user's preferences and data folders in tmp_path (never the real home's)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))


@pytest.fixture
def opened() -> Iterator[list[MainWindow]]:
    """Windows File ▸ Open made during a test: shut down afterwards."""
    yield mw.OPEN_WINDOWS
    for window in list(mw.OPEN_WINDOWS):
        window.shutdown()
        window.close()
    mw.OPEN_WINDOWS.clear()


@pytest.fixture
def dialogs() -> Iterator[ScriptedDialogs]:
    d = ScriptedDialogs()
    yield d
    assert not d.answers, f"scripted answers never asked for: {list(d.answers)}; asked: {d.asked}"


def open_store(root: Path) -> MemoryStore:
    from core.store.fs import FileStore

    store: MemoryStore = FileStore(root)
    return store


def make_ctx(root: Path, dialogs: ScriptedDialogs, tmp_path: Path) -> AppContext:
    home = tmp_path / "dsh-home"
    home.mkdir(exist_ok=True)
    return AppContext(
        store=open_store(root),
        runner=SyncTaskRunner(),
        dialogs=dialogs,
        root=root,
        sessions_root=home / "sessions",
        dsh_home=home,
        search=None,
    )


@pytest.fixture
def ctx(memory_root: Path, dialogs: ScriptedDialogs, tmp_path: Path) -> AppContext:
    """An empty memory root (the folder exists, so the watcher can watch it)."""
    memory_root.mkdir(parents=True, exist_ok=True)
    return make_ctx(memory_root, dialogs, tmp_path)


@pytest.fixture
def demo_root(tmp_path: Path) -> Path:
    """A fresh demo root (core.demo.build_demo_root) in tmp_path."""
    from core.demo import build_demo_root

    root = tmp_path / "demo-root"
    build_demo_root(root)
    return root


@pytest.fixture
def demo_ctx(demo_root: Path, dialogs: ScriptedDialogs, tmp_path: Path) -> AppContext:
    return make_ctx(demo_root, dialogs, tmp_path)


def record(name: str, description: str = "", type: RecordType = "project", body: str = "") -> Record:
    return Record(
        name=name,
        description=description or f"About {name}",
        type=type,
        body=body or f"\nThe fact about {name}.\n",
    )


def seed_workspace(store: MemoryStore, cwd: Path | str, records: list[Record]) -> WorkspaceSnapshot:
    """Create the workspace of ``cwd`` (creating the folder when it is under a temp dir) with ``records``."""
    snap = store.create_workspace(os.fspath(cwd))
    if records:
        snap = store.commit(snap.key, [PutOp(record=r) for r in records], snap.revision)
    return snap


@pytest.fixture
def sample(ctx: AppContext, tmp_path: Path) -> dict[str, WorkspaceSnapshot]:
    """Global, an English workspace with linked records and an invalid file, a Chinese workspace,
    and a workspace whose folder is gone."""
    store = ctx.store
    store.replace_global(
        "# User Profile\n\nBackend developer. 喜欢简洁的回答。\n\n# User Preferences\n\n"
        "| tool | choice |\n|---|---|\n| editor | vim |\n\n- [x] answer in English\n- [ ] use tabs\n",
        store.read_global().revision,
    )
    alpha_dir = tmp_path / "projects" / "alpha"
    alpha_dir.mkdir(parents=True)
    alpha = seed_workspace(
        store,
        alpha_dir,
        [
            record("build-steps", "How to build alpha", "project", "\nRun make.\n\nSee [[release-notes]].\n"),
            record("release-notes", "Release checklist", "reference", "\nTag, push, announce. Also [[gone]].\n"),
            record("code-style", "Prefer small functions", "feedback", "\nKeep functions short.\n"),
        ],
    )
    (ctx.root / "workspaces" / alpha.key / "broken.md").write_text("---\nname: Broken Name\n---\nx\n")
    beta_dir = tmp_path / "projects" / "项目-beta"
    beta_dir.mkdir(parents=True)
    beta = seed_workspace(
        store, beta_dir, [record("packaging", "打包用了 electron-builder", "project", "\n打包很慢，因为要签名。\n")]
    )
    gone_dir = tmp_path / "projects" / "gone"
    gone_dir.mkdir(parents=True)
    gone = seed_workspace(store, gone_dir, [record("old-fact", "Something old")])
    gone_dir.rmdir()
    return {
        "alpha": store.read_workspace(alpha.key),
        "beta": store.read_workspace(beta.key),
        "gone": store.read_workspace(gone.key),
    }


@pytest.fixture
def main_window(ctx: AppContext, qtbot: object) -> Iterator[object]:
    """The whole window over ``ctx`` (no file watcher; tests of live refresh start their own)."""
    window = MainWindow(ctx, watch=False)
    yield window
    window.shutdown()  # stops the watcher; closing afterwards does not ask about unsaved edits
    window.close()
    window.deleteLater()
