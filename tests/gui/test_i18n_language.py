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
