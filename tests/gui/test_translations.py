"""The Chinese interface is complete: every string the code hands to Qt has a finished zh_CN
translation, no literal reaches a widget untranslated, and a zh_CN window shows no English chrome.

Three checks, because each misses what another catches: the extraction check sees every ``tr()``
call (including texts only shown in rare states), the lint sees literals that bypass ``tr()``, and
the window walk sees what actually renders (a ``tr()`` in the wrong context, a string built from
English pieces, a header from a model).
"""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QModelIndex, QTranslator
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QApplication,
    QGroupBox,
    QLabel,
    QLineEdit,
    QMenu,
    QTabWidget,
    QWidget,
)

REPO = Path(__file__).resolve().parents[2]
TS_DIR = REPO / "resources" / "translations" / "zh_CN"
BIN = Path(sys.executable).parent
sys.path.insert(0, str(REPO / "scripts"))
import i18n  # noqa: E402  (scripts/i18n.py: the same area map and lint the developers run)


def _messages(ts: Path) -> list[tuple[str, str, bool]]:
    out = []
    for context in ET.parse(ts).getroot().iter("context"):
        name = context.findtext("name") or ""
        for message in context.iter("message"):
            out.append((name, message.findtext("source") or "", message.get("numerus") == "yes"))
    return out


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The committed .ts files compiled now (what setup builds), so the check never reads a stale .qm."""
    qm = tmp_path_factory.mktemp("qm") / "dsh_zh_CN.qm"
    sources = sorted(map(str, TS_DIR.glob("*.ts")))
    assert sources, "no zh_CN translation sources"
    subprocess.run([str(BIN / "pyside6-lrelease"), "-silent", *sources, "-qm", str(qm)], check=True)
    return qm


def test_every_string_in_the_code_has_a_finished_chinese_translation(compiled: Path, tmp_path: Path) -> None:
    files = [f for group in i18n.gui_files().values() for f in group]
    fresh = tmp_path / "all.ts"
    subprocess.run(
        [str(BIN / "pyside6-lupdate"), *files, "-ts", str(fresh), "-locations", "none", "-silent"],
        cwd=REPO, check=True,
    )
    translator = QTranslator()
    assert translator.load(str(compiled))
    missing = []
    for context, source, numerus in _messages(fresh):
        text = translator.translate(context, source, None, 2 if numerus else -1)
        if not text:
            missing.append(f"[{context}] {source!r}")
    assert not missing, f"{len(missing)} strings without a zh_CN translation:\n" + "\n".join(missing[:60])


def test_translations_keep_their_placeholders() -> None:
    """A translation that drops ``{name}`` or ``%n`` would show the wrong text or crash format()."""
    bad = []
    for ts in TS_DIR.glob("*.ts"):
        for message in ET.parse(ts).getroot().iter("message"):
            source = message.findtext("source") or ""
            tr = message.find("translation")
            if tr is None:
                continue
            texts = [f.text or "" for f in tr.iter("numerusform")] or [tr.text or ""]
            want = sorted(re.findall(r"\{[a-z_0-9]*\}|%n|%\d", source))
            for text in texts:
                if text and sorted(re.findall(r"\{[a-z_0-9]*\}|%n|%\d", text)) != want:
                    bad.append(f"{ts.stem}: {source!r} -> {text!r}")
    assert not bad, "\n".join(bad)


def test_no_literal_string_reaches_a_widget_untranslated() -> None:
    problems = [p for f in sorted((REPO / "gui").rglob("*.py")) for p in i18n.lint_file(f)]
    assert not problems, f"{len(problems)} literals handed to widgets without tr():\n" + "\n".join(problems[:60])


# Words that stay as they are in the Chinese interface: names, file names, formats, protocols.
KEEP = re.compile(
    r"DSH Memory Manager|DSH|DeepSeek|MCP|Claude Code|Markdown|GLOBAL\.md|MEMORY\.md|settings\.ya?ml|"
    r"JSON|YAML|API|URL|HTTP|token|\bgit\b(?!@)|https?://\S+|--[\w-]+(?: [A-Z]+)?|"
    r"zstd|zip|Ctrl\+\S+|Qt|SHA-256|OpenAI|[\w.~<>-]*[/\\][\w./~<>-]*|\b[\w-]+\.(?:md|json|ya?ml|zip|ts|qm|py|txt|db|jsonl|zst)\b|\b[\w-]+-[\w-]+\b|\S+@\S+"
)
RICH_TAG = re.compile(r"</?(?:b|i|u|a|p|br|span|div|tt|code|small|big|font|ul|ol|li|table|tr|td|th|h\d)\b[^>]*>")
ENGLISH_PHRASE = re.compile(r"\b[A-Za-z]{3,}\b")


def _chrome_texts(root: QWidget) -> Iterator[tuple[str, str]]:
    """(where, text) for every visible piece of window chrome under ``root`` (not memory content)."""
    for widget in [root, *root.findChildren(QWidget)]:
        where = f"{type(widget).__name__}#{widget.objectName()}"
        if isinstance(widget, QLabel) and not widget.property("memoryContent"):
            yield where, widget.text()
        if isinstance(widget, QAbstractButton):
            yield where, widget.text()
        if isinstance(widget, QGroupBox):
            yield where, widget.title()
        if isinstance(widget, QLineEdit):
            yield where, widget.placeholderText()
        if isinstance(widget, QTabWidget):
            for i in range(widget.count()):
                yield where, widget.tabText(i)
        if isinstance(widget, QMenu):
            for action in widget.actions():
                yield where, action.text()
        if isinstance(widget, QAbstractItemView) and widget.model() is not None:
            model = widget.model()
            try:
                columns = model.columnCount(QModelIndex())
            except TypeError:  # Qt-internal models (a list view's) keep columnCount private
                columns = 0
            for col in range(columns):
                from PySide6.QtCore import Qt

                header = model.headerData(col, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
                if isinstance(header, str):
                    yield f"{where} header", header
        tip = widget.toolTip()
        if tip:
            yield f"{where} tooltip", tip


def english_in(text: str) -> str | None:
    plain = RICH_TAG.sub(" ", text).replace("&", "")
    plain = KEEP.sub(" ", plain)
    match = ENGLISH_PHRASE.search(plain)
    return match.group(0) if match else None


@pytest.fixture
def chinese_app(compiled: Path) -> Iterator[None]:
    app = QApplication.instance()
    assert isinstance(app, QApplication)
    from gui.i18n import TRANSLATIONS_DIR, install_translators, remove_translators

    translator = QTranslator()
    assert translator.load(str(compiled))
    app.installTranslator(translator)
    extra = install_translators(app, "zh_CN") if (TRANSLATIONS_DIR / "dsh_zh_CN.qm").exists() else []
    yield
    remove_translators(app, [translator, *extra])


def test_a_chinese_window_shows_no_english_chrome(chinese_app: None, demo_ctx: object, qtbot: object) -> None:
    from gui.main_window import MainWindow

    window = MainWindow(demo_ctx, watch=False)  # type: ignore[arg-type]
    window.resize(1360, 820)
    window.show()
    try:
        found: list[str] = []
        for index in range(window.tab_widget.count()):
            window.tab_widget.setCurrentIndex(index)
            QCoreApplication.processEvents()
            tab = window.tab_widget.widget(index)
            for where, text in _chrome_texts(tab):
                phrase = english_in(text)
                if phrase:
                    found.append(f"tab {index} {where}: {phrase!r} in {text[:300]!r}")
        for where, text in _chrome_texts(window.menuBar()):
            phrase = english_in(text)
            if phrase:
                found.append(f"menu {where}: {phrase!r}")
        for where, text in _chrome_texts(window.statusBar()):
            phrase = english_in(text)
            if phrase:
                found.append(f"status {where}: {phrase!r}")
        assert not sorted(set(found)), "English in the Chinese window:\n" + "\n".join(sorted(set(found))[:80])
    finally:
        window.shutdown()
        window.close()
        window.deleteLater()
