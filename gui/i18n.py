"""The interface language: which translation the app installs at start-up.

Strings in ``gui/`` go through Qt's translation system (``self.tr`` in QObject classes,
``QCoreApplication.translate(context, text)`` elsewhere). Their Simplified Chinese sources are the
``.ts`` files in ``resources/translations/zh_CN/`` (one per area of the window, so parallel work
never edits the same file); ``scripts/i18n.py compile`` (run by ``scripts/setup.sh``) builds
``resources/translations/dsh_zh_CN.qm`` from them. Qt's own strings (standard dialog buttons,
context menus of text fields) come from the ``qtbase_zh_CN.qm`` that ships with PySide6.

The choice is a per-user preference (:mod:`core.user_prefs`): "system" follows the locale, and a
change in Settings applies on the next start (the window says so), because re-translating every
live widget in place would mean re-running every view's text code for a rare action.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QLibraryInfo, QLocale, QTranslator
from PySide6.QtWidgets import QApplication

from core.user_prefs import Language

TRANSLATIONS_DIR = Path(__file__).resolve().parent.parent / "resources" / "translations"


def effective_language(choice: Language, locale: QLocale | None = None) -> str:
    """``"zh_CN"`` or ``"en"``: the language the interface shows for ``choice``.

    "system" picks Simplified Chinese for any Chinese locale written in Simplified script (zh_CN,
    zh_SG, plain zh) and English otherwise — there is no Traditional Chinese translation yet, and
    English reads better to a zh_TW user than mainland wording presented as theirs.
    """
    if choice != "system":
        return choice
    locale = locale or QLocale.system()
    if locale.language() == QLocale.Language.Chinese and locale.script() != QLocale.Script.TraditionalChineseScript:
        return "zh_CN"
    return "en"


def install_translators(app: QApplication, language: str) -> list[QTranslator]:
    """Install the app's and Qt's translators for ``language``; returns them (keep them alive).

    English needs only its plural forms (``dsh_en.qm``: "1 record", "6 records"; the sources say
    "record(s)"). A missing ``.qm`` (setup not run) leaves the sources' text rather than failing
    to start.
    """
    installed: list[QTranslator] = []
    if language == "en":
        plurals = QTranslator(app)
        if plurals.load(str(TRANSLATIONS_DIR / "dsh_en.qm")):
            app.installTranslator(plurals)
            installed.append(plurals)
        return installed
    ours = QTranslator(app)
    if ours.load(str(TRANSLATIONS_DIR / f"dsh_{language}.qm")):
        app.installTranslator(ours)
        installed.append(ours)
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    qtbase = QTranslator(app)
    if qtbase.load(f"qtbase_{language}", qt_dir):
        app.installTranslator(qtbase)
        installed.append(qtbase)
    return installed


def remove_translators(app: QApplication, translators: list[QTranslator]) -> None:
    for translator in translators:
        app.removeTranslator(translator)
