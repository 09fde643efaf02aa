"""Rendered Markdown (markdown-it-py with tables, strikethrough and task lists)."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from typing import TYPE_CHECKING

from PySide6.QtGui import QResizeEvent, QTextBlock
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


# Block tokens whose source line becomes an anchor (``id="L<line>"``) in the HTML, so the preview
# can scroll to where the editor is (Qt's rich text keeps an ``id`` as an anchor name on the block).
_ANCHORED = {"paragraph_open", "heading_open", "list_item_open", "blockquote_open", "fence", "code_block", "hr"}
_CELLS = {"th_open", "td_open"}
LINE_ANCHOR = re.compile(r"L(\d+)$")


@lru_cache(maxsize=4)
def render_markdown(text: str) -> str:
    """The preview HTML of ``text``. Cached, so a worker can render ahead of the GUI thread."""
    md = _parser()
    tokens = md.parse(text)
    row_line: int | None = None  # a table row's line goes on its first cell (Qt drops ids on <tr>)
    for tok in tokens:
        if tok.type == "tr_open" and tok.map:
            row_line = tok.map[0]
        elif tok.type in _CELLS and row_line is not None:
            tok.attrSet("id", f"L{row_line}")
            row_line = None
        elif tok.type in _ANCHORED and tok.map and tok.attrGet("id") is None:
            tok.attrSet("id", f"L{tok.map[0]}")
    html = md.renderer.render(tokens, md.options, {})
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
        self._anchors: list[tuple[int, float]] | None = None  # (source line, y), built on first use

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
        self._anchors = None
        bar.setValue(pos)

    def _line_positions(self) -> list[tuple[int, float]]:
        """Where each anchored source line starts in the rendered document, in line order."""
        doc = self.document()
        if doc.textWidth() <= 0:
            return []  # not laid out yet (never shown): nothing to follow
        if self._anchors is None:
            layout = doc.documentLayout()
            found: dict[int, float] = {}
            block = doc.begin()
            while block.isValid():
                for name in block.charFormat().anchorNames() or self._fragment_anchors(block):
                    m = LINE_ANCHOR.match(name)
                    if m:
                        found.setdefault(int(m.group(1)), layout.blockBoundingRect(block).top())
                block = block.next()
            self._anchors = sorted(found.items())
        return self._anchors

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        self._anchors = None  # a new width re-wraps the text: positions change

    @staticmethod
    def _fragment_anchors(block: QTextBlock) -> list[str]:
        names: list[str] = []
        it = block.begin()
        while not it.atEnd():
            names += it.fragment().charFormat().anchorNames()
            it += 1
        return names

    def scroll_to_source_line(self, line: float) -> None:
        """Scroll so that what source line ``line`` (0-based, fractional) renders to is at the top."""
        anchors = self._line_positions()
        bar = self.verticalScrollBar()
        if not anchors:
            return
        i = bisect_right([a for a, _ in anchors], line) - 1
        if i < 0:
            y = 0.0
        elif i + 1 < len(anchors):
            (l0, y0), (l1, y1) = anchors[i], anchors[i + 1]
            y = y0 + (y1 - y0) * (line - l0) / max(1, l1 - l0)
        else:
            y = anchors[i][1]
        bar.setValue(min(bar.maximum(), int(y)))
