"""Searchable documents: a workspace record or a Global section, as the index hands them back."""

from __future__ import annotations

from core.frozen import Frozen

TYPE_CHECKING = False  # (mypy reads this name as True; ``typing`` stays out of a one-shot CLI's start-up)
if TYPE_CHECKING:
    from typing import Any


class Doc(Frozen):
    """One searchable unit, read back from the index's stored fields."""

    scope_key: str
    cwd: str
    archived: bool
    kind: str  # "record" | "global_section"
    name: str
    description: str
    type: str
    body: str
    file_name: str
    section_index: int
    mtime_ns: int


class GlobalSection(Frozen):
    heading: str  # "" for text before the first heading
    text: str  # the section's text under its heading line (heading line excluded)
    index: int


_MD: list[Any] = []  # the parser, made on first use (importing markdown-it costs a one-shot CLI search)


def split_global_sections(text: str) -> list[GlobalSection]:
    """``GLOBAL.md`` cut at every Markdown heading (ATX or setext, not inside code fences).

    Text before the first heading is a section with an empty heading when it is not blank.
    """
    lines = text.splitlines(keepends=True)
    heads: list[tuple[int, int, str]] = []  # (first line, line after heading, title)
    if not _MD:
        from markdown_it import MarkdownIt

        _MD.append(MarkdownIt("commonmark"))
    tokens = _MD[0].parse(text)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.map is not None:
            title = tokens[i + 1].content if i + 1 < len(tokens) else ""
            heads.append((tok.map[0], tok.map[1], title.strip()))
    sections: list[GlobalSection] = []
    first = heads[0][0] if heads else len(lines)
    pre = "".join(lines[:first])
    if pre.strip():
        sections.append(GlobalSection(heading="", text=pre, index=0))
    for n, (_start, after, title) in enumerate(heads):
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        sections.append(GlobalSection(heading=title, text="".join(lines[after:end]), index=len(sections)))
    return sections
