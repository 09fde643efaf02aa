"""Record names for imported entries: valid kebab-case from any title (Chinese through pinyin), unique."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Collection

from core.records import NAME_RE, RESERVED_NAMES

MAX_NAME_CHARS = 60


def _ascii_words(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    kept = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in decomposed if not unicodedata.combining(ch))
    return kept.lower()


def kebab_name(title: str, *, max_chars: int = MAX_NAME_CHARS) -> str:
    """``"React 18 升级计划"`` → ``"react-18-sheng-ji-ji-hua"``; ``""`` when nothing usable is left.

    Chinese characters become their pinyin without tones (pypinyin), accented Latin letters lose
    their accents, every other run of characters becomes one ``-``. Long names are cut at a word
    boundary.
    """
    from pypinyin import lazy_pinyin

    text = unicodedata.normalize("NFKC", title)
    parts = lazy_pinyin(text, errors="default")
    slug = re.sub(r"-+", "-", "-".join(_ascii_words(p) for p in parts)).strip("-")
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
