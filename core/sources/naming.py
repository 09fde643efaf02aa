"""Record names for imported entries: valid kebab-case from any title (Chinese through pinyin), unique."""

from __future__ import annotations

from collections.abc import Collection

from core import pinyin_words
from core.records import NAME_RE, RESERVED_NAMES

MAX_NAME_CHARS = 60


def kebab_name(title: str, *, max_chars: int = MAX_NAME_CHARS) -> str:
    """``"React 18 升级计划"`` → ``"react-18-shengji-jihua"``; ``""`` when nothing usable is left.

    The same word rule as offline consolidation's names (:mod:`core.pinyin_words`): Chinese words
    in toneless pinyin, accents removed, every other run of characters one ``-``. Long names are
    cut at a word boundary.
    """
    slug = "-".join(pinyin_words.words(title))
    if len(slug) > max_chars:
        cut = slug[:max_chars]
        slug = cut.rsplit("-", 1)[0] if "-" in cut else cut
    return slug.strip("-")


def unique_name(base: str, taken: Collection[str], *, fallback: str = "imported") -> str:
    """``base`` (or ``fallback``) made valid and distinct from ``taken``: ``name``, ``name-2``, ``name-3``…"""
    name = base if base and NAME_RE.match(base) else fallback
    if name.lower() in RESERVED_NAMES:
        name = f"{name}-note"
    if name not in taken:
        return name
    n = 2
    while f"{name}-{n}" in taken:
        n += 1
    return f"{name}-{n}"
