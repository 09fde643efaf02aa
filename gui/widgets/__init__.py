"""Widgets shared by the tabs: diff view, Markdown preview, message banner, status line, fonts."""

from gui.widgets.banner import Banner
from gui.widgets.diff_view import DiffView, unified_diff
from gui.widgets.fonts import apply_app_fonts, monospace_font
from gui.widgets.markdown_view import MarkdownPreview, render_markdown
from gui.widgets.messages import describe_error, format_size
from gui.widgets.status_bar import RootStatusBar

__all__ = [
    "Banner",
    "DiffView",
    "MarkdownPreview",
    "RootStatusBar",
    "apply_app_fonts",
    "describe_error",
    "format_size",
    "monospace_font",
    "render_markdown",
    "unified_diff",
]
