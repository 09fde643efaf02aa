"""Words of a text as lowercase ASCII, Chinese words spelled in pinyin: the one rule every generated
record name follows (offline consolidation, imports), so ``简洁的回答`` is ``jianjie-de-huida``-like
everywhere rather than per-character syllables in one place and words in another.

Chinese is segmented into words with rjieba (its dictionary loads in ~0.4 s, so only when the text
holds Chinese); each word's syllables are joined without tones. Other text is split on anything
that is not a letter or digit, accents removed.
"""

from __future__ import annotations

import re
import unicodedata


def has_cjk(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" or "\u3400" <= ch <= "\u4dbf" for ch in text)


def ascii_words(text: str) -> list[str]:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    return re.findall(r"[a-z0-9]+", ascii_text.replace("'", ""))


def words(text: str, *, skip: frozenset[str] = frozenset()) -> list[str]:
    """The words of ``text`` in reading order; Chinese words in ``skip`` (function words) left out."""
    text = unicodedata.normalize("NFKC", text)
    if not has_cjk(text):
        return ascii_words(text)
    import rjieba
    from pypinyin import lazy_pinyin

    out: list[str] = []
    for token in rjieba.cut(text):
        if has_cjk(token):
            if token not in skip:
                out += ascii_words("".join(lazy_pinyin(token)))
        else:
            out += ascii_words(token)
    return out
