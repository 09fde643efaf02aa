"""Application wiring: arguments, root choice (demo offer), context, and the --self-test path."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gui import app
from gui.dialogs import ScriptedDialogs
from gui.main_window import MainWindow


def test_parse_args_keeps_window_flags_and_ignores_qt_flags() -> None:
    args = app.parse_args(["--root", "/x", "--demo", "-platform", "offscreen"])
    assert args.root == "/x" and args.demo and not args.self_test
    assert app.parse_args(["--root=/y", "--self-test"]).self_test


def test_root_has_memory(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    assert not app.root_has_memory(root)
    (root / "workspaces").mkdir(parents=True)
    assert not app.root_has_memory(root)  # an empty skeleton is no memory
    (root / "workspaces" / "proj-0123456789abcdef").mkdir()
    assert app.root_has_memory(root)
    other = tmp_path / "other"
    other.mkdir()
    (other / "GLOBAL.md").write_text("# me\n")
    assert app.root_has_memory(other)


def test_empty_root_offers_the_demo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    demo = tmp_path / "demo"
    monkeypatch.setattr(app, "ensure_demo_root", lambda target=None: demo)
    dialogs = ScriptedDialogs()
    empty = tmp_path / "empty"
    dialogs.push(False)
    assert app.choose_root(app.parse_args(["--root", str(empty)]), dialogs) == empty
    dialogs.push(True)
    assert app.choose_root(app.parse_args(["--root", str(empty)]), dialogs) == demo
    assert [a[1] for a in dialogs.asked] == ["No memory yet", "No memory yet"]
    assert app.choose_root(app.parse_args(["--demo"]), dialogs) == demo
    assert len(dialogs.asked) == 2  # --demo opens it without asking


def test_screenless_start_opens_the_demo_without_asking(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    demo = tmp_path / "demo"
    monkeypatch.setattr(app, "ensure_demo_root", lambda target=None: demo)
    dialogs = ScriptedDialogs()  # any question would fail the test: nobody could answer it
    empty = tmp_path / "empty"
    assert app.choose_root(app.parse_args(["--root", str(empty)]), dialogs, can_ask=False) == demo
    assert dialogs.asked == []
    assert "opened the demo root" in capsys.readouterr().err


def test_root_with_memory_opens_without_asking(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "GLOBAL.md").write_text("# me\n")
    dialogs = ScriptedDialogs()
    assert app.choose_root(app.parse_args(["--root", str(root)]), dialogs) == root
    assert dialogs.asked == []


def test_root_resolution_uses_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "env-root"
    root.mkdir()
    (root / "GLOBAL.md").write_text("# me\n")
    monkeypatch.setenv("DSH_MEMORY_ROOT", str(root))
    assert app.choose_root(app.parse_args([]), ScriptedDialogs()) == root


def test_context_reads_sessions_root_from_settings(tmp_path: Path, dsh_home: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    ctx = app.build_context(root, dialogs=ScriptedDialogs())
    assert ctx.sessions_root == dsh_home / "sessions"
    assert ctx.dsh_home == dsh_home
    (root / "settings.yml").write_text(f"sessions_root: {tmp_path / 'my-sessions'}\n")
    ctx = app.build_context(root, dialogs=ScriptedDialogs())
    assert ctx.sessions_root == tmp_path / "my-sessions"
    assert ctx.search is not None  # core.search is there
    ctx.runner.wait_all()


def test_broken_settings_do_not_block_the_window(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "settings.yml").write_text("sessions_root: [unclosed\n")
    ctx = app.build_context(root, dialogs=ScriptedDialogs())
    assert ctx.sessions_root.name == "sessions"
    ctx.runner.wait_all()


def test_demo_root_is_built_once(tmp_path: Path) -> None:
    target = tmp_path / "demo-root"
    assert app.ensure_demo_root(target) == target
    assert app.root_has_memory(target)
    marker = target / "GLOBAL.md"
    before = marker.stat().st_mtime_ns
    app.ensure_demo_root(target)
    assert marker.stat().st_mtime_ns == before


def test_run_self_test_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, qtbot: Any) -> None:
    import gui.selftest

    seen: dict[str, Any] = {}

    def fake_self_test(window: MainWindow, ctx: Any) -> int:
        seen["title"] = window.windowTitle()
        seen["tabs"] = list(window.tabs)
        seen["root"] = ctx.root
        return 3

    monkeypatch.setattr(gui.selftest, "run_self_test", fake_self_test)
    root = tmp_path / "memory"
    assert app.run(["--root", str(root), "--self-test"]) == 3
    assert seen["root"] == root
    # The title is the root; the platform appends the application's display name (set once here).
    assert str(root) in seen["title"] and "DSH Memory Manager" not in seen["title"]
    from PySide6.QtWidgets import QApplication

    assert QApplication.applicationDisplayName() == "DSH Memory Manager"
    assert seen["tabs"] == ["global", "workspace", "consolidation", "recycle", "settings", "maintenance"]
