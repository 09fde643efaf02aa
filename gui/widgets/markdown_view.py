"""Rendered Markdown (markdown-it-py with tables, strikethrough and task lists)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from PySide6.QtWidgets import QTextBrowser, QWidget

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

_CSS = """
body { line-height: 140%; }
h1, h2, h3 { color: #1f3a5f; margin-top: 12px; }
code, pre { font-family: 'DejaVu Sans Mono', 'WenQuanYi Micro Hei Mono', monospace; background: #f3f4f6; }
pre { padding: 6px; }
table { border-collapse: collapse; margin: 6px 0; }
th, td { border: 1px solid #c8ccd2; padding: 3px 8px; }
th { background: #eef1f5; }
blockquote { color: #555; border-left: 3px solid #ccc; padding-left: 8px; margin-left: 0; }
ul.contains-task-list { list-style-type: none; }
"""


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    from markdown_it import MarkdownIt  # imported on first render (on a worker at start-up)
    from mdit_py_plugins.tasklists import tasklists_plugin

    # html=False: memory text is untrusted data, so raw HTML is shown as text, never interpreted.
    return (
        MarkdownIt("commonmark", {"html": False, "linkify": False})
        .enable("table")
        .enable("strikethrough")
        .use(tasklists_plugin)
    )


@lru_cache(maxsize=4)
def render_markdown(text: str) -> str:
    """The preview HTML of ``text``. Cached, so a worker can render ahead of the GUI thread."""
    html = _parser().render(text)
    # Qt's rich-text engine has no <input>: draw task-list boxes as characters instead.
    html = html.replace(
        '<input class="task-list-item-checkbox" checked="checked" disabled="disabled" type="checkbox">', "☑"
    ).replace('<input class="task-list-item-checkbox" disabled="disabled" type="checkbox">', "☐")
    return f"<html><head><style>{_CSS}</style></head><body>{html}</body></html>"


class MarkdownPreview(QTextBrowser):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenExternalLinks(False)
        self.setOpenLinks(False)
        self._shown: str | None = None

    @property
    def shown_text(self) -> str | None:
        """The Markdown the preview shows now (None before the first)."""
        return self._shown

    def set_markdown(self, text: str) -> None:
        """Render here, on the calling thread (the Global tab renders on a worker, then ``show_rendered``)."""
        self.show_rendered(text, render_markdown(text))

    def show_rendered(self, text: str, html: str) -> None:
        """Show ``html``, the rendering of ``text`` (from ``render_markdown``), keeping the scroll position."""
        if text == self._shown:
            return  # rendering 20 KB costs ~0.1 s: never twice for the same text
        self._shown = text
        bar = self.verticalScrollBar()
        pos = bar.value()
        self.setHtml(html)
        bar.setValue(pos)
