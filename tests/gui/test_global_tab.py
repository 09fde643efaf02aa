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
    assert "nothing was written" in tab.banner.text
    tab.banner.button("Compare").click()
    assert tab.conflict_panel.isVisibleTo(tab)
    assert "+# Mine" in tab.conflict_diff.diff_text()


def test_outside_change_says_it_reloaded_instead_of_a_stale_saved_banner(ctx: AppContext, qtbot: Any) -> None:
    """Friction: a silent reload under "Saved GLOBAL.md" — the banner must say what happened."""
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.editor.setPlainText(GLOBAL_TEXT + "\nmine\n")
    tab.save()
    assert tab.banner.text.startswith("Saved GLOBAL.md")
    _external_write(ctx, "# From an agent\n")
    tab.refresh()
    assert tab.editor.toPlainText() == "# From an agent\n"
    assert tab.banner.text == "GLOBAL.md changed on disk (by another program); reloaded."
    assert "Saved" not in tab.banner.text
    tab.refresh()  # nothing new: the message is not repeated, nothing reloads
    assert tab.editor.toPlainText() == "# From an agent\n"


def test_conflict_question_defaults_to_keeping_my_edits(ctx: AppContext, qtbot: Any) -> None:
    """Friction: the conflict dialog's default button discarded the edits."""
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.editor.setPlainText("# Mine\n")
    _external_write(ctx, "# Theirs\n")
    ctx.dialogs.push(None)  # Enter/Escape: what the default does
    tab.save()
    assert ctx.dialogs.defaults == ["compare"]
    assert tab.editor.toPlainText() == "# Mine\n" and tab.has_unsaved_changes()
    assert _disk(ctx) == "# Theirs\n"
    assert tab.conflict_panel.isVisibleTo(tab)  # compare: both versions side by side in the diff
    assert "Not saved" in tab.banner.text


def test_conflict_dialog_default_button_is_the_safe_one(ctx: AppContext, qtbot: Any) -> None:
    """The real message box: its default (Enter) and escape buttons keep the edits."""
    from gui.dialogs import question_box

    tab = _tab(ctx, qtbot)
    title, text, choices = tab.conflict_question()
    box, buttons = question_box(tab, title, text, choices, default="compare", escape="compare")
    qtbot.addWidget(box)
    assert box.defaultButton() is buttons["compare"]
    assert box.escapeButton() is buttons["compare"]
    assert "Reload" not in [b.text() for b in box.buttons()]
    assert "Keep my edits" in buttons["compare"].text()


def test_conflict_overwrite_asks_only_once(ctx: AppContext, qtbot: Any) -> None:
    """Friction: "Keep mine" asked twice; overwriting is one answer now (history keeps theirs)."""
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.editor.setPlainText("# Mine\n")
    _external_write(ctx, "# Theirs\n")
    ctx.dialogs.push("overwrite")
    tab.save()
    assert [a[0] for a in ctx.dialogs.asked] == ["ask"]
    diff = tab.conflict_diff.diff_text()
    assert "-# Theirs" in diff and "+# Mine" in diff
    assert _disk(ctx) == "# Mine\n"
    assert not tab.has_unsaved_changes()
    assert not tab.conflict_panel.isVisibleTo(tab)


def test_conflict_panel_overwrite_button_asks_nothing(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.editor.setPlainText("# Mine\n")
    _external_write(ctx, "# Theirs\n")
    ctx.dialogs.push("compare")
    tab.save()
    assert _disk(ctx) == "# Theirs\n"
    tab.conflict_buttons["overwrite"].click()  # decided after comparing: no second question
    assert len(ctx.dialogs.asked) == 1
    assert _disk(ctx) == "# Mine\n"


def test_conflict_reload_takes_disk_version(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.editor.setPlainText("# Mine\n")
    _external_write(ctx, "# Theirs\n")
    ctx.dialogs.push("reload")
    tab.save()
    assert tab.editor.toPlainText() == "# Theirs\n"
    assert not tab.has_unsaved_changes()
    assert _disk(ctx) == "# Theirs\n"


def test_conflict_save_a_copy_keeps_both(ctx: AppContext, qtbot: Any) -> None:
    ctx.store.replace_global(GLOBAL_TEXT, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.editor.setPlainText("# Mine\n")
    _external_write(ctx, "# Theirs\n")
    ctx.dialogs.push("copy")
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
    tab.conflict_buttons["reload"].click()
    assert tab.editor.toPlainText() == "# Theirs\n"


def test_preview_follows_the_editor_position(ctx: AppContext, qtbot: Any) -> None:
    """Friction: the preview stayed at the top while the editor was scrolled to the end."""
    text = "".join(f"## Section {i}\n\nParagraph {i} with some words.\n\n" for i in range(120))
    ctx.store.replace_global(text, EMPTY_REVISION)
    tab = _tab(ctx, qtbot)
    tab.resize(900, 500)
    tab.show()
    qtbot.waitExposed(tab)
    assert tab.preview.shown_text == text
    preview_bar = tab.preview.verticalScrollBar()
    assert preview_bar.maximum() > 0 and preview_bar.value() == 0
    cursor = tab.editor.textCursor()
    block = tab.editor.document().findBlockByNumber(4 * 60)  # "## Section 60"
    cursor.setPosition(block.position())
    tab.editor.setTextCursor(cursor)
    tab.editor.verticalScrollBar().setValue(tab.editor.verticalScrollBar().maximum() // 2)
    top_line = tab.editor.firstVisibleBlock().blockNumber()
    middle = preview_bar.value()
    assert 0.3 * preview_bar.maximum() < middle < 0.7 * preview_bar.maximum()
    # what is at the preview's top is the section the editor's top shows
    shown = tab.preview.cursorForPosition(tab.preview.viewport().rect().topLeft()).block().text()
    section = top_line // 4
    assert any(f"Section {n}" in shown or f"Paragraph {n} " in shown for n in (section - 1, section, section + 1))
    tab.editor.verticalScrollBar().setValue(tab.editor.verticalScrollBar().maximum())
    assert preview_bar.value() == preview_bar.maximum()
    tab.editor.verticalScrollBar().setValue(0)
    assert preview_bar.value() == 0


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
