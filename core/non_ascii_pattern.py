"""``NonAsciiPattern``: a regex that can only match non-ASCII text, compiled when first needed."""

from __future__ import annotations

import re


class NonAsciiPattern:
    """A regex that can only match non-ASCII characters, compiled on first use with non-ASCII text.

    Why: a character class over the CJK blocks takes CPython 1.5-3 ms to compile, at import of every
    process, and a one-shot ``dsh-memory search`` for an ASCII query never needs one (issue 24).
    ASCII text is answered at once (no match), which is exact since the pattern matches no ASCII."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self._compiled: re.Pattern[str] | None = None

    def _re(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self.pattern)
        return self._compiled

    def match(self, text: str) -> re.Match[str] | None:
        return None if text.isascii() else self._re().match(text)

    def fullmatch(self, text: str) -> re.Match[str] | None:
        return None if text.isascii() else self._re().fullmatch(text)

    def search(self, text: str) -> re.Match[str] | None:
        return None if text.isascii() else self._re().search(text)

    def findall(self, text: str) -> list[str]:
        return [] if text.isascii() else self._re().findall(text)

    def sub(self, repl: str, text: str) -> str:
        return text if text.isascii() else self._re().sub(repl, text)

    def split(self, text: str) -> list[str]:
        return [text] if text.isascii() else self._re().split(text)
