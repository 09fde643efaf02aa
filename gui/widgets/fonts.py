"""Application fonts with a CJK fallback, so English and Chinese text both render everywhere."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase
from PySide6.QtWidgets import QApplication

# Tried in order; Qt falls back per glyph along this list (Chinese glyphs come from WenQuanYi/Noto).
UI_FAMILIES = [
    "Noto Sans",
    "DejaVu Sans",
    "Segoe UI",
    "Helvetica Neue",
    "WenQuanYi Micro Hei",
    "Noto Sans CJK SC",
    "Microsoft YaHei",
    "PingFang SC",
]
MONO_FAMILIES = [
    "DejaVu Sans Mono",
    "Noto Sans Mono",
    "Consolas",
    "Menlo",
    "WenQuanYi Micro Hei Mono",
    "WenQuanYi Micro Hei",
    "Noto Sans Mono CJK SC",
]


def _available(families: list[str]) -> list[str]:
    known = set(QFontDatabase.families())
    found = [f for f in families if f in known]
    return found or families


def apply_app_fonts(app: QApplication, point_size: int = 10) -> None:
    font = QFont(app.font())
    font.setFamilies(_available(UI_FAMILIES))
    if font.pointSize() <= 0 or font.pointSize() < point_size:
        font.setPointSize(point_size)
    app.setFont(font)


def monospace_font(point_size: int = 10) -> QFont:
    font = QFont()
    font.setFamilies(_available(MONO_FAMILIES))
    font.setStyleHint(QFont.StyleHint.Monospace)
    font.setFixedPitch(True)
    font.setPointSize(point_size)
    return font
