"""Global tab, driven like a user: edit, preview, save, and every way out of a conflict."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QCoreApplication

from core.models import EMPTY_REVISION
from gui.context import AppContext
from gui.tabs.global_tab import GlobalTab

GLOBAL_TEXT = "# User Profile\n\n| tool | choice |\n|---|---|\n| editor | vim |\n\n- [x] 用中文回答\n- [ ] tabs\n"


def _tab(ctx: AppContext, qtbot: Any) -> GlobalTab:
    tab = GlobalTab(ctx)
    qtbot.addWidget(tab)
    tab.refresh()  # the window does this once after building its tabs
    return tab


def _disk(ctx: AppContext) -> str:
    return (ctx.root / "GLOBAL.md").read_text(encoding="utf-8")


def _external_write(ctx: AppContext, text: str) -> None:
    """Another program (an agent, the CLI) replaces GLOBAL.md behind the window's back."""
    store = ctx.store
    store.replace_global(text, store.read_global().revision)


def test_loads_global_with_preview_and_size(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    assert tab.editor.toPlainText() == GLOBAL_TEXT
    html = tab.preview.toHtml()
    assert "<table" in html and "vim" in html  # tables render
    assert "☑" in tab.preview.toPlainText() and "☐" in tab.preview.toPlainText()  # task lists render
    assert "用中文回答" in tab.preview.toPlainText()
    assert tab.size_label.text() == f"{len(GLOBAL_TEXT.encode())} B"
    assert not tab.has_unsaved_changes()


def test_edit_updates_preview_and_size_then_save(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.editor.setPlainText(GLOBAL_TEXT + "\n# General Tips\n\nRun tests first.\n")
    assert tab.has_unsaved_changes()
    assert "(unsaved)" in tab.size_label.text()
    qtbot.waitUntil(lambda: "General Tips" in tab.preview.toPlainText())
    tab.save()
    assert _disk(ctx).endswith("Run tests first.\n")
    assert not tab.has_unsaved_changes()
    assert "Saved" in tab.banner.text


def test_first_save_creates_global(ctx: AppContext, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    assert tab.editor.toPlainText() == ""
    tab.editor.setPlainText("# User Profile\n\nNew here.\n")
    tab.save()
    assert _disk(ctx) == "# User Profile\n\nNew here.\n"


def test_external_change_reloads_clean_editor_and_warns_dirty_one(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    _external_write(ctx, "# From an agent\n")
    tab.refresh()
    assert tab.editor.toPlainText() == "# From an agent\n"  # no edits: follows the disk
    tab.editor.setPlainText("# Mine\n")
    _external_write(ctx, "# From an agent, again\n")
    tab.refresh()
    assert tab.editor.toPlainText() == "# Mine\n"  # never overwritten
    assert tab.banner.level == "warning" and "changed on disk" in tab.banner.text
    tab.banner.button("Show differences").click()
    assert tab.conflict_panel.isVisibleTo(tab)
    assert "+# Mine" in tab.conflict_diff.diff_text()


def test_conflict_keep_mine_overwrites_after_confirmation(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.editor.setPlainText("# Mine\n")
    _external_write(ctx, "# Theirs\n")
    ctx.dialogs.push("Keep mine", True)  # choose, then "Overwrite?" -> yes
    tab.save()
    kinds = [a[0] for a in ctx.dialogs.asked]
    assert kinds == ["choose", "confirm"]
    diff = tab.conflict_diff.diff_text()
    assert "-# Theirs" in diff and "+# Mine" in diff
    assert _disk(ctx) == "# Mine\n"
    assert not tab.has_unsaved_changes()
    assert not tab.conflict_panel.isVisibleTo(tab)


def test_conflict_keep_mine_declined_writes_nothing(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.editor.setPlainText("# Mine\n")
    _external_write(ctx, "# Theirs\n")
    ctx.dialogs.push("Keep mine", False)
    tab.save()
    assert _disk(ctx) == "# Theirs\n"
    assert tab.editor.toPlainText() == "# Mine\n"
    assert tab.conflict_panel.isVisibleTo(tab)  # still there to decide later
    ctx.dialogs.push(True)
    tab.conflict_buttons["Keep mine"].click()
    assert _disk(ctx) == "# Mine\n"


def test_conflict_reload_takes_disk_version(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.editor.setPlainText("# Mine\n")
    _external_write(ctx, "# Theirs\n")
    ctx.dialogs.push("Reload")
    tab.save()
    assert tab.editor.toPlainText() == "# Theirs\n"
    assert not tab.has_unsaved_changes()
    assert _disk(ctx) == "# Theirs\n"


def test_conflict_save_a_copy_keeps_both(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.editor.setPlainText("# Mine\n")
    _external_write(ctx, "# Theirs\n")
    ctx.dialogs.push("Save a copy")
    tab.save()
    copies = list(tab.copies_dir.glob("GLOBAL-*.md"))
    assert len(copies) == 1 and copies[0].read_text(encoding="utf-8") == "# Mine\n"
    assert str(copies[0]) in tab.banner.text
    assert tab.editor.toPlainText() == "# Theirs\n"
    assert _disk(ctx) == "# Theirs\n"


def test_conflict_dismissed_leaves_panel_with_buttons(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.editor.setPlainText("# Mine\n")
    _external_write(ctx, "# Theirs\n")
    ctx.dialogs.push(None)
    tab.save()
    assert tab.conflict_panel.isVisibleTo(tab)
    assert "Not saved" in tab.banner.text
    tab.conflict_buttons["Reload"].click()
    assert tab.editor.toPlainText() == "# Theirs\n"


def test_credential_in_global_asks_before_saving(ctx: AppContext, qtbot: Any) -> None:
    tab = _tab(ctx, qtbot)
    secret = "# Tips\n\naws key AKIAIOSFODNN7EXAMPLQ and token ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8" + "\n"
    tab.editor.setPlainText(secret)
    ctx.dialogs.push(False)
    tab.save()
    assert not (ctx.root / "GLOBAL.md").exists()
    assert "credential" in tab.banner.text
    ctx.dialogs.push(True)
    tab.save()
    assert _disk(ctx) == secret


def test_preview_renders_on_a_worker_and_never_shows_a_stale_text(ctx: AppContext, qtbot: Any) -> None:
    from gui.tasks import ThreadPoolTaskRunner

    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    ctx.runner = ThreadPoolTaskRunner()
    tab = _tab(ctx, qtbot)
    try:
        qtbot.waitUntil(lambda: tab.preview.shown_text == GLOBAL_TEXT, timeout=10000)
        for i in range(5):  # a burst of edits: only the last one may end up in the preview
            tab.editor.setPlainText(GLOBAL_TEXT + f"\n# Draft {i}\n")
            tab._update_preview()
        qtbot.waitUntil(lambda: "Draft 4" in tab.preview.toPlainText(), timeout=10000)
        tab.editor.setPlainText(GLOBAL_TEXT + "\n# Draft 5\n")
        tab._update_preview()
        tab.editor.setPlainText(GLOBAL_TEXT + "\n# Draft 4\n")  # back to what is shown before it arrives
        tab._update_preview()
        assert ctx.runner.wait_all(10000)
        QCoreApplication.processEvents()  # the job posted its result before finishing: deliver it
        assert "Draft 4" in tab.preview.toPlainText() and "Draft 5" not in tab.preview.toPlainText()
    finally:
        tab.shutdown()
        ctx.runner.wait_all(10000)
