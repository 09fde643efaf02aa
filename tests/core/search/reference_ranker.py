"""An independent reference for the rank groups of docs/search.md: plain Python over the raw texts,
no engine, no code of core.search. ``group(doc, query)`` is None when the document does not match,
else the group key (level, field points, terms matched): results must come in non-increasing keys.
"""

from __future__ import annotations

import re
import unicodedata

CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
WORD = re.compile(r"[^\W_]+(?:[-_.][^\W_]+)*")
_STOP_TEXT = "a an and are as at be by do does did for from how i in is it its of on or so that the this to"
STOP = frozenset(_STOP_TEXT.split(" "))


def norm(text: str) -> str:
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def sequence(text: str) -> list[str]:
    """Words in order (compounds cut into parts), every CJK run as its bigrams (or its one char)."""
    out: list[str] = []
    for run in re.split(f"({CJK.pattern}+)", norm(text)):
        if run and CJK.match(run):
            out += [run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)]
        else:
            out += re.findall(r"[^\W_]+", run)
    return out


def terms_of(text: str) -> set[str]:
    """Every term a text holds: its sequence, its compounds whole and without separators."""
    compounds = [w for w in WORD.findall(re.sub(f"{CJK.pattern}+", " ", norm(text))) if not w.isalnum()]
    return set(sequence(text)) | set(compounds) | {re.sub("[-_.]", "", c) for c in compounds}


def query_terms(query: str) -> list[str]:
    bare = query.replace('"', " ")
    compounds = [w for w in WORD.findall(re.sub(f"{CJK.pattern}+", " ", norm(bare))) if not w.isalnum()]
    seq = sequence(bare)
    words = list(dict.fromkeys([*(w for w in seq if not CJK.match(w)), *compounds]))
    content = [w for w in words if w not in STOP]  # (stopwords go unless no other word is left)
    return list(dict.fromkeys([*(content or words), *(w for w in seq if CJK.match(w))]))


def holds(seq: list[str], part: list[str]) -> bool:
    return any(seq[i : i + len(part)] == part for i in range(len(seq) - len(part) + 1))


def group(doc: dict[str, str], query: str) -> tuple[int, int, int] | None:
    full = "\n".join((doc["name"], doc["description"], doc["type"], doc["body"]))
    have, seq = terms_of(full), sequence(full)
    last = re.search(r"(?:^|\s)([a-z0-9]{3,})$", " ".join(norm(query.replace('"', " ")).split()))
    prefix = last.group(1) if last and not query[-1:].isspace() else None

    def found(t: str) -> bool:
        if t in have:
            return True
        if len(t) == 1 and CJK.match(t):
            return any(t in h and len(h) == 2 and CJK.match(h) for h in have)
        return t == prefix and any(h.startswith(t) and h.isascii() for h in have)

    terms = query_terms(query)
    covered = sum(map(found, terms))
    if not covered or not all(holds(seq, sequence(p)) for p in re.findall(r'"([^"]+)"', query)):
        return None
    fields = [(terms_of(doc["name"]), 4), (terms_of(doc["description"]), 2), (terms_of(doc["type"]), 1)]
    points = sum(pts for t in terms for field, pts in fields if t in field)
    squashed = re.sub(r"[\W_]+", "", norm(query))
    multi = len(terms) > 1 or '"' in query
    phrase = multi and holds(seq, sequence(query))
    level = 3 if re.sub(r"[\W_]+", "", norm(doc["name"])) == squashed else 2 if phrase else 0
    return (level, points, covered)
