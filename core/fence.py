"""The untrusted-data fence around memory text an agent reads (recall, MCP tool results).

Memory is wrapped in ``<<<BEGIN UNTRUSTED DSH MEMORY>>>`` / ``<<<END UNTRUSTED DSH MEMORY>>>``.
Text inside must never be able to close the fence: a look-alike of either marker inside memory is
replaced by :data:`REMOVED`.

Why look-alike folding and not a per-call nonce in the marker: recall is deterministic by contract
(same index state and arguments give the same bytes; agents and tests compare them), and a random
marker breaks that. Folding keeps the output stable and removes what a model would read as a marker:

- format characters (Unicode category Cf: zero-width space/joiner, BOM, soft hyphen, bidi marks)
  and combining marks are dropped, so ``E\u200bND`` is ``END``;
- NFKC folds compatibility forms: fullwidth ``ＥＮＤ``, mathematical ``𝐄𝐍𝐃``, ``﹤``;
- Cyrillic and Greek letters that look like Latin ones (``Е``, ``Ν``, ``Т``…) are folded to them;
- the marker's words may be separated by anything that is not a letter or digit (``END_UNTRUSTED``,
  ``END-UNTRUSTED``, a newline) and be in any case; the angle brackets are not required (a model
  reads ``END UNTRUSTED DSH MEMORY`` as the marker either way).
"""

from __future__ import annotations

import re
import unicodedata

from core.secrets import redact

BEGIN = "<<<BEGIN UNTRUSTED DSH MEMORY>>>"
END = "<<<END UNTRUSTED DSH MEMORY>>>"
REMOVED = "[recall marker removed]"

# Letters from other scripts that render like the Latin capitals of the marker's words (and the
# rest of the Latin alphabet with a common twin): Cyrillic, Greek, a few Latin small capitals.
_CONFUSABLES = str.maketrans(
    {
        # Cyrillic
        "А": "A", "а": "a", "В": "B", "в": "b", "Е": "E", "е": "e", "Ё": "E", "ё": "e", "К": "K",
        "к": "k", "М": "M", "м": "m", "Н": "H", "н": "h", "О": "O", "о": "o", "Р": "P", "р": "p",
        "С": "C", "с": "c", "Т": "T", "т": "t", "У": "Y", "у": "y", "Х": "X", "х": "x", "Ѕ": "S",
        "ѕ": "s", "І": "I", "і": "i", "Ј": "J", "ј": "j", "Ԁ": "D", "ԁ": "d", "Ү": "Y", "ү": "y",
        "Ѵ": "V", "ѵ": "v", "Ԛ": "Q", "ԛ": "q", "Ԝ": "W", "ԝ": "w", "Һ": "h", "һ": "h", "Ӏ": "I",
        "ӏ": "l", "Ԍ": "G", "ԍ": "g", "Ո": "U", "Ս": "U", "ս": "u", "Ռ": "N", "П": "N", "п": "n",
        "Ц": "U", "и": "u", "И": "N", "Г": "r", "г": "r",
        # Greek
        "Α": "A", "α": "a", "Β": "B", "β": "b", "Ε": "E", "ε": "e", "Ζ": "Z", "Η": "H", "Ι": "I",
        "ι": "i", "Κ": "K", "κ": "k", "Μ": "M", "Ν": "N", "ν": "v", "Ο": "O", "ο": "o", "Ρ": "P",
        "ρ": "p", "Τ": "T", "τ": "t", "Υ": "Y", "υ": "u", "Χ": "X", "χ": "x", "Δ": "D", "Σ": "S",
        "μ": "u",
        # Latin small capitals and look-alikes NFKC leaves alone
        "ᴀ": "A", "ʙ": "B", "ᴄ": "C", "ᴅ": "D", "ᴇ": "E", "ɢ": "G", "ʜ": "H", "ɪ": "I", "ᴊ": "J",
        "ᴋ": "K", "ʟ": "L", "ᴍ": "M", "ɴ": "N", "ᴏ": "O", "ᴘ": "P", "ʀ": "R", "ꜱ": "S", "ᴛ": "T",
        "ᴜ": "U", "ᴠ": "V", "ᴡ": "W", "ʏ": "Y", "ᴢ": "Z", "ı": "i",
    }
)

_SEP = r"[\W_]*"  # anything between letters that is not a letter or digit (spaces, _, -, newlines)


def _spelled(word: str) -> str:
    return _SEP.join(re.escape(c) for c in word)


# The words only: the brackets around them may stay (``<<<[recall marker removed]>>>`` closes
# nothing), and optional bracket runs around ``[\W_]*`` would backtrack exponentially on ``<<<<…``.
_MARKER = re.compile(
    r"(?:" + _spelled("BEGIN") + "|" + _spelled("END") + r")"
    + _SEP + _spelled("UNTRUSTED") + _SEP + _spelled("DSH") + _SEP + _spelled("MEMORY"),
    re.IGNORECASE,
)


def _folded(text: str) -> tuple[str, list[int] | None]:
    """``text`` folded as the module doc says, and where each folded character came from."""
    if text.isascii():  # nearly all memory: nothing to fold
        return text, None
    out: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if ch.isascii():
            out.append(ch)
            origin.append(i)
            continue
        category = unicodedata.category(ch)
        if category == "Cf" or category.startswith("M"):
            continue
        norm = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", ch)).translate(_CONFUSABLES)
        norm = "".join(c for c in norm if not unicodedata.category(c).startswith("M"))
        out.append(norm)
        origin.extend([i] * len(norm))
    origin.append(len(text))
    return "".join(out), origin


def defuse(text: str) -> str:
    """``text`` with every look-alike of the fence's markers replaced by :data:`REMOVED`."""
    folded, origin = _folded(text)
    spans = [(m.start(), m.end()) for m in _MARKER.finditer(folded) if m.end() > m.start()]
    if not spans:
        return text
    parts: list[str] = []
    pos = 0
    for start, end in spans:
        if origin is not None:
            start, end = origin[start], origin[end - 1] + 1
        parts.append(text[pos:start])
        parts.append(REMOVED)
        pos = max(pos, end)
    parts.append(text[pos:])
    return "".join(parts)


def clean(text: str) -> str:
    """Memory text made safe to put inside the fence: credentials redacted, markers defused."""
    return defuse(redact(text))
