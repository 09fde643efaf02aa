"""Which language the window shows: the Settings choice, else the system locale."""

from PySide6.QtCore import QLocale

from gui.i18n import effective_language


def test_an_explicit_choice_wins_over_the_locale() -> None:
    chinese = QLocale(QLocale.Language.Chinese, QLocale.Country.China)
    assert effective_language("en", chinese) == "en"
    assert effective_language("zh_CN", QLocale(QLocale.Language.English)) == "zh_CN"


def test_system_follows_a_simplified_chinese_locale_only() -> None:
    assert effective_language("system", QLocale(QLocale.Language.Chinese, QLocale.Country.China)) == "zh_CN"
    assert effective_language("system", QLocale(QLocale.Language.Chinese, QLocale.Country.Singapore)) == "zh_CN"
    taiwan = QLocale(QLocale.Language.Chinese, QLocale.Script.TraditionalChineseScript, QLocale.Country.Taiwan)
    assert effective_language("system", taiwan) == "en"
    assert effective_language("system", QLocale(QLocale.Language.German)) == "en"


def test_english_says_one_record_and_six_records(qapp: object) -> None:
    """The sources say "record(s)"; the English plural forms setup builds resolve it by count."""
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtWidgets import QApplication

    from gui.i18n import install_translators, remove_translators

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    installed = install_translators(app, "en")
    try:
        assert installed, "scripts/setup.sh builds resources/translations/dsh_en.qm"
        assert QCoreApplication.translate("RecordsPanel", "%n record(s)", "", 1) == "1 record"
        assert QCoreApplication.translate("RecordsPanel", "%n record(s)", "", 6) == "6 records"
        assert QCoreApplication.translate("CommitFlow", "Committed %n change(s).", "", 1) == "Committed 1 change."
    finally:
        remove_translators(app, installed)
