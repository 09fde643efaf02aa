"""Search hits over all memory, as a list (title, where, snippet)."""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractListModel, QModelIndex, QPersistentModelIndex, Qt

from gui.qtmodels.roles import ITEM_ROLE, KEY_ROLE

if TYPE_CHECKING:
    from core.sources.models import ForeignEntry

_Index = QModelIndex | QPersistentModelIndex


@dataclass(frozen=True)
class SearchHit:
    """Where a hit lives: ``scope_key`` None means GLOBAL.md; ``name`` is the record (or section)."""

    scope_key: str | None
    name: str
    where: str  # workspace display name or "Global"
    snippet: str = ""
    score: float = 0.0
    foreign: ForeignEntry | None = None  # a hit in another memory store (read-only; ``where`` names it)

    @property
    def ident(self) -> str:
        if self.foreign is not None:
            return f"{self.foreign.source}/{self.foreign.scope}/{self.foreign.id}"
        return f"{self.scope_key or 'GLOBAL'}/{self.name}"


def _is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff"


def terms_of(query: str) -> list[str]:
    """The words of a query to highlight (longest first, so "build-steps" wins over "build").

    Chinese has no spaces: a run of Han characters also gives its two-character pieces, the way the
    search index matches it (so "打包为什么慢" highlights "打包" in a hit)."""
    words = {w.strip("\"'“”()[]？?。，,") for w in query.split()}
    for w in list(words):
        run = ""
        for ch in w + " ":
            if _is_cjk(ch):
                run += ch
                continue
            if len(run) > 2:
                words.update(run[i : i + 2] for i in range(len(run) - 1))
            run = ""
    return sorted((w for w in words if w), key=len, reverse=True)


def _spans(text: str, terms: list[str]) -> list[tuple[int, int]]:
    low = text.lower()
    spans: list[tuple[int, int]] = []
    for term in terms:
        t = term.lower()
        start = low.find(t)
        while t and start >= 0:
            end = start + len(t)
            if not any(a < end and start < b for a, b in spans):
                spans.append((start, end))
            start = low.find(t, end)
    return sorted(spans)


def highlight(text: str, terms: list[str]) -> str:
    """``text`` as HTML with every (case-insensitive) occurrence of ``terms`` marked."""
    out, pos = [], 0
    for start, end in _spans(text, terms):
        out.append(html.escape(text[pos:start]))
        out.append(f"<span style='background:#ffe58a;color:#000'>{html.escape(text[start:end])}</span>")
        pos = end
    out.append(html.escape(text[pos:]))
    return "".join(out)


def excerpt(snippet: str, terms: list[str], before: int = 24) -> str:
    """One line of ``snippet`` that starts shortly before its first match (so the match shows)."""
    text = " ".join(snippet.split())
    spans = _spans(text, terms)
    if not spans or spans[0][0] <= before:
        return text
    cut = text.rfind(" ", 0, spans[0][0] - before // 2)
    start = cut + 1 if cut > spans[0][0] - 2 * before else spans[0][0] - before
    return "…" + text[max(start, 0) :]


class SearchResultsModel(QAbstractListModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._hits: list[SearchHit] = []

    def set_hits(self, hits: list[SearchHit]) -> None:
        self.beginResetModel()
        self._hits = list(hits)
        self.endResetModel()

    def hit(self, row: int) -> SearchHit:
        return self._hits[row]

    def rowCount(self, parent: _Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._hits)

    def data(self, index: _Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not (0 <= index.row() < len(self._hits)):
            return None
        h = self._hits[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            snippet = " ".join(h.snippet.split())
            if len(snippet) > 90:
                snippet = snippet[:89] + "…"
            return f"{h.name}  ·  {h.where}" + (f"\n{snippet}" if snippet else "")
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{h.where}: {h.name}\n{' '.join(h.snippet.split())[:400]}"
        if role == KEY_ROLE:
            return h.ident
        if role == ITEM_ROLE:
            return h
        return None
